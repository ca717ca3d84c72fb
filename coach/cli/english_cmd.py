"""`coach english`: corrections of the English of a text, offline and deterministic (DESIGN.md).

One JSON object per text: {"id"?, "text", "corrections": [{"start", "end", "wrong", "right", "kind", "why",
"why_ko"}], "corrected"}; `wrong == text[start:end]`; a text mostly in Korean gets no corrections and
`"language": "ko"`. Bad input is handled as `coach score` handles it.
"""

from __future__ import annotations

from coach.cli import jsonl
from coach.errors import EmptyAnswerError


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
    jsonl.add_text_source(parser, one="text")
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
    return jsonl.run_texts(args, correct, noun="texts")
