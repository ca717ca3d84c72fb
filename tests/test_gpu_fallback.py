"""A GPU that CTranslate2 sees but cannot use (no CUDA 12 cuBLAS/cuDNN on a CUDA 13 machine; a
missing cuBLASLt that aborts the process): checked at load with one tiny encode in a child
process, and the speech model falls back to the CPU with one line saying why. This machine has
no GPU: CTranslate2 is made to see one, and the child's encode fails for real or as scripted."""

from __future__ import annotations

import dataclasses
import logging
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from conftest_audio import fixture  # noqa: E402

from coach.config import load_settings  # noqa: E402
from coach.errors import SpeechModelError  # noqa: E402
from coach.stt import loading  # noqa: E402

MISSING_CUBLAS = "RuntimeError: Library libcublas.so.12 is not found or cannot be loaded"


@pytest.fixture
def sees_a_gpu(monkeypatch, tmp_path):
    """CTranslate2 reports one CUDA device; the CUDA libraries the child would load are garbage."""
    import ctranslate2

    monkeypatch.setattr(ctranslate2, "get_cuda_device_count", lambda: 1)
    libs = tmp_path / "cuda-libs"
    libs.mkdir()
    for name in ("libcublas.so.12", "libcublasLt.so.12", "libcudnn.so.9"):
        (libs / name).write_bytes(b"not a shared library")
    monkeypatch.setenv("LD_LIBRARY_PATH", str(libs))
    loading._load.cache_clear()
    yield
    loading._load.cache_clear()


def settings(**changes):
    return dataclasses.replace(load_settings(), **changes)


@pytest.mark.parametrize("check, why", [
    (None, None),  # the real encode, on a machine whose CUDA cannot run it
    (f"raise SystemExit({MISSING_CUBLAS!r})", "libcublas.so.12 is not found"),
    ("import os; os.abort()", "stopped the process (signal 6)"),
], ids=["real", "missing-cublas", "abort"])
def test_auto_falls_back_to_the_cpu_with_one_line(sees_a_gpu, monkeypatch, caplog, check, why):
    if check is not None:
        monkeypatch.setattr(loading, "GPU_CHECK", check)
    with caplog.at_level(logging.WARNING, logger="coach.stt.loading"):
        model = loading.load_model(settings(stt_device="auto"))
    assert (model.device, model.compute_type) == ("cpu", "int8")
    warnings = [r.getMessage() for r in caplog.records if r.name == "coach.stt.loading"]
    assert len(warnings) == 1 and "\n" not in warnings[0], warnings
    assert warnings[0].startswith("The GPU cannot run the speech model (") and "on the CPU instead" in warnings[0]
    if why:
        assert why in warnings[0]
    from coach import stt

    assert "91" in stt.transcribe(fixture("answer.ogg"), settings(stt_device="auto")).text


def test_cuda_asked_for_explicitly_says_why_it_cannot_be_used(sees_a_gpu, monkeypatch):
    monkeypatch.setattr(loading, "GPU_CHECK", f"raise SystemExit({MISSING_CUBLAS!r})")
    with pytest.raises(SpeechModelError, match="COACH_STT_DEVICE=cuda but the GPU cannot run the speech model "
                                               r"\(.*libcublas.so.12 is not found.*set COACH_STT_DEVICE=cpu"):
        loading.load_model(settings(stt_device="cuda"))


def test_a_usable_gpu_is_checked_once_and_kept(monkeypatch):
    """The check passing (as on a working GPU) leaves the choice to CUDA; it runs at load only."""
    calls = []
    monkeypatch.setattr(loading, "gpu_problem", lambda source: calls.append(source))
    monkeypatch.setattr(loading, "resolve_device", lambda device: ("cuda", "float16"))
    loaded = []
    monkeypatch.setattr(loading, "_load_faster_whisper_on",
                        lambda model, device, compute: loaded.append((device, compute)) or "model")
    assert loading._load_faster_whisper(None, "auto") == "model"
    assert loaded == [("cuda", "float16")] and calls == [str(loading.bundled_model_path())]


def test_a_text_file_as_the_openai_whisper_checkpoint_is_one_line(tmp_path, monkeypatch, capsys):
    pytest.importorskip("whisper", reason="openai-whisper is not installed")
    from coach.cli import main

    fake = tmp_path / "tiny.en.pt"
    fake.write_text("this is not a checkpoint\n")
    monkeypatch.setenv("COACH_STT_ENGINE", "openai-whisper")
    monkeypatch.setenv("COACH_STT_MODEL", str(fake))
    assert main(["transcribe", str(fixture("answer.ogg"))]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert err.startswith(f"coach: The openai-whisper checkpoint {fake} could not be loaded (") and "not a whisper .pt" in err
