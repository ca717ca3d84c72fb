"""`coach politeness`: request politeness as strategies, offline and deterministic (DESIGN.md).

One JSON object per request: {"id"?, "score", "polite", "strategies": [{"name", "evidence"}],
"impolite"?: [{"name", "evidence", "sounds", "sounds_ko"}], "suggestion"?}. `impolite` names what
makes the request impolite and how it sounds; `suggestion`, a softer wording, is there only for an
impolite request that can be reworded. With `--moment` a line is judged as said in a meeting
moment, the decision the `politeness` detector of the cards makes.
"""

from __future__ import annotations

from coach.cli import jsonl
from coach.errors import EmptyAnswerError


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "politeness",
        help="score requests for politeness (strategies with evidence, a verdict, a softer wording)",
        description=(
            "Request politeness: score, `polite`, the strategies found with verbatim evidence, what "
            "makes it impolite with how it sounds (`impolite`), and a softer `suggestion`; `--moment` "
            "judges a line said in a meeting moment, as the cards do (a plain line is polite there)."
        ),
    )
    jsonl.add_text_source(parser, one="request")
    parser.add_argument("--moment", action="store_true",
                        help="judge lines said in a meeting moment (the cards' decision), not written requests")
    parser.add_argument("--format", choices=["json"], default="json")
    parser.set_defaults(handler=run)


def judge(text: str, request_id=None, moment: bool = False) -> dict:
    from scoring import MAX_SCORED_CHARS, politeness

    if not text or not text.strip():
        raise EmptyAnswerError("the request is empty")
    text = text[:MAX_SCORED_CHARS]  # as `coach score`: a longer request is judged on its start
    verdict = politeness.assess(text, moment=moment)
    out = {} if request_id is None else {"id": request_id}
    out.update(score=verdict.score, polite=verdict.polite, strategies=[f.to_json_dict() for f in verdict.strategies])
    if verdict.impolite:
        out["impolite"] = [
            {**f.to_json_dict(), "sounds": english, "sounds_ko": korean}
            for f in verdict.impolite
            for english, korean in [politeness.sounds(f.name, f.cue)]
        ]
    if not verdict.polite and (suggestion := politeness.suggest(text, moment=moment)):
        out["suggestion"] = suggestion
    return out


def run(args) -> int:
    return jsonl.run_texts(args, lambda text, request_id: judge(text, request_id, args.moment), noun="requests")
