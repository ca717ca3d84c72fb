"""Reading a recording: decode it (PyAV, the decoder faster-whisper uses) to 16 kHz mono,
and refuse what cannot be transcribed with one clear `AudioError` that says what to do.

Every check that can be made without the speech model is made here, before the model is
loaded or run: an empty file, bytes that are not audio, a damaged header, a recording longer
than `Settings.max_audio_seconds` (read from the container first, then enforced while
decoding, so an over-long file is never decoded in full) and digital silence. What only the
model can tell (no words, not English) is checked in `coach.stt`.
"""

from __future__ import annotations

import io
import stat
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from coach.errors import AudioError

SAMPLE_RATE = 16_000

# The user-facing messages: one sentence each, saying what happened and what to do.
RETRY = "Record again, or type your answer instead."
EMPTY = "The recording is empty (0 bytes): nothing was recorded. " + RETRY
NOT_AUDIO = (
    "This file is not a recording that can be read (expected WAV, FLAC, MP3 or OGG audio). "
    + RETRY
)
DAMAGED = "The recording is damaged or cut off: its {kind} header is incomplete. " + RETRY
NO_AUDIO_TRACK = "The file has no audio track in it. " + RETRY
NO_SOUND = "The recording contains no sound at all. " + RETRY
SILENT = (
    "The recording is silent: no speech was found. Check that the microphone is on and not "
    "muted, then record again, or type your answer instead."
)
TOO_LONG = (
    "The recording is {length} long; answers can be at most {limit}. Record a shorter answer "
    "(or split it in two), or type it instead."
)
UNKNOWN_CODEC = (
    "The recording's audio encoding cannot be decoded (an unknown codec); save it as plain WAV (PCM), FLAC, "
    "MP3 or OGG. " + RETRY
)
CUT_OFF = "The recording is cut off: it stops at {got} of the {declared} its header declares. " + RETRY
# a recording cut off after most of it: transcribed, with this note
CUT_OFF_NOTE = "the recording is cut off (it stops at {got} of {declared}): the end of the answer may be missing"
MISSING_FILE = "The audio file {path} does not exist. Check the path, or type your answer instead."
FOLDER = "{path} is a folder, not a recording. Give the path of an audio file, or type your answer instead."
UNREADABLE = "The audio file {path} cannot be read ({why}). Check the path, or type your answer instead."
NOT_A_FILE = "{path} is {what}, not a recording. Give the path of an audio file, or type your answer instead."
TOO_BIG = ("The audio file {path} is {size}: more than any recording of at most {limit} can be. "
           "Give a shorter recording, or type your answer instead.")
# the most bytes a second of a recording can take: 192 kHz, two channels, 32-bit samples (uncompressed)
MAX_BYTES_PER_SECOND = 192_000 * 2 * 4

# Below this RMS (about -54 dBFS) in every 20 ms frame, a recording has no audible speech.
SILENCE_RMS = 0.002
FRAME = SAMPLE_RATE // 50

# How each container starts, for telling "damaged audio" from "not audio at all".
_MAGIC = (
    (b"RIFF", 0, "WAV"),
    (b"RIFX", 0, "WAV"),
    (b"fLaC", 0, "FLAC"),
    (b"OggS", 0, "OGG"),
    (b"ID3", 0, "MP3"),
    (b"\x1aE\xdf\xa3", 0, "WebM"),
    (b"ftyp", 4, "MP4"),
    (b"FORM", 0, "AIFF"),
)


@dataclass(frozen=True)
class Audio:
    """A decoded recording: float32 samples in [-1, 1], mono, at 16 kHz."""

    samples: np.ndarray
    source_duration: float | None  # what the container says, when it says it
    source_rate: int | None = None  # the recording's own sample rate
    header_duration: float | None = None  # the length a WAV header declares (its data chunk)

    @property
    def duration(self) -> float:
        return len(self.samples) / SAMPLE_RATE

    @property
    def declared_duration(self) -> float | None:
        """The length the file's header declares (a WAV data chunk, an MP3 Xing/Info frame count)."""
        return self.header_duration or self.source_duration

    @property
    def cut_off(self) -> bool:
        """The file stops well before the length its header declares (a copy or an upload
        that ended early): what is there may end inside a word."""
        declared = self.declared_duration
        return declared is not None and self.duration < min(declared - 0.25, declared * 0.97)

    def cut_off_text(self, template: str) -> str:
        return template.format(got=f"{self.duration:.1f} s", declared=f"{self.declared_duration:.1f} s")


def format_seconds(seconds: float) -> str:
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    minutes, rest = divmod(seconds, 60)
    return f"{minutes} min {rest} s" if rest else f"{minutes} min"


def _too_long(length: float, limit: float) -> AudioError:
    limit_text = format_seconds(limit)
    if limit >= 60:
        limit_text += f" ({limit:g} s)"
    return AudioError(TOO_LONG.format(length=format_seconds(length), limit=limit_text))


def _open_source(source: bytes | bytearray | memoryview | str | Path) -> tuple[object, bytes, int]:
    """What PyAV should open, the first bytes (to tell damaged audio from no audio) and the
    size. A path is opened as a file, never read whole: a huge file is refused from its
    header, or once decoding passes the limit."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
        return io.BytesIO(data), data[:HEAD_BYTES], len(data)
    path = Path(source).expanduser()
    _regular_file(path)
    try:
        with path.open("rb") as handle:
            head = handle.read(HEAD_BYTES)
        return str(path), head, path.stat().st_size
    except OSError as exc:
        raise AudioError(UNREADABLE.format(path=path, why=exc.strerror)) from None


HEAD_BYTES = 4096  # the start of a file, read to tell what it is (and a WAV header's lengths)


def _kind_of_file(mode: int) -> str:
    for test, what in ((stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return what
    return "not a regular file"


def _regular_file(path: Path) -> int:
    """The size of `path`, a regular file (a link to one counts); AudioError naming what it is
    otherwise (missing, a folder, a device such as /dev/urandom, a pipe)."""
    try:
        status = path.stat()
    except FileNotFoundError:
        raise AudioError(MISSING_FILE.format(path=path)) from None
    except OSError as exc:
        raise AudioError(UNREADABLE.format(path=path, why=exc.strerror)) from None
    if stat.S_ISDIR(status.st_mode):
        raise AudioError(FOLDER.format(path=path))
    if not stat.S_ISREG(status.st_mode):
        raise AudioError(NOT_A_FILE.format(path=path, what=_kind_of_file(status.st_mode)))
    return status.st_size


def _size_text(size: int) -> str:
    for unit, scale in (("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if size >= scale:
            return f"{size / scale:.1f} {unit}"
    return f"{size} bytes"


def check_recording_file(path: str | Path, max_seconds: float) -> Path:
    """A recording given as a file, checked before it is copied or decoded: a regular file, audio
    by its first bytes, not longer than `max_seconds` by its WAV header, and no bigger than the
    largest recording of that length can be. Reads only the first bytes (a 10 GB file costs
    nothing); AudioError with what to do otherwise."""
    path = Path(path).expanduser()
    size = _regular_file(path)
    if size == 0:
        raise AudioError(EMPTY)
    try:
        with path.open("rb") as handle:
            head = handle.read(HEAD_BYTES)
    except OSError as exc:
        raise AudioError(UNREADABLE.format(path=path, why=exc.strerror)) from None
    if _container_kind(head) is None:
        raise AudioError(NOT_AUDIO)
    declared = wav_header_seconds(head)
    if declared is not None and declared > max_seconds + 1:
        raise _too_long(declared, max_seconds)
    if size > max_seconds * MAX_BYTES_PER_SECOND + (1 << 20):
        raise AudioError(TOO_BIG.format(path=path, size=_size_text(size), limit=format_seconds(max_seconds)))
    return path


def wav_header_seconds(head: bytes) -> float | None:
    """How long a RIFF WAV's header says its audio is (data chunk size / byte rate), or None."""
    import struct

    if head[:4] != b"RIFF" or head[8:12] != b"WAVE":
        return None
    byte_rate, position = None, 12
    while position + 8 <= len(head):
        chunk, size = head[position : position + 4], struct.unpack("<I", head[position + 4 : position + 8])[0]
        if chunk == b"fmt " and position + 16 <= len(head):
            byte_rate = struct.unpack("<I", head[position + 16 : position + 20])[0]
        elif chunk == b"data":
            return size / byte_rate if byte_rate else None
        position += 8 + size + (size & 1)
    return None


def _container_kind(head: bytes) -> str | None:
    for magic, offset, kind in _MAGIC:
        if head[offset : offset + len(magic)] == magic:
            return kind
    if len(head) >= 2 and head[0] == 0xFF and (head[1] & 0xE0) == 0xE0:
        return "MP3"
    return None


def _open_error(head: bytes) -> AudioError:
    kind = _container_kind(head)
    if kind is None:
        return AudioError(NOT_AUDIO)
    return AudioError(DAMAGED.format(kind=kind))


def container_duration(container) -> float | None:
    """The length the container declares (header or index), without decoding anything."""
    import av

    stream = container.streams.audio[0]
    if stream.duration is not None and stream.time_base is not None:
        seconds = float(stream.duration * stream.time_base)
        if seconds > 0:
            return seconds
    if container.duration is not None and container.duration > 0:
        return container.duration / av.time_base
    return None


def decode(
    source: bytes | bytearray | memoryview | str | Path, max_seconds: float | None = None
) -> Audio:
    """Decode any recording PyAV reads (WAV at any rate, mono or stereo, FLAC, MP3, OGG,
    WebM...) to 16 kHz mono float32, checking it on the way. Raises AudioError."""
    import av

    opened, head, size = _open_source(source)
    if not size:
        raise AudioError(EMPTY)
    try:
        container = av.open(opened, mode="r", metadata_errors="ignore")
    except (av.error.FFmpegError, ValueError, OSError):
        raise _open_error(head) from None
    with container:
        if not container.streams.audio:
            raise AudioError(NO_AUDIO_TRACK if _container_kind(head) else NOT_AUDIO)
        if container.streams.audio[0].codec_context is None:  # e.g. WAV format tag 99: no decoder
            raise AudioError(UNKNOWN_CODEC)
        declared = container_duration(container)
        if max_seconds is not None and declared is not None and declared > max_seconds:
            raise _too_long(declared, max_seconds)
        source_rate = container.streams.audio[0].rate
        samples = _decode_samples(container, head, max_seconds)
    if samples.size == 0:
        raise AudioError(NO_SOUND)
    return Audio(samples=samples, source_duration=declared, source_rate=source_rate,
                 header_duration=wav_header_seconds(head))


def _decode_samples(container, head: bytes, max_seconds: float | None) -> np.ndarray:
    """Resample frame by frame to 16 kHz mono s16, as faster_whisper.decode_audio does, but
    stop as soon as the decoded length passes the limit (the header can lie)."""
    import av

    resampler = av.audio.resampler.AudioResampler(format="s16", layout="mono", rate=SAMPLE_RATE)
    limit = None if max_seconds is None else int(max_seconds * SAMPLE_RATE) + SAMPLE_RATE // 10
    chunks: list[np.ndarray] = []
    total = 0
    decoded_any = False

    def take(frames) -> None:
        nonlocal total
        for out in frames:
            array = out.to_ndarray().reshape(-1)
            chunks.append(array)
            total += array.size
            if limit is not None and max_seconds is not None and total > limit:
                raise _too_long(total / SAMPLE_RATE, max_seconds)

    try:
        for frame in container.decode(audio=0):
            decoded_any = True
            take(resampler.resample(frame))
        take(resampler.resample(None))  # flush
    except av.error.FFmpegError:
        # A stream cut off mid-way: keep what was decoded (as faster-whisper does); a stream
        # of which nothing could be decoded is damaged.
        if not decoded_any:
            raise _open_error(head) from None
    if not chunks:
        return np.zeros(0, dtype=np.float32)
    return np.concatenate(chunks).astype(np.float32) / 32768.0


def wav_span(path: Path, start: float = 0.0, end: float | None = None) -> np.ndarray | None:
    """Seconds `start` to `end` (None: the end) of a 16 kHz mono 16-bit WAV file (as the app
    stores recordings), read without decoding or resampling: the samples `decode` would give
    there. None for any other file, which is then decoded whole."""
    import wave

    try:
        with wave.open(str(path), "rb") as wav:
            if (wav.getframerate(), wav.getnchannels(), wav.getsampwidth(), wav.getcomptype()) != (
                SAMPLE_RATE, 1, 2, "NONE"
            ):
                return None
            first = min(max(0, int(start * SAMPLE_RATE)), wav.getnframes())
            wav.setpos(first)
            last = wav.getnframes() if end is None else int(end * SAMPLE_RATE)
            data = wav.readframes(max(0, last - first))
    except (wave.Error, EOFError, OSError):
        return None
    return np.frombuffer(data, dtype="<i2").astype(np.float32) / 32768.0


def read_samples(
    source: bytes | bytearray | memoryview | str | Path, start: float = 0.0, end: float | None = None
) -> np.ndarray:
    """Seconds `start` to `end` (None: the end) of a recording, 16 kHz mono float32: a stored WAV
    is read only there (`wav_span`), anything else decoded whole first. Raises AudioError."""
    if isinstance(source, (str, Path)):
        samples = wav_span(Path(source), start, end)
        if samples is not None:
            return samples
    return decode(source).samples[int(start * SAMPLE_RATE) : None if end is None else int(end * SAMPLE_RATE)]


def wav_bytes(samples: np.ndarray, rate: int = SAMPLE_RATE) -> bytes:
    """Float samples in [-1, 1] as a 16-bit mono WAV file."""
    import wave

    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes((np.clip(samples, -1, 1) * 32767).astype("<i2").tobytes())
    return buffer.getvalue()


def frame_rms(samples: np.ndarray) -> np.ndarray:
    usable = samples[: len(samples) - len(samples) % FRAME]
    if usable.size == 0:
        return np.sqrt(np.mean(np.square(samples, dtype=np.float64), keepdims=True))
    frames = usable.reshape(-1, FRAME).astype(np.float64)
    return np.sqrt(np.mean(frames * frames, axis=1))


def is_silent(samples: np.ndarray) -> bool:
    """Digital silence, or so quiet throughout (every 20 ms frame under about -54 dBFS) that
    there is nothing to hear."""
    if samples.size == 0:
        return True
    return float(frame_rms(samples).max()) < SILENCE_RMS


def load(
    source: bytes | bytearray | memoryview | str | Path, max_seconds: float | None = None
) -> Audio:
    """Decode and check a recording before any transcription: raises AudioError."""
    audio = decode(source, max_seconds)
    if is_silent(audio.samples):
        raise AudioError(SILENT)
    return audio


class FrameResampler:
    """Audio frames of a live stream (PyAV `AudioFrame`s, e.g. 48 kHz stereo from WebRTC)
    to 16 kHz mono float32, keeping the resampler's state between frames."""

    def __init__(self):
        import av

        self._resampler = av.audio.resampler.AudioResampler(format="s16", layout="mono", rate=SAMPLE_RATE)

    def __call__(self, frames) -> np.ndarray:
        chunks = [out.to_ndarray().reshape(-1) for frame in frames for out in self._resampler.resample(frame)]
        if not chunks:
            return np.zeros(0, dtype=np.float32)
        return np.concatenate(chunks).astype(np.float32) / 32768.0
