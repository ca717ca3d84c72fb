"""Helpers for the speech tests (imported by tests/test_stt.py and friends; not a pytest
conftest, so that nothing here runs for the other tests).

The recordings are real audio: espeak-ng speech made by scripts/make_test_audio.py into
tests/fixtures/audio/, and one human recording in assets/audio/ (see SOURCES.md there).
Variants that would be large to commit (stereo 44.1 kHz WAV...) are made at run time here
with PyAV from the committed files.
"""

from __future__ import annotations

import io
import re
import wave
from pathlib import Path

import av
import numpy as np
import pytest

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "tests" / "fixtures" / "audio"
ASSETS = REPO / "assets" / "audio"
COACH = str(REPO / ".venv" / "bin" / "coach")


def fixture(name: str) -> Path:
    return FIXTURES / name


@pytest.fixture(scope="session")
def speech_model():
    """Load the default model once for the whole test session (stt caches it per process)."""
    from coach import stt
    from coach.config import load_settings

    return stt.load_model(load_settings())


def decode_int16(path: Path) -> tuple[np.ndarray, int]:
    """int16 mono samples of a file, at its own rate."""
    with av.open(str(path)) as container:
        stream = container.streams.audio[0]
        rate = stream.rate
        resampler = av.AudioResampler(format="s16", layout="mono", rate=rate)
        chunks = []
        for frame in container.decode(stream):
            chunks += [f.to_ndarray().reshape(-1) for f in resampler.resample(frame)]
        chunks += [f.to_ndarray().reshape(-1) for f in resampler.resample(None)]
    return np.concatenate(chunks).astype(np.int16), rate


def wav_bytes(samples: np.ndarray, rate: int, channels: int = 1) -> bytes:
    """A 16-bit PCM WAV of int16 samples (interleaved when channels > 1)."""
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(channels)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(np.asarray(samples, dtype="<i2").tobytes())
    return buffer.getvalue()


def resample_int16(samples: np.ndarray, rate: int, new_rate: int) -> np.ndarray:
    frame = av.AudioFrame.from_ndarray(samples.reshape(1, -1), format="s16", layout="mono")
    frame.sample_rate = rate
    resampler = av.AudioResampler(format="s16", layout="mono", rate=new_rate)
    out = resampler.resample(frame) + resampler.resample(None)
    return np.concatenate([f.to_ndarray().reshape(-1) for f in out]).astype(np.int16)


def stereo_wav(path: Path, rate: int = 44_100) -> bytes:
    """The recording as a stereo WAV at `rate` (left and right slightly different)."""
    samples, own_rate = decode_int16(path)
    mono = resample_int16(samples, own_rate, rate)
    left = mono
    right = (mono.astype(np.int32) * 3 // 4).astype(np.int16)
    return wav_bytes(np.column_stack([left, right]).reshape(-1), rate, channels=2)


def mono_wav(path: Path, rate: int) -> bytes:
    samples, own_rate = decode_int16(path)
    return wav_bytes(resample_int16(samples, own_rate, rate), rate)


def normalise(text: str) -> str:
    """Lower case, no punctuation, one space between words (for WER)."""
    text = text.lower().replace("’", "'")
    text = re.sub(r"[^\w\s']", " ", text)
    return " ".join(text.split())


def results_from_threads(count: int, work) -> dict:
    """`work(i)` for i in range(count), each in its own thread at once: i -> its result, or the
    exception it raised."""
    import threading

    results: dict = {}

    def run(i: int) -> None:
        try:
            results[i] = work(i)
        except Exception as exc:  # noqa: BLE001 - the test reads it
            results[i] = exc

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return results
