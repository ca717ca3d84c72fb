"""`coach card new|edit|rm|list`: the learner's own cards (coach.personal)."""

from __future__ import annotations

import json

from coach import personal
from coach.config import load_settings
from coach.library import library_for


def register(subparsers) -> None:
    card = subparsers.add_parser(
        "card",
        help="your own practice cards: new, edit, rm, list",
        description="Your own practice cards, kept in the data dir's `cards/`.",
    )
    commands = card.add_subparsers(dest="card_command", required=True)

    new = commands.add_parser(
        "new",
        help="make a card of your own question",
        description=(
            "A card of your own question in the data dir's `cards/` (one per `--question`). KIND: "
            "`story` (the experience rubric), `concept` (your `--terms` as key concepts, a trade-off,"
            " a number), or a meeting move `status-update`, `disagreement`, `clarifying`, `summary`, "
            "`speaking-up` (`experience`, `polite-disagreement`, … are aliases). JSON: `{\"id\", "
            "\"path\", \"kind\", \"rubric\", \"title\", \"criteria\"}`."
        ),
    )
    new.add_argument("--rubric", required=True, metavar="KIND",
                     help="what the answer calls for: " + ", ".join(personal.RUBRICS))
    new.add_argument("--question", required=True, action="append", metavar="TEXT",
                     help="the question to practise (give it again for one card per question)")
    new.add_argument("--terms", metavar='"a, b"', help="concept: the terms a good answer names")
    new.add_argument("--title", metavar="T", help="the card's title (default: from the question)")
    new.add_argument("--format", choices=["json", "table"], default="table")
    new.set_defaults(handler=run_new)

    edit = commands.add_parser(
        "edit",
        help="change your card's question, title or terms",
        description="Changes your card's question, title or terms (built-in cards are refused).",
    )
    edit.add_argument("card_id", metavar="ID")
    edit.add_argument("--question", metavar="TEXT")
    edit.add_argument("--title", metavar="T")
    edit.add_argument("--terms", metavar='"a, b"')
    edit.add_argument("--format", choices=["json", "table"], default="table")
    edit.set_defaults(handler=run_edit)

    rm = commands.add_parser(
        "rm",
        help="remove your card (its past sessions stay readable)",
        description="Removes your card; its past sessions stay readable (built-in cards are refused).",
    )
    rm.add_argument("card_id", metavar="ID")
    rm.set_defaults(handler=run_rm)

    listing = commands.add_parser(
        "list",
        help="your own cards",
        description="Your own cards.",
    )
    listing.add_argument("--format", choices=["json", "table"], default="table")
    listing.set_defaults(handler=run_list)


def _print(created: personal.Created, fmt: str) -> None:
    if fmt == "json":
        print(json.dumps(created.to_json(), ensure_ascii=False))
    else:
        print(f"{created.card.id}  {created.rubric:<13}  {created.card.title}  ({created.path})")


def run_new(args) -> int:
    settings = load_settings()
    library = library_for(settings)
    for created in personal.create(library, settings, args.rubric, args.question, args.title, args.terms):
        _print(created, args.format)
    return 0


def run_edit(args) -> int:
    if args.question is None and args.title is None and args.terms is None:
        from coach.errors import PersonalCardError

        raise PersonalCardError("give --question, --title or --terms to change")
    settings = load_settings()
    library = library_for(settings)
    _print(personal.edit(library, settings, args.card_id, args.question, args.title, args.terms), args.format)
    return 0


def run_rm(args) -> int:
    settings = load_settings()
    library = library_for(settings)
    kept = personal.remove(library, settings, args.card_id)
    print(f"removed {args.card_id}; its past sessions stay in `coach history` (kept as {kept})")
    return 0


def run_list(args) -> int:
    settings = load_settings()
    library = library_for(settings)
    mine = [c for c in library.summaries() if c.personal]  # from the own cards' index: none is built
    if args.format == "json":
        rows = [{"id": c.id, "kind": c.kind, "rubric": next((t for t in c.tags if t in personal.RUBRICS), None),
                 "title": c.title, "question": c.question, "path": c.path,
                 "criteria": list(c.criteria), "personal": True} for c in mine]
        print(json.dumps(rows, ensure_ascii=False, indent=2))
        return 0
    if not mine:
        print("no cards of your own yet; make one with: coach card new --rubric story --question \"...\"")
    for card in mine:
        print(f"{card.id}  {card.kind:<9}  {card.title}")
    return 0
