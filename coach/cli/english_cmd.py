"""`coach english`: corrections of the English of a text, offline and deterministic (DESIGN.md).

One JSON object per text: {"id"?, "text", "corrections": [{"start", "end", "wrong", "right", "kind", "why",
"why_ko"}], "corrected"}; `wrong == text[start:end]`; a text mostly in Korean gets no corrections and
`"language": "ko"`. Bad input is handled as `coach score` handles it.
"""

from __future__ import annotations

import json
from pathlib import Path

from coach.cli import jsonl
from coach.content import read_utf8, text_problem
from coach.errors import CoachError, EmptyAnswerError


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "english",
        help="correct the English of a text (grammar and word choice, with reasons in English and Korean)",
        description=(
            "Corrections of the errors Korean speakers make most: `{\"text\", \"corrections\": [{\"start\", \"end\", "
            "\"wrong\", \"right\", \"kind\", \"why\", \"why_ko\"}], \"corrected\"}`; a Korean text gets "
            "`\"language\": \"ko\"` and no corrections."
        ),
    )
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--text")
    source.add_argument("--file", type=Path, help="a text file holding one text")
    source.add_argument("--jsonl", type=Path, help='lines {"id": ..., "text": ...}')
    parser.add_argument("--format", choices=["json"], default="json")
    parser.set_defaults(handler=run)


def correct(text: str, text_id=None) -> dict:
    from scoring import MAX_SCORED_CHARS, english

    if not text or not text.strip():
        raise EmptyAnswerError("the text is empty")
    text = text[:MAX_SCORED_CHARS]  # as `coach score`: a longer text is read up to here
    out = {} if text_id is None else {"id": text_id}
    out.update(english.review(text).to_json_dict())
    return out


def run(args) -> int:
    from scoring import MAX_SCORED_CHARS

    if args.jsonl is None:
        text = args.text if args.text is not None else read_utf8(args.file, MAX_SCORED_CHARS * 4)
        if problem := text_problem(text):
            raise CoachError(f"--text: {problem}")
        print(json.dumps(correct(text), ensure_ascii=False))
        return 0
    return jsonl.run_batch(args.jsonl, lambda item: correct(item.get("text") or "", item.get("id")), noun="texts")
