"""The live path: transcribe while the user speaks.

PCM chunks (16 kHz mono) go in as they arrive; Silero VAD (faster_whisper.vad) finds where
speech ends; each finished segment is decoded at once, and speech before a short pause is
decoded ahead (kept if nothing more is said). At the end at most the last segment is left
to decode, so the wait after "stop" does not grow with the length of the answer.

    live = IncrementalTranscriber(model)          # one per answer, not thread-safe
    for chunk in chunks:
        for segment in live.feed(chunk):          # the segments finished by this chunk
            show(segment.text)
    live.flush()                                  # decode what is left
    transcript = live.transcript()                # the same `Transcript` as `transcribe`

`BackgroundTranscriber` runs one in a worker thread: `push` never blocks (a UI loop feeds it),
`text()` is what is known so far, `finish()` waits for the last segment. Neither touches
Streamlit; the page polls `text()`.
"""

from __future__ import annotations

import queue
import threading
import time
from dataclasses import dataclass

import numpy as np

from coach import audio as audio_mod
from coach.errors import AudioError
from coach.stt import checks
from coach.stt.batch import assemble, decode_speech
from coach.stt.engines import SpeechEngine
from coach.stt.options import DecodeOptions
from coach.stt.types import RawSegment, Transcript
from coach.stt.windows import SpeechWindow, group_spans

RATE = audio_mod.SAMPLE_RATE
# A pause this long ends a segment (0.5 s: a sentence break; measured, live-audio notes).
MIN_SILENCE_MS = 500
SPEECH_PAD_MS = 200
SPEECH_PAD = SPEECH_PAD_MS * RATE // 1000  # the same, in samples
# A segment is decoded once it holds this much speech and a pause follows; shorter phrases
# wait for the next one (a two-word fragment decodes badly on its own), unless the pause
# after them is long.
MIN_SEGMENT_SECONDS = 3.0
LONG_PAUSE_SECONDS = 1.5
# Speech with no pause is cut here anyway, so that no segment grows without limit.
MAX_SEGMENT_SECONDS = 15.0
# VAD runs on the pending audio at most this often (it is cheap, but not free).
VAD_EVERY_SECONDS = 0.3
# Silence with no speech in it is dropped from the pending buffer, except this much.
KEEP_SILENCE_SECONDS = 1.0
# After a pause this short, speech that would make a segment is decoded ahead, in case the
# speaker has finished: if nothing more is said, that decode becomes the segment (and at
# "stop" nothing is left to wait for); if they go on, it is dropped. Only the last second
# of audio is checked for the pause.
AHEAD_PAUSE_MS = 200
AHEAD_CHECK_SECONDS = 1.0


@dataclass
class LiveSegment:
    """A finished, decoded segment: times in the recording's seconds."""

    start: float
    end: float
    text: str
    decode_seconds: float
    decoded_ahead: bool = False  # decoded during the pause before it was cut


@dataclass
class _AheadDecode:
    """Speech decoded on a short pause, kept while nothing more is said."""

    offset: int  # `_offset` when it was decoded (the pending buffer's position)
    window: SpeechWindow
    speech_end: int  # where the speech ended, in the pending buffer's samples
    raw: list[RawSegment]
    decode_seconds: float


def to_float32(pcm) -> np.ndarray:
    """float32 samples in [-1, 1] from int16 or float PCM (mono)."""
    array = np.asarray(pcm)
    if array.dtype == np.int16:
        return array.astype(np.float32) / 32768.0
    return array.astype(np.float32, copy=False)


class IncrementalTranscriber:
    """Segments and transcribes 16 kHz mono PCM fed in chunks. See the module docstring."""

    def __init__(self, model: SpeechEngine, options: DecodeOptions | None = None, *,
                 min_silence_ms: int = MIN_SILENCE_MS, max_segment_seconds: float = MAX_SEGMENT_SECONDS,
                 vad_every_seconds: float = VAD_EVERY_SECONDS):
        self.model = model
        self.options = options or DecodeOptions()
        self.min_silence = int(min_silence_ms * RATE / 1000)
        self.max_segment_seconds = max_segment_seconds
        self.vad_every = int(vad_every_seconds * RATE)
        self._pending = np.zeros(0, dtype=np.float32)
        self._offset = 0  # where `_pending` starts in the recording, in samples
        self._since_vad = 0
        self._raw: list[RawSegment] = []
        self.segments: list[LiveSegment] = []
        self.decode_seconds = 0.0
        self.error: AudioError | None = None  # set once the speech is judged not English
        self._judged = False
        self._ahead: _AheadDecode | None = None
        self.ahead_decodes = 0  # how many decodes were done ahead (a few are thrown away)

    @property
    def samples_fed(self) -> int:
        return self._offset + len(self._pending)

    @property
    def duration(self) -> float:
        return self.samples_fed / RATE

    @property
    def text(self) -> str:
        return " ".join(s.text for s in self.segments if s.text)

    @property
    def decoded_segments(self) -> list[RawSegment]:
        """The decoder's segments so far, as `transcript()` will assemble them (a snapshot:
        the list only grows), for work done per segment while the user speaks."""
        return list(self._raw)

    def feed(self, pcm) -> list[LiveSegment]:
        """Add a chunk; returns the segments that it finished (often none)."""
        samples = to_float32(pcm).reshape(-1)
        if samples.size == 0:
            return []
        self._pending = np.concatenate([self._pending, samples])
        self._since_vad += samples.size
        if self._since_vad < self.vad_every:
            return []
        self._since_vad = 0
        return self._cut(final=False)

    def flush(self) -> list[LiveSegment]:
        """The end of the recording: decode whatever speech is left."""
        self._since_vad = 0
        return self._cut(final=True)

    def transcript(self) -> Transcript:
        """All of it as one `Transcript` (call `flush` first). AudioError as `transcribe`."""
        if self.error is not None:
            raise self.error
        return assemble(self._raw, self.duration, self.model, self.decode_seconds)

    # --- internals ----------------------------------------------------------------------

    def _spans(self) -> list[tuple[int, int]]:
        from faster_whisper.vad import VadOptions, get_speech_timestamps

        vad = VadOptions(min_silence_duration_ms=int(self.min_silence * 1000 / RATE),
                         speech_pad_ms=SPEECH_PAD_MS, max_speech_duration_s=self.max_segment_seconds)
        found = get_speech_timestamps(self._pending, vad, sampling_rate=RATE)
        return [(int(s["start"]), int(s["end"])) for s in found]

    def _cut(self, final: bool) -> list[LiveSegment]:
        if self.error is not None or self._pending.size == 0:
            return []
        spans = self._spans()
        if not spans:
            keep = int(KEEP_SILENCE_SECONDS * RATE)
            if final:
                self._offset += len(self._pending)
                self._pending = self._pending[:0]
            elif len(self._pending) > keep:
                drop = len(self._pending) - keep
                self._offset += drop
                self._pending = self._pending[drop:]
            return []
        if final:
            closed = spans
        else:
            # A span is finished when another one follows it (a pause, or a forced cut), or
            # when a pause of min_silence has followed it already.
            closed = spans[:-1]
            # The span's end is padded by SPEECH_PAD_MS: the speaker has paused for
            # min_silence once the padded end is that much less behind the buffer's end.
            trailing = len(self._pending) - spans[-1][1]
            if trailing >= self.min_silence - SPEECH_PAD:
                closed = spans
            if not closed or not self._worth_a_segment(closed, spans, trailing):
                self._decode_ahead(spans)
                return []
        new: list[LiveSegment] = []
        for window in group_spans(closed, self.options.window_seconds):
            ahead = self._ahead_for(window)
            if ahead is not None:
                raw, elapsed = ahead.raw, ahead.decode_seconds
            else:
                raw, elapsed = self._decode(window)
            self._raw += raw
            text = " ".join(s.text.strip() for s in raw if s.text.strip())
            first, last = window.spans[0][0], window.spans[-1][1]
            new.append(LiveSegment(start=round((self._offset + first) / RATE, 3),
                                   end=round((self._offset + last) / RATE, 3),
                                   text=text, decode_seconds=round(elapsed, 3),
                                   decoded_ahead=ahead is not None))
        self.segments += new
        cut = len(self._pending) if final else closed[-1][1]
        self._offset += cut
        self._pending = self._pending[cut:]
        self._ahead = None
        self._judge_language()
        return new

    def _decode(self, window: SpeechWindow) -> tuple[list[RawSegment], float]:
        """Decode one window of the pending audio (times in the recording), counting the time."""
        started = time.perf_counter()
        raw = decode_speech(self.model, window, self._pending, self.options, self._offset / RATE)
        elapsed = time.perf_counter() - started
        self.decode_seconds += elapsed
        return raw, elapsed

    def _worth_a_segment(self, closed, spans, trailing: int) -> bool:
        """Closed spans are decoded once they hold MIN_SEGMENT_SECONDS of speech, or after a
        long pause, or when the VAD cut a long stretch of speech (no pause after it)."""
        long_pause = closed is spans and trailing >= LONG_PAUSE_SECONDS * RATE
        forced = len(closed) < len(spans) and spans[-1][0] - closed[-1][1] < self.min_silence
        return closed[-1][1] - closed[0][0] >= MIN_SEGMENT_SECONDS * RATE or long_pause or forced

    def _speech_end_if_paused(self) -> int | None:
        """Where the speech ended, if the speaker has been silent for AHEAD_PAUSE_MS (a
        pause too short to cut a segment at); else None."""
        from faster_whisper.vad import VadOptions, get_speech_timestamps

        start = max(0, len(self._pending) - int(AHEAD_CHECK_SECONDS * RATE))
        vad = VadOptions(min_silence_duration_ms=AHEAD_PAUSE_MS, speech_pad_ms=0)
        found = get_speech_timestamps(self._pending[start:], vad, sampling_rate=RATE)
        if not found:
            return None  # silence all through the last second: the normal cut handles it
        end = start + int(found[-1]["end"])
        return end if len(self._pending) - end >= AHEAD_PAUSE_MS * RATE // 1000 else None

    def _decode_ahead(self, spans: list[tuple[int, int]]) -> None:
        """On a short pause after enough speech, decode it now (see AHEAD_PAUSE_MS)."""
        if spans[-1][1] - spans[0][0] < MIN_SEGMENT_SECONDS * RATE:
            return
        speech_end = self._speech_end_if_paused()
        if speech_end is None:
            return
        ahead = self._ahead
        if ahead is not None and ahead.offset == self._offset and speech_end <= ahead.speech_end + SPEECH_PAD:
            return  # nothing new said since the last decode ahead
        clipped = [(a, min(b, speech_end + SPEECH_PAD)) for a, b in spans if a < speech_end]
        windows = group_spans(clipped, self.options.window_seconds)
        if len(windows) != 1:
            return  # more than one pass of speech: leave it to the cut
        raw, elapsed = self._decode(windows[0])
        self.ahead_decodes += 1
        self._ahead = _AheadDecode(offset=self._offset, window=windows[0], speech_end=speech_end,
                                   raw=raw, decode_seconds=elapsed)

    def _ahead_for(self, window: SpeechWindow) -> _AheadDecode | None:
        """The decode ahead, if it covered the same speech as `window` (nothing was said
        after it, and the segment starts where it started)."""
        ahead = self._ahead
        if ahead is None or ahead.offset != self._offset or len(ahead.window.spans) != len(window.spans):
            return None
        same_start = abs(window.spans[0][0] - ahead.window.spans[0][0]) <= SPEECH_PAD
        end = window.spans[-1][1]
        same_end = ahead.speech_end - SPEECH_PAD <= end <= ahead.speech_end + 2 * SPEECH_PAD
        return ahead if same_start and same_end else None

    def _judge_language(self) -> None:
        if self._judged or not self._raw:
            return
        if self._raw[-1].end - self._raw[0].start >= checks.EARLY_CHECK_SECONDS:
            self._judged = True
            if checks.looks_non_english(self._raw):
                # Stop decoding: the answer will be refused whatever follows.
                self.error = AudioError(checks.NOT_ENGLISH)


_DONE = object()


class BackgroundTranscriber:
    """An `IncrementalTranscriber` in a worker thread, for a UI loop that must not block.
    The worker never calls Streamlit; the page polls `text()`."""

    def __init__(self, model: SpeechEngine, options: DecodeOptions | None = None, **kwargs):
        self.live = IncrementalTranscriber(model, options, **kwargs)
        self._queue: queue.Queue = queue.Queue()
        self._failure: BaseException | None = None
        self._thread = threading.Thread(target=self._work, name="live-transcriber", daemon=True)
        self._thread.start()

    def push(self, pcm) -> None:
        self._queue.put(pcm)

    def text(self) -> str:
        # The worker only ever appends whole segments to the list: a snapshot is consistent.
        return " ".join(s.text for s in list(self.live.segments) if s.text)

    @property
    def failed(self) -> BaseException | None:
        return self._failure

    def finish(self, timeout: float | None = None) -> Transcript:
        """Wait for the last segment; the transcript, or the worker's error (AudioError:
        nothing said / not English; anything else: the caller falls back to the file)."""
        self._queue.put(_DONE)
        self._thread.join(timeout)
        if self._thread.is_alive():
            raise TimeoutError("the live transcriber did not finish in time")
        if self._failure is not None:
            raise self._failure
        return self.live.transcript()

    def _work(self) -> None:
        done = False
        while not done:
            chunks = [self._queue.get()]
            while True:  # take everything that arrived while the last segment decoded
                try:
                    chunks.append(self._queue.get_nowait())
                except queue.Empty:
                    break
            done = any(c is _DONE for c in chunks)
            if self._failure is not None:
                continue
            try:
                audio = [to_float32(c).reshape(-1) for c in chunks if c is not _DONE]
                if audio:
                    self.live.feed(np.concatenate(audio))
                if done:
                    self.live.flush()
            except BaseException as exc:  # noqa: BLE001 - handed to finish()
                self._failure = exc
