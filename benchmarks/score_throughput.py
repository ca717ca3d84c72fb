"""Scoring speed: answers per second on the batch path and per-answer latency by length.

    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/score_throughput.py

Answers: every labelled answer in tests/corpus/ (written and real). The batch figure is the
`coach score --jsonl` path: each card's lines in chunks, the texts that need the grammar parsed
together (scoring.parse_ahead), then scored in order. Latency is one answer scored from scratch
(its parse included, nothing cached: until 2026-12-07 the parse was kept after the first of the 60
runs), for answers cut to 50, 100, 200 and 400 words, and the longest answer scored; start-up
(about 2 s to load the parser) is excluded. Wall-clock and CPU time are both printed: on a shared
machine the CPU time is the figure other jobs distort least. Last, the command itself on a long
batch, whose chunks are spread over one process per core.
"""

from __future__ import annotations

import itertools
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import scoring  # noqa: E402
from coach.cli.jsonl import CHUNK_LINES  # noqa: E402
from coach.library import default_library  # noqa: E402
from scoring.grammar import forget_parses, pipeline, prime  # noqa: E402


def corpus() -> list[dict]:
    rows = []
    for path in sorted((ROOT / "tests" / "corpus").rglob("*.jsonl")):
        rows += [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return [r for r in rows if "card" in r and "turn" in r]  # answers (the hint lines name no turn)


def main() -> None:
    library = default_library()
    pipeline()
    rows = [r for r in corpus() if r["card"] in library.cards]  # not the learners' own questions' cards
    # one card per batch, as `coach score --jsonl --card ID` reads them
    items = sorted(((library.cards[r["card"]], r["turn"], r["text"]) for r in rows), key=lambda item: item[0].id)
    for card, turn, text in items[:50]:  # warm the compiled patterns
        scoring.score(card, turn, text)

    start, cpu_start = time.perf_counter(), time.process_time()
    for _, group in itertools.groupby(items, key=lambda item: item[0].id):
        card_items = list(group)
        for first in range(0, len(card_items), CHUNK_LINES):
            chunk = card_items[first : first + CHUNK_LINES]
            scoring.parse_ahead(chunk[0][0], [(turn, text) for _, turn, text in chunk])
            for card, turn, text in chunk:
                scoring.score(card, turn, text)
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    words = statistics.mean(len(t.split()) for _, _, t in items)
    print(f"batch (jsonl path): {len(items)} answers (mean {words:.0f} words) in {elapsed:.2f} s = "
          f"{len(items) / elapsed:,.0f} answers/s; CPU time {cpu:.2f} s = {len(items) / cpu:,.0f} answers per "
          "CPU-second")

    command_line(rows)
    prime([])  # nothing primed: each answer below is parsed as the app's text turn does
    longest = max((r for r in rows if r["card"] == "status-update"), key=lambda r: len(r["text"].split()))
    long_text = " ".join([longest["text"]] * 4).split()
    card = library.card("status-update")
    print("one answer from scratch, parse included (status update, the longest passage repeated):")
    for length in (50, 100, 200, 400):
        text = " ".join(long_text[:length])
        latencies, cpu_times = [], []
        for _ in range(60):
            forget_parses()
            t0, c0 = time.perf_counter(), time.process_time()
            scoring.score(card, "main", text)
            latencies.append((time.perf_counter() - t0) * 1000)
            cpu_times.append((time.process_time() - c0) * 1000)
        latencies.sort()
        cpu_times.sort()
        print(f"  {length:4} words: median {statistics.median(latencies):6.1f} ms, "
              f"p95 {latencies[int(0.95 * len(latencies))]:6.1f} ms; CPU time median "
              f"{statistics.median(cpu_times):6.1f} ms, p95 {cpu_times[int(0.95 * len(cpu_times))]:6.1f} ms")
    longest_answers(library)
    text_turns(library)


def longest_answers(library, repeat: int = 3) -> None:
    """The longest answer scored (a pasted text cut to its first MAX_SCORED_CHARS): one run-on of a
    word, which the parser reads as a single chain of nouns, and the longest passage repeated."""
    card = library.card("gpu-cluster-optimization")
    longest = {
        "run-on": "I rewrote the jit boundaries and utilization went from 40% to 83%. " + "x " * 60_000,
        "sentences": " ".join([library.card("status-update").model_answers[0].text] * 200),
    }
    for name, text in longest.items():
        seconds = []
        for _ in range(repeat):
            forget_parses()
            t0 = time.perf_counter()
            scoring.score(card, None, text)
            seconds.append(time.perf_counter() - t0)
        print(f"longest answer ({name}, {len(text):,} characters, scored on its first "
              f"{scoring.MAX_SCORED_CHARS:,}): median {statistics.median(seconds):.2f} s of {repeat}")


def command_line(rows: list[dict], lines: int = 4000) -> None:
    """`coach score --jsonl` itself, one card's corpus answers repeated to `lines` lines: the
    chunks after the first go to one forked worker per core (coach.cli.jsonl.default_workers).
    Start-up (a one-line batch, timed apart) is taken out."""
    import subprocess
    import tempfile

    from coach.cli.jsonl import default_workers

    card_rows = [r for r in rows if r["card"] == "gpu-cluster-optimization"]
    coach = str(Path(sys.executable).with_name("coach"))
    with tempfile.TemporaryDirectory() as folder:
        def timed(count: int) -> float:
            batch = Path(folder) / f"{count}.jsonl"
            batch.write_text("".join(json.dumps({"id": i, "text": card_rows[i % len(card_rows)]["text"],
                                                 "turn": "main"}) + "\n" for i in range(count)), encoding="utf-8")
            start = time.perf_counter()
            subprocess.run([coach, "score", "--card", "gpu-cluster-optimization", "--jsonl", str(batch)],
                           check=True, stdout=subprocess.DEVNULL)
            return time.perf_counter() - start

        start_up = timed(1)
        elapsed = timed(lines) - start_up
    print(f"coach score --jsonl, {lines} lines, {default_workers()} worker(s): {lines / elapsed:,.0f} answers/s "
          f"(start-up {start_up:.1f} s not counted)")


def text_turns(library, count: int = 20) -> None:
    """The app's text turn without the browser: PracticeEngine.submit (save the answer, score it,
    choose and word the next prompt, store it) on a fresh SQLite file, parse included."""
    import tempfile

    from coach.config import load_settings
    from coach.session import PracticeEngine
    from coach.store import Store

    answer = ("I worked on the data loader of our training cluster. I profiled the input pipeline and "
              "found the GPUs waiting on JPEG decoding, so I moved decoding to the GPU with DALI.")
    with tempfile.TemporaryDirectory() as folder:
        engine = PracticeEngine(library, Store(f"sqlite:///{folder}/bench.db"), load_settings())
        latencies = []
        for _ in range(count):
            session = engine.start("gpu-cluster-optimization")
            forget_parses()
            t0 = time.perf_counter()
            engine.submit(session.id, answer)
            latencies.append((time.perf_counter() - t0) * 1000)
    latencies.sort()
    print(f"text turn (submit: save, score, next prompt, store; SQLite): median "
          f"{statistics.median(latencies):.0f} ms, p95 {latencies[int(0.95 * len(latencies))]:.0f} ms")


if __name__ == "__main__":
    main()
