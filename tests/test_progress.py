"""Progress data from history records: every session visible, readable labels, weak skills."""

from __future__ import annotations

import pytest

from coach.progress import criterion_progress, session_label, weak_skills
from coach.report import history
from coach.session import PracticeEngine
from coach.store import Store


@pytest.fixture
def engine(library, database_url):
    return PracticeEngine(library, Store(database_url))


def test_every_answered_session_is_a_column_with_a_readable_label(engine, library):
    weak = engine.start("gpu-cluster-optimization")
    engine.submit(weak.id, "I rewrote the jit boundaries myself on the TPU pod.")
    engine.finish(weak.id)
    strong = engine.start("gpu-cluster-optimization")
    engine.submit(strong.id, library.card("gpu-cluster-optimization").model_answers[0].text)
    engine.finish(strong.id)
    empty = engine.start("gpu-cluster-optimization")
    engine.finish(empty.id)
    records = history(engine.store, library=library)
    rows = criterion_progress(records, library, "gpu-cluster-optimization")
    sessions = {r["session"] for r in rows}
    assert len(sessions) == 2  # the session without an answer does not count
    assert {r["order"] for r in rows} == {1, 2}
    assert all(":" in r["session"] and "T" not in r["session"] for r in rows)
    by_order = {o: sum(r["met"] for r in rows if r["order"] == o) for o in (1, 2)}
    assert by_order[1] < by_order[2] == 6
    labels = [session_label(r, library) for r in records]
    assert any("Optimizing training" in label and "6 of 6" in label and "finished" in label for label in labels)
    assert any("no answers yet" in label for label in labels)
    skills = weak_skills(records, library)
    assert skills[0]["rate"] < skills[-1]["rate"] == 1.0
    assert {s["skill"] for s in skills} >= {"The number that proves it · Optimizing training on a large GPU/TPU cluster"}


def test_latest_active_session_is_offered_for_resume(engine):
    first = engine.start("status-update")
    assert engine.latest_active("meeting").id == first.id
    assert engine.latest_active("interview") is None
    engine.finish(first.id)
    assert engine.latest_active("meeting") is None
