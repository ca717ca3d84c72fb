"""Real speech for the live-call tests (not a conftest): espeak-ng lines as 16 kHz mono float32,
and a 16 kHz microphone signal cut into WebRTC-like PyAV frames (48 kHz stereo s16, 20 ms) for
`coach.meeting.FrameBridge`, with the bridge's output turned back into 16 kHz mono."""

from __future__ import annotations

import functools
import shutil
import subprocess
import tempfile
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

RATE = 16_000
WEB_RATE = 48_000
FRAME = 960  # 20 ms at 48 kHz


@functools.lru_cache(maxsize=64)
def _espeak(text: str, speed: int) -> bytes:
    if not shutil.which("espeak-ng"):
        pytest.fail("espeak-ng is missing; scripts/rehearse.sh test installs it")
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "said.wav"
        subprocess.run(["espeak-ng", "-v", "en-us", "-s", str(speed), "-w", str(out), text], check=True)
        return out.read_bytes()


def spoken(text: str, speed: int = 160) -> np.ndarray:
    """`text` said by espeak-ng, 16 kHz mono float32, its leading and trailing silence trimmed."""
    from coach import audio

    samples = audio.decode(_espeak(text, speed)).samples.astype(np.float32)
    loud = np.flatnonzero(np.abs(samples) > 0.01)
    return samples[loud[0]:loud[-1] + 1] if loud.size else samples


def onset(samples: np.ndarray, level: float = 0.01, chunk: int = 320) -> float:
    """When `samples` first have a 20 ms chunk at the speech level (`coach.meeting.SPEECH_RMS`)."""
    usable = samples[: samples.size - samples.size % chunk].reshape(-1, chunk).astype(np.float64)
    loud = np.flatnonzero(np.sqrt(np.mean(usable ** 2, axis=1)) >= level)
    return float(loud[0] * chunk / RATE) if loud.size else float("inf")


def web_frames(mic: np.ndarray):
    """The 16 kHz microphone signal as the browser's track delivers it: 20 ms s16 frames, 48 kHz stereo."""
    import av

    up = np.interp(np.arange(int(mic.size * 3)) / 3.0, np.arange(mic.size), mic)
    pcm = (np.clip(up, -1, 1) * 32767).astype(np.int16)
    for index in range(pcm.size // FRAME):
        piece = pcm[index * FRAME:(index + 1) * FRAME]
        frame = av.AudioFrame.from_ndarray(np.repeat(piece, 2).reshape(1, -1), format="s16", layout="stereo")
        frame.sample_rate = WEB_RATE
        frame.pts = index * FRAME
        frame.time_base = Fraction(1, WEB_RATE)
        yield frame


def heard(frame) -> np.ndarray:
    """A frame the bridge sent back, as 16 kHz mono float32."""
    data = frame.to_ndarray().reshape(-1, 2)[:, 0].astype(np.float32) / 32767
    return data[::3]


def rms(samples: np.ndarray) -> float:
    return float(np.sqrt(np.mean(np.square(samples, dtype=np.float64)))) if samples.size else 0.0
