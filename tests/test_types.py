"""The type check (mypy over coach/ and scoring/, pyproject.toml [tool.mypy]) as a test.

`scripts/rehearse.sh test` used to run it before pytest; here it runs in the suite's second worker
beside the browser tests, which wait on real-time audio (README, "The tests").
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_mypy_finds_no_type_errors():
    result = subprocess.run([sys.executable, "-m", "mypy"], cwd=REPO, capture_output=True, text=True)
    assert "No module named mypy" not in result.stderr, "mypy is missing: pip install -e . --group dev"
    assert result.returncode == 0, result.stdout + result.stderr
