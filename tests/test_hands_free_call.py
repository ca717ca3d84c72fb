"""The hands-free call as the page holds it before anyone talks (`coach.conversation.Call`):
silence out and nothing made until the conversation is handed to it, then every frame is its."""

from __future__ import annotations

import numpy as np

from coach.conversation import Call


class _Conversation:
    rate = 16_000

    def __init__(self):
        self.heard: list[int] = []

    def step(self, mic):
        self.heard.append(len(mic))
        return np.full(len(mic), 0.5, dtype=np.float32)


def test_a_call_is_silent_until_its_conversation_starts_then_steps_it():
    call = Call()
    mic = np.ones(320, dtype=np.float32)
    assert not call.step(mic).any() and call.live is None  # before the start: silence, nothing made
    conversation = _Conversation()
    call.live = conversation  # type: ignore[assignment]  # a stand-in with the same step
    assert np.allclose(call.step(mic), 0.5) and conversation.heard == [320]
    assert call.bridge().meeting is call  # the WebRTC callback steps the call, whichever conversation it holds
