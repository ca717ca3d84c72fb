"""`coach validate` over deliberately broken packs: one file per kind of error, each marked
with ERROR on the line the message must point at (or ERROR@N)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from coach.library import load_library
from tests.coach_cli import run
from tests.conftest import REPO

BROKEN = REPO / "tests" / "fixtures" / "broken"
PERSONAS = REPO / "tests" / "fixtures" / "personas"

EXPECTED_MESSAGE = {
    "yaml-syntax": "YAML syntax error",
    "unknown-field": "unknown field 'colour'",
    "missing-field": "missing field 'title_ko'",
    "dup-card-b": "duplicate card id 'twin'",
    "duplicate-criterion": "duplicate criterion id 'numbers'",
    "undefined-criterion": "names criterion 'teamwork', which is not defined",
    "unknown-persona": "persona 'nobody' does not exist",
    "unknown-detector": "unknown detector type 'mind_reader'",
    "bad-detector-params": "bad detector params",
    "empty-prompt": "prompt: Value error, must not be empty",
    "no-front-matter": "missing YAML front matter",
    "missing-section": "'## Model answers' needs at least one",
    "lookbehind-pattern": "cannot run on the linear-time engine",
}


def marked_line(path: Path) -> int:
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if explicit := re.search(r"ERROR@(\d+)", line):
            return int(explicit.group(1))
        if "ERROR" in line:
            return number
    raise AssertionError(f"{path} has no ERROR marker")


@pytest.fixture(scope="module")
def problems():
    library = load_library([BROKEN], [PERSONAS])
    return [str(p) for p in library.problems]


@pytest.mark.parametrize("name", sorted(EXPECTED_MESSAGE))
def test_each_error_kind_points_at_its_line(problems, name):
    path = BROKEN / f"{name}.md"
    expected = f"{path}:{marked_line(path)}: "
    matching = [p for p in problems if p.startswith(expected)]
    assert matching, f"no problem at {expected}; got:\n" + "\n".join(p for p in problems if name in p)
    assert any(EXPECTED_MESSAGE[name] in p for p in matching), matching


def test_every_broken_file_is_covered():
    files = {p.stem for p in BROKEN.glob("*.md")}
    assert files - {"dup-card-a"} == set(EXPECTED_MESSAGE)


def test_valid_cards_still_load_beside_broken_ones():
    library = load_library([BROKEN, REPO / "content"], [PERSONAS, REPO / "personas"])
    assert "gpu-cluster-optimization" in library.cards
    assert "twin" in library.cards  # the first of the duplicates loads


def test_cli_validate_repo_is_clean():
    result = run("validate")
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith("ok:")


def test_cli_validate_broken_copy_prints_path_line(tmp_path):
    copy = tmp_path / "content"
    shutil.copytree(REPO / "content", copy)
    card = copy / "interviews" / "gpu-cluster-optimization.md"
    lines = card.read_text(encoding="utf-8").splitlines()
    level = next(i for i, line in enumerate(lines) if line.startswith("level:"))
    lines[level] = "level: expert"
    lines.insert(level + 1, "unexpected_key: 1")
    card.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = run("validate", str(copy))
    assert result.returncode == 1
    out = result.stdout.splitlines()
    assert f"{card}:{level + 1}: level: Input should be 'beginner', 'intermediate', 'upper-intermediate' or 'advanced'" in out
    assert f"{card}:{level + 2}: unknown field 'unexpected_key'" in out


# --- a card whose scoring fails: `coach validate` says where; loading it does not score it ----------


@pytest.fixture
def card_that_fails_scoring(tmp_path, monkeypatch):
    """A copy of the status update whose `progress` detector raises when it runs (its params pass
    every check the loader makes): what an author's mistake the checks miss looks like."""
    from scoring.detectors.meeting import MeetingMove

    content = tmp_path / "content"
    shutil.copytree(REPO / "content", content)
    source = (content / "meetings" / "status-update.md").read_text(encoding="utf-8")
    broken = source.replace("id: status-update\n", "id: fails-scoring\n", 1).replace(
        "        move: progress\n", "        move: progress\n        extra_patterns: ['explodes when scored']\n", 1)
    assert broken.count("explodes when scored") == 1
    path = content / "meetings" / "fails-scoring.md"
    path.write_text(broken, encoding="utf-8")
    detect = MeetingMove.detect

    def failing(self, answer, params, turn_id):
        if "explodes when scored" in params.extra_patterns:
            raise RuntimeError("this detector cannot run")
        return detect(self, answer, params, turn_id)

    monkeypatch.setattr(MeetingMove, "detect", failing)
    monkeypatch.setenv("COACH_CONTENT_DIR", str(content))
    return path


def test_validate_scores_each_card_and_names_the_one_that_fails(card_that_fails_scoring):
    path = card_that_fails_scoring
    line = next(n for n, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if text == "criteria:")
    result = run("validate")
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        f"{path}:{line}: scoring turn 'main' fails (RuntimeError: this detector cannot run); check its detector params"]
    alone = run("validate", str(path))
    assert alone.returncode == 1 and alone.stdout == result.stdout


def test_loading_scores_nothing_and_a_card_that_fails_scoring_does_not_take_anything_down(
        card_that_fails_scoring, tmp_path):
    """The library loads without scoring a card (start-up time: `coach validate` checks that), so
    the card is listed; an answer to it is saved and refused in one message, and every other card
    still scores."""
    import scoring
    from coach.config import load_settings
    from coach.errors import CoachError
    from coach.library import library_for
    from coach.practice import Coach
    from coach.session import PracticeEngine
    from coach.store import Store

    calls = []
    original = scoring.score
    try:
        scoring.score = lambda *a, **k: calls.append(a) or original(*a, **k)
        library = library_for(load_settings())
    finally:
        scoring.score = original
    assert calls == [] and library.problems == []
    assert "fails-scoring" in library.cards and "status-update" in library.cards
    listed = run("cards", "--format", "json")
    assert listed.returncode == 0 and "fails-scoring" in listed.stdout
    coach = Coach(PracticeEngine(library, Store(f"sqlite:///{tmp_path / 'x.db'}"), load_settings()))
    view = coach.start("fails-scoring")
    with pytest.raises(CoachError, match="scoring failed; your answer is saved"):
        coach.send_text(view.id, "For context, the billing export. I finished the schema.")
    assert coach.open(view.id).pending is not None  # the answer is kept; it can be scored again
    scored = run("score", "--card", "status-update", "--text", "I finished the schema. Next I'll add tests.")
    assert scored.returncode == 0, scored.stderr
    failed = run("score", "--card", "fails-scoring", "--text", "I finished the schema.")
    assert failed.returncode == 2 and failed.stderr == (
        "coach: scoring card 'fails-scoring' fails (RuntimeError: this detector cannot run); "
        "`coach validate` names its file and line\n")
