"""A spoken answer as it is recorded: saved to disk chunk by chunk, and transcribed while
the user speaks (`coach.stt.incremental`). No Streamlit here: the page hands over PCM and
polls `text()`; at "stop", `finish()` returns the transcript, and the engine runs the turn
(`PracticeEngine.answer_with_audio`).

Nothing is lost if the stream drops or the browser reloads: every chunk is in the WAV file
(its header rewritten as it grows) before it is transcribed, the file is attached to the
turn when recording starts, and when the live transcript is not usable `finish()` falls
back to transcribing the saved file.

The opening words: the browser opens the microphone before its connection to the server is
up, and what is said in between never arrives as a stream. The page records that stretch in
the browser and hands it over (`add_head`); until then (at most HOLD_SECONDS) the streamed
audio is saved but held back from the transcriber, so the transcript starts with the first
word said.
"""

from __future__ import annotations

import logging
import struct
import threading
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from coach import audio as audio_mod
from coach.errors import AudioError, StorageError

if TYPE_CHECKING:
    from coach.stt.types import Transcript

log = logging.getLogger(__name__)
RATE = audio_mod.SAMPLE_RATE
# How long the streamed audio waits for the browser's recording of the opening words.
HOLD_SECONDS = 8.0
# Lining the browser's recording up with the stream: energy envelopes of 10 ms frames,
# compared over at least MIN_OVERLAP_SECONDS; a match must correlate this well.
ENVELOPE_FRAME = RATE // 100
MIN_OVERLAP_SECONDS = 0.3
MIN_MATCH = 0.8


def _envelope(samples: np.ndarray) -> np.ndarray:
    usable = samples[: len(samples) - len(samples) % ENVELOPE_FRAME].astype(np.float64)
    return np.sqrt(np.mean(usable.reshape(-1, ENVELOPE_FRAME) ** 2, axis=1)) if usable.size else usable


def missing_lead(head: np.ndarray, stream: np.ndarray, connected_seconds: float | None = None) -> int:
    """How many samples at the start of `head` (the browser's own recording from the moment
    the microphone opened) came before the first sample of `stream` (what the connection
    delivered). The end of `head` overlaps the start of `stream`: the offset where their
    energy envelopes match best; with no clear match (silence), the connection time."""
    fallback = min(len(head), int((connected_seconds or 0.0) * RATE))
    head_env, stream_env = _envelope(head), _envelope(stream)
    need = int(MIN_OVERLAP_SECONDS * 100)
    best, best_lag = -1.0, None
    for lag in range(0, len(head_env) - need + 1):
        length = min(len(head_env) - lag, len(stream_env))
        if length < need:
            break
        a, b = head_env[lag:lag + length], stream_env[:length]
        if a.std() < 1e-4 or b.std() < 1e-4:
            continue
        score = float(np.corrcoef(a, b)[0, 1])
        if score > best:
            best, best_lag = score, lag
    if best_lag is None or best < MIN_MATCH:
        return fallback
    return best_lag * ENVELOPE_FRAME


class RecordingWriter:
    """A 16 kHz mono 16-bit WAV written as the audio arrives; the sizes in its header are
    rewritten after every chunk, so the file is a valid recording at any moment."""

    def __init__(self, path: Path):
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._file = open(self.path, "w+b")  # noqa: SIM115 - kept open while recording
        except OSError as exc:
            raise StorageError(f"cannot save the recording in {self.path.parent}: {exc.strerror}") from None
        self.frames = 0
        self._lock = threading.Lock()
        self._write_header()

    def _write_header(self) -> None:
        data = self.frames * 2
        self._file.seek(0)
        self._file.write(b"RIFF" + struct.pack("<I", 36 + data) + b"WAVE")
        self._file.write(b"fmt " + struct.pack("<IHHIIHH", 16, 1, 1, RATE, RATE * 2, 2, 16))
        self._file.write(b"data" + struct.pack("<I", data))
        self._file.seek(0, 2)

    @staticmethod
    def _pcm(samples: np.ndarray) -> np.ndarray:
        return np.clip(np.asarray(samples, dtype=np.float32) * 32768.0, -32768, 32767).astype("<i2")

    def prepend(self, samples: np.ndarray) -> None:
        """Put audio in front of what is saved (the opening words, which arrive late)."""
        pcm = self._pcm(samples)
        with self._lock:
            if self._file.closed or pcm.size == 0:
                return
            self._file.seek(44)
            saved = self._file.read()
            self._file.seek(44)
            self._file.write(pcm.tobytes() + saved)
            self.frames += pcm.size
            self._write_header()
            self._file.flush()

    def write(self, samples: np.ndarray) -> None:
        pcm = self._pcm(samples)
        with self._lock:
            if self._file.closed:
                return
            self._file.write(pcm.tobytes())
            self.frames += pcm.size
            self._write_header()
            self._file.flush()

    def close(self) -> None:
        with self._lock:
            if not self._file.closed:
                self._file.close()

    @property
    def seconds(self) -> float:
        return self.frames / RATE


class LiveAnswer:
    """One answer being recorded: `feed` 16 kHz mono chunks, `text` so far, `finish`."""

    def __init__(self, path: Path, model, options=None, settings=None, *, await_head: bool = False):
        from coach.stt import BackgroundTranscriber

        self.path = Path(path)
        self.settings = settings
        self.options = options
        self.recording = RecordingWriter(self.path)
        self.transcriber = BackgroundTranscriber(model, options)
        from coach.pronunciation import ReferenceWarmer

        self.references = ReferenceWarmer(model, settings)  # each segment's, while the user speaks
        self.dropped = False  # set by the page when the stream ended before "stop"
        self._finished: Transcript | None = None
        # streamed audio saved but not yet transcribed, while the opening words are awaited
        self._held: list[np.ndarray] | None = [] if await_head else None
        self.lead_seconds = 0.0  # how much the browser's recording of the opening added

    def feed(self, samples) -> None:
        from coach.stt.incremental import to_float32

        samples = to_float32(samples).reshape(-1)
        if samples.size == 0:
            return
        self.recording.write(samples)  # saved first, then transcribed
        if self._held is None:
            self._transcribe(samples)
            return
        self._held.append(samples)
        if sum(chunk.size for chunk in self._held) > HOLD_SECONDS * RATE:
            self.add_head(None)  # the opening never came: transcribe what streamed

    def add_head(self, head: bytes | None, connected_seconds: float | None = None) -> None:
        """The browser's recording of the answer's opening (any format PyAV reads), from the
        moment the microphone opened to a little after the stream began: the part the stream
        missed goes in front, in the file and in the transcript. None: there is none; stop
        waiting for it. Only the first call counts."""
        if self._held is None:
            return
        held = np.concatenate(self._held) if self._held else np.zeros(0, dtype=np.float32)
        self._held = None
        lead = np.zeros(0, dtype=np.float32)
        if head:
            try:
                samples = audio_mod.decode(head).samples
            except AudioError as exc:
                log.warning("the opening of the answer could not be read (%s)", exc)
            else:
                lead = samples[:missing_lead(samples, held, connected_seconds)]
        if lead.size:
            self.recording.prepend(lead)
            self.lead_seconds = lead.size / RATE
        audio = np.concatenate([lead, held])
        if audio.size:
            self._transcribe(audio)

    def _transcribe(self, samples: np.ndarray) -> None:
        self.transcriber.push(samples)
        self.references.see(self.transcriber.live.decoded_segments)  # pronunciation references, while speaking

    def text(self) -> str:
        return self.transcriber.text()

    @property
    def seconds(self) -> float:
        return self.recording.seconds

    def finish(self, timeout: float = 60.0):
        """The transcript of the whole answer: the live one, or (stream dropped, worker
        failed) the saved file transcribed again. AudioError when nothing usable was said."""
        if self._finished is not None:
            return self._finished
        self.add_head(None)  # if it is still awaited, go without it
        self.recording.close()
        self.references.close()
        from coach import stt

        try:
            if self.dropped:
                raise RuntimeError("the audio stream dropped")
            transcript = self.transcriber.finish(timeout)
        except AudioError:
            raise
        except Exception as exc:  # noqa: BLE001 - any failure of the live path
            log.warning("live transcription failed (%s); transcribing the saved recording", exc)
            transcript = stt.transcribe(self.path, self.settings, self.options)
        self._finished = transcript
        return transcript
