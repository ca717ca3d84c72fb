"""Lines said in video-call and meeting moments, judged as two readers heard them: agreement of
the scorer's `polite` (the cards' politeness detector) and "fits the moment" with the readers.

    .venv/bin/python benchmarks/moments.py [--split dev|dev2|…|dev13|test|test3|test4|test10] [--errors]

Data: tests/corpus/moments/moments.{dev,test}.jsonl, 300 lines written for the project by a writer
who saw only the moments and the definitions, labelled by that writer and a second reader
independently (`polite`, `fits`: [reader A, reader B]), split once by a salted hash; `dev2`:
280 more lines from a second writer and a second pair of readers (moments2.dev.jsonl), all of it
development data (its errors were read while tuning); `dev3`/`test3`: 320 lines from a third
writer and reader (moments3.*.jsonl), written after the second test figure, split by a salted hash;
`test4`: 322 lines from a fourth writer and reader (moments4.test.jsonl), all of it held out, written
when the first two test halves were read and became development data (2026-12-05); `dev5`: 350
lines from a fifth writer and reader (moments5.dev.jsonl), all of it development data, written to
learn from without reading `test4`; `dev6` … `dev9`, `dev11` … `dev13`: more writers' lines, development data;
`test10`: a tenth writer's 300 lines, all of it held out (written when `test4` had been scored
eight times).
Only the
lines both readers agree on are scored. "Fits the moment" is the video-call card's `appropriate`
for its five moments; for the clarifying moment it is `checks_understanding` or
`specific_question` of clarifying-question, for disagreeing `softened_disagreement` of
polite-disagreement (reported apart: a blunt "I don't agree" disagrees but is not softened).
--errors lists the wrong verdicts: use it on dev only.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import scoring  # noqa: E402
from coach.library import load_library  # noqa: E402

MOMENTS = REPO / "tests" / "corpus" / "moments"
SPLITS = {"dev": "moments.dev.jsonl", "test": "moments.test.jsonl", "dev2": "moments2.dev.jsonl",
          "dev3": "moments3.dev.jsonl", "test3": "moments3.test.jsonl", "test4": "moments4.test.jsonl",
          "dev5": "moments5.dev.jsonl", "dev6": "moments6.dev.jsonl",
          "dev7": "moments7.dev.jsonl", "dev8": "moments8.dev.jsonl", "dev9": "moments9.dev.jsonl",
          "dev11": "moments11.dev.jsonl", "dev12": "moments12.dev.jsonl", "dev13": "moments13.dev.jsonl",
          "test10": "moments10.test.jsonl"}
VIDEO_CALL = ("check-connection", "ask-repeat", "take-floor", "yield-floor", "share-screen")


def card_fits(row: dict) -> dict:
    """The readers' "fits" in the cards' sense. The third writer and reader were asked whether a line
    does what the moment needs *polite or not* (`"fits_means": "does-the-move"`), while the video-call
    card's `appropriate` says a rude line does not fit even when it does the job, and disagreeing's
    `softened_disagreement` that any blunt phrase makes it false: for those moments each reader's fits
    is taken as their fits and their polite together."""
    if row.get("fits_means") != "does-the-move" or row["moment"] not in (*VIDEO_CALL, "disagree"):
        return row
    return {**row, "fits": [f and p for f, p in zip(row["fits"], row["polite"], strict=True)]}


def verdicts(library, row: dict) -> tuple[bool, bool]:
    """(polite, fits) for one line."""
    moment, text = row["moment"], row["text"]
    if moment in VIDEO_CALL:
        criteria = scoring.score(library.card("video-call-essentials"), moment, text).criteria
        return criteria["polite"].met, criteria["appropriate"].met
    if moment == "clarifying":
        criteria = scoring.score(library.card("clarifying-question"), "main", text).criteria
        return criteria["polite"].met, criteria["checks_understanding"].met or criteria["specific_question"].met
    criteria = scoring.score(library.card("polite-disagreement"), "main", text).criteria
    return scoring.politeness.assess(text, moment=True).polite, criteria["softened_disagreement"].met


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=sorted(SPLITS), default="dev")
    parser.add_argument("--errors", action="store_true")
    args = parser.parse_args()
    library = load_library([REPO / "content"], [REPO / "personas"])
    path = MOMENTS / SPLITS[args.split]
    rows = [card_fits(json.loads(line)) for line in path.read_text().splitlines()]
    tallies: dict[str, list[int]] = {}
    for row in rows:
        polite, fits = verdicts(library, row)
        group = "video call" if row["moment"] in VIDEO_CALL else row["moment"]
        for name, got in (("polite", polite), ("fits", fits)):
            first, second = row[name]
            if first != second:
                continue
            for key in (f"{name} · all", f"{name} · {group}"):
                tally = tallies.setdefault(key, [0, 0])
                tally[0] += got == first
                tally[1] += 1
            if args.errors and got != first:
                print(f"{name}: readers {first}, scorer {got} [{row['moment']}] {row['text']}")
    print(f"{args.split}: {len(rows)} lines")
    for key in sorted(tallies):
        ok, n = tallies[key]
        print(f"  {key:28s} {ok / n:.3f}  ({ok} of {n} lines both readers agree on)")


if __name__ == "__main__":
    main()
