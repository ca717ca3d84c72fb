"""`coach validate` and `coach cards`."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from coach.config import load_settings
from coach.content.schema import Card, CardSummary, summary_of
from coach.library import library_for, load_library
from coach.validation import scoring_problems


def register(subparsers) -> None:
    validate = subparsers.add_parser(
        "validate",
        help="check content packs, personas and your own cards",
        description=(
            "Checks content packs, personas and your own cards; prints `path:line: message` per "
            "problem and exits 1 when there is one."
        ),
    )
    validate.add_argument("paths", nargs="*", type=Path,
                          help="files or folders (default: content/, personas/ and the data dir's cards/)")
    validate.set_defaults(handler=run_validate)

    cards = subparsers.add_parser(
        "cards",
        help="list the practice cards",
        description="The practice cards; your own are marked `\"personal\": true` in JSON.",
    )
    cards.add_argument("--kind", choices=["meeting", "interview"])
    cards.add_argument("--format", choices=["json", "table"], default="table")
    cards.set_defaults(handler=run_cards)


def run_validate(args) -> int:
    settings = load_settings()
    if args.paths:
        personas = [p for p in settings.persona_dirs if p.exists()]
        library = load_library([], personas, check_paths=args.paths)
        library.problems += scoring_problems(library)
        checked = {str(p) for p in args.paths}
        library.problems = [
            p for p in library.problems
            if any(p.path == c or p.path.startswith(c.rstrip("/") + "/") for c in checked)
        ]
    else:
        library = library_for(settings)
        library.problems += scoring_problems(library)  # each card scored once (coach.validation)
    for problem in library.problems:
        print(problem)
    if library.problems:
        print(f"{len(library.problems)} problem(s)", file=sys.stderr)
        return 1
    scenes = f", {len(library.scenes)} scenes" if library.scenes else ""
    print(f"ok: {len(library.cards)} cards{scenes}, {len(library.personas)} personas, no problems")
    return 0


def card_summary(card: Card | CardSummary) -> dict:
    """A card as `coach cards --format json` lists it."""
    return (card if isinstance(card, CardSummary) else summary_of(card)).to_json()


def run_cards(args) -> int:
    settings = load_settings()
    library = library_for(settings)
    cards = library.summaries(args.kind)  # own cards from their folder's index: no Card is built
    for problem in library.problems:
        print(f"warning: {problem}", file=sys.stderr)
    if args.format == "json":
        _print_json_list(card_summary(c) for c in cards)
        return 0
    width = max((len(c.id) for c in cards), default=10)
    for card in cards:
        mine = "  [your own]" if card.personal else ""
        print(f"{card.id:<{width}}  {card.kind:<9}  {card.title}  ({', '.join(card.tags)}){mine}")
    return 0


def _print_json_list(items) -> None:
    """`print(json.dumps(list(items), ensure_ascii=False, indent=2))`, an item at a time."""
    out = sys.stdout
    first = True
    for item in items:
        text = json.dumps(item, ensure_ascii=False, indent=2).replace("\n", "\n  ")
        out.write(("[\n  " if first else ",\n  ") + text)
        first = False
    out.write("[]\n" if first else "\n]\n")
