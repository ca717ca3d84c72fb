"""Barge-in (coach.meeting.BargeIn): the learner starts talking while a persona speaks, and the
persona's outgoing audio falls silent within 0.4 s of the learner's first sound. Real espeak-ng
speech on both sides, through the WebRTC bridge (`FrameBridge`) and `step`, as in the app."""

from __future__ import annotations

import numpy as np
import pytest

from coach.meeting import BARGE_IN_HOLD_S, BargeIn, FrameBridge, LiveMeeting, line_samples
from coach.scenes import timeline
from tests.speech_frames import RATE, heard, onset, rms, spoken, web_frames

BUDGET_S = 0.4  # the figure: the persona is silent this soon after the learner starts


def silent_after(out: np.ndarray, start: float, chunk: int = 320) -> float:
    """When the output falls silent for good after `start` (seconds; inf if it never does)."""
    first = int(start * RATE) // chunk
    pieces = out[first * chunk: out.size - out.size % chunk].reshape(-1, chunk)
    loud = np.flatnonzero(np.abs(pieces).max(axis=1) > 1e-4)
    return (first + (loud[-1] + 1 if loud.size else 0)) * chunk / RATE


def test_the_detector_needs_a_held_voice_not_a_click():
    barge = BargeIn(RATE)
    click = np.full(320, 0.3, dtype=np.float32)
    quiet = np.zeros(320, dtype=np.float32)
    assert barge.hear(click, 0.0) is None
    for step in range(1, 20):
        assert barge.hear(quiet, step * 0.02) is None  # one loud frame, then silence: nothing
    voice = spoken("Sorry, can I jump in?")
    times = []
    for index in range(voice.size // 320):
        found = barge.hear(voice[index * 320:(index + 1) * 320], 1.0 + index * 0.02)
        if found is not None:
            times.append((1.0 + index * 0.02, found))
            break
    assert times, "a held voice is heard"
    fired, began = times[0]
    assert began == pytest.approx(1.0 + onset(voice), abs=0.021)
    assert BARGE_IN_HOLD_S - 0.03 <= fired - began <= BARGE_IN_HOLD_S + 0.03


def _meeting_over_the_bridge(library, barge_in: bool):
    scene = library.scenes["talking-at-once"]
    personas = library.personas
    lines, _ = timeline(scene, personas)
    sofia = next(line for line in lines if line.id == "sofia-long")
    learner = spoken("Sorry, can I jump in for a second? I have a question about the dashboard.")
    talk_at = sofia.start + 1.0
    mic = np.zeros(int((sofia.start + 6.0) * RATE), dtype=np.float32)
    mic[int(talk_at * RATE):int(talk_at * RATE) + learner.size] = learner
    meeting = LiveMeeting(scene, personas, line_samples(scene, personas), lambda _audio: "Sorry, can I jump in",
                          background=False, barge_in=barge_in)
    bridge = FrameBridge(meeting)
    out = np.concatenate([heard(bridge(frame)) for frame in web_frames(mic)])
    return out, talk_at + onset(learner), meeting.started[sofia.index], sofia


def test_the_persona_falls_silent_when_the_learner_talks_over_it(library):
    out, learner_onset, sofia_started, sofia = _meeting_over_the_bridge(library, barge_in=True)
    before = out[int((learner_onset - 0.5) * RATE):int(learner_onset * RATE)]
    assert rms(before) > 0.01, "Sofia is speaking when the learner starts"
    silent = silent_after(out, learner_onset)
    assert silent - learner_onset <= BUDGET_S, silent - learner_onset
    assert silent - learner_onset >= BARGE_IN_HOLD_S - 0.03  # not before the voice was held


def test_the_scenes_keep_their_talking_over_without_barge_in(library):
    # the Meeting page's scenes are written with personas who talk on (no barge-in there)
    out, learner_onset, _, _ = _meeting_over_the_bridge(library, barge_in=False)
    assert rms(out[int((learner_onset + 0.5) * RATE):int((learner_onset + 1.5) * RATE)]) > 0.01
