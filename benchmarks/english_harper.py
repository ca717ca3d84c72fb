"""harper.js (an offline grammar checker) scored like scoring/english.py, on the same sets.

    cd /tmp/harper && npm install harper.js && cp REPO/benchmarks/harper/lint.mjs .
    node lint.mjs SET.jsonl > set_lints.jsonl
    node lint.mjs REAL.jsonl ... > real_lints.jsonl
    .venv/bin/python benchmarks/english_harper.py SET.jsonl set_lints.jsonl real_lints.jsonl

Counts the lints the way benchmarks/english.py counts corrections (a lint is right when its span
overlaps the annotated error's words; every lint in the real passages is false), twice: every lint,
and the grammar lints only (without Spelling, Capitalization, Punctuation, Formatting, Readability,
Style, Enhancement and Typo (split or merged words), which are not what scoring/english.py
corrects and which flag technical words).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from english import _overlap, _spans  # noqa: E402

from scoring.text import Answer  # noqa: E402

NOT_GRAMMAR = {"Spelling", "Typo", "Capitalization", "Punctuation", "Formatting", "Readability", "Style", "Enhancement"}


def _read(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def score(rows, lints_by_id, real_rows, real_texts, keep) -> dict:
    per_kind: dict[str, list[int]] = {}
    flags = true_flags = on_correct = correct = 0
    for row in rows:
        lints = [x for x in lints_by_id.get(row["id"], []) if keep(x)]
        spans = _spans(row["text"], row.get("errors") or [])
        flags += len(lints)
        if not spans:
            correct += 1
            on_correct += len(lints)
        true_flags += sum(any(_overlap((x["start"], x["end"]), (s, e)) for s, e, _ in spans) for x in lints)
        for s, e, kind in spans:
            bucket = per_kind.setdefault(kind, [0, 0])
            bucket[0] += 1
            bucket[1] += any(_overlap((x["start"], x["end"]), (s, e)) for x in lints)
    real_flags = sum(len([x for x in r["lints"] if keep(x)]) for r in real_rows)
    sentences = sum(len(Answer(t).sentences) for t in real_texts)
    errors = sum(b[0] for b in per_kind.values())
    return {
        "precision": true_flags / flags if flags else 1.0,
        "flags": flags,
        "recall": sum(b[1] for b in per_kind.values()) / errors if errors else 0.0,
        "per_kind": {k: b[1] / b[0] for k, b in sorted(per_kind.items())},
        "false_per_100_correct": 100 * on_correct / correct if correct else 0.0,
        "real_per_100": 100 * real_flags / sentences if sentences else 0.0,
        "real_flags": real_flags,
        "real_sentences": sentences,
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("set", type=Path)
    parser.add_argument("set_lints", type=Path)
    parser.add_argument("real_lints", type=Path)
    parser.add_argument("--show", action="store_true")
    args = parser.parse_args(argv)
    rows = _read(args.set)
    lints_by_id = {r["id"]: r["lints"] for r in _read(args.set_lints)}
    real_rows = _read(args.real_lints)
    real_texts = []
    for name in dict.fromkeys(r["file"] for r in real_rows):
        real_texts += [r["text"] for r in _read(Path(name))]
    for label, keep in (("every lint", lambda x: True), ("grammar lints", lambda x: x["kind"] not in NOT_GRAMMAR)):
        s = score(rows, lints_by_id, real_rows, real_texts, keep)
        kinds = " ".join(f"{k} {v:.3f}" for k, v in s["per_kind"].items())
        print(f"{label}: precision {s['precision']:.3f} ({s['flags']} lints), recall {s['recall']:.3f}")
        print(f"  per kind: {kinds}")
        print(
            f"  false flags per 100 correct sentences {s['false_per_100_correct']:.2f}; per 100 real sentences "
            f"{s['real_per_100']:.2f} ({s['real_flags']} in {s['real_sentences']})"
        )
    if args.show:
        texts = {r["id"]: r["text"] for r in rows}
        for r in _read(args.set_lints):
            for x in r["lints"]:
                if x["kind"] not in NOT_GRAMMAR:
                    where = f"[{x['kind']}/{x['rule']}]  {texts[r['id']]}"
                    print(f"SET  {r['id']}: {x['problem']!r} -> {x['suggestions'][:2]} {where}")
        for r in real_rows:
            for x in r["lints"]:
                if x["kind"] not in NOT_GRAMMAR:
                    where = f"[{x['kind']}/{x['rule']}]"
                    print(f"REAL {Path(r['file']).name}: {x['problem']!r} -> {x['suggestions'][:2]} {where}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
