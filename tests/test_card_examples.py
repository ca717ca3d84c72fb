"""The coach agrees with itself: a learner who follows a card's tip word for word, or gives
its model answer, is credited for what the tip teaches (issue: tips that scored nothing)."""

from __future__ import annotations

import re

import pytest

import scoring
from coach.library import load_library
from tests.conftest import REPO

LIBRARY = load_library([REPO / "content"], [REPO / "personas"])
_NEGATIVE = re.compile(r"\b(?:Avoid|Never|Don't|not)\b")  # what follows is what *not* to say
FILLER = "the two-week migration"  # stands for the "..." a tip leaves to the learner
# Criteria that only count beside another move: the tip is said with that move, as in an answer.
SAID_WITH = {
    ("polite-disagreement", "acknowledge"): "{tip} But I'm worried about the timeline.",
}


def _quoted(tip: str) -> list[str]:
    """The phrases a tip puts in double quotes, before any 'Avoid …' / 'Never …' part."""
    tip = _NEGATIVE.split(tip)[0]
    parts = tip.split('"')
    return [p.strip() for p in parts[1::2] if len(p.split()) >= 3]


def _turns_for(card, criterion_id) -> list[str]:
    return [turn.id for turn in card.turns if criterion_id in {c.id for c in card.criteria_for(turn.id)}]


def _tip_examples():
    """(card, turn, criterion, text): a tip that lists one phrase per turn is paired with the turns."""
    for card in LIBRARY.cards.values():
        for criterion in card.criteria:
            examples = _quoted(criterion.tip or "")
            turns = _turns_for(card, criterion.id)
            per_turn = len(turns) > 1 and len(examples) == len(turns)
            for index, example in enumerate(examples):
                text = re.sub(r"\s*(?:\.\.\.|…)\s*", f" {FILLER} ", example).strip()
                text = re.sub(r"\s+([.,?!])", r"\1", text)
                text = SAID_WITH.get((card.id, criterion.id), "{tip}").format(tip=text)
                turn = turns[index] if per_turn else turns[0]
                yield pytest.param(card, turn, criterion.id, text, id=f"{card.id}/{criterion.id}/{example[:30]}")


@pytest.mark.parametrize("card,turn,criterion_id,text", list(_tip_examples()))
def test_every_tip_example_meets_the_criterion_it_teaches(card, turn, criterion_id, text):
    result = scoring.score(card, turn, text)
    assert result.criteria[criterion_id].met, f"{text!r}: {result.criteria[criterion_id].reason}"


def _model_answers():
    for card in LIBRARY.cards.values():
        for answer in card.model_answers:
            yield pytest.param(card, answer, id=f"{card.id}/{answer.title[:40]}")


@pytest.mark.parametrize("card,answer", list(_model_answers()))
def test_every_model_answer_meets_every_criterion_of_its_turn(card, answer):
    result = scoring.score(card, answer.turn, answer.text)
    missing = {cid: r.reason for cid, r in result.criteria.items() if not r.met}
    assert not missing, missing


def test_a_number_that_describes_the_problem_is_not_quoted_as_the_result_when_a_change_is_given():
    card = LIBRARY.card("gpu-cluster-optimization")
    text = (
        "GPU utilization was only 40 percent, because the GPUs waited for data. I moved decoding to the GPU "
        "with DALI, and the step time went from 410 ms to 290 ms."
    )
    evidence = scoring.score(card, None, text).criteria["measured_results"].evidence
    assert evidence[0] == "I moved decoding to the GPU with DALI, and the step time went from 410 ms to 290 ms."
