"""Scoring speed: answers per second on the batch path and per-answer latency.

    .venv/bin/python benchmarks/score_throughput.py

Uses the labeled answers in tests/golden/ (start-up and the first, warming pass excluded).
"""

from __future__ import annotations

import json
import statistics
import time
from pathlib import Path

import scoring
from coach.content import default_library

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    library = default_library()
    items = []
    for name in ("answers.jsonl", "holdout.jsonl"):
        for line in (ROOT / "tests" / "golden" / name).read_text(encoding="utf-8").splitlines():
            item = json.loads(line)
            items.append((library.cards[item["card"]], item["turn"], item["text"]))
    for card, turn, text in items:  # warm the compiled patterns
        scoring.score(card, turn, text)

    batch = items * max(1, 3000 // len(items))
    start = time.perf_counter()
    for card, turn, text in batch:
        scoring.score(card, turn, text)
    elapsed = time.perf_counter() - start
    print(f"batch: {len(batch)} answers in {elapsed:.2f} s = {len(batch) / elapsed:,.0f} answers/s (one core)")

    card = library.card("gpu-cluster-optimization")
    longest = max(card.model_answers, key=lambda a: len(a.text)).text
    latencies = []
    for _ in range(200):
        t0 = time.perf_counter()
        scoring.score(card, "main", longest)
        latencies.append((time.perf_counter() - t0) * 1000)
    latencies.sort()
    print(
        f"single answer ({len(longest.split())} words, flagship card): median {statistics.median(latencies):.2f} ms,"
        f" p95 {latencies[int(0.95 * len(latencies))]:.2f} ms"
    )


if __name__ == "__main__":
    main()
