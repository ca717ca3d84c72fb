"""Golden tests: every content file against its expected parsed form; scorer accuracy on the
hand-labeled answer sets; exact scorecards for a few pinned answers.

After a deliberate change: .venv/bin/python scripts/update_golden.py, then review the diff."""

from __future__ import annotations

import json
from collections import defaultdict

import pytest

import scoring
from tests.golden_files import (
    GOLDEN,
    SCORECARD_GOLDEN,
    content_files,
    expected_path,
    parsed_form,
    pinned_answers,
    pinned_scorecard,
)

# The development set was used to tune the detectors; the held-out set was written by a
# second author from the same definitions (and has since been looked at, so it is not blind).
THRESHOLDS = {
    "answers.jsonl": {"each": 0.95, "mean": 0.97},
    "holdout.jsonl": {"each": 0.88, "mean": 0.93},
}


@pytest.mark.parametrize("source", content_files(), ids=lambda p: p.stem)
def test_content_file_matches_its_golden(source):
    expected = expected_path(source)
    assert expected.exists(), f"missing golden file {expected}; run scripts/update_golden.py and review it"
    assert parsed_form(source) == json.loads(expected.read_text(encoding="utf-8"))


def test_no_orphan_golden_files():
    expected = {expected_path(p) for p in content_files()}
    present = set((GOLDEN / "content").rglob("*.json"))
    assert present <= expected, f"golden files without a source: {sorted(present - expected)}"


def accuracy(library, name):
    per_criterion = defaultdict(lambda: [0, 0])
    for line in (GOLDEN / name).read_text(encoding="utf-8").splitlines():
        item = json.loads(line)
        result = scoring.score(library.card(item["card"]), item["turn"], item["text"])
        for cid, label in item["labels"].items():
            per_criterion[cid][0] += result.criteria[cid].met == label
            per_criterion[cid][1] += 1
    return {cid: ok / n for cid, (ok, n) in per_criterion.items()}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(THRESHOLDS))
def test_per_criterion_accuracy(library, name):
    scores = accuracy(library, name)
    seed_criteria = {c.id for cid in ("gpu-cluster-optimization", "status-update", "polite-disagreement",
                                      "video-call-essentials") for c in library.card(cid).criteria}
    assert set(scores) == seed_criteria, "the labeled set must cover every criterion of the seed cards"
    low = {cid: round(acc, 3) for cid, acc in scores.items() if acc < THRESHOLDS[name]["each"]}
    assert not low, f"criteria under {THRESHOLDS[name]['each']}: {low}"
    mean = sum(scores.values()) / len(scores)
    assert mean >= THRESHOLDS[name]["mean"], f"mean accuracy {mean:.3f}"


def test_labeled_sets_are_large_and_balanced():
    counts = defaultdict(lambda: [0, 0])
    lines = (GOLDEN / "answers.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) >= 80
    for line in lines:
        for cid, label in json.loads(line)["labels"].items():
            counts[cid][label] += 1
    assert all(neg >= 3 and pos >= 3 for neg, pos in counts.values()), dict(counts)


def test_model_answers_are_positives_in_the_labeled_set(library):
    texts = {json.loads(line)["text"] for line in (GOLDEN / "answers.jsonl").read_text(encoding="utf-8").splitlines()}
    for answer in library.card("gpu-cluster-optimization").model_answers:
        assert answer.text in texts


@pytest.mark.parametrize("item", pinned_answers(), ids=lambda item: item["name"])
def test_pinned_scorecard(item):
    expected = SCORECARD_GOLDEN / f"{item['name']}.json"
    assert expected.exists(), f"missing {expected}; run scripts/update_golden.py"
    assert pinned_scorecard(item) == json.loads(expected.read_text(encoding="utf-8"))
