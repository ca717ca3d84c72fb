"""The suite's own layout: with the test command's two workers (`-n 2 --dist loadgroup`), the
browser tests run one at a time in one worker, as README.md says. They did not: the grouping hook of
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

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("n", range(6))
def test_browser(n):
    with open(os.environ["WORKERS_FILE"], "a") as out:
        out.write(os.environ.get("PYTEST_XDIST_WORKER", "none") + "\\n")
'''


def test_the_browser_tests_share_one_worker(tmp_path):
    (tmp_path / "conftest.py").write_text("from tests.conftest import pytest_collection_modifyitems  # noqa: F401\n")
    (tmp_path / "pytest.ini").write_text("[pytest]\nmarkers =\n    e2e\n    slow\n")
    (tmp_path / "test_stand_ins.py").write_text(STAND_INS)
    workers_file = tmp_path / "workers.txt"
    env = {**os.environ, "PYTHONPATH": str(REPO), "WORKERS_FILE": str(workers_file)}
    run = subprocess.run([sys.executable, "-m", "pytest", "-n", "2", "--dist", "loadgroup", "-q",
                          "-p", "no:cacheprovider", str(tmp_path)],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    workers = workers_file.read_text().split()
    assert len(workers) == 6 and len(set(workers)) == 1, workers
