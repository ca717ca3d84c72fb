"""The content library: coverage of the seed topics and rubrics that work on their own answers."""

from __future__ import annotations

import pytest

import scoring
from coach.library import load_library
from tests.conftest import REPO

LIBRARY = load_library([REPO / "content"], [REPO / "personas"])
INTERVIEW_TAGS = {
    "gpu-memory", "data-parallelism", "pipeline-parallelism", "tensor-parallelism", "moe", "slurm-kubernetes",
    "energy-aware-scheduling", "memory-aware-scheduling", "resource-profiling", "preemption", "fairshare",
    "enterprise-llm", "collective-communication", "memory-optimization",
}
GENERIC = "I know this topic well and used it a lot."
INTERVIEWS = LIBRARY.cards_of_kind("interview")
MEETINGS = LIBRARY.cards_of_kind("meeting")


def test_library_is_complete():
    assert not LIBRARY.problems
    assert len(INTERVIEWS) >= 14 and len(MEETINGS) >= 7
    assert INTERVIEW_TAGS <= {tag for card in INTERVIEWS for tag in card.tags}
    assert {"clarifying-question", "meeting-summary", "screen-presentation", "speaking-up-first"} <= set(LIBRARY.cards)
    assert len(LIBRARY.personas) >= 6
    assert all(card.title_ko.strip() for card in LIBRARY.cards.values())


@pytest.mark.parametrize("card", INTERVIEWS, ids=lambda c: c.id)
def test_interview_card_rubric_works_on_its_model_answer(card):
    assert len(card.follow_ups) >= 3 and card.model_answers
    # the flagship card's criterion ids are fixed by DESIGN.md (no key-concept criterion):
    # there every criterion must be met by its model answers
    concept_criteria = [c.id for c in card.criteria if c.detector.type == "key_concepts"]
    if card.id == "gpu-cluster-optimization":
        concept_criteria = [c.id for c in card.criteria]
    assert concept_criteria, "an interview card needs a key-concept criterion"
    for answer in card.model_answers:
        result = scoring.score(card, None, answer.text)
        for cid in concept_criteria:
            assert result.criteria[cid].met, (answer.title, result.criteria[cid].reason)
    generic = scoring.score(card, None, GENERIC)
    assert not any(r.met for r in generic.criteria.values())


@pytest.mark.parametrize("card", MEETINGS, ids=lambda c: c.id)
def test_meeting_card_model_answers_meet_their_turn(card):
    assert card.sections.get("Key phrases") and card.model_answers
    assert any(turn.variants for turn in card.turns), "prompt variants keep repeated practice fresh"
    for answer in card.model_answers:
        turn = answer.turn or card.turns[0].id
        result = scoring.score(card, turn, answer.text)
        assert all(r.met for r in result.criteria.values()), (answer.title, result.missing())
