"""The suite's own layout: with the test command's two workers (`-n 2 --dist loadgroup`), the
browser tests run one at a time in one worker, as README.md says. They did not: the grouping hook of
tests/conftest.py ran after pytest-xdist had read the marks, and pytest 9.2 with pytest-xdist 3.8
ignores the marks anyway (pytest-xdist#1386). So this runs that hook under xdist on stand-ins.
The browser tests that play no audio (`no_audio`) stay out of that group and come last, for the
worker that is free by then."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.conftest import REPO

STAND_INS = '''
import os
import pytest


@pytest.mark.e2e
@pytest.mark.parametrize("n", range(6))
def test_browser(n):
    with open(os.environ["WORKERS_FILE"], "a") as out:
        out.write(os.environ.get("PYTEST_XDIST_WORKER", "none") + "\\n")


@pytest.mark.e2e
@pytest.mark.no_audio
@pytest.mark.parametrize("n", range(2))
def test_browser_without_audio(n):
    pass


@pytest.mark.parametrize("n", range(3))
def test_other(n):
    pass
'''


def _pytest(tmp_path, *args: str, **env: str) -> subprocess.CompletedProcess:
    """pytest on the stand-ins, with tests/conftest.py's collection hook."""
    (tmp_path / "conftest.py").write_text("from tests.conftest import pytest_collection_modifyitems  # noqa: F401\n")
    (tmp_path / "pytest.ini").write_text("[pytest]\nmarkers =\n    e2e\n    no_audio\n    slow\n")
    (tmp_path / "test_stand_ins.py").write_text(STAND_INS)
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args, str(tmp_path)],
                         cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(REPO), **env},
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    return run


def test_the_browser_tests_share_one_worker(tmp_path):
    workers_file = tmp_path / "workers.txt"
    run = _pytest(tmp_path, "-n", "2", "--dist", "loadgroup", WORKERS_FILE=str(workers_file))
    assert "11 passed" in run.stdout, run.stdout
    workers = workers_file.read_text().split()
    assert len(workers) == 6 and len(set(workers)) == 1, workers


def test_the_browser_tests_without_audio_come_last(tmp_path):
    run = _pytest(tmp_path, "--collect-only")
    order = [line.split("::")[1] for line in run.stdout.splitlines() if "::" in line]
    assert order == [*(f"test_browser[{n}]" for n in range(6)), *(f"test_other[{n}]" for n in range(3)),
                     "test_browser_without_audio[0]", "test_browser_without_audio[1]"], order
