"""The grammar the detectors read: every reading meets its own examples and none of its
counter-examples, and written updates are read by their headings."""

from __future__ import annotations

import pytest

from scoring.grammar import READINGS, read
from scoring.text import Answer

CASES = [(name, text, True) for name, r in READINGS.items() for text in r.match] + [
    (name, text, False) for name, r in READINGS.items() for text in r.no_match
]


@pytest.mark.parametrize("name,text,expected", CASES, ids=lambda v: v if isinstance(v, str) else "")
def test_every_reading_meets_its_examples_and_not_its_counter_examples(name, text, expected):
    clauses = read(text)
    assert any(READINGS[name].test(c) for c in clauses) is expected, [
        (c.verb, c.tense, c.subject, c.named, c.modal, c.negated) for c in clauses
    ]


def test_every_reading_says_what_it_is_for_and_has_examples_both_ways():
    for name, reading in READINGS.items():
        assert reading.description and reading.match and reading.no_match, name


def test_a_terse_ticket_style_update_is_read_as_done_and_ongoing_work():
    answer = Answer("Merged the retry fix. On the billing task today. Staging key still broken.")
    assert answer.reading("done_work") and answer.reading("ongoing_work") and answer.reading("stuck")


def test_a_headed_update_is_read_by_its_sections_and_a_bare_heading_says_nothing():
    text = "- Done:\n  - ipns resolve PRs\n- Blocked:\n- Next:\n  - Merge the File API PRs"
    answer = Answer(text)
    assert [(s.heading, [i.text for i in s.items]) for s in answer.sections] == [
        ("done", ["ipns resolve PRs"]), ("blocked", []), ("next", ["Merge the File API PRs"])
    ]
    for section in answer.sections:
        for item in section.items:
            assert text[item.start:item.end] == item.text  # evidence stays verbatim
    bare = next(s for s in answer.sentences if "Blocked" in s.text)
    assert answer.is_bare_heading(bare)


def test_one_label_in_prose_is_not_a_list():
    assert Answer("Note: the deploy is on Friday.").sections == []
