"""English corrections (scoring/english.py) measured on a set of annotated learner sentences.

    .venv/bin/python benchmarks/english.py SET.jsonl [--real FILE ...] [--show]

SET.jsonl: lines {"id", "text", "kind", "errors": [{"wrong", "right", "kind"}]}, kind "correct" with no
errors. Prints, per kind and overall: precision (of the corrections made, the share that overlap an
annotated error), recall (of the annotated errors, the share a correction overlaps), false flags per 100
correct sentences, false flags per 100 sentences of real people's English (the dev halves of
tests/corpus/real/ unless --real names others: every correction there counts as false), and the time
the corrections take per 200-word answer, p95, with the parse made beforehand (it is shared with the
scorer). --show lists every miss and false flag.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from scoring import english, grammar  # noqa: E402
from scoring.text import Answer  # noqa: E402

REAL_DEV = sorted([*REPO.glob("tests/corpus/real/*.dev.jsonl"), *REPO.glob("tests/corpus/real/set*/*dev*.jsonl")])


def _spans(text: str, errors: list[dict]) -> list[tuple[int, int, str]]:
    """Where each annotated error is: its `wrong` words in the text (a missing word: the place
    around which `right` differs, taken as the words next to it)."""
    out = []
    for error in errors:
        wrong = error.get("wrong") or ""
        at = text.find(wrong) if wrong else -1
        if at < 0 and wrong:
            at = text.lower().find(wrong.lower())
        if at >= 0 and wrong:
            out.append((at, at + len(wrong), error.get("kind", "other")))
        else:
            out.append((-1, -1, error.get("kind", "other")))  # cannot be placed: counted as missed
    return out


def _overlap(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def measure(rows: list[dict], show: bool) -> dict:
    per_kind: dict[str, dict[str, int]] = {}
    flags = true_flags = correct_sentences = flags_on_correct = 0
    for row in rows:
        text = row["text"]
        found = english.review(text).corrections
        spans = _spans(text, row.get("errors") or [])
        flags += len(found)
        if not spans:
            correct_sentences += 1
            flags_on_correct += len(found)
        for c in found:
            if any(_overlap((c.start, c.end), (s, e)) for s, e, _ in spans):
                true_flags += 1
            elif show:
                print(f"FALSE  {row.get('id')}: {c.wrong!r} -> {c.right!r} [{c.rule}]  {text}")
        for s, e, kind in spans:
            bucket = per_kind.setdefault(kind, {"errors": 0, "found": 0})
            bucket["errors"] += 1
            if any(_overlap((c.start, c.end), (s, e)) for c in found):
                bucket["found"] += 1
            elif show:
                wrong = next((x["wrong"] for x in row["errors"]), "")
                print(f"MISSED {row.get('id')} [{kind}]: {wrong!r}  {text}")
    errors = sum(b["errors"] for b in per_kind.values())
    found_errors = sum(b["found"] for b in per_kind.values())
    return {
        "sentences": len(rows),
        "flags": flags,
        "precision": true_flags / flags if flags else 1.0,
        "recall": found_errors / errors if errors else 0.0,
        "per_kind": per_kind,
        "correct_sentences": correct_sentences,
        "false_per_100_correct": 100 * flags_on_correct / correct_sentences if correct_sentences else 0.0,
    }


def real_flags(paths: list[Path], show: bool) -> tuple[int, int]:
    sentences = flags = 0
    for path in paths:
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            text = json.loads(line)["text"]
            sentences += len(Answer(text).sentences)
            found = english.review(text).corrections
            flags += len(found)
            if show:
                for c in found:
                    around = text[max(0, c.start - 60) : c.end + 40].replace("\n", " ")
                    print(f"REAL   {path.name}: {c.wrong!r} -> {c.right!r} [{c.rule}]  …{around}…")
    return sentences, flags


def timing(rows: list[dict], runs: int = 60, clock=time.perf_counter) -> float:
    """p95 ms of the corrections of a 200-word answer made of the set's sentences, parse excluded
    (wall clock, or `clock=time.process_time` for the CPU time, steadier on a shared machine)."""
    texts = [r["text"] for r in rows] or ["The job fail every night and we discuss about it."]
    answers, words, current = [], 0, []
    for i in range(runs * 40):
        sentence = texts[i % len(texts)]
        current.append(sentence)
        words += len(sentence.split())
        if words >= 200:
            answers.append(" ".join(current))
            current, words = [], 0
            if len(answers) == runs:
                break
    times = []
    for text in answers:
        doc = grammar.parse(text)
        english.review(text, parse=doc)  # warm
        begin = clock()
        english.review(text, parse=doc)
        times.append((clock() - begin) * 1000)
    return statistics.quantiles(times, n=20)[-1] if len(times) >= 2 else times[0]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("set", type=Path)
    parser.add_argument("--real", type=Path, nargs="*", default=REAL_DEV)
    parser.add_argument("--show", action="store_true")
    args = parser.parse_args(argv)
    rows = [json.loads(line) for line in args.set.read_text(encoding="utf-8").splitlines() if line.strip()]
    result = measure(rows, args.show)
    sentences, flags = real_flags(args.real, args.show)
    print(f"set: {args.set} ({result['sentences']} sentences, {result['correct_sentences']} correct)")
    print(f"precision {result['precision']:.3f} ({result['flags']} corrections), recall {result['recall']:.3f}")
    for kind, bucket in sorted(result["per_kind"].items()):
        print(f"  {kind:13} recall {bucket['found'] / bucket['errors']:.3f} ({bucket['found']}/{bucket['errors']})")
    print(f"false flags per 100 correct sentences: {result['false_per_100_correct']:.2f}")
    print(
        f"false flags per 100 real sentences: {100 * flags / max(sentences, 1):.2f} ({flags} in {sentences} sentences, "
        f"{len(args.real)} files)"
    )
    cpu = timing(rows, clock=time.process_time)
    print(f"ms per 200-word answer, p95, parse excluded: {timing(rows):.1f} (CPU time {cpu:.1f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
