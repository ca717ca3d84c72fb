"""Playing a meeting scene (coach.meeting): the timing logic and the judging, on stretches of the
learner's speech given as times and text, without audio (`coach meeting` on audio:
tests/test_meeting_cli.py)."""

from __future__ import annotations

import pytest

from coach.meeting import EARLY_S, PAUSE_S, Stretch, assign, judge, overlap_seconds
from coach.scenes import TimedLine, Window, timeline


def _line(start, end, speaker="anya-team-lead"):
    return TimedLine(0, None, speaker, "a line", start, end)


def test_overlap_counts_each_second_of_persona_speech_once():
    lines = [_line(0.0, 4.0), _line(3.0, 5.0, "ravi-video-call"), _line(8.0, 9.0)]
    assert overlap_seconds(5.0, 8.0, lines) == 0.0  # in the gap between lines
    assert overlap_seconds(2.0, 6.0, lines) == pytest.approx(3.0)  # two lines at once count once
    assert overlap_seconds(4.5, 8.5, lines) == pytest.approx(1.0)


def test_a_stretch_goes_to_the_window_it_starts_in():
    windows = [Window("first", 5.0, 10.0), Window("second", 20.0, 25.0)]
    early = Stretch(5.0 - EARLY_S + 0.1, 6.0, "early")
    late = Stretch(30.0, 31.0, "after every window")
    taken = assign([Stretch(21.0, 22.0, "in second"), early, late], windows)
    assert taken == {"first": [early], "second": [Stretch(21.0, 22.0, "in second")]}
    assert assign([Stretch(4.0, 4.2, "too early")], windows) == {"first": [], "second": []}


def test_speech_after_a_short_pause_stays_with_its_moment_even_after_the_window_closes():
    windows = [Window("first", 5.0, 8.0)]
    opener, rest = Stretch(7.0, 8.5, "I think"), Stretch(8.5 + PAUSE_S - 0.1, 12.0, "we should wait")
    assert assign([opener, rest], windows) == {"first": [opener, rest]}
    far = Stretch(8.5 + PAUSE_S + 0.5, 13.0, "something else")
    assert assign([opener, far], windows) == {"first": [opener]}


def test_the_first_word_not_the_stretch_edge_starts_the_wait():
    windows = [Window("first", 5.0, 8.0)]
    stretch = Stretch(4.8, 7.0, "okay", first_word=5.6)
    assert assign([stretch], windows) == {"first": [stretch]}
    assert stretch.speech_start == 5.6


def test_judge_times_and_scores_each_moment(library):
    scene = library.scenes["standup-late-joiner"]
    lines, windows = timeline(scene, library.personas)
    first = windows[0]
    said = "I can go first, if that's okay."
    stretches = [Stretch(first.opens + 1.0, first.opens + 3.0, said, first_word=first.opens + 1.2)]
    result = judge(scene, lines, windows, stretches)
    assert result["scene"] == "standup-late-joiner"
    speak_first, ask_repeat = result["moments"]
    assert speak_first == {
        "id": "speak-first", "t": first.opens, "waited_s": 1.2, "overlap_s": 0.0, "said": said,
        "criteria": {"appropriate": {"met": True, "evidence": [said]}, "polite": {"met": True, "evidence": [said]}},
    }
    # the learner who says nothing when Ravi breaks up: no wait, nothing said, nothing met
    assert ask_repeat == {"id": "ask-repeat", "t": windows[1].opens, "waited_s": None, "overlap_s": 0.0, "said": "",
                          "criteria": {"appropriate": {"met": False, "evidence": []},
                                       "polite": {"met": False, "evidence": []}}}
    learner = [e for e in result["events"] if e["speaker"] == "learner"]
    assert learner == [{"t": round(first.opens + 1.2, 2), "speaker": "learner", "text": said}]
    assert [e["t"] for e in result["events"]] == sorted(e["t"] for e in result["events"])
    assert {e["speaker"] for e in result["events"]} == {"learner", *scene.personas}


def test_judge_reports_talking_over_a_persona_and_a_rude_line(library):
    scene = library.scenes["talking-at-once"]
    lines, windows = timeline(scene, library.personas)
    take = windows[0]  # open while Sofia talks
    rude = Stretch(take.opens + 2.0, take.opens + 4.0, "Stop. My turn now.")
    result = judge(scene, lines, windows, [rude])
    moment = result["moments"][0]
    assert moment["overlap_s"] == pytest.approx(2.0)
    assert moment["criteria"]["appropriate"]["met"] is False and moment["criteria"]["polite"]["met"] is False
    for verdict in moment["criteria"].values():
        assert all(span in moment["said"] for span in verdict["evidence"])
