"""The end of a hands-free turn on a busy machine (coach.conversation, no model, no voice): when
the decode of the whole turn is still running as the longest patience runs out, the turn ends
and that decode's transcript is the one the answer gets, not a second transcription (found by
benchmarks/conversation_browser.py: with the browser and another job on 2 cores, a 3 s sentence
took 2.6-5.4 s to decode, and the answer path decoded it again)."""

from __future__ import annotations

import threading

import numpy as np

from coach.conversation import LISTENING, SPEAKING, THINKING, Heard, LiveConversation, Reply
from coach.meeting import UNFINISHED_PAUSE_S

RATE = 16_000
CHUNK = 320


def test_a_decode_still_running_when_the_turn_ends_is_the_answers_transcript():
    release = threading.Event()
    decoded: list[int] = []
    answered: list[tuple[int, object]] = []
    transcript = object()

    def hear(samples):
        decoded.append(len(samples))
        release.wait(30)  # slower than the longest patience
        return Heard("I finished the login page.", transcript)

    def answer(samples, given):
        answered.append((len(samples), given))
        return Reply("And what is next?", heard="I finished the login page.")

    talk = LiveConversation("Hello.", lambda _text: np.zeros(CHUNK, dtype=np.float32), hear, answer)
    try:
        quiet = np.zeros(CHUNK, dtype=np.float32)
        voice = (0.1 * np.sin(np.arange(CHUNK) * 2 * np.pi * 200 / RATE)).astype(np.float32)
        while talk.state != LISTENING:
            talk.step(quiet)
        for _ in range(50):  # a second of "speech"
            talk.step(voice)
        for _ in range(int((UNFINISHED_PAUSE_S + 0.2) * RATE / CHUNK)):
            talk.step(quiet)
        assert talk.state == THINKING  # over on the longest patience, the decode still running
        assert len(decoded) == 1
        release.set()
        for _ in range(500):
            if talk.state == SPEAKING:
                break
            talk.step(quiet)
            threading.Event().wait(0.01)
        assert talk.state == SPEAKING
    finally:
        release.set()
        talk.close()
    assert len(decoded) == 1
    assert answered == [(decoded[0], transcript)]  # the same stretch, and its transcript
