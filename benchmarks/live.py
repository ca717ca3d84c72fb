"""Stop -> result through the live (incremental) path, for 10, 30, 60 and 120 s answers.

    .venv/bin/python benchmarks/live.py [--lengths 10 30 60 120] [--speed 1.0] [--repeat 1]

Each answer is espeak-ng speech (sentences of a technical answer, a natural pause after
each, repeated to the length) fed in 20 ms chunks at real-time pace (`--speed` > 1 feeds
faster) into the app's own path: `PracticeEngine.start_live_answer` (recording saved chunk by
chunk, segments transcribed in a worker as they close) -> at "Stop", `LiveAnswer.finish()`
(the last segment) -> `PracticeEngine.answer_with_audio` (score, session result, follow-up,
all stored). Printed per length: Stop -> result, how much audio was not yet in a finished
(decoded) segment at Stop (the last segment, often being decoded already),
the real-time factor of the live decoding, and for comparison Stop -> result of the
whole-file path (transcribe the recording after Stop, then the same turn). Rendering the
page adds about 0.2 s (measured in the browser, see benchmarks/README.md). Asserts nothing.
"""

from __future__ import annotations

import argparse
import dataclasses
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from coach import audio, stt  # noqa: E402
from coach.config import load_settings  # noqa: E402
from coach.library import default_library  # noqa: E402
from coach.session import PracticeEngine  # noqa: E402
from coach.store import Store  # noqa: E402

SENTENCES = [
    "In my last role I owned the training platform for a cluster of about five hundred GPUs.",
    "Scaling efficiency at full size was only seventy eight percent.",
    "I profiled a few hundred steps on one node and then on sixty four nodes.",
    "The all reduce of the gradients was not overlapping with the backward pass.",
    "We considered a faster interconnect, but it would have taken six months, so we rejected it.",
    "I bucketed the gradients and moved to a hierarchical all reduce inside each rack.",
    "I worked with two engineers from the network team to tune the NCCL settings.",
    "Scaling efficiency went from seventy eight percent to ninety one percent.",
    "If I did it again, I would add the scaling test to our nightly checks.",
]
RATE = 16000
CHUNK = 320  # 20 ms, as WebRTC delivers


def sentence_audio(folder: Path) -> list[np.ndarray]:
    out = []
    for index, sentence in enumerate(SENTENCES):
        path = folder / f"s{index}.wav"
        subprocess.run(["espeak-ng", "-v", "en-us", "-s", "150", "-w", str(path), sentence], check=True)
        out.append(audio.decode(path).samples)
    return out


SENTENCE_PAUSE_SECONDS = 0.7


def answer_of(seconds: float, sentences: list[np.ndarray]) -> np.ndarray:
    """Whole sentences, 0.7 s of pause after each, until `seconds` is reached (a speaker
    pauses at the end of a sentence before pressing Stop)."""
    pause = np.zeros(int(SENTENCE_PAUSE_SECONDS * RATE), dtype=np.float32)
    parts, total, index = [], 0, 0
    while total < seconds * RATE - RATE:
        piece = sentences[index % len(sentences)]
        parts += [piece, pause]
        total += len(piece) + len(pause)
        index += 1
    return np.concatenate(parts)


def live_turn(engine: PracticeEngine, samples: np.ndarray, speed: float) -> dict:
    view = engine.start("gpu-cluster-optimization")
    live = engine.start_live_answer(view.id)
    started = time.perf_counter()
    for index, start in enumerate(range(0, len(samples), CHUNK)):
        live.feed(samples[start : start + CHUNK])
        due = started + (index + 1) * CHUNK / RATE / speed
        pause = due - time.perf_counter()
        if pause > 0:
            time.sleep(pause)
    # "Stop": how much of the recording has the worker not yet cut into segments?
    inner = live.transcriber.live
    backlog = len(samples) / RATE - (inner.segments[-1].end if inner.segments else 0.0)
    stop = time.perf_counter()
    transcript = live.finish()
    finished = time.perf_counter()
    result = engine.answer_with_audio(view.id, live.path, transcript=transcript)
    done = time.perf_counter()
    return {"stop_to_result": done - stop, "finish": finished - stop, "turn": done - finished,
            "backlog": backlog, "rtf": inner.decode_seconds / (len(samples) / RATE),
            "segments": len(inner.segments),
            "ahead": f"{inner.ahead_decodes} ({sum(g.decoded_ahead for g in inner.segments)} used)",
            "met": sum(r.met for r in result.scorecard.criteria.values()),
            "path": live.path}


def file_turn(engine: PracticeEngine, path: Path, later: bool = False) -> tuple[float, float]:
    """The one-piece path: Stop -> scored result, and Stop -> pronunciation result stored (the
    same moment unless `later`: the app's recorder makes it in the background after scoring)."""
    import threading

    from coach import pronunciation

    pronunciation._reference_cache.clear()  # each run makes its references, as a new answer would
    view = engine.start("gpu-cluster-optimization")
    stop = time.perf_counter()
    engine.answer_with_audio(view.id, path, pronounce_later=later)
    scored = time.perf_counter() - stop
    for thread in threading.enumerate():
        if thread.name.startswith("pronounce-"):
            thread.join()
    return scored, time.perf_counter() - stop


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lengths", type=float, nargs="+", default=[10, 30, 60, 120])
    parser.add_argument("--speed", type=float, default=1.0)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    if shutil.which("espeak-ng") is None:
        sys.exit("espeak-ng is needed (apt-get install espeak-ng)")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        settings = dataclasses.replace(load_settings(), data_dir=folder / "data")
        engine = PracticeEngine(default_library(), Store(f"sqlite:///{folder / 'bench.db'}"), settings)
        model = stt.load_model(settings)
        model.decode_window(np.zeros(RATE, dtype=np.float32))  # warm up, as the app does
        sentences = sentence_audio(folder)
        print(f"model {model.name} on {model.device}/{model.compute_type}, {stt._cpu_threads()} threads; "
              f"feeding at {args.speed:g}x real time, 20 ms chunks")
        print("| answer | Stop -> result (live) | of which last segment | score + follow-up + store "
              "| audio not in a finished segment at Stop | live RTF | segments | decoded ahead "
              "| Stop -> result (whole file) | whole file, pronunciation after: result / pronunciation |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        for length in args.lengths:
            samples = answer_of(length, sentences)
            runs = [live_turn(engine, samples, args.speed) for _ in range(args.repeat)]
            whole = [file_turn(engine, runs[0]["path"])[0] for _ in range(args.repeat)]
            after = [file_turn(engine, runs[0]["path"], later=True) for _ in range(args.repeat)]

            def med(key, runs=runs):
                return statistics.median(r[key] for r in runs)

            print(f"| {length:g} s ({len(samples) / RATE:.0f} s) | **{med('stop_to_result'):.2f} s** | "
                  f"{med('finish'):.2f} s | "
                  f"{med('turn') * 1000:.0f} ms | {med('backlog'):.1f} s | {med('rtf'):.3f} | "
                  f"{runs[0]['segments']} | {runs[0]['ahead']} | {statistics.median(whole):.2f} s | "
                  f"{statistics.median(a[0] for a in after):.2f} s / {statistics.median(a[1] for a in after):.2f} s |",
                  flush=True)


if __name__ == "__main__":
    main()
