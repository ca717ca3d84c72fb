"""Synthesis time of the natural voice (Piper, en_US-joe-medium) against espeak-ng, on the lines
the app says: every card's turn prompts and the read-aloud lines of its model answers. No cache
(each line rendered once per engine, in a fresh temporary data dir). Prints figures, asserts nothing.

    .venv/bin/python benchmarks/tts.py [--lines 60]

Per engine: the first line of the process (the voice loaded: Piper's ONNX model, espeak-ng's
engine), then the median and worst seconds per line and the real-time factor (seconds to make /
seconds of speech), by the line's length in words; and what tiny.en hears of each engine's lines
(word error rate against the text, numbers and punctuation aside), a rough check that the
natural voice is as clear as the one it replaces.
"""

from __future__ import annotations

import argparse
import dataclasses
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

import jiwer

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from coach import drills, stt, tts  # noqa: E402
from coach.config import load_settings  # noqa: E402
from coach.content.schema import Voice  # noqa: E402
from coach.errors import AudioError  # noqa: E402
from coach.library import default_library  # noqa: E402

VOICE = Voice(voice="en-us", rate=150, pitch=50)  # the read-aloud model line's settings
BANDS = ((1, 8), (9, 16), (17, 40))


def app_lines(limit: int) -> list[str]:
    """Turn prompts and drill lines, alternating, in library order, without repeats."""
    library = default_library()
    prompts, readings = [], []
    for card in library.cards.values():
        prompts.extend(turn.prompt for turn in card.turns)
        readings.extend(line.text for line in drills.lines_for(card))
    mixed = [line for pair in zip(prompts, readings, strict=False) for line in pair]
    return list(dict.fromkeys(tts.spoken_text(line) for line in mixed if tts.spoken_text(line)))[:limit]


def words(text: str) -> list[str]:
    return re.findall(r"[a-z]+(?:'[a-z]+)?", text.lower())


def measure(engine: str, lines: list[str]) -> None:
    settings = dataclasses.replace(load_settings(), data_dir=Path(tempfile.mkdtemp(prefix="tts-bench-")),
                                   tts_voice="natural" if engine == "natural" else "espeak")
    timings, errors, total_words = [], 0, 0
    for line in lines:
        started = time.perf_counter()
        data = tts.synthesize(line, VOICE, settings)
        timings.append((line, time.perf_counter() - started, tts.wav_duration(data)))
        reference = words(line)
        try:
            heard = stt.transcribe(data, settings).text
        except AudioError:  # refused as not English: every word missed
            heard = ""
        if words(heard):
            out = jiwer.process_words(" ".join(reference), " ".join(words(heard)))
            errors += out.substitutions + out.deletions + out.insertions
        else:
            errors += len(reference)
        total_words += len(reference)
    first, rest = timings[0], timings[1:]
    print(f"\n{engine}: first line {first[1]:.2f} s (the voice loaded), then {len(rest)} lines")
    for low, high in BANDS:
        band = [(s, d) for line, s, d in rest if low <= len(line.split()) <= high]
        if band:
            seconds = [s for s, _ in band]
            factor = sum(seconds) / sum(d for _, d in band)
            print(f"  {low:>2}-{high:<2} words ({len(band):>2} lines): median {statistics.median(seconds):.3f} s, "
                  f"worst {max(seconds):.3f} s, real-time factor {factor:.3f}, "
                  f"speech {statistics.median(d for _, d in band):.1f} s")
    print(f"  tiny.en word error rate on these lines: {errors / total_words:.3f} ({errors} of {total_words} words)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lines", type=int, default=60)
    args = parser.parse_args()
    lines = app_lines(args.lines)
    # the speech model (and espeak-ng) loaded before any timing
    stt.transcribe(tts.synthesize("The speech model is loaded before the timing starts.", VOICE, natural=False))
    print(f"{len(lines)} lines from the cards, {sum(len(line.split()) for line in lines)} words")
    for engine in ("espeak", "natural"):
        measure(engine, lines)


if __name__ == "__main__":
    main()
