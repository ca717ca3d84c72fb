"""`coach score`: offline, deterministic scoring of answers (DESIGN.md contract)."""

from __future__ import annotations

import json
from pathlib import Path

import scoring
from coach.cli import jsonl
from coach.config import load_settings
from coach.content.text_input import read_utf8, text_problem
from coach.errors import CoachError, EmptyAnswerError
from coach.library import default_library


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "score",
        help="score answers against a card's rubric",
        description=(
            "Offline, deterministic scorecards; `--jsonl` prints one per line, in order, and names "
            "each bad line (`path:line: why`) while the others go on."
        ),
    )
    parser.add_argument("--card", required=True)
    parser.add_argument("--turn", help="turn id (default: the card's first turn)")
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--text")
    source.add_argument("--file", type=Path, help="a text file holding one answer")
    source.add_argument("--jsonl", type=Path, help='lines {"id": ..., "text": ..., "turn"?: ...}')
    parser.add_argument("--format", choices=["json"], default="json")
    parser.add_argument("--llm", action="store_true", help="add the configured LLM as a second opinion")
    parser.set_defaults(handler=run)


def _score_one(card, turn, text, answer_id, use_llm, settings) -> dict:
    if not text or not text.strip():
        raise EmptyAnswerError("the answer is empty")
    try:
        scorecard = scoring.score(card, turn, text, answer_id=answer_id)
    except CoachError:
        raise
    except Exception as exc:  # a card whose detector fails (`coach validate` scores every card to find them)
        detail = (str(exc).splitlines() or [""])[0]
        raise CoachError(f"scoring card {card.id!r} fails ({type(exc).__name__}: {detail}); "
                         "`coach validate` names its file and line") from exc
    if use_llm:
        from coach.llm_judge import judge

        scorecard = judge(settings, card, scorecard.turn, text, scorecard)
    return scorecard.to_json_dict()


def run(args) -> int:
    settings = load_settings()
    card = default_library().current_card(args.card)
    if args.turn:
        card.turn(args.turn)  # an unknown turn fails before any input is read
    if args.jsonl is None:
        text = args.text if args.text is not None else read_utf8(args.file, scoring.MAX_SCORED_CHARS * 4)
        if problem := text_problem(text):
            raise CoachError(f"--text: {problem}")
        print(json.dumps(_score_one(card, args.turn, text, None, args.llm, settings), ensure_ascii=False))
        return 0
    return jsonl.run_batch(
        args.jsonl,
        lambda item: _score_one(card, item.get("turn") or args.turn, item.get("text") or "", item.get("id"),
                                args.llm, settings),
        optional=("turn",),
        prepare=lambda items: scoring.parse_ahead(
            card, [(item.get("turn") or args.turn, item["text"]) for item in items if isinstance(item.get("text"), str)]
        ),
        workers=1 if args.llm else jsonl.default_workers(),  # LLM calls stay in one process
    )

