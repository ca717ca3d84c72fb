"""A spoken answer as it is recorded: saved to disk chunk by chunk, and transcribed while
the user speaks (`coach.stt.incremental`). No Streamlit here: the page hands over PCM and
polls `text()`; at "stop", `finish()` returns the transcript, and the engine runs the turn
(`PracticeEngine.answer_with_audio`).

Nothing is lost if the stream drops or the browser reloads: every chunk is in the WAV file
(its header rewritten as it grows) before it is transcribed, the file is attached to the
turn when recording starts, and when the live transcript is not usable `finish()` falls
back to transcribing the saved file.
"""

from __future__ import annotations

import logging
import struct
import threading
from pathlib import Path

import numpy as np

from coach import audio as audio_mod
from coach.errors import AudioError, StorageError

log = logging.getLogger(__name__)
RATE = audio_mod.SAMPLE_RATE


class RecordingWriter:
    """A 16 kHz mono 16-bit WAV written as the audio arrives; the sizes in its header are
    rewritten after every chunk, so the file is a valid recording at any moment."""

    def __init__(self, path: Path):
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._file = open(self.path, "wb")  # noqa: SIM115 - kept open while recording
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

    def write(self, samples: np.ndarray) -> None:
        pcm = np.clip(np.asarray(samples, dtype=np.float32) * 32768.0, -32768, 32767).astype("<i2")
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

    def __init__(self, path: Path, model, options=None, settings=None):
        from coach.stt import BackgroundTranscriber

        self.path = Path(path)
        self.settings = settings
        self.options = options
        self.recording = RecordingWriter(self.path)
        self.transcriber = BackgroundTranscriber(model, options)
        from coach.pronunciation import ReferenceWarmer

        self.references = ReferenceWarmer(model, settings)  # each segment's, while the user speaks
        self.dropped = False  # set by the page when the stream ended before "stop"
        self._finished = None

    def feed(self, samples) -> None:
        from coach.stt.incremental import to_float32

        samples = to_float32(samples).reshape(-1)
        if samples.size == 0:
            return
        self.recording.write(samples)  # saved first, then transcribed
        self.transcriber.push(samples)
        self.references.see(self.transcriber.live.decoded_segments)

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
