"""Start-up of the `coach` command as a whole process: wall time (median) and peak resident
memory (the largest of the runs) of each command, from exec to exit.

    .venv/bin/python benchmarks/startup.py [--repeat 5] [--cards 10,1000,10000] [--checkout PATH]

- `coach --help`, `coach cards --format json`;
- `coach score` of one status update that needs the grammar parse (most do: the next-steps
  criterion is not met by a sentence that only announces, so its sentences are read) and of one
  answer to a video-call turn (its rubric is settled by the phrase lists, but its politeness is read
  from the parse too, since the impolite cues are);
- `coach cards --format json` with N of the learner's own cards in a temporary COACH_DATA_DIR
  (written with coach.personal.render, the rubrics in turn).

Each run is a fresh process of this checkout (PYTHONPATH), so nothing is cached but the OS's file
cache (one unmeasured run of each command first). The machine is shared: compare medians, and the
CPU time (user + system), which other jobs inflate less than the wall time.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

STATUS = ("For context, I'm moving the billing export to the new cluster. So far I've finished the schema "
          "and the load test passed. Next I'll switch the traffic on Thursday. I'm blocked on access to the "
          "production dashboard; could you approve my request?")
CONNECTION = "Sorry, can everyone hear me? My connection was a bit unstable."

COMMANDS = {
    "coach --help": ["--help"],
    "coach cards": ["cards", "--format", "json"],
    "coach score (needs the parse)": ["score", "--card", "status-update", "--text", STATUS],
    "coach score (a video-call line)": ["score", "--card", "video-call-essentials", "--turn",
                                             "check-connection", "--text", CONNECTION],
}


# What the installed `coach` script runs (`coach.cli:console`); a --checkout from before it existed
# runs `main` and exits as usual.
ENTRY_POINT = """import sys
try:
    from coach.cli import console
except ImportError:
    from coach.cli import main
    sys.exit(main())
console()"""


def run_once(args: list[str], env: dict[str, str]) -> tuple[float, float, float]:
    """(wall seconds, CPU seconds, peak RSS in MiB) of one `coach ARGS` process."""
    command = [sys.executable, "-c", ENTRY_POINT, *args]
    start = time.perf_counter()
    process = subprocess.Popen(command, env=env, cwd=env["PYTHONPATH"], stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise SystemExit(f"coach {' '.join(args)} failed: {process.stderr.read().decode()[-500:]}")
    return seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def measure(args: list[str], env: dict[str, str], repeat: int) -> tuple[float, float, float]:
    run_once(args, env)  # the OS's file cache, as for any command run a second time
    runs = [run_once(args, env) for _ in range(repeat)]
    return (statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs),
            max(r[2] for r in runs))


def write_personal_cards(data_dir: Path, count: int) -> None:
    os.environ["COACH_DATA_DIR"] = str(data_dir)
    from coach.config import load_settings
    from coach.library import library_for
    from coach.personal import RUBRICS, CardSpec, render

    settings = load_settings()
    library = library_for(settings)
    folder = settings.cards_dir
    folder.mkdir(parents=True, exist_ok=True)
    rubrics = sorted(RUBRICS)
    for number in range(count):
        name = rubrics[number % len(rubrics)]
        terms = ["paged attention", "KV cache"] if name == "concept" else []
        question = f"Question number {number}: how did you make the nightly training job {number} faster?"
        spec = CardSpec(name, question, f"My question {number}", terms, [])
        (folder / f"mine-{number}.md").write_text(render(f"mine-{number}", spec, library), encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--cards", default="10,1000,10000", help="numbers of own cards for `coach cards`")
    parser.add_argument("--checkout", type=Path, default=ROOT, help="the code to measure (default: this one)")
    args = parser.parse_args()
    sys.path.insert(0, str(args.checkout))
    with tempfile.TemporaryDirectory() as folder:
        env = {**os.environ, "PYTHONPATH": str(args.checkout), "COACH_DATA_DIR": str(Path(folder) / "empty")}
        env.pop("COACH_LLM_MODEL", None)
        rows = [(name, *measure(argv, env, args.repeat)) for name, argv in COMMANDS.items()]
        for count in (int(n) for n in args.cards.split(",") if n):
            data = Path(folder) / f"cards-{count}"
            write_personal_cards(data, count)
            own = {**env, "COACH_DATA_DIR": str(data)}
            rows.append((f"coach cards, {count:,} own cards", *measure(COMMANDS["coach cards"], own, args.repeat)))
    print(f"{'command':<40} {'wall s':>7} {'CPU s':>7} {'peak MiB':>9}   (medians of {args.repeat} runs; "
          f"load average {os.getloadavg()[0]:.1f})")
    for name, seconds, cpu, mib in rows:
        print(f"{name:<40} {seconds:>7.2f} {cpu:>7.2f} {mib:>9.0f}")


if __name__ == "__main__":
    main()
