"""`coach validate` over deliberately broken packs: one file per kind of error, each marked
with ERROR on the line the message must point at (or ERROR@N)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from coach.content import load_library
from tests.conftest import COACH, REPO

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
    result = subprocess.run([COACH, "validate"], capture_output=True, text=True, cwd=REPO)
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
    result = subprocess.run([COACH, "validate", str(copy)], capture_output=True, text=True, cwd=REPO)
    assert result.returncode == 1
    out = result.stdout.splitlines()
    assert f"{card}:{level + 1}: level: Input should be 'beginner', 'intermediate', 'upper-intermediate' or 'advanced'" in out
    assert f"{card}:{level + 2}: unknown field 'unexpected_key'" in out
