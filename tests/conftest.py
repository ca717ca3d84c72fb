"""Shared fixtures: every test gets its own data dir, and no LLM unless it asks for one."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from coach.library import load_library

REPO = Path(__file__).resolve().parent.parent
COACH = str(REPO / ".venv" / "bin" / "coach")


# Tests with these marks are `slow` too, wherever they are (`pytest -m "not slow"`: README).
SLOW_MARKS = ("e2e", "llm_server")


# tryfirst: pytest-xdist reads the group marks in its own collection hook, which would otherwise
# run before this one and see none (tests/test_suite_layout.py)
@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    for item in items:
        if any(item.get_closest_marker(mark) for mark in SLOW_MARKS):
            item.add_marker(pytest.mark.slow)
        if item.get_closest_marker("e2e"):
            # with workers (`-n 2 --dist loadgroup`, scripts/rehearse.sh test) the browser tests run one
            # at a time in one worker: they wait on real-time audio, so the rest runs beside them
            item.add_marker(pytest.mark.xdist_group("browser"))


@pytest.fixture(autouse=True)
def isolated_env(tmp_path, monkeypatch):
    monkeypatch.setenv("COACH_DATA_DIR", str(tmp_path / "data"))
    for name in ("COACH_DATABASE_URL", "COACH_LLM_MODEL", "COACH_LLM_API_BASE", "COACH_CONTENT_DIR",
                 "COACH_PERSONA_DIR", "COACH_STT_MODEL"):
        monkeypatch.delenv(name, raising=False)
    yield


@pytest.fixture(scope="session")
def library():
    lib = load_library([REPO / "content"], [REPO / "personas"])
    assert not lib.problems, "\n".join(map(str, lib.problems))
    return lib


def database_urls() -> list:
    urls = [pytest.param("sqlite", id="sqlite")]
    urls.append(pytest.param("postgres", id="postgres", marks=pytest.mark.postgres))
    return urls


@pytest.fixture(params=database_urls())
def database_url(request, tmp_path):
    """A fresh database: a SQLite file, or a clean schema on the CI PostgreSQL server."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'test.db'}"
        return
    base = os.environ.get("COACH_TEST_POSTGRES_URL")
    if not base:
        if os.environ.get("CI"):
            pytest.fail("COACH_TEST_POSTGRES_URL is not set in CI; .ci/run starts PostgreSQL")
        pytest.skip("no PostgreSQL server (COACH_TEST_POSTGRES_URL unset); CI runs this")
    import sqlalchemy as sa

    from coach.store import normalise_url

    schema = f"t_{os.getpid()}_{abs(hash(request.node.nodeid)) % 10**8}"
    admin = sa.create_engine(normalise_url(base))
    with admin.begin() as conn:
        conn.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
    sep = "&" if "?" in base else "?"
    yield f"{base}{sep}options=-csearch_path%3D{schema}"
    with admin.begin() as conn:
        conn.execute(sa.text(f'DROP SCHEMA "{schema}" CASCADE'))
    admin.dispose()
