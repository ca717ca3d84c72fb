"""The real-English sets (tests/corpus/real/, benchmarks/README.md): every passage stands for one
card's turn, is labelled on exactly that turn's criteria, and carries its source and licence, so
the set can be credited and re-checked; ids are unique across the sets and no passage is in both
halves of a split for the same card (two passages stand for two cards: a line that shares a screen
is both a video-call moment and a screen presentation's opening)."""

from __future__ import annotations

import json

import pytest

from tests.conftest import REPO

REAL = REPO / "tests" / "corpus" / "real"
FILES = sorted(REAL.rglob("*.jsonl"))


def _rows(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_every_set_is_found_and_split():
    halves = {path.name.rsplit(".", 2)[-2] for path in FILES}
    assert halves == {"dev", "test"}
    assert len(FILES) >= 10  # sets 1-2 (c1-c3), 3 (c4-c5) and 4 (c6-c8), each in two halves


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(REAL)))
def test_each_passage_is_labelled_on_its_turn_and_credited(path, library):
    for row in _rows(path):
        card = library.card(row["card"])
        turn = next(t for t in card.turns if t.id == row["turn"])
        assert set(row["labels"]) == set(turn.criteria), row["id"]
        assert all(isinstance(v, bool) for v in row["labels"].values()), row["id"]
        assert row["text"].strip(), row["id"]
        assert row.get("source_url") and row.get("licence"), row["id"]


def test_ids_are_unique_and_no_passage_is_in_both_halves():
    seen: dict[str, str] = {}
    texts: dict[str, set[tuple[str, str]]] = {"dev": set(), "test": set()}
    for path in FILES:
        half = path.name.rsplit(".", 2)[-2]
        for row in _rows(path):
            assert row["id"] not in seen, f"{row['id']} in {path.name} and {seen.get(row['id'])}"
            seen[row["id"]] = path.name
            texts[half].add((row["card"], " ".join(row["text"].split())))
    assert not texts["dev"] & texts["test"]
