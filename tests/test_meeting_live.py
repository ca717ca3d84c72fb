"""The live meeting (coach.meeting.LiveMeeting), the app's Meeting page without the browser: when
the learner's turn is over (`turn_patience`), and how the scene waits for the learner and moves on.
The personas' voices are silence of each line's length and the learner's speech a tone, so that
only the timing is under test; `hear` returns the text the learner is meant to have said."""

from __future__ import annotations

import numpy as np
import pytest

from coach.meeting import (
    COMPLETE_PAUSE_S,
    OPEN_PAUSE_S,
    SURE_END_PROBABILITY,
    UNFINISHED_PAUSE_S,
    LiveMeeting,
    heard_ending,
    judge,
    turn_over,
    turn_patience,
)
from coach.scenes import timeline

RATE = 16_000
CHUNK = 320  # 20 ms, as WebRTC delivers it


@pytest.mark.parametrize("text", ["I can go first, if that's okay.", "Sorry, could you repeat the date?",
                                  "Oh, sorry, go ahead, Ravi!", "We cut the training time from 10 hours to 6.",
                                  "The p95 went down to 180 ms."])
def test_a_complete_sentence_ends_the_turn_after_a_short_pause(text):
    assert turn_patience(text) == COMPLETE_PAUSE_S
    assert turn_over(text, COMPLETE_PAUSE_S) and not turn_over(text, COMPLETE_PAUSE_S - 0.1)


@pytest.mark.parametrize("text", ["I think we should", "I see why one weekend is attractive, but",
                                  "Sorry, can I jump in for a second, because", "The nodes arrive on the.",
                                  "Could we move one team first and, um", "I'd like to add something -",
                                  "So my question is...", "Let me just", "We cut it from 10 hours to"])
def test_a_pause_inside_an_unfinished_clause_waits_longer(text):
    assert turn_patience(text) == UNFINISHED_PAUSE_S
    assert not turn_over(text, 2.0) and turn_over(text, UNFINISHED_PAUSE_S)


def test_words_without_closing_punctuation_wait_in_between():
    assert COMPLETE_PAUSE_S < turn_patience("I can go first") == OPEN_PAUSE_S < UNFINISHED_PAUSE_S
    assert turn_patience("") == turn_patience("  ") == COMPLETE_PAUSE_S  # nothing said: nothing to wait for


def test_an_ending_the_recogniser_was_unsure_of_is_not_the_end_of_a_sentence():
    """Whisper puts a full stop after a fragment and guesses its last word ("The checkpoint size
    was around" -> "The checkpoint side was around."; "The new cluster will have" -> "… will
    ham."): with its last words heard unsurely the turn waits as inside a clause; heard surely, a
    complete sentence ends it after the short pause."""
    assert turn_patience("The new cluster will ham.", [0.98, 0.95, 0.97, 0.31]) == UNFINISHED_PAUSE_S
    assert not turn_over("The new cluster will ham.", 2.0, [0.98, 0.95, 0.97, 0.31])
    assert turn_patience("The migration is finished.", [0.99, 0.97, 0.98, 0.93]) == COMPLETE_PAUSE_S
    assert turn_patience("Yes.", [0.9]) == COMPLETE_PAUSE_S
    assert turn_patience("The checkpoint side was around.") == UNFINISHED_PAUSE_S  # a word that needs more


def test_a_sentence_the_decoder_expects_to_go_on_waits_as_unfinished():
    """Whisper writes "I have checked the log yesterday." for "… yesterday and": when it found a
    sentence's end unlikely there (`sentence_end`), the turn waits as inside a clause; where it
    was sure, or could not say (None), the words decide."""
    text = "I have checked the log yesterday."
    assert turn_patience(text, sentence_end=SURE_END_PROBABILITY - 0.01) == UNFINISHED_PAUSE_S
    assert not turn_over(text, 2.0, None, SURE_END_PROBABILITY - 0.01)
    assert turn_patience(text, sentence_end=SURE_END_PROBABILITY) == COMPLETE_PAUSE_S
    assert turn_patience(text, sentence_end=None) == COMPLETE_PAUSE_S
    assert turn_patience("I can go first", sentence_end=0.1) == OPEN_PAUSE_S  # only a closed sentence is in doubt


def test_the_sentence_end_is_asked_only_of_a_turn_the_words_would_end_and_never_loses_it():
    class Decoder:
        def __init__(self, fails=False):
            self.asked, self.fails = [], fails

        def sentence_end_probability(self, samples, words):
            self.asked.append(words)
            if self.fails:
                raise RuntimeError("decoder failed")
            return 0.2

    decoder = Decoder()
    assert heard_ending(decoder, np.zeros(RATE), "I have checked the log yesterday.", None) == 0.2
    assert heard_ending(decoder, np.zeros(RATE), "I think we should", None) is None  # waits anyway
    assert heard_ending(decoder, np.zeros(RATE), "The new cluster will ham.", [0.9, 0.9, 0.9, 0.3]) is None
    assert heard_ending(decoder, np.zeros(RATE), "…", None) is None  # no words
    assert decoder.asked == ["I have checked the log yesterday"]  # its words, without the full stop
    assert heard_ending(Decoder(fails=True), np.zeros(RATE), "I have checked the log yesterday.", None) is None


class _Learner:
    """The learner's microphone: speech (a tone) at the given times of the scene, else silence;
    `texts` is what `hear` returns for a turn that starts in each stretch of speech."""

    def __init__(self, speech: list[tuple[float, float, str]]):
        self.speech = speech
        self.heard: list[str] = []

    def chunk(self, t: float) -> np.ndarray:
        times = t + np.arange(CHUNK) / RATE
        loud = np.zeros(CHUNK, dtype=bool)
        for start, end, _ in self.speech:
            loud |= (times >= start) & (times < end)
        return np.where(loud, 0.3 * np.sin(2 * np.pi * 220 * times), 0.0).astype(np.float32)

    def hear(self, samples) -> str:
        return self.heard[-1] if self.heard else ""


def _play(scene, personas, speech, seconds=90.0) -> tuple[LiveMeeting, list]:
    lines, _ = timeline(scene, personas)
    voices = [np.zeros(int((line.end - line.start) * RATE), dtype=np.float32) for line in lines]
    learner = _Learner(speech)

    def hear(samples):  # the text of the speech stretch the turn so far ends in
        ends = [text for start, end, text in learner.speech if start <= meeting.t]
        return ends[-1] if ends else ""

    meeting = LiveMeeting(scene, personas, voices, hear, background=False)
    started = []
    while not meeting.over and meeting.t < seconds:
        out = meeting.step(learner.chunk(meeting.t))
        assert out.shape == (CHUNK,)
        started.append(meeting.now())
    assert meeting.over
    return meeting, started


def test_a_silent_learner_hears_the_scene_on_its_own_timeline(library):
    scene = library.scenes["standup-late-joiner"]
    meeting, _ = _play(scene, library.personas, [])
    lines, windows = meeting.played()
    nominal_lines, nominal_windows = timeline(scene, library.personas)
    assert [line.start for line in lines] == pytest.approx([line.start for line in nominal_lines], abs=0.03)
    assert [t for w in windows for t in (w.opens, w.closes)] == pytest.approx(
        [t for w in nominal_windows for t in (w.opens, w.closes)], abs=0.03)
    assert not [c for c in meeting.now().captions if c.speaker == "learner"]


def test_the_scene_moves_on_once_the_learner_has_finished_a_sentence(library):
    scene = library.scenes["standup-late-joiner"]
    nominal_lines, nominal_windows = timeline(scene, library.personas)
    opens = nominal_windows[0].opens
    said = "I can go first, if that's okay."
    meeting, _ = _play(scene, library.personas, [(opens + 1.0, opens + 2.5, said)])
    lines, windows = meeting.played()
    # Sofia's line (nominally 6.5 s after Anya's question) comes once the turn is over
    assert windows[0].opens == pytest.approx(opens, abs=0.03)
    assert windows[0].closes == pytest.approx(opens + 2.5 + COMPLETE_PAUSE_S, abs=0.05)
    assert lines[1].start == pytest.approx(opens + 2.5 + COMPLETE_PAUSE_S, abs=0.05)
    assert lines[1].start < nominal_lines[1].start - 3.0
    # everything after moved forward together; the second moment still opens after Ravi's dropout line
    shift = lines[1].start - nominal_lines[1].start
    assert windows[1].opens == pytest.approx(nominal_windows[1].opens + shift, abs=0.05)
    assert ("learner", said) in [(c.speaker, c.text) for c in meeting.now().captions]


def test_a_pause_inside_an_unfinished_clause_does_not_end_the_turn(library):
    scene = library.scenes["plan-review-disagree"]
    nominal_lines, nominal_windows = timeline(scene, library.personas)
    opens = nominal_windows[0].opens
    # "I see why one weekend is attractive, but" … 2 s to think … "some jobs run for three days."
    speech = [(opens + 1.0, opens + 3.0, "I see why one weekend is attractive, but"),
              (opens + 5.0, opens + 9.0, "I see why one weekend is attractive, but some jobs run for days.")]
    meeting, _ = _play(scene, library.personas, speech)
    lines, windows = meeting.played()
    # one turn: Sofia's "it's decided" waits until the whole sentence is over, past its own time
    assert windows[0].closes == pytest.approx(opens + 9.0 + COMPLETE_PAUSE_S, abs=0.05)
    decided = next(i for i, line in enumerate(lines) if line.id == "decided")
    assert lines[decided].start == pytest.approx(opens + 9.0 + COMPLETE_PAUSE_S, abs=0.05)
    assert lines[decided].start > nominal_lines[decided].start  # held back while the learner spoke


def test_talking_past_the_window_holds_the_next_line_back(library):
    scene = library.scenes["standup-late-joiner"]
    nominal_lines, nominal_windows = timeline(scene, library.personas)
    opens = nominal_windows[0].opens
    meeting, _ = _play(scene, library.personas,
                       [(opens + 4.0, opens + 9.0, "I can go first. Yesterday I fixed the scheduler bug.")])
    lines, windows = meeting.played()
    assert lines[1].start == pytest.approx(opens + 9.0 + COMPLETE_PAUSE_S, abs=0.05)
    assert lines[1].start > nominal_lines[1].start


def test_a_cough_does_not_close_the_moment(library):
    scene = library.scenes["standup-late-joiner"]
    nominal_lines, nominal_windows = timeline(scene, library.personas)
    opens = nominal_windows[0].opens
    meeting, _ = _play(scene, library.personas,
                       [(opens + 0.5, opens + 0.7, ""), (opens + 3.0, opens + 4.5, "Let me go first.")])
    _, windows = meeting.played()
    assert windows[0].closes == pytest.approx(opens + 4.5 + COMPLETE_PAUSE_S, abs=0.05)


def test_the_played_timeline_is_judged_by_the_same_code_as_coach_meeting(library):
    from coach.meeting import Stretch

    scene = library.scenes["talking-at-once"]
    _, nominal_windows = timeline(scene, library.personas)
    take, give = nominal_windows
    said = "Sorry, can I jump in for a second?"
    meeting, _ = _play(scene, library.personas, [(take.opens + 2.0, take.opens + 4.0, said)])
    lines, windows = meeting.played()
    result = judge(scene, lines, windows, [Stretch(take.opens + 2.0, take.opens + 4.0, said)])
    first = result["moments"][0]
    assert first["waited_s"] == pytest.approx(2.0, abs=0.05)
    assert first["overlap_s"] == pytest.approx(2.0, abs=0.05)  # Sofia was still talking
    assert first["criteria"]["appropriate"]["met"]
    assert windows[1].opens < give.opens  # the rest of the scene came sooner


def test_speech_begun_before_the_moment_opened_is_not_a_turn_in_it(library):
    scene = library.scenes["standup-late-joiner"]
    nominal_lines, nominal_windows = timeline(scene, library.personas)
    opens = nominal_windows[0].opens
    # talking over the end of Anya's question and on: the scene does not wait for it
    meeting, _ = _play(scene, library.personas, [(opens - 2.0, opens + 1.0, "Yes, so about my part.")])
    lines, windows = meeting.played()
    assert lines[1].start == pytest.approx(nominal_lines[1].start, abs=0.03)
    assert not meeting.turns
