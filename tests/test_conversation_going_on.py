"""Going on with an answer hands-free (coach.conversation, no model, no voice): a learner who
speaks again within TAKE_BACK_S of their last word, after the turn was taken as over at a pause
inside a sentence, was still in their answer. Before the persona speaks, its line is withheld;
once it speaks, it stops (barge-in); either way the whole recording, from the answer's first
word, answers again (`answer(..., continued=True)`), and it is still one answer. Later than that,
or after the persona's line was heard whole, the learner's words are a new answer."""

from __future__ import annotations

import threading

import numpy as np

from coach.conversation import LEARNER, PERSONA, SPEAKING, THINKING, TURN, Heard, LiveConversation, Reply

RATE = 16_000
CHUNK = 320
QUIET = np.zeros(CHUNK, dtype=np.float32)
VOICE = (0.1 * np.sin(np.arange(CHUNK) * 2 * np.pi * 200 / RATE)).astype(np.float32)


class Learner:
    """A conversation whose answers are recorded: `answered` holds (samples, continued) per call."""

    def __init__(self, *, background: bool, line_s: float = 3.0, hold: threading.Event | None = None):
        self.answered: list[tuple[int, bool]] = []
        self.hold = hold

        def speak(text: str):
            return np.zeros(CHUNK if text == "Hello." else int(line_s * RATE), dtype=np.float32)

        def hear(samples):
            return Heard("We rolled it back.")

        def answer(samples, transcript, continued: bool = False):
            self.answered.append((len(samples), continued))
            if self.hold is not None:
                self.hold.wait(30)
            return Reply("What happened next?", heard="We rolled it back.")

        self.talk = LiveConversation("Hello.", speak, hear, answer, background=background)

    def say(self, seconds: float, chunk=VOICE) -> None:
        for _ in range(int(seconds * RATE / CHUNK)):
            self.talk.step(chunk)

    def until(self, state: str, limit_s: float = 10.0) -> None:
        for _ in range(int(limit_s * RATE / CHUNK)):
            if self.talk.state == state:
                return
            self.talk.step(QUIET)
            if self.talk._pool is not None:  # noqa: SLF001 - let the worker run
                threading.Event().wait(0.002)
        raise AssertionError(f"still {self.talk.state}, waited for {state}")


def test_going_on_while_the_turn_is_run_withholds_the_line_and_answers_again_whole():
    hold = threading.Event()
    learner = Learner(background=True, hold=hold)
    talk = learner.talk
    try:
        learner.until("listening")
        learner.say(1.0)
        learner.until(THINKING)  # taken as over after the short patience; the answer runs (held)
        learner.say(0.5)  # the learner goes on before the persona says anything
        hold.set()
        learner.until(TURN)
        assert ("taken back", talk.events[-1][1]) == talk.events[-1]
        assert [c.speaker for c in talk.now().captions] == [PERSONA, LEARNER], "no line was said"
        learner.until(SPEAKING)
    finally:
        hold.set()
        talk.close()
    (first, first_continued), (whole, continued) = learner.answered
    assert not first_continued and continued
    assert whole > first + int(0.5 * RATE)  # the first part, the pause and what followed
    assert talk.answers == 1
    speakers = [c.speaker for c in talk.now().captions]
    assert speakers == [PERSONA, LEARNER, PERSONA], speakers


def test_going_on_once_the_persona_speaks_stops_it_and_answers_again_whole():
    learner = Learner(background=False)
    talk = learner.talk
    learner.until("listening")
    learner.say(1.0)
    learner.until(SPEAKING)  # its next line (3 s) has started
    learner.say(0.5)
    assert talk.state == TURN and talk.barge_ins
    assert talk.events[-1][0] == "taken back"
    learner.until(SPEAKING)
    (first, first_continued), (whole, continued) = learner.answered
    assert not first_continued and continued and whole > first + int(0.5 * RATE)
    assert talk.answers == 1
    said = talk.now().captions
    assert [c.speaker for c in said] == [PERSONA, LEARNER, PERSONA, LEARNER, PERSONA]
    assert said[2].cut
    talk.close()


def test_words_after_the_line_or_long_after_the_answer_are_a_new_answer():
    learner = Learner(background=False, line_s=5.0)
    talk = learner.talk
    learner.until("listening")
    learner.say(1.0)
    learner.until(SPEAKING)
    learner.say(2.0, QUIET)  # 0.8 s patience + 2 s: past TAKE_BACK_S after the last word
    learner.say(0.5)
    assert talk.state == TURN and talk.barge_ins
    learner.until(SPEAKING)
    learner.until("listening")  # this line heard whole
    learner.say(0.5)
    learner.until(SPEAKING)
    assert [continued for _, continued in learner.answered] == [False, False, False]
    assert talk.answers == 3
    assert not any(kind == "taken back" for kind, _ in talk.events)
    talk.close()
