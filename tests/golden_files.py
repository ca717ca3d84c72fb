"""Where golden files live and what they hold (shared by the tests and scripts/update_golden.py)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import scoring
from coach.library import load_library

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden"
CONTENT_GOLDEN = GOLDEN / "content"
SCORECARD_GOLDEN = GOLDEN / "scorecards"
PINNED = GOLDEN / "pinned_answers.json"


@cache
def _library():
    return load_library([ROOT / "content"], [ROOT / "personas"])


def content_files() -> list[Path]:
    files = [p for p in sorted((ROOT / "content").rglob("*.md")) if p.name.lower() != "readme.md"]
    return files + sorted((ROOT / "personas").glob("*.md"))


def expected_path(source: Path) -> Path:
    relative = source.relative_to(ROOT).with_suffix(".json")
    return CONTENT_GOLDEN / relative


def parsed_form(source: Path) -> dict:
    """The loaded card, scene or persona as JSON, without paths and hashes that differ by checkout,
    nor `personal` (where a card was loaded from, not what its file says)."""
    library = _library()
    for item in [*library.cards.values(), *library.scenes.values(), *library.personas.values()]:
        if Path(item.path).resolve() == source.resolve():
            return item.model_dump(mode="json", exclude={"path", "content_version", "personal"})
    raise AssertionError(f"{source} did not load: {[str(p) for p in library.problems]}")


def content_expectations():
    for source in content_files():
        yield expected_path(source), parsed_form(source)


def pinned_answers() -> list[dict]:
    return json.loads(PINNED.read_text(encoding="utf-8"))


def pinned_scorecard(item: dict) -> dict:
    card = _library().card(item["card"])
    data = scoring.score(card, item["turn"], item["text"], answer_id=item["name"]).to_json_dict()
    # the verdicts are pinned, not the hash of the scoring code (it changes with every scoring commit)
    data["scorer_version"] = data["scorer_version"].split("+")[0]
    return data


def pinned_expectations():
    for item in pinned_answers():
        yield SCORECARD_GOLDEN / f"{item['name']}.json", pinned_scorecard(item)
