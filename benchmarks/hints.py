""""Did you mean …?" with acoustic support (coach.hints): how many misheard card terms get the
right hint, how many false hints a correctly transcribed answer gets, and the time per hint.

    .venv/bin/python benchmarks/hints.py transcribe --split dev|test|dev2 [--cache DIR]
    .venv/bin/python benchmarks/hints.py score --split dev|test|dev2|dev+dev2 [--cache DIR] [--grid]
    .venv/bin/python benchmarks/hints.py latency        # a 60 s answer: what the hints add after Stop

Data: tests/corpus/hints/lines.jsonl (75 card-like lines written for the project, each with one
card term and a plausible mishearing of it; tests/corpus/hints/README.md). Each line is in one
half by a salted hash of its id (`half`), fixed before any result was seen. Each line is said by
espeak-ng (en-us and en-gb, 140 and 175 wpm) twice: (a) as written, with the term, and (b) with
the term replaced by the mishearing (the audio then says the other words). Every clip goes
through the real path: the bundled tiny.en with the card's vocabulary (`coach.stt.transcribe`,
as the app decodes a spoken answer), then the hints (`coach.hints.term_hints`, the app's one
function) on the transcript and the recording.

`transcribe` writes each clip's transcript (text, timed words) to the cache folder (the slow
part: Whisper); `score` reads them and makes the hints. A card term said in a clip is misheard
when its letters (spaces, hyphens, case ignored) are not in the transcript; a hint is right when
its term is one of the clip's misheard terms, false otherwise. A correctly transcribed answer:
(a) every card term said is in the transcript; (b) the line's term is not in it (the transcript
says what the audio says) and every other card term said is. Printed: the share of misheard
terms with the right hint and false hints per 10 correctly transcribed answers, for today's text
rule (`coach.vocabulary.misheard_terms`) and for the acoustic check; seconds per forced choice
(one per candidate hint) and per answer. `--grid` (dev only): the candidate likeness and the
acoustic threshold over a grid (each candidate's forced choice made at every threshold of it).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

LINES = ROOT / "tests" / "corpus" / "hints" / "lines.jsonl"
# a second writer's lines (tests/corpus/hints/README.md), all of them development data
LINES2 = ROOT / "tests" / "corpus" / "hints" / "lines2.jsonl"
SPLITS = ("dev", "test", "dev2", "dev+dev2")
SALT = "rehearse-hints-split-2026-12"  # fixed before any result was seen; never change it
CONDITIONS = (("en-us", 140), ("en-us", 175), ("en-gb", 140), ("en-gb", 175))
DEFAULT_CACHE = Path(tempfile.gettempdir()) / "rehearse-hints-bench"


def half(line_id: str) -> str:
    return "dev" if hashlib.sha256(f"{SALT}:{line_id}".encode()).digest()[0] % 2 == 0 else "test"


def _read(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


def load_lines(split: str | None = None) -> list[dict]:
    """The lines of a split: `dev`/`test` the halves of lines.jsonl, `dev2` lines2.jsonl,
    `dev+dev2` both development sets."""
    if split == "dev2":
        return _read(LINES2)
    if split == "dev+dev2":
        return load_lines("dev") + _read(LINES2)
    return [line for line in _read(LINES) if split in (None, "both", half(line["id"]))]


def said_text(line: dict, variant: str) -> str:
    return line["text"] if variant == "a" else line["text"].replace(line["term"], line["misheard"])


def speak(text: str, voice: str, rate: int, folder: Path) -> Path:
    name = hashlib.sha1(f"{voice}{rate}{text}".encode()).hexdigest()[:16]
    path = folder / f"{name}.wav"
    if not path.exists():
        subprocess.run(["espeak-ng", "-v", voice, "-s", str(rate), "-w", str(path), text], check=True,
                       capture_output=True)
    return path


def clip_key(line: dict, variant: str, voice: str, rate: int) -> str:
    return f"{line['id']}-{variant}-{voice}-{rate}"


def squash(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def said_terms(text: str, vocabulary: list[str]) -> set[str]:
    """The card terms a line says as whole words."""
    return {t for t in vocabulary if re.search(rf"(?<![\w-]){re.escape(t)}(?![\w-])", text, re.I)}


def transcribe_all(lines: list[dict], cache: Path) -> None:
    from coach import stt
    from coach.config import load_settings
    from coach.errors import AudioError
    from coach.library import default_library
    from coach.vocabulary import card_vocabulary

    settings = load_settings()
    library = default_library()
    audio_dir = cache / "audio"
    audio_dir.mkdir(parents=True, exist_ok=True)
    out = cache / "transcripts.jsonl"
    done = set()
    if out.exists():
        done = {json.loads(x)["key"] for x in out.read_text().splitlines() if x.strip()}
    with out.open("a", encoding="utf-8") as handle:
        for n, line in enumerate(lines, 1):
            options = stt.DecodeOptions().with_vocabulary(card_vocabulary(library.card(line["card"])))
            for variant in ("a", "b"):
                for voice, rate in CONDITIONS:
                    key = clip_key(line, variant, voice, rate)
                    if key in done:
                        continue
                    path = speak(said_text(line, variant), voice, rate, audio_dir)
                    started = time.perf_counter()
                    try:
                        transcript = stt.transcribe(path, settings, options)
                    except AudioError as exc:
                        record = {"key": key, "error": str(exc)}
                    else:
                        record = {"key": key, "audio": str(path), "transcript": transcript.model_dump(mode="json"),
                                  "seconds": round(time.perf_counter() - started, 3)}
                    handle.write(json.dumps(record) + "\n")
                    handle.flush()
            print(f"  {n}/{len(lines)} lines", flush=True)


FLOOR = 0.3  # likeness below which no candidate is looked at, in the grid
LIKENESS_GRID = (0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.8)
THRESHOLD_GRID = (-1000.0, -500.0, -300.0, -200.0, -100.0, -50.0, 0.0, 50.0, 100.0, 200.0, 300.0, 500.0)


def verdicts(samples, timed, candidate, thresholds) -> dict[float, bool | None]:
    """The forced choice at each threshold (None: the decoder found no path), as the app makes it."""
    from coach import hints

    return {t: hints.supported(samples, timed, candidate, t) for t in thresholds}


def clip_records(lines: list[dict], cache: Path) -> list[tuple[dict, str, dict]]:
    by_key = {}
    path = cache / "transcripts.jsonl"
    for x in path.read_text(encoding="utf-8").splitlines():
        if x.strip():
            record = json.loads(x)
            by_key[record["key"]] = record
    out = []
    for line in lines:
        for variant in ("a", "b"):
            for voice, rate in CONDITIONS:
                key = clip_key(line, variant, voice, rate)
                if key in by_key:
                    out.append((line, variant, by_key[key]))
    return out


def decide(clip: dict, likeness: float, threshold: float) -> set[str]:
    """The terms hinted for one clip at these settings (as coach.hints.term_hints decides)."""
    from coach import hints

    chosen = hints.select(clip["candidates"], likeness)[: hints.MAX_CANDIDATES]
    out = []
    for c in chosen:
        verdict = clip["verdicts"][c.term][threshold]
        if verdict or (verdict is None and c.spelled):
            out.append(c.term)
    return set(out[:3])


def tally(clips: list[dict], rule) -> dict:
    misheard = sum(len(c["misheard"]) for c in clips)
    right_answers = [c for c in clips if c["correct"]]
    hinted = [(c, rule(c)) for c in clips]
    right = sum(len(h & c["misheard"]) for c, h in hinted)
    false_right = sum(len(h - c["misheard"]) for c, h in hinted if c["correct"])
    false_all = sum(len(h - c["misheard"]) for c, h in hinted)
    return {"misheard": misheard, "right": right, "recall": right / max(1, misheard),
            "answers": len(right_answers), "false": false_right,
            "false_per_10": 10 * false_right / max(1, len(right_answers)), "false_all": false_all}


def score(lines: list[dict], cache: Path, grid: bool = False) -> None:
    from coach import audio as audio_mod
    from coach import hints
    from coach.library import default_library
    from coach.stt import Transcript
    from coach.vocabulary import card_vocabulary, misheard_terms

    library = default_library()
    clips: list[dict] = []
    refused = 0
    answer_seconds: list[float] = []
    choice_seconds: list[float] = []
    for line, variant, record in clip_records(lines, cache):
        if "transcript" not in record:
            refused += 1
            continue
        vocabulary = card_vocabulary(library.card(line["card"]))
        transcript = Transcript(**record["transcript"])
        heard = squash(transcript.text)
        said = said_terms(said_text(line, variant), vocabulary)
        misheard = {t for t in said if squash(t) not in heard}
        correct = not misheard and (variant == "a" or squash(line["term"]) not in heard)
        samples = audio_mod.load(record["audio"]).samples
        timed = hints.timed_words(transcript)
        words = [w for w, _, _ in timed]
        # the app's path, timed: candidates and one forced choice each
        started = time.perf_counter()
        shipped = {s.term for s in hints.term_hints(transcript, samples, vocabulary)}
        answer_seconds.append(time.perf_counter() - started)
        found = [c for c in hints.all_candidates(words, vocabulary, text=transcript.text)
                 if c.spelled or c.likeness >= FLOOR]
        found_verdicts = {}
        for c in found:
            if grid:
                found_verdicts[c.term] = verdicts(samples, timed, c, THRESHOLD_GRID)
            else:
                t0 = time.perf_counter()
                found_verdicts[c.term] = {hints.THRESHOLD: hints.supported(samples, timed, c)}
                choice_seconds.append(time.perf_counter() - t0)
        clips.append({"key": record["key"], "variant": variant, "line": line, "text": transcript.text,
                      "misheard": misheard, "correct": correct, "candidates": found, "verdicts": found_verdicts,
                      "today": {s.term for s in misheard_terms(transcript.text, vocabulary)},
                      "shipped": shipped})

    print(f"{len(lines)} lines, {len(clips)} clips transcribed, {refused} refused by Whisper "
          f"('not English'); (a) term said: {sum(c['variant'] == 'a' for c in clips)}, "
          f"(b) mishearing said: {sum(c['variant'] == 'b' for c in clips)}")
    a_right = sum(c["variant"] == "a" and c["correct"] for c in clips)
    b_right = sum(c["variant"] == "b" and c["correct"] for c in clips)
    print(f"misheard card terms: {sum(len(c['misheard']) for c in clips)}; correctly transcribed answers: "
          f"{a_right} (a) + {b_right} (b)")
    ways = {"today's text rule (misheard_terms)": lambda c: c["today"],
            f"acoustic check as shipped (likeness >= {hints.LIKENESS}, threshold {hints.THRESHOLD:g})":
                lambda c: c["shipped"]}
    for name, rule in ways.items():
        t = tally(clips, rule)
        print(f"  {name:62} right hint {t['recall']:.2f} ({t['right']}/{t['misheard']}); "
              f"{t['false_per_10']:.2f} false hints per 10 right answers ({t['false']}/{t['answers']}); "
              f"false hints in all clips {t['false_all']}")
    differ = [c["key"] for c in clips if decide(c, hints.LIKENESS, hints.THRESHOLD) != c["shipped"]]
    if differ:
        print(f"    the recorded forced choices decide otherwise than term_hints on: {differ}")
    for variant in ("a", "b"):
        mine = [c for c in clips if c["variant"] == variant]
        t = tally(mine, lambda c: c["shipped"])
        print(f"    ({variant}) as shipped: right {t['right']}/{t['misheard']}, "
              f"false {t['false']} in {t['answers']} right answers")
    if answer_seconds:
        ordered = sorted(answer_seconds)
        print(f"seconds per answer for the hints (candidates + forced choices): median "
              f"{ordered[len(ordered) // 2]:.3f}, worst {ordered[-1]:.3f}")
    if choice_seconds:
        ordered = sorted(choice_seconds)
        print(f"seconds per forced choice ({len(ordered)}): median {ordered[len(ordered) // 2]:.3f}, "
              f"worst {ordered[-1]:.3f}; candidates per answer {len(ordered) / max(1, len(clips)):.2f}")
    if grid:
        print("grid (likeness, threshold): right hint share / false hints per 10 right answers")
        best = None
        for likeness in LIKENESS_GRID:
            row = []
            for threshold in THRESHOLD_GRID:
                t = tally(clips, lambda c, likeness=likeness, threshold=threshold: decide(c, likeness, threshold))
                row.append(f"{t['recall']:.2f}/{t['false_per_10']:.1f}")
                if t["false_per_10"] <= 1.0 and (best is None or t["recall"] > best[0]):
                    best = (t["recall"], t["false_per_10"], likeness, threshold)
            print(f"  {likeness:.2f}: " + "  ".join(f"{th:g}:{r}" for th, r in zip(THRESHOLD_GRID, row, strict=True)))
        print(f"best within 1 false hint per 10: {best}")
    misses = [(c["key"], c["line"]["term"], c["text"],
               [(x.term, x.likeness, clip_margin(c, x)) for x in c["candidates"]])
              for c in clips if c["misheard"] - c["shipped"]]
    falses = [(c["key"], c["text"], c["shipped"] - c["misheard"]) for c in clips if c["shipped"] - c["misheard"]]
    if grid:  # dev only: what the rules were chosen on
        print("\nmissed (dev):")
        for m in misses:
            print("  ", m)
        print("false hints (dev):")
        for f in falses:
            print("  ", f)


def clip_margin(clip: dict, candidate) -> str:
    """The thresholds at which the term won ('+'), lost ('-') or had no path ('?')."""
    marks = {True: "+", False: "-", None: "?"}
    return "".join(marks[v] for v in clip["verdicts"].get(candidate.term, {}).values())


def latency(cache: Path, repeat: int = 5) -> None:
    """What the hints add after "stop" for a long answer: about 60 s of the dev lines (every
    third said with its mishearing), the union of their cards' vocabularies (60 terms at most,
    as a card's), transcribed once; then, with the card's terms read ahead (`warm`, as the live
    path does while the learner speaks), `term_hints` on the recording file `repeat` times."""
    from coach import audio as audio_mod
    from coach import hints, stt
    from coach.config import load_settings
    from coach.library import default_library
    from coach.vocabulary import MAX_TERMS, card_vocabulary, misheard_terms

    library = default_library()
    lines = load_lines("dev")[:14]
    text = " ".join(said_text(line, "b" if k % 3 == 2 else "a") for k, line in enumerate(lines))
    vocabulary: list[str] = []
    for line in lines:
        vocabulary += [t for t in card_vocabulary(library.card(line["card"])) if t not in vocabulary]
    vocabulary = vocabulary[:MAX_TERMS]
    (cache / "audio").mkdir(parents=True, exist_ok=True)
    path = speak(text, "en-us", 150, cache / "audio")
    seconds = audio_mod.load(path).samples.size / 16_000
    transcript = stt.transcribe(path, load_settings(), stt.DecodeOptions().with_vocabulary(vocabulary))
    hints.warm(vocabulary)
    timed = hints.timed_words(transcript)
    found = hints.candidates([w for w, _, _ in timed], vocabulary, text=transcript.text)
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        result = hints.term_hints(transcript, path, vocabulary)
        times.append(time.perf_counter() - started)
    times.sort()
    before = []  # what the hints cost before: the spelling rule alone
    for _ in range(repeat):
        started = time.perf_counter()
        misheard_terms(transcript.text, vocabulary)
        before.append(time.perf_counter() - started)
    before.sort()
    print(f"answer {seconds:.0f} s, {len(timed)} words, {len(vocabulary)} card terms; "
          f"{min(len(found), hints.MAX_CANDIDATES)} forced choices; hints {[s.message() for s in result]}")
    print(f"term_hints after stop (warm), {repeat} runs: median {times[len(times) // 2]:.3f} s, "
          f"worst {times[-1]:.3f} s; the spelling rule alone (before): median {before[len(before) // 2]:.3f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("phase", choices=("transcribe", "score", "latency"))
    parser.add_argument("--split", choices=SPLITS, default="dev")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--grid", action="store_true")
    parser.add_argument("--limit", type=int, default=0, help="the first N lines of the half only")
    args = parser.parse_args()
    lines = load_lines(args.split)
    if args.limit:
        lines = lines[: args.limit]
    if args.phase == "latency":
        latency(args.cache)
    elif args.phase == "transcribe":
        transcribe_all(lines, args.cache)
    else:
        score(lines, args.cache, grid=args.grid)


if __name__ == "__main__":
    main()
