"""The README's command and configuration tables and content/README.md's detector reference
are written from the code by cog (`.venv/bin/cog -r README.md content/README.md`); this fails
when either file differs from what the code makes now."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import REPO

pytestmark = pytest.mark.slow  # cog in a process

GENERATED = ("README.md", "content/README.md")


def test_the_generated_docs_are_current():
    result = subprocess.run([sys.executable, "-m", "cogapp", "--check", *GENERATED], cwd=REPO,
                            capture_output=True, text=True)
    assert result.returncode == 0, (result.stdout + result.stderr
                                    + "\nrun: .venv/bin/cog -r README.md content/README.md")


def test_the_check_catches_a_stale_table(tmp_path):
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    stale = tmp_path / "README.md"
    stale.write_text(readme.replace("| `coach llm check` |", "| `coach llm check --old` |"), encoding="utf-8")
    result = subprocess.run([sys.executable, "-m", "cogapp", "--check", str(stale)], cwd=REPO,
                            capture_output=True, text=True)
    assert result.returncode != 0
