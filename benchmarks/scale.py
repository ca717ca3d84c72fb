"""Thousands of the learner's own cards (issue 29): each command as a whole process, from exec to
exit, with 10, 1,000 and 10,000 own cards in a temporary COACH_DATA_DIR.

    .venv/bin/python benchmarks/scale.py [--repeat 3] [--cards 10,1000,10000] [--checkout PATH]

- `coach cards --format json`, the first time (no index yet: every own card's YAML is read) and
  after (the folder's `.index.jsonl`);
- `coach score` of one answer on a built-in card and on an own card (a status update, so the
  phrase lists settle both and no parser is loaded);
- the library load of the Start page (`coach.practice`'s engine for a signed-in learner with own
  cards: the library is loaded on every page run; the page lists every card's summary and builds
  the first 20 own cards it shows);
- `coach card new` of one more question.

The cards are written with coach.personal.render, the rubrics in turn. Median wall and CPU
(user + system) seconds and the largest peak resident memory of the runs; the machine may be
shared, so compare CPU times.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.startup import ENTRY_POINT, STATUS  # noqa: E402  (the installed `coach` script's entry)

START_PAGE = ("from coach.config import load_settings\n"
              "from coach.library import library_for\n"
              "library = library_for(load_settings())\n"
              "listed = library.summaries()\n"  # as the Start page lists them: own cards from their index
              "mine = [c for c in library.find(None, '', []) if c.personal][:20]\n"  # the first page it shows
              "cards = [library.cards[c.id] for c in mine]\n"
              "assert library.summaries('meeting') and library.starter('interview') is not None\n")


def run_once(argv: list[str], env: dict[str, str]) -> tuple[float, float, float]:
    """(wall seconds, CPU seconds, peak RSS in MiB) of one process."""
    start = time.perf_counter()
    process = subprocess.Popen(argv, env=env, cwd=env["PYTHONPATH"], stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(argv[:6])} failed: {process.stderr.read().decode()[-800:]}")
    return seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def coach(*args: str) -> list[str]:
    return [sys.executable, "-c", ENTRY_POINT, *args]


def measure(argv: list[str], env: dict[str, str], repeat: int, warm: bool = True,
            before=None) -> tuple[float, float, float]:
    if warm:
        run_once(argv, env)  # the OS's file cache (and the own cards' index), as for a command run again
    runs = []
    for _ in range(repeat):
        if before is not None:
            before()
        runs.append(run_once(argv, env))
    return (statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs),
            max(r[2] for r in runs))


def write_own_cards(data_dir: Path, count: int, checkout: Path) -> None:
    code = ("import os, sys\n"
            f"os.environ['COACH_DATA_DIR'] = {str(data_dir)!r}\n"
            "from coach.config import load_settings\n"
            "from coach.library import library_for\n"
            "from coach.personal import RUBRICS, CardSpec, render\n"
            "settings = load_settings(); library = library_for(settings)\n"
            "folder = settings.cards_dir; folder.mkdir(parents=True, exist_ok=True)\n"
            "rubrics = sorted(RUBRICS)\n"
            f"for number in range({count}):\n"
            "    name = rubrics[number % len(rubrics)]\n"
            "    terms = ['paged attention', 'KV cache'] if name == 'concept' else []\n"
            "    question = f'Question {number}: how did you make the nightly training job {number} faster?'\n"
            "    spec = CardSpec(name, question, f'My question {number}', terms, [])\n"
            "    text = render(f'my-q-{number}', spec, library)\n"
            "    (folder / f'my-q-{number}.md').write_text(text, encoding='utf-8')\n")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=checkout,
                   env={**os.environ, "PYTHONPATH": str(checkout)})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--cards", default="10,1000,10000")
    parser.add_argument("--checkout", type=Path, default=ROOT, help="the code to measure (default: this one)")
    parser.add_argument("--no-new", action="store_true", help="skip `coach card new`")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for count in (int(n) for n in args.cards.split(",") if n):
            data = Path(folder) / f"cards-{count}"
            write_own_cards(data, count, args.checkout)
            env = {**os.environ, "PYTHONPATH": str(args.checkout), "COACH_DATA_DIR": str(data)}
            env.pop("COACH_LLM_MODEL", None)
            index = data / "cards" / ".index.jsonl"
            rows.append((count, "coach cards (no index yet)",
                         *measure(coach("cards", "--format", "json"), env, args.repeat, warm=False,
                                  before=lambda index=index: index.unlink(missing_ok=True))))
            rows.append((count, "coach cards", *measure(coach("cards", "--format", "json"), env, args.repeat)))
            rows.append((count, "coach score, built-in card",
                         *measure(coach("score", "--card", "status-update", "--text", STATUS), env, args.repeat)))
            rubrics = sorted(["story", "concept", "status-update", "disagreement", "clarifying", "summary",
                              "speaking-up"])
            own = f"my-q-{rubrics.index('status-update')}"  # a status-update card
            rows.append((count, "coach score, own card",
                         *measure(coach("score", "--card", own, "--text", STATUS), env, args.repeat)))
            rows.append((count, "Start page library load",
                         *measure([sys.executable, "-c", START_PAGE], env, args.repeat)))
            if not args.no_new:
                spare = Path(folder) / "spare"

                def fresh(data=data, spare=spare):  # each run adds the same card to the same folder
                    shutil.rmtree(spare, ignore_errors=True)
                    for name in (data / "cards").glob("my-new-question*.md"):
                        name.unlink()

                rows.append((count, "coach card new (1 question)",
                             *measure(coach("card", "new", "--rubric", "status-update", "--question",
                                            "New question?", "--format", "json"), env, args.repeat, before=fresh)))
            shutil.rmtree(data)
    print(f"{'own cards':>9}  {'command':<32} {'wall s':>7} {'CPU s':>7} {'peak MiB':>9}   "
          f"(medians of {args.repeat} runs; load average {os.getloadavg()[0]:.1f})")
    for count, name, seconds, cpu, mib in rows:
        print(f"{count:>9,}  {name:<32} {seconds:>7.2f} {cpu:>7.2f} {mib:>9.0f}")


if __name__ == "__main__":
    main()
