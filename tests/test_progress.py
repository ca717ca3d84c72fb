"""Progress data from history records: every session visible, readable labels, weak skills."""

from __future__ import annotations

import json

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


WEAK = "Um, I rewrote the jit boundaries myself on the TPU pod. It was a hard problem."


def two_sessions(coach, library):
    """A weak first answer in the first session, the model answer first in the second; each
    session then ends (the weak one after a strong follow-up answer, so both end well)."""
    strong_text = library.card("gpu-cluster-optimization").model_answers[0].text
    weak = coach.start("gpu-cluster-optimization")
    coach.send_text(weak.id, WEAK)
    coach.send_text(weak.id, strong_text)  # the follow-up: met now, but not on the first try
    coach.end(weak.id)
    strong = coach.start("gpu-cluster-optimization")
    view = coach.send_text(strong.id, strong_text)
    if view.pending is not None and view.pending.kind == "retell":
        view = coach.send_text(strong.id, strong_text)
    view = coach.end(strong.id) if not view.finished else view
    return weak.id, strong.id, view


def test_coach_progress_json_shows_the_first_try_rate_rising(library, capsys):
    """`coach progress --format json` (in process), per DESIGN.md: two sessions on one card, a weak
    first answer then a strong one: the first-try rate of the card's criteria rises, the weak
    session's follow-up does not count as a first try, `at` carries the learner's offset."""
    from coach.cli import main as coach_main
    from coach.config import load_settings
    from coach.practice import Coach

    coach = Coach(PracticeEngine(library, Store(load_settings().database_url)))  # the CLI's own database
    weak_id, strong_id, last = two_sessions(coach, library)
    capsys.readouterr()
    code = coach_main(["progress", "--card", "gpu-cluster-optimization", "--tz", "Asia/Seoul", "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    data = json.loads(out)
    assert set(data) == {"criteria", "sessions"}
    assert [s["id"] for s in data["sessions"]] == [weak_id, strong_id]  # oldest first
    first, second = data["sessions"]
    for s in data["sessions"]:
        assert set(s) >= {"id", "card", "at", "first_answer", "retell", "wpm", "fillers_per_min", "flagged_words",
                          "corrections"}
        assert s["card"] == "gpu-cluster-optimization" and s["at"].endswith("+09:00")
        assert s["wpm"] is None and s["fillers_per_min"] is None  # typed: no pace
    assert first["first_answer"]["of"] == second["first_answer"]["of"] == 6
    assert first["first_answer"]["met"] < second["first_answer"]["met"]
    criteria = {c["criterion"]: c for c in data["criteria"]}
    assert set(criteria) == {"optimization_experience", "problem_solving", "measured_results", "teamwork",
                             "options_rejected", "reflection"}
    for c in data["criteria"]:
        assert c["card"] == "gpu-cluster-optimization" and c["label"]
        assert [t["session"] for t in c["first_try"]] == [weak_id, strong_id]
    rate = [sum(c["first_try"][i]["met"] for c in data["criteria"]) for i in (0, 1)]
    assert rate[0] < rate[1]
    assert criteria["measured_results"]["first_try"][0]["met"] is False  # met later, by the follow-up only
    assert criteria["measured_results"]["first_try"][1]["met"] is True
    # the same through the application API, and said plainly on the second session's summary
    assert last.summary is not None and last.summary.since_last["change"] > 0
    assert "Better than last time" in coach.open(strong_id).report()
    assert "지난번보다 좋아졌어요" in coach.open(strong_id).report(korean=True)
    assert coach.open(weak_id).summary.since_last is None  # the card's first session: nothing to compare
    # the report's time is the learner's, as `at` is; a zone that does not exist is one line
    assert coach_main(["report", strong_id, "--tz", "Asia/Seoul"]) == 0
    assert f"- Started: {second['at'][:16].replace('T', ' ')} (UTC+09:00)" in capsys.readouterr().out
    assert coach_main(["progress", "--tz", "Mars/Olympus"]) == 2
    assert capsys.readouterr().err == "coach: --tz 'Mars/Olympus' is not a time zone name (for example Asia/Seoul)\n"
    assert coach_main(["progress", "--card", "no-such-card"]) == 2


def test_session_sound_from_spoken_answers_and_grammar_kinds():
    """Pace and fillers per minute over the spoken answers (a lower bound), flagged words, and
    correction kinds counted from the answers."""
    from coach.progress import sound

    record = {"turns": [
        {"answer": "I have finish it", "scorecard": {"delivery": {
            "duration": 30.0, "words_per_minute": 120.0, "filler_count": 2, "long_pauses": [{}],
            "filler_note": "may drop some"}},
         "transcript": {"pronunciation": {"words": [{"word": "Really,", "flag": True, "sound": "r/l"},
                                                    {"word": "cluster", "flag": False}]}}},
        {"answer": "He go there", "scorecard": {"delivery": {"duration": 30.0, "words_per_minute": 100.0,
                                                             "filler_count": 1}}},
        {"answer": "typed, no timing", "scorecard": {"delivery": {"filler_count": 5}}},
    ]}
    kinds = {"I have finish it": ["tense"], "He go there": ["agreement", "tense"]}
    out = sound(record, lambda text: kinds.get(text, []))
    assert out["wpm"] == 110.0 and out["fillers_per_min"] == 3.0 and out["fillers_at_least"] is True
    assert out["long_pauses"] == 1 and out["flagged_words"] == ["really"] and out["flagged_sounds"] == {"r/l": 1}
    assert out["corrections"] == {"tense": 2, "agreement": 1}


def test_first_try_on_a_meeting_card_is_per_situation_and_a_retry_is_not_the_first_try(engine, library):
    """A card with several situations: each situation's first answer is its first try; the answer
    to the retry ("let's try that again") met the point, but not on the first try."""
    from coach.progress import progress

    view = engine.start("video-call-essentials")
    engine.submit(view.id, "Hello.")  # met nothing: the same situation is asked again
    engine.submit(view.id, "Sorry, can everyone hear me okay?")
    for text in ["Sorry, could you say that again, please?", "Sorry to interrupt, could I add one point?",
                 "Please, go ahead, you first.", "Let me share my screen. Can you all see it, please?"]:
        engine.submit(view.id, text)
    records = history(engine.store, library=library)
    assert records[0]["status"] == "finished"
    data = progress(records, library, kinds_of=lambda _text: [])
    tries = {(c["turn"], c["criterion"]): c["first_try"][0]["met"] for c in data["criteria"]}
    assert set(tries) == {(t, c) for t in ("check-connection", "ask-repeat", "take-floor", "yield-floor",
                                           "share-screen") for c in ("appropriate", "polite")}
    assert tries[("check-connection", "appropriate")] is False  # met, but only when asked again
    assert tries[("share-screen", "appropriate")] is True
    labels = {c["label"] for c in data["criteria"]}
    assert any("(" in label for label in labels)  # the situation is named in each label
    [session] = data["sessions"]
    assert session["first_answer"]["of"] == 10 and session["first_answer"]["met"] == sum(tries.values())
    assert session["retell"] is None


def test_the_retell_is_shown_beside_the_model_answer(engine, library):
    """Issue 31: the summary puts the learner's retell beside each model answer, named as the retell."""
    from coach.report import yours_markdown
    from coach.summary import summarise

    card = library.card("gpu-cluster-optimization")
    view = engine.start(card.id)
    result = engine.submit(view.id, card.model_answers[0].text)
    for _ in range(6):
        pending = engine.load(view.id).pending
        if pending is None or pending.kind == "retell":
            break
        result = engine.submit(view.id, "I would add a recompile check to CI from day one.")
    assert engine.load(view.id).pending.kind == "retell"
    retell = "In short: I removed the recompiles on the TPU pod and utilization went from 40% to 83%."
    result = engine.submit(view.id, retell)
    assert result.finished
    summary = summarise(engine.load(view.id))
    told = [a for a in summary.answers if a.retell]
    assert len(told) == 1 and told[0].text == retell
    for gap in summary.model_answer_gaps:
        assert told[0].number in gap.yours
        shown = yours_markdown(summary, gap)
        assert f"Answer {told[0].number}, your retell" in shown and "utilization went from 40% to 83%" in shown
