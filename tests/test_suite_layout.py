"""The suite's own layout: with the test command's two workers (`-n 2 --dist loadgroup`), the
browser tests that play speech in real time run one at a time in one worker and the other browser
tests one at a time in the other, as README.md says. They did not: the grouping hook of
tests/conftest.py ran after pytest-xdist had read the marks, and pytest 9.2 with pytest-xdist 3.8
ignores the marks anyway (pytest-xdist#1386). So this runs that hook under xdist on stand-ins."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.conftest import REPO

STAND_INS = '''
import os
import pytest


def _note_worker(group):
    with open(os.environ["WORKERS_FILE"], "a") as out:
        out.write(group + " " + os.environ.get("PYTEST_XDIST_WORKER", "none") + "\\n")


@pytest.mark.e2e
@pytest.mark.audio
@pytest.mark.parametrize("n", range(6))
def test_speech(n):
    _note_worker("audio")


@pytest.mark.e2e
@pytest.mark.parametrize("n", range(6))
def test_page(n):
    _note_worker("page")


@pytest.mark.parametrize("n", range(6))
def test_other(n):
    _note_worker("other")
'''


def test_each_kind_of_browser_test_shares_one_worker_and_the_two_kinds_run_side_by_side(tmp_path):
    (tmp_path / "conftest.py").write_text("from tests.conftest import pytest_collection_modifyitems  # noqa: F401\n")
    (tmp_path / "pytest.ini").write_text("[pytest]\nmarkers =\n    e2e\n    audio\n    slow\n")
    (tmp_path / "test_stand_ins.py").write_text(STAND_INS)
    workers_file = tmp_path / "workers.txt"
    env = {**os.environ, "PYTHONPATH": str(REPO), "WORKERS_FILE": str(workers_file)}
    run = subprocess.run([sys.executable, "-m", "pytest", "-n", "2", "--dist", "loadgroup", "-q",
                          "-p", "no:cacheprovider", str(tmp_path)],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    workers: dict[str, list[str]] = {}
    for line in workers_file.read_text().splitlines():
        group, worker = line.split()
        workers.setdefault(group, []).append(worker)
    assert {group: len(seen) for group, seen in workers.items()} == {"audio": 6, "page": 6, "other": 6}
    assert len(set(workers["audio"])) == 1 and len(set(workers["page"])) == 1, workers
    assert set(workers["audio"]) != set(workers["page"]), workers
