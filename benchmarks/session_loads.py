"""Session loads and wall time per gesture, through the application API the app and the CLI
use (coach.practice): each gesture should load its session once.

    .venv/bin/python benchmarks/session_loads.py [--repeat N]

Uses a throw-away SQLite file; typed answers only (the spoken path adds the transcription,
measured by benchmarks/live.py and live_browser.py).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from coach.library import default_library
from coach.practice import Coach
from coach.session import PracticeEngine
from coach.store import Store

FIRST = "On the TPU pod I profiled the step and rewrote the jit boundaries to remove dynamic shapes."
SECOND = "Utilization went from 40% to 83%. My teammate Jisoo handled the input pipeline."


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    library = default_library()
    loads: list[str] = []
    figures: dict[str, list[tuple[int, float]]] = {}
    with tempfile.TemporaryDirectory() as folder:
        store = Store(f"sqlite:///{Path(folder) / 'bench.db'}")
        real = store.get_session
        store.get_session = lambda sid: loads.append(sid) or real(sid)  # type: ignore[method-assign]
        coach = Coach(PracticeEngine(library, store))

        def measure(name, gesture, *args):
            loads.clear()
            start = time.perf_counter()
            view = gesture(*args)
            figures.setdefault(name, []).append((len(loads), time.perf_counter() - start))
            return view

        for _ in range(args.repeat):
            view = measure("start", coach.start, "gpu-cluster-optimization")
            view = measure("send text", coach.send_text, view.id, FIRST)
            turn = view.turns[max(view.feedback)]
            view = measure("correct", coach.correct, view.id, turn.id, FIRST + " It took two weeks.")
            view = measure("send text (2)", coach.send_text, view.id, SECOND)
            view = measure("end (with summary)", coach.end, view.id)
            meeting = coach.send_text(coach.start("video-call-essentials").id, "Okay.")
            measure("skip", coach.skip, meeting.id)
            measure("open", coach.open, view.id)
    print(f"{'gesture':<20} {'loads':>5} {'median ms':>10}")
    for name, rows in figures.items():
        counts = sorted({count for count, _ in rows})
        median = statistics.median(seconds for _, seconds in rows) * 1000
        print(f"{name:<20} {'/'.join(map(str, counts)):>5} {median:>10.1f}")


if __name__ == "__main__":
    main()
