"""The opening words of a live answer, recorded in the browser.

streamlit-webrtc opens the microphone and only then connects; what the learner says in
between (measured: 1.2 s on a loaded 2-core machine) never reaches the server. A hidden
component (recorder_head/index.html) records that stretch locally, from the moment the
microphone opens until a second after the connection is up, and returns it here; the core
(`coach.live.LiveAnswer.add_head`) puts the missing part in front of the streamed audio.
"""

from __future__ import annotations

import base64
import binascii
from pathlib import Path

import streamlit.components.v1 as components

from coach.ui import state

_component = components.declare_component("recorder_head", path=str(Path(__file__).parent / "recorder_head"))


def watch() -> dict | None:
    """Render the watcher (invisible) and return the opening of the latest recording once,
    as {"audio": bytes or None, "connected_seconds": float or None}; None when there is
    nothing new."""
    value = _component(key="recorder-head", default=None)
    if not isinstance(value, dict) or not value.get("id"):
        return None
    used = state.page().heads_used
    if value["id"] in used:
        return None
    used.add(value["id"])
    try:
        audio = base64.b64decode(value["head"]) if value.get("head") else None
    except (binascii.Error, TypeError):
        audio = None
    connected = value.get("connected_ms")
    return {"audio": audio, "connected_seconds": connected / 1000 if isinstance(connected, (int, float)) else None}
