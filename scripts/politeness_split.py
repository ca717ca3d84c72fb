"""Split the Stanford Politeness Corpus (Wikipedia half) ONCE into a development part and a
test part, and write the ids to tests/fixtures/politeness_split.json.

    .venv/bin/python scripts/politeness_split.py [--csv PATH]

The split is made before any strategy is developed and never again: the script refuses to
overwrite an existing split. Fit and tune only on `dev`; `test` is only scored and reported
(scripts/fit_politeness.py, tests/test_politeness.py).
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.politeness_corpus import SPLIT, corpus_path  # noqa: E402

SEED = 20130804  # ACL 2013, Sofia
DEV_SHARE = 0.7


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--csv", type=Path, default=corpus_path())
    args = parser.parse_args()
    if SPLIT.exists():
        print(f"{SPLIT} exists; the split is made once and kept", file=sys.stderr)
        return 1
    with open(args.csv, encoding="utf-8", newline="") as handle:
        ids = sorted(int(row["Id"]) for row in csv.DictReader(handle))
    random.Random(SEED).shuffle(ids)
    cut = round(len(ids) * DEV_SHARE)
    split = {
        "corpus": "Stanford Politeness Corpus, Wikipedia requests (wikipedia.annotated.csv)",
        "seed": SEED,
        "dev_share": DEV_SHARE,
        "dev": sorted(ids[:cut]),
        "test": sorted(ids[cut:]),
    }
    SPLIT.parent.mkdir(parents=True, exist_ok=True)
    SPLIT.write_text(json.dumps(split, separators=(",", ":")) + "\n", encoding="utf-8")
    print(f"wrote {SPLIT}: {cut} dev, {len(ids) - cut} test")
    return 0


if __name__ == "__main__":
    sys.exit(main())
