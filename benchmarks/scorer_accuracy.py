"""Scorer agreement with the two-labeller corpus in tests/corpus/, per criterion and card.

    .venv/bin/python benchmarks/scorer_accuracy.py [--corpus written|real] [--split dev|test|all] [--errors]

`written`: answers written to the cards' definitions (tests/corpus/); `real`: passages real
people wrote or said, from openly licensed pages (tests/corpus/real/); `real3`: a third set of
real passages from other sources, collected and labelled later (tests/corpus/real/set3/);
`real4` and `real5`: a fourth and a fifth set from yet other sources (tests/corpus/real/set4/, set5/);
`personal`: answers to ten learners' own questions (cards made by `coach card new`, in
tests/corpus/personal/cards/), held out whole: score it, never tune on it. The development split
is for tuning; the test split is only scored and reported (see benchmarks/README.md).
--errors lists the wrong verdicts: use it on dev only.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import scoring  # noqa: E402
from coach.library import load_library  # noqa: E402

CORPUS = REPO / "tests" / "corpus"
PERSONAL_CARDS = CORPUS / "personal" / "cards"  # the learner's own cards the `personal` answers are for


def corpus_rows(split: str, corpus: str = "written") -> list[dict]:
    rows = []
    folder = {"written": CORPUS, "real": CORPUS / "real", "real3": CORPUS / "real" / "set3",
              "real4": CORPUS / "real" / "set4", "real5": CORPUS / "real" / "set5",
              "personal": CORPUS / "personal"}[corpus]
    for path in sorted(folder.glob("*.jsonl")):
        if split == "all" or corpus == "personal" or path.name.endswith(f".{split}.jsonl"):
            rows.extend(json.loads(line) for line in path.read_text(encoding="utf-8").splitlines())
    return rows


def evaluate(library, rows):
    """{(card, criterion): [correct, total, misses, false_alarms]} and the wrong verdicts."""
    cells = defaultdict(lambda: [0, 0, 0, 0])
    wrong = []
    for row in rows:
        card = library.card(row["card"])
        result = scoring.score(card, row["turn"], row["text"])
        for cid, label in row["labels"].items():
            got = result.criteria[cid].met
            cell = cells[(row["card"], cid)]
            cell[0] += got == label
            cell[1] += 1
            if got != label:
                cell[2 if label else 3] += 1
                wrong.append((row, cid, label, result.criteria[cid]))
    return cells, wrong


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--corpus", default="written",
                        choices=["written", "real", "real3", "real4", "real5", "personal"])
    parser.add_argument("--split", default="dev", choices=["dev", "test", "all"])
    parser.add_argument("--errors", action="store_true")
    parser.add_argument("--card")
    args = parser.parse_args()
    library = load_library([REPO / "content"], [REPO / "personas"], personal_paths=(PERSONAL_CARDS,))
    rows = [r for r in corpus_rows(args.split, args.corpus) if not args.card or r["card"] == args.card]
    cells, wrong = evaluate(library, rows)
    print(f"corpus={args.corpus} split={args.split}: {len(rows)} answers, {sum(c[1] for c in cells.values())} verdicts")
    print(f"{'card':34} {'criterion':24} {'acc':>5} {'n':>4} {'miss':>4} {'f.a.':>4}")
    for (card, cid), (ok, n, miss, fa) in sorted(cells.items()):
        print(f"{card:34} {cid:24} {ok / n:5.2f} {n:4} {miss:4} {fa:4}")
    accs = [ok / n for ok, n, _, _ in cells.values()]
    misses = sum(c[2] for c in cells.values())
    verdicts = sum(c[1] for c in cells.values())
    print(f"micro accuracy {sum(c[0] for c in cells.values()) / verdicts:.3f} over {verdicts} verdicts")
    print(f"macro accuracy {sum(accs) / len(accs):.3f} over {len(accs)} criteria; "
          f"{len(wrong)} wrong verdicts, {misses} of them misses")
    if args.errors:
        for row, cid, label, res in wrong:
            kind = "MISS" if label else "FALSE ALARM"
            print(f"\n{kind} {row['id']} {cid}: {res.reason} {res.evidence}\n  {row['text']}")


if __name__ == "__main__":
    main()
