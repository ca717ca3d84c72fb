"""Two writers on one session (two `coach practice --session ID` processes, two browser tabs):
exactly one answer wins each prompt, the other writer is refused with one clear message, its
text is kept with the turn, and the session gains exactly one next prompt. On SQLite and on
PostgreSQL (each writer has its own Store, i.e. its own connection pool, as two processes do)."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from coach.errors import ConcurrentAnswerError
from coach.session import PracticeEngine
from coach.store import Store
from tests.conftest import COACH, REPO

CARD = "gpu-cluster-optimization"
FIRST = "I profiled the training step on 512 GPUs and found that the all-reduce took 40 percent of it."
SECOND = "We moved to a TPU pod and cut the step time from 2 seconds to 1.2 seconds."


@pytest.fixture
def writers(library, database_url):
    """Two engines on one database, as two processes would have."""
    return PracticeEngine(library, Store(database_url)), PracticeEngine(library, Store(database_url))


def unused_answers(engine: PracticeEngine, turn_pk: int) -> list[str]:
    return [r.answer_text for r in engine.store.revisions(turn_pk) if r.reason == "concurrent"]


def assert_one_winner(engine: PracticeEngine, session_id: str, winner: str, loser: str, turn_pk: int):
    view = engine.load(session_id)
    assert [t.answer_text for t in view.turns] == [winner, None]  # one answer, one next prompt
    assert view.turns[0].status == "scored" and view.pending.position == 1
    assert unused_answers(engine, turn_pk) == [loser]


def test_an_answer_to_a_prompt_answered_elsewhere_is_refused_and_kept(writers):
    a, b = writers
    view = a.start(CARD)
    shown = view.pending.id  # both windows show the opening question
    a.submit(view.id, FIRST, turn_pk=shown)
    with pytest.raises(ConcurrentAnswerError) as caught:
        b.submit(view.id, SECOND, turn_pk=shown)
    assert str(caught.value) == (
        "this prompt was answered meanwhile in another window or process, so this answer was not used; "
        f"it is kept with the session. Reload the page, or resume with: coach practice --session {view.id}")
    assert_one_winner(a, view.id, FIRST, SECOND, shown)


def test_an_answer_sent_while_another_is_being_scored_is_refused(writers, monkeypatch):
    a, b = writers
    view = a.start(CARD)
    shown = view.pending.id
    score = a._score
    refused = []

    def score_while_b_sends(*args, **kwargs):
        with pytest.raises(ConcurrentAnswerError):
            b.submit(view.id, SECOND, turn_pk=shown)
        refused.append(True)
        return score(*args, **kwargs)

    monkeypatch.setattr(a, "_score", score_while_b_sends)
    a.submit(view.id, FIRST, turn_pk=shown)
    assert refused
    assert_one_winner(a, view.id, FIRST, SECOND, shown)


def test_the_conditional_update_refuses_the_writer_that_read_first(writers, monkeypatch):
    """B has read the turn (version N) and is about to save; A saves, scores and moves on in
    between: B's write finds the turn changed and is refused."""
    a, b = writers
    view = a.start(CARD)
    shown = view.pending.id
    save = b.store.save_answer

    def a_goes_first(*args, **kwargs):
        a.submit(view.id, FIRST, turn_pk=shown)
        return save(*args, **kwargs)

    monkeypatch.setattr(b.store, "save_answer", a_goes_first)
    with pytest.raises(ConcurrentAnswerError):
        b.submit(view.id, SECOND, turn_pk=shown)
    assert_one_winner(a, view.id, FIRST, SECOND, shown)


def test_two_writers_scoring_one_saved_answer_ask_one_next_prompt(writers, monkeypatch):
    a, b = writers
    view = a.start(CARD)
    a.store.save_answer(view.pending.id, FIRST)  # saved, then the writer was interrupted
    score = a._score

    def b_scores_it_meanwhile(*args, **kwargs):
        b.retry_scoring(view.id)
        return score(*args, **kwargs)

    monkeypatch.setattr(a, "_score", b_scores_it_meanwhile)
    with pytest.raises(ConcurrentAnswerError):
        a.retry_scoring(view.id)
    turns = a.load(view.id).turns
    assert [t.answer_text for t in turns] == [FIRST, None] and turns[0].status == "scored"
    assert unused_answers(a, view.pending.id) == []  # the same text: nothing to keep twice


@pytest.mark.slow
def test_two_practice_processes_on_one_session(tmp_path):
    """The issue's case with real processes: A shows the prompt and waits for a line; B answers
    it and exits; A's answer then comes: A is refused in one line, exit 2, its text kept."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "COACH_DATA_DIR": str(tmp_path)}
    started = subprocess.run([COACH, "practice", "--card", CARD], input="", capture_output=True, text=True,
                             env=env, cwd=REPO, timeout=120)
    session = started.stdout.splitlines()[0].removeprefix("Session: ")
    a = subprocess.Popen([COACH, "practice", "--session", session], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=env, cwd=REPO)
    try:
        shown = [a.stdout.readline() for _ in range(3)]  # session, card, the prompt: A waits for a line
        assert shown[2].startswith("Ahmed") or ":" in shown[2], shown
        b = subprocess.run([COACH, "practice", "--session", session], input=f"{SECOND}\n", capture_output=True,
                           text=True, env=env, cwd=REPO, timeout=120)
        assert b.returncode == 0 and b.stdout.count("Scorecard:") == 1, b.stderr
        a.stdin.write(f"{FIRST}\n")
        a.stdin.close()
        a.wait(120)
        out, err = a.stdout.read(), a.stderr.read()
    finally:
        if a.poll() is None:
            a.kill()
    assert a.returncode == 2 and "Scorecard:" not in out
    assert err.strip().splitlines() == [
        "coach: this prompt was answered meanwhile in another window or process, so this answer was not used; "
        f"it is kept with the session. Reload the page, or resume with: coach practice --session {session}"]
    history = json.loads(subprocess.run([COACH, "history", "--format", "json"], capture_output=True, text=True,
                                        env=env, cwd=REPO, timeout=120).stdout)
    turns = history[0]["turns"]
    assert [t["answer"] for t in turns] == [SECOND, None]  # one answer, one pending follow-up
    store = Store(f"sqlite:///{tmp_path / 'rehearse.db'}")
    first_turn = store.get_session(session)[1][0]
    assert [(r.answer_text, r.reason) for r in store.revisions(first_turn.id)] == [(FIRST, "concurrent")]


def test_two_browser_tabs_answering_one_prompt(library, tmp_path, monkeypatch):
    """Two tabs show the same question; the first sends; the second's Send (its rerun loads
    the follow-up) is refused in place, and its text is kept with the question it answered."""
    from streamlit.testing.v1 import AppTest

    monkeypatch.setenv("COACH_DATA_DIR", str(tmp_path))
    engine = PracticeEngine(library, Store(f"sqlite:///{tmp_path / 'rehearse.db'}"))
    view = engine.start(CARD)
    question = view.pending.id

    def tab() -> AppTest:
        at = AppTest.from_file(str(REPO / "app.py"), default_timeout=60)
        at.session_state["audio_on"] = False
        at.query_params["session"] = view.id
        at.run()
        at.switch_page("coach/ui/pages/interview.py")
        at.query_params["session"] = view.id
        return at.run()

    first, second = tab(), tab()
    first.text_area(key=f"answer-{view.id}").input(FIRST)
    first.button(key="send").click().run()
    assert not first.exception and not first.error, [e.value for e in first.error]
    second.text_area(key=f"answer-{view.id}").input(SECOND)
    second.button(key="send").click().run()
    assert not second.exception
    assert [e.value for e in second.error] == [
        "this prompt was answered meanwhile in another window or process, so this answer was not used; "
        f"it is kept with the session. Reload the page, or resume with: coach practice --session {view.id}"]
    assert_one_winner(engine, view.id, FIRST, SECOND, question)


def test_a_stale_tab_is_refused_through_the_application_api(writers):
    """The page sends through coach.practice with the turn it showed; the tab that lost the race
    gets one message and its text is kept; the winner's view is the session after its gesture."""
    from coach.practice import Coach

    tab_a, tab_b = (Coach(engine) for engine in writers)
    shown = tab_a.start(CARD)
    view = tab_b.send_text(shown.id, FIRST, turn_pk=shown.pending.id)
    assert view.pending is not None and view.pending.id != shown.pending.id
    with pytest.raises(ConcurrentAnswerError, match="another window or process"):
        tab_a.send_text(shown.id, SECOND, turn_pk=shown.pending.id)
    assert_one_winner(writers[0], shown.id, FIRST, SECOND, shown.pending.id)


def test_a_draft_typed_in_another_tab_does_not_make_an_answer_lose(writers, monkeypatch):
    """A draft is not an answer: saving one while another tab's answer is being scored leaves
    the turn's version alone, so that answer's scorecard is still written."""
    first, second = writers
    view = first.start(CARD)
    pending = view.pending
    real = first._score

    def draft_meanwhile(*args, **kwargs):
        second.save_draft(pending.id, "typing in the other tab")
        return real(*args, **kwargs)

    monkeypatch.setattr(first, "_score", draft_meanwhile)
    result = first.submit(view.id, FIRST, turn_pk=pending.id)
    assert result.scorecard is not None and not result.finished
    assert first.load(view.id).turns[0].status == "scored"
