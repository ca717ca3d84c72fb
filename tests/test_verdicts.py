"""Verdicts that hold: patterns that cannot hang, pitfalls found with their sentence, and the
scorer's agreement with the two-labeller corpus in tests/corpus/ (floors measured once; see
benchmarks/README.md for the figures and how the corpus was made)."""

from __future__ import annotations

import json
import re
from collections import defaultdict

import pytest

import scoring
from coach.library import load_library
from scoring.regex import PatternError, WordPatterns, compile_pattern
from tests.coach_cli import run
from tests.conftest import REPO

CORPUS = REPO / "tests" / "corpus"

# Macro accuracy over the corpus's criteria, measured 2026-12-01 (benchmarks/README.md),
# minus a margin: the development split was tuned on, the test split only scored.
FLOORS = {"dev": 0.88, "test": 0.83}


# --- patterns cannot hang ----------------------------------------------------------------


@pytest.mark.timeout(60)
def test_a_20000_digit_answer_is_scored_at_once(library):
    card = library.card("gpu-cluster-optimization")
    result = scoring.score(card, "main", "We went from " + "1" * 20_000 + " to 5.")
    assert set(result.criteria) == {c.id for c in card.criteria}


@pytest.mark.timeout(60)
def test_a_nested_quantifier_from_an_author_runs_in_linear_time():
    patterns = WordPatterns(["(a+)+$"])  # exponential on a backtracking engine
    assert patterns.search("a" * 30_000 + "!") is None


def test_lookaround_is_refused_with_the_reason():
    with pytest.raises(PatternError, match="linear-time engine.*unless"):
        compile_pattern("(?<!do )you know")


def test_validate_refuses_a_lookbehind_with_file_and_line(tmp_path):
    copy = tmp_path / "content"
    copy.mkdir()
    source = (REPO / "tests" / "fixtures" / "broken" / "lookbehind-pattern.md").read_text(encoding="utf-8")
    (copy / "card.md").write_text(source, encoding="utf-8")
    result = run("validate", str(copy), str(REPO / "tests" / "fixtures" / "personas"))
    assert result.returncode == 1
    line = next(n for n, text in enumerate(source.splitlines(), 1) if "# ERROR" in text)
    assert any(out.startswith(f"{copy / 'card.md'}:{line}: ") and "linear-time engine" in out
               for out in result.stdout.splitlines()), result.stdout


# --- words match as whole words, inflected, with vetoes ----------------------------------


def test_inflections_come_from_the_lemma():
    patterns = WordPatterns(["I {profile} the"])
    assert all(patterns.search(t) for t in ("I profiled the job", "i profile the step", "I profiling the run"))
    assert not patterns.search("I profiler the job")


def test_a_vetoed_span_is_skipped_whole():
    patterns = WordPatterns(["(?:do )?you know,"], unless=["^do "])
    assert patterns.search("it was, you know, slow")
    assert not patterns.search("do you know, the answer")


# --- the generic-reason pitfall -------------------------------------------------------------


def _generic(library, text):
    card = library.card("gpu-cluster-optimization")
    return [p for p in scoring.score(card, "main", text).pitfalls if p.evidence]


def test_a_generic_reason_is_flagged_with_its_sentence(library):
    text = "I profiled the job first. I moved us to FSDP because it performs well. Step time fell 30%."
    hits = _generic(library, text)
    assert len(hits) == 1 and hits[0].evidence == ["I moved us to FSDP because it performs well."]
    assert "Generic reasons" in hits[0].text


@pytest.mark.parametrize("text", [
    "I moved us to FSDP because our 13B model did not fit in 80 GB with plain data parallelism.",
    "We kept the rings inside the node since our InfiniBand was saturated at 90%.",
    "I profiled the job and found the data loader was the bottleneck.",
])
def test_a_reason_of_the_project_is_not_flagged(library, text):
    assert _generic(library, text) == []


# --- agreement with the labelled corpus ------------------------------------------------------


def corpus_accuracy(split: str) -> tuple[float, dict]:
    library = load_library([REPO / "content"], [REPO / "personas"])
    cells = defaultdict(lambda: [0, 0])
    for path in sorted(CORPUS.glob(f"*.{split}.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            result = scoring.score(library.card(row["card"]), row["turn"], row["text"])
            for cid, label in row["labels"].items():
                cells[(row["card"], cid)][0] += result.criteria[cid].met == label
                cells[(row["card"], cid)][1] += 1
    per = {key: ok / n for key, (ok, n) in cells.items()}
    return sum(per.values()) / len(per), per


def test_the_corpus_covers_every_card_twice_labelled(library):
    rows = [json.loads(line) for path in CORPUS.glob("*.jsonl")
            for line in path.read_text(encoding="utf-8").splitlines()]
    per_card = defaultdict(int)
    for row in rows:
        per_card[row["card"]] += 1
        assert set(row["labels"]) == set(library.card(row["card"]).turn(row["turn"]).criteria), row["id"]
    assert set(per_card) == set(library.cards)
    assert min(per_card.values()) >= 40
    dev = {json.loads(line)["id"] for path in CORPUS.glob("*.dev.jsonl") for line in path.read_text().splitlines()}
    test = {json.loads(line)["id"] for path in CORPUS.glob("*.test.jsonl") for line in path.read_text().splitlines()}
    assert dev and test and not dev & test


@pytest.mark.slow
@pytest.mark.parametrize("split", sorted(FLOORS))
def test_macro_accuracy_on_the_corpus_holds_its_floor(split):
    macro, per = corpus_accuracy(split)
    worst = sorted(per.items(), key=lambda kv: kv[1])[:5]
    assert macro >= FLOORS[split], f"{split}: macro {macro:.3f}; weakest {worst}"


def test_no_lexicon_pattern_escapes_its_own_backslash():
    """'\\\\b' in a single-quoted YAML pattern is a literal backslash and a 'b', not a word boundary:
    the pattern never matches an answer. (Written by mistake once; nothing caught it.)"""
    doubled = re.compile(r"\\\\[bBwWdDsS]")
    files = [*sorted((REPO / "scoring" / "patterns").glob("*.yaml")), *sorted((REPO / "content").rglob("*.md"))]
    offenders = [f"{path.name}:{number}" for path in files
                 for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
                 if doubled.search(line)]
    assert not offenders
