"""The Stanford Politeness Corpus (Wikipedia half) for developing and measuring the politeness
strategies: where the CSV lies, the fixed dev/test split, the top-vs-bottom-quartile task.

Danescu-Niculescu-Mizil, Sudhof, Jurafsky, Leskovec and Potts, "A computational approach to
politeness with application to social factors", ACL 2013; data from sudhof/politeness
(Apache-2.0). The CSV is not committed: it lies in the shared folder beside the checkouts.
"""

from __future__ import annotations

import csv
import json
import os
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SPLIT = REPO / "tests" / "fixtures" / "politeness_split.json"
_RELATIVE = Path("shared") / "data" / "politeness" / "wikipedia.annotated.csv"


def corpus_path() -> Path | None:
    """$COACH_POLITENESS_CSV, else ../shared/... beside the checkout (or beside a worktree's parent)."""
    if env := os.environ.get("COACH_POLITENESS_CSV"):
        return Path(env) if Path(env).is_file() else None
    for base in (REPO.parent, REPO.parent.parent):
        if (base / _RELATIVE).is_file():
            return base / _RELATIVE
    return None


@dataclass(frozen=True)
class Request:
    id: int
    text: str
    score: float  # Normalized Score: z-scored mean of five annotators, higher = more polite


def load(path: Path) -> dict[int, Request]:
    with open(path, encoding="utf-8", newline="") as handle:
        rows = csv.DictReader(handle)
        return {int(r["Id"]): Request(int(r["Id"]), r["Request"], float(r["Normalized Score"])) for r in rows}


def split() -> dict[str, list[int]]:
    return json.loads(SPLIT.read_text(encoding="utf-8"))


def quartile_cuts(scores: list[float]) -> tuple[float, float]:
    """The 25th and 75th percentiles (nearest rank on the sorted scores)."""
    ordered = sorted(scores)
    n = len(ordered)
    return ordered[int(0.25 * (n - 1))], ordered[int(0.75 * (n - 1))]


def quartile_task(requests: dict[int, Request]) -> tuple[list[tuple[Request, bool]], list[tuple[Request, bool]]]:
    """(dev, test) lists of (request, polite) for the top (True) and bottom (False) quartile.
    The cuts come from the development part only and apply unchanged to the test part."""
    parts = split()
    dev = [requests[i] for i in parts["dev"]]
    test = [requests[i] for i in parts["test"]]
    low, high = quartile_cuts([r.score for r in dev])

    def labelled(items):
        return [(r, r.score >= high) for r in items if r.score >= high or r.score <= low]

    return labelled(dev), labelled(test)
