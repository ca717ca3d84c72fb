"""Do learners' errors survive speech-to-text? Each annotated learner sentence is spoken by
espeak-ng, transcribed by the app's Whisper model (coach.stt, as a spoken answer is), and
corrected (scoring.english) from the transcript.

    .venv/bin/python benchmarks/english_spoken.py SET.jsonl [--limit N] [--show]

Prints, per kind: the share of errors whose wrong words are still in the transcript (Whisper's
language model rewrites some: "the job fail every night" comes back "failed"), and the share
corrected from the transcript against the share corrected from the typed sentence; and false flags
per 100 correct sentences from their transcripts (Whisper's own slips count against us). espeak-ng
is not a learner: a person's accent changes what Whisper hears, so the survival figures are an
upper bound of what a clean voice keeps, not a learner's.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from coach import stt  # noqa: E402
from coach.errors import AudioError  # noqa: E402
from scoring import english  # noqa: E402


def _norm(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9']+", text.lower()))


def _corrected(text: str, wrong: str) -> bool:
    """A correction overlaps the wrong words, found again in this text."""
    if f" {_norm(wrong)} " not in f" {_norm(text)} ":
        return False
    review = english.review(text)
    words = _norm(wrong).split()
    return any(set(_norm(c.wrong).split()) & set(words) for c in review.corrections)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("set", type=Path)
    parser.add_argument("--limit", type=int, default=0)
    parser.add_argument("--show", action="store_true")
    args = parser.parse_args()
    rows = [json.loads(line) for line in args.set.read_text(encoding="utf-8").splitlines() if line.strip()]
    if args.limit:
        rows = rows[: args.limit]
    kinds: dict[str, list[int]] = {}
    correct = false_flags = refused = 0
    with tempfile.TemporaryDirectory() as folder:
        wav = Path(folder) / "line.wav"
        for row in rows:
            subprocess.run(["espeak-ng", "-v", "en-us", "-s", "150", "-w", str(wav), row["text"]], check=True)
            try:
                heard = stt.transcribe(wav).text
            except AudioError as error:  # a short clip judged not English, or no speech found
                refused += 1
                if args.show:
                    print(f"REFUSED {row['id']}: {error}  {row['text']}")
                heard = ""
            if not row.get("errors"):
                correct += 1
                flags = english.review(heard).corrections
                false_flags += len(flags)
                if args.show and flags:
                    print(f"FALSE  {row['id']}: {[c.wrong for c in flags]}  heard: {heard}")
                continue
            wrong = row["errors"][0]["wrong"]
            kept = f" {_norm(wrong)} " in f" {_norm(heard)} "  # whole words: "checkpoint" is not in "checkpoints"
            tally = kinds.setdefault(row["kind"], [0, 0, 0, 0])  # errors, kept, typed corrected, spoken corrected
            tally[0] += 1
            tally[1] += kept
            tally[2] += _corrected(row["text"], wrong)
            spoken_fix = kept and _corrected(heard, wrong)
            tally[3] += spoken_fix
            if args.show and kept and not spoken_fix and _corrected(row["text"], wrong):
                print(f"UNFIXED {row['id']} [{row['kind']}] {wrong!r}: heard: {heard}")
            if args.show and not kept:
                print(f"LOST   {row['id']} [{row['kind']}] {wrong!r}: {row['text']}  heard: {heard}")
    print(f"set: {args.set} ({len(rows)} sentences, {correct} correct; espeak-ng en-us 150 wpm, "
          f"the app's Whisper model; {refused} clips refused by the speech checks)")
    print(f"{'kind':14s} {'errors':>6s} {'kept':>6s} {'typed':>6s} {'spoken':>6s}  (shares: kept in the "
          "transcript; corrected from the typed sentence; corrected from the transcript)")
    total = [0, 0, 0, 0]
    for kind in sorted(kinds):
        n, kept, typed, spoken = kinds[kind]
        total = [a + b for a, b in zip(total, kinds[kind], strict=True)]
        print(f"{kind:14s} {n:6d} {kept / n:6.2f} {typed / n:6.2f} {spoken / n:6.2f}")
    if total[0]:
        n = total[0]
        print(f"{'all':14s} {n:6d} {total[1] / n:6.2f} {total[2] / n:6.2f} {total[3] / n:6.2f}")
    if correct:
        print(f"false flags per 100 correct sentences, from their transcripts: {100 * false_flags / correct:.2f}")


if __name__ == "__main__":
    main()
