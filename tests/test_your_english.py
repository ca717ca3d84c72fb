""""Your English" in the practice loop: each answer's corrections in its feedback (engine and page),
and the kinds that came back across the session in the summary and the report."""

from __future__ import annotations

import pytest

from coach.practice import Coach, present
from coach.report import markdown_report
from coach.session import PracticeEngine
from coach.store import Store
from coach.summary import summarise

FIRST = ("On the TPU pod the job fail every night, so I profiled the step and rewrote the jit boundaries. "
         "Yesterday I fix the input pipeline.")
SECOND = "My teammate handle the NCCL part and the throughput went from 40% to 83% in the last two weeks."


@pytest.fixture
def engine(library, database_url):
    return PracticeEngine(library, Store(database_url))


def test_each_answer_has_its_english_corrected(engine):
    coach = Coach(engine)
    view = coach.start("gpu-cluster-optimization")
    view = coach.send_text(view.id, FIRST)
    english = view.feedback[view.newest].english
    assert [(c.wrong, c.right) for c in english.corrections] == [("fail", "fails"), ("fix", "fixed")]
    assert "the job fails every night" in english.corrected and "Yesterday I fixed" in english.corrected


def test_kinds_that_come_back_are_in_the_summary_and_the_report(engine):
    view = engine.start("gpu-cluster-optimization")
    engine.submit(view.id, FIRST)
    engine.submit(view.id, SECOND)
    engine.finish(view.id)
    session = engine.load(view.id)
    summary = summarise(session)
    assert [h.kind for h in summary.english] == ["agreement"]
    assert summary.english[0].answers == 2 and ("fail", "fails") in summary.english[0].examples
    report = markdown_report(session, summary)
    assert "Your English: what came back" in report and "Subject–verb agreement" in report
    assert "fail → fails" in report
    assert present(session).summary.english == summary.english  # one source for the page and the report


def test_correct_english_adds_nothing(engine):
    view = engine.start("gpu-cluster-optimization")
    engine.submit(view.id, "I profiled the training step and the utilization went from 40% to 83%.")
    engine.finish(view.id)
    summary = summarise(engine.load(view.id))
    assert summary.english == []
    assert "Your English" not in markdown_report(engine.load(view.id), summary)


def test_app_shows_the_correction_of_a_typed_answer():
    from tests.test_one_voice import answer, app, start

    at = answer(start(app(), "interview", "gpu-cluster-optimization"),
                "I profiled the step on the TPU pod because the job fail every night.")
    body = "\n".join(str(m.value) for m in at.markdown)
    assert "**Your English**" in body
    assert "~~fail~~ → **fails**" in body
    assert "the job fails every night" in body
