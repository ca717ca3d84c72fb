""""Your English" in the practice loop: each answer's corrections in its feedback (engine and page),
and the kinds that came back across the session in the summary and the report."""

from __future__ import annotations

import pytest

from coach.practice import Coach, present
from coach.report import markdown_report
from coach.session import PracticeEngine
from coach.store import Store
from coach.summary import summarise
from tests.test_llm import FakeOpenAI

FIRST = ("On the TPU pod the job fail every night, so I profiled the step and rewrote the jit boundaries. "
         "Yesterday I fix the input pipeline.")
SECOND = "My teammate handle the NCCL part and the throughput went from 40% to 83% in the last two weeks."


@pytest.fixture
def model_server():
    """A scripted OpenAI-compatible server on 127.0.0.1 (tests/test_llm.py)."""
    server = FakeOpenAI()
    yield server
    server.close()


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


# --- an answer in Korean ---

KOREAN = "제 팀원 지훈이 네트워크 쪽을 맡았고, 저는 NCCL 튜닝을 해서 처리량을 두 배로 올렸습니다."


def test_an_answer_in_korean_is_kept_and_the_question_asked_again_with_english_frames(engine):
    from coach.errors import KoreanAnswerError

    view = engine.start("gpu-cluster-optimization")
    engine.submit(view.id, "On the TPU pod I profiled the training step and rewrote the jit boundaries.")
    session = engine.load(view.id)
    asked = session.pending
    assert asked.criterion == "measured_results"
    with pytest.raises(KoreanAnswerError) as refused:
        engine.submit(view.id, KOREAN, turn_pk=asked.id)
    message = str(refused.value)
    assert "Korean" in message and "한국어" in message
    assert "“___ went from ___ to ___.”" in message  # the follow-up's own criterion first
    assert "“My teammate ___ handled ___, while I ___.”" in message
    session = engine.load(view.id)
    kept = next(t for t in session.turns if t.id == asked.id)
    assert kept.answer_text == KOREAN and kept.status == "refused" and not kept.scorecard_json
    again = session.pending
    assert again.id != asked.id and again.prompt == asked.prompt and again.criterion == asked.criterion
    assert len(session.scorecards()) == 1  # never scored as an empty answer
    result = engine.submit(view.id, "Throughput went from 40% to 83% after the change.", turn_pk=again.id)
    assert "measured_results" in result.session_met


def test_app_answer_in_korean_gets_english_frames_and_the_same_question():
    from tests.test_one_voice import answer, app, start

    at = start(app(), "interview", "gpu-cluster-optimization")
    question = [m.value for m in at.chat_message[0].markdown][0]
    at = answer(at, KOREAN)
    help_text = "\n".join(str(i.value) for i in at.info)
    assert "Korean" in help_text and "한국어" in help_text
    assert "Frames for what this answer still needs" in help_text
    assert "went from \\_\\_\\_ to \\_\\_\\_." in help_text  # shown as typed, not as Markdown
    prompts = [m.value for c in at.chat_message for m in c.markdown]
    assert prompts.count(question) == 2  # the same question, asked again
    assert "no criterion met" not in "\n".join(str(m.value) for m in at.markdown)


def test_coach_practice_in_the_terminal_helps_with_a_korean_answer(capsys, monkeypatch):
    import io

    from coach.cli import main

    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO((KOREAN + "\n").encode()), encoding="utf-8"))
    code = main(["practice", "--card", "gpu-cluster-optimization"])
    out = capsys.readouterr().out
    assert code == 0
    assert "Your answer was in Korean" in out and "한국어" in out
    question = out.splitlines()[2].split(": ", 1)[1]  # Session:, Card:, then the persona's question
    assert out.count(question) == 2  # the question, asked again


@pytest.mark.slow
def test_a_spoken_answer_that_is_not_english_gets_the_frames_and_its_recording_is_kept(engine):
    """Spoken Korean (the espeak-ng fixture) is refused by the speech model as not English; the
    refusal says so in both languages with the English frames the turn still needs, and the
    recording stays with the turn, which is still asked."""
    from coach.errors import AudioError
    from coach.stt import NOT_ENGLISH
    from tests.conftest_audio import fixture

    view = engine.start("gpu-cluster-optimization")
    asked = view.pending
    with pytest.raises(AudioError) as refused:
        engine.answer_with_audio(view.id, fixture("korean.ogg"), suffix=".ogg")
    message = str(refused.value)
    assert message.startswith(NOT_ENGLISH) and "영어" in message
    assert "“___ went from ___ to ___.”" in message
    session = engine.load(view.id)
    assert session.pending.id == asked.id and session.pending.audio_path  # kept, still asked


@pytest.mark.slow
def test_app_offers_a_natural_rewrite_with_a_model_and_for_a_korean_answer(model_server, monkeypatch):
    """With a language model configured, the newest answer (and an answer in Korean) can be said
    more naturally on request; the rewrite is checked in the core before it is shown. The model is
    a scripted server on 127.0.0.1 (its other calls, the judge and the follow-up, get its default)."""
    import json

    from tests.test_one_voice import app, start

    monkeypatch.setenv("COACH_LLM_MODEL", "openai/fake-model")
    monkeypatch.setenv("COACH_LLM_API_BASE", model_server.api_base)
    at = start(app(), "interview", "gpu-cluster-optimization")
    at.text_area[0].input(KOREAN)
    at.button(key="send").click().run()
    refused = next(b for b in at.button if str(b.key).startswith("rewrite-"))
    said = "My teammate Jihoon handled the network side, and I did the profiling."
    model_server.script = [json.dumps({"rewrite": said})]
    refused.click().run()
    assert not at.exception, at.exception
    assert any(said in m.value for m in at.markdown), "the Korean answer said in English"

    at.text_area[0].input(FIRST)
    at.button(key="send").click().run()
    newest = [b for b in at.button if str(b.key).startswith("rewrite-")][-1]
    model_server.script = [json.dumps({"rewrite": "On the TPU pod the job failed every night, so I profiled the step "
                                          "and rewrote the jit boundaries; yesterday I fixed the input pipeline, "
                                          "which saved 40 hours."})]
    newest.click().run()
    assert not at.exception, at.exception
    errors = " ".join(e.value for e in at.error)
    assert "40" in errors, "a rewrite that adds a number is refused in one line"
