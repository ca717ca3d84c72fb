"""Regenerate the espeak-ng test recordings in tests/fixtures/audio/.

    .venv/bin/python scripts/make_test_audio.py [--out DIR]

Needs espeak-ng (apt-get install espeak-ng) and PyAV (a dependency of faster-whisper).
Every file is synthetic speech made here, kept small (compressed, 16 kHz or less); the
tests make larger variants (stereo 44.1 kHz WAV...) from them at run time. The real human
recording used for the WER test is not made here: see assets/audio/SOURCES.md.

espeak-ng output differs a little between versions, so regenerated files are not
byte-identical; the tests only rely on what is said.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import av
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.conftest_audio import decode_int16  # noqa: E402  (one decoder for fixtures and tests)

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "fixtures" / "audio"

ANSWER = "Scaling efficiency went from seventy eight percent to ninety one percent."
# Five fillers: um, uh, um, umm, uh (scoring.delivery counts all of these spellings).
FILLERS = (
    "So, um, I think the, uh, main problem was, um, the network. "
    "Umm, we fixed it, and, uh, the jobs ran faster."
)
KOREAN = "저는 지난 프로젝트에서 대규모 GPU 클러스터의 학습 효율을 개선했습니다."
GERMAN = "In meinem letzten Projekt habe ich die Optimierung eines großen Rechenclusters geleitet."

# name -> (voice, words per minute, text, [(file, codec, rate, bit rate)])
RECORDINGS = {
    "answer": (
        "en-us",
        165,
        ANSWER,
        [
            ("answer.flac", "flac", 16000, None),
            ("answer.ogg", "libopus", 16000, 24000),
            ("answer.mp3", "libmp3lame", 16000, 32000),
        ],
    ),
    "fillers": ("en-us", 140, FILLERS, [("fillers.ogg", "libopus", 16000, 24000)]),
    "korean": ("ko", 165, KOREAN, [("korean.ogg", "libopus", 16000, 24000)]),
    "german": ("de", 165, GERMAN, [("german.ogg", "libopus", 16000, 24000)]),
}

TEXTS = {"answer.txt": ANSWER, "fillers.txt": FILLERS, "korean.txt": KOREAN, "german.txt": GERMAN}


def espeak(voice: str, rate: int, text: str, wav: Path) -> None:
    exe = shutil.which("espeak-ng")
    if exe is None:
        sys.exit("espeak-ng is not installed: apt-get install espeak-ng")
    subprocess.run([exe, "-v", voice, "-s", str(rate), "-w", str(wav), text], check=True)


def encode(
    samples: np.ndarray,
    rate: int,
    path: Path,
    codec: str,
    out_rate: int,
    bit_rate: int | None = None,
    layout: str = "mono",
) -> None:
    """Write int16 mono samples at `rate` to `path`, resampled to `out_rate`, in `codec`."""
    with av.open(str(path), mode="w") as container:
        stream = container.add_stream(codec, rate=out_rate, layout=layout)
        if bit_rate:
            stream.bit_rate = bit_rate
        fmt = stream.codec_context.codec.audio_formats[0].name
        resampler = av.AudioResampler(format=fmt, layout=layout, rate=out_rate)
        frame = av.AudioFrame.from_ndarray(samples.reshape(1, -1), format="s16", layout="mono")
        frame.sample_rate = rate
        frame.pts = None
        for out in resampler.resample(frame) + resampler.resample(None):
            out.pts = None
            for packet in stream.encode(out):
                container.mux(packet)
        for packet in stream.encode(None):
            container.mux(packet)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for name, (voice, rate, text, outputs) in RECORDINGS.items():
            wav = Path(tmp) / f"{name}.wav"
            espeak(voice, rate, text, wav)
            samples, sample_rate = decode_int16(wav)
            for file, codec, out_rate, bit_rate in outputs:
                encode(samples, sample_rate, args.out / file, codec, out_rate, bit_rate)
    # Three seconds of digital silence.
    encode(np.zeros(3 * 16000, dtype=np.int16), 16000, args.out / "silence.flac", "flac", 16000)
    for file, text in TEXTS.items():
        (args.out / file).write_text(text + "\n", encoding="utf-8")
    total = 0
    for path in sorted(args.out.iterdir()):
        total += path.stat().st_size
        shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
        print(f"{path.stat().st_size:>8}  {shown}")
    print(f"{total:>8}  bytes in all")
    return 0


if __name__ == "__main__":
    sys.exit(main())
