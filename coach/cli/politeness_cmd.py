"""`coach politeness`: request politeness as strategies, offline and deterministic (DESIGN.md).

One JSON object per request: {"id"?, "score", "polite", "strategies": [{"name", "evidence"}],
"suggestion"?}. `suggestion`, a softer wording, is there only for an impolite request that can
be reworded. The `politeness` detector of the cards makes the same decision.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from coach.errors import CoachError, EmptyAnswerError

MAX_CHARS = 20_000  # as `coach score`: longer requests are judged on their first 20,000 characters


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "politeness", help="score requests for politeness (strategies with evidence, a verdict, a softer wording)"
    )
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--text")
    source.add_argument("--file", type=Path, help="a text file holding one request")
    source.add_argument("--jsonl", type=Path, help='lines {"id": ..., "text": ...}')
    parser.add_argument("--format", choices=["json"], default="json")
    parser.set_defaults(handler=run)


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CoachError(f"cannot read {path}: {exc}") from None


def judge(text: str, request_id=None) -> dict:
    from scoring import politeness

    if not text or not text.strip():
        raise EmptyAnswerError("the request is empty")
    text = text[:MAX_CHARS]
    verdict = politeness.assess(text)
    out = {} if request_id is None else {"id": request_id}
    out.update(score=verdict.score, polite=verdict.polite, strategies=[f.to_json_dict() for f in verdict.strategies])
    if not verdict.polite and (suggestion := politeness.suggest(text)):
        out["suggestion"] = suggestion
    return out


def run(args) -> int:
    if args.jsonl is None:
        text = args.text if args.text is not None else _read(args.file)
        print(json.dumps(judge(text), ensure_ascii=False))
        return 0
    lines = [(n, line) for n, line in enumerate(_read(args.jsonl).splitlines(), start=1) if line.strip()]
    if not lines:
        raise EmptyAnswerError(f"{args.jsonl} holds no requests")
    failures = 0
    for number, line in lines:
        try:
            item = json.loads(line)
            if not isinstance(item, dict):
                raise ValueError("not an object")
            result = judge(str(item.get("text") or ""), item.get("id"))
        except (ValueError, CoachError) as exc:
            failures += 1
            print(f"{args.jsonl}:{number}: {exc}", file=sys.stderr)
            continue
        print(json.dumps(result, ensure_ascii=False))
    return 1 if failures else 0
