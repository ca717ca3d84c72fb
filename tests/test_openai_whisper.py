"""The optional openai-whisper engine, on a checkpoint converted from the bundled CTranslate2
tiny.en (scripts/convert_ct2_to_openai_whisper.py): nothing is downloaded.

Skipped when openai-whisper or torch is not installed (the optional extra; see
benchmarks/README.md for installing it without triton).
"""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import struct
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

missing = [name for name in ("torch", "whisper") if importlib.util.find_spec(name) is None]
pytestmark = pytest.mark.skipif(
    bool(missing),
    reason=f"openai-whisper engine not installed ({', '.join(missing)} not importable): "
    "pip install torch==2.13.0 (the CPU build); pip install --no-deps openai-whisper==20250625; "
    "pip install more-itertools numba tiktoken tqdm (benchmarks/README.md)",
)
pytestmark = [pytestmark, pytest.mark.slow]  # slow: torch and the openai-whisper model

sys.path.insert(0, str(Path(__file__).resolve().parent))
from conftest_audio import ASSETS, REPO, normalise  # noqa: E402

from coach import stt  # noqa: E402
from coach.config import load_settings  # noqa: E402
from coach.errors import AudioError  # noqa: E402
from tests.coach_cli import run  # noqa: E402

TINY_EN_DIMS = {
    "n_mels": 80, "n_audio_ctx": 1500, "n_audio_state": 384, "n_audio_head": 6,
    "n_audio_layer": 4, "n_vocab": 51864, "n_text_ctx": 448, "n_text_state": 384,
    "n_text_head": 6, "n_text_layer": 4,
}


def _converter():
    path = REPO / "scripts" / "convert_ct2_to_openai_whisper.py"
    spec = importlib.util.spec_from_file_location("convert_ct2_to_openai_whisper", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


convert = _converter()


@pytest.fixture(scope="session")
def checkpoint(tmp_path_factory) -> Path:
    """The bundled tiny.en converted once per test session."""
    out = tmp_path_factory.mktemp("openai-whisper") / "tiny.en-openai.pt"
    assert convert.main(["--out", str(out)]) == 0
    return out


def settings(checkpoint: Path, **changes):
    return dataclasses.replace(
        load_settings(), stt_engine="openai-whisper", stt_model=str(checkpoint), **changes
    )


# --- the converter ---------------------------------------------------------------------


def test_checkpoint_is_what_whisper_load_model_reads(checkpoint):
    import torch
    import whisper

    data = torch.load(checkpoint, weights_only=True)
    assert data["dims"] == TINY_EN_DIMS
    model = whisper.load_model(str(checkpoint), device="cpu")
    assert not model.is_multilingual
    # the word-timing heads of the CTranslate2 config.json travel with the checkpoint
    heads = json.loads((stt.bundled_model_path() / "config.json").read_text())["alignment_heads"]
    model.set_alignment_heads(data["alignment_heads"])
    assert model.alignment_heads.to_dense().nonzero().tolist() == sorted(heads)


def test_weights_are_the_ct2_weights(checkpoint):
    import torch

    state = torch.load(checkpoint, weights_only=True)["model_state_dict"]
    _, _, ct2 = convert.read_ct2_variables(stt.bundled_model_path() / "model.bin")
    qkv = ct2["encoder/layer_1/self_attention/linear_0/weight"]
    assert np.array_equal(state["encoder.blocks.1.attn.key.weight"].numpy(), qkv[384:768])
    kv = ct2["decoder/layer_2/attention/linear_1/weight"]
    assert np.array_equal(state["decoder.blocks.2.cross_attn.value.weight"].numpy(), kv[384:])
    assert np.array_equal(state["decoder.token_embedding.weight"].numpy(),
                          ct2["decoder/embeddings/weight"])
    assert "encoder.blocks.0.attn.key.bias" not in state  # Whisper's key has no bias


def test_int8_weights_are_dequantized():
    """CTranslate2 int8: q = rint(w * 127 / max|row|), stored with scale = 127 / max|row|."""
    rng = np.random.default_rng(0)
    weight = rng.normal(size=(6, 4, 3)).astype(np.float32)  # a conv1d-shaped weight
    rows = weight.reshape(6, -1)
    scale = 127.0 / np.abs(rows).max(axis=1)
    quantized = np.rint(rows * scale[:, None]).astype(np.int8).reshape(weight.shape)
    out = convert.dequantize({"w": quantized, "w_scale": scale.astype(np.float32)})
    assert set(out) == {"w"} and out["w"].dtype == np.float32
    assert np.abs(out["w"] - weight).max() <= (np.abs(rows).max(axis=1) / 127).max() / 2 + 1e-6


def test_unknown_model_bin_is_refused(tmp_path):
    (tmp_path / "model.bin").write_bytes(struct.pack("<I", 99) + b"\0" * 16)
    with pytest.raises(convert.ConversionError, match="binary version 99"):
        convert.convert(tmp_path, tmp_path / "out.pt")
    assert not (tmp_path / "out.pt").exists()


# --- through coach.stt -----------------------------------------------------------------


def test_jfk_through_coach_stt(checkpoint):
    import jiwer

    transcript = stt.transcribe(ASSETS / "jfk.flac", settings(checkpoint))
    reference = (ASSETS / "jfk.txt").read_text(encoding="utf-8")
    error = jiwer.wer(normalise(reference), normalise(transcript.text))
    print(f"WER {error:.3f}: {transcript.text!r}")
    assert error <= 0.10, (error, transcript.text)
    assert transcript.engine == "openai-whisper" and transcript.model == str(checkpoint)
    data = transcript.contract_dict()
    assert {"text", "duration", "language", "segments", "words_per_minute", "words",
            "confidence"} <= set(data)
    assert data["language"] == "en" and data["duration"] == pytest.approx(11.0, abs=0.1)
    assert data["segments"] and all(set(s) == {"start", "end", "text"} for s in data["segments"])
    words = transcript.words
    assert len(words) == 22
    assert all(0 <= w.start <= w.end <= transcript.duration + 0.05 for w in words)
    assert all(a.start <= b.start for a, b in zip(words, words[1:], strict=False))
    assert 0.8 < transcript.confidence <= 1.0


def test_cli_json_with_openai_whisper(checkpoint, monkeypatch):
    monkeypatch.setenv("COACH_STT_ENGINE", "openai-whisper")
    monkeypatch.setenv("COACH_STT_MODEL", str(checkpoint))
    result = run("transcribe", str(ASSETS / "jfk.flac"), "--format", "json")  # in this process: tests/coach_cli.py
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert {"text", "duration", "language", "segments", "words_per_minute"} <= set(data)
    assert "ask not what your country can do for you" in normalise(data["text"])


def test_concurrent_transcriptions_do_not_interfere(checkpoint):
    """openai-whisper hooks into the shared model while decoding: decodes take turns."""
    alone = stt.transcribe(ASSETS / "jfk.flac", settings(checkpoint)).text
    results: list = [None, None]

    def run(index):
        try:
            results[index] = stt.transcribe(ASSETS / "jfk.flac", settings(checkpoint)).text
        except Exception as exc:  # noqa: BLE001 - reported below
            results[index] = exc

    threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert results == [alone, alone]


def test_multilingual_checkpoint_refuses_other_languages(tmp_path, monkeypatch):
    """A multilingual .pt detects the language itself (a tiny random model here: only the
    refusal path is under test)."""
    import torch
    from whisper.model import ModelDimensions, Whisper

    dims = dict(TINY_EN_DIMS, n_vocab=51865, n_audio_state=64, n_audio_head=2,
                n_audio_layer=1, n_text_state=64, n_text_head=2, n_text_layer=1)
    path = tmp_path / "random-multilingual.pt"
    torch.save({"dims": dims, "model_state_dict": Whisper(ModelDimensions(**dims)).state_dict()},
               path)
    model = stt.load_model(settings(path))
    assert model.model.is_multilingual
    monkeypatch.setattr(model.model, "detect_language",
                        lambda mel: (None, {"de": 0.9, "en": 0.1}))
    with pytest.raises(AudioError, match="does not sound like English"):
        model.decode_window(np.zeros(16000, dtype=np.float32))
