"""Verdicts that follow who did what and when (issue 26): each case was credited wrongly in a
learner's walk, and sits beside the case the same criterion must still credit."""

from __future__ import annotations

import pytest

import scoring

CASES = [
    # (card, turn, criterion, credited wrongly before, still credited)
    ("gpu-cluster-optimization", None, "measured_results",
     "I profiled our training job and saw the GPUs were idle for about 30 percent of each step.",
     "After the fix the GPUs were idle for only 5 percent of each step."),
    ("gpu-cluster-optimization", None, "problem_solving",
     "We trained a large model on 64 GPUs. If I did it again, I would set up automatic profiling from day one.",
     "I profiled the training step and found the GPUs waiting on the input pipeline."),
    ("status-update", "main", "next_steps",
     "Quick update on the migration. We moved two services last week. This week I'm working on the billing service.",
     "Quick update on the migration. We moved two services last week. Next, I'll move the billing service by Friday."),
    ("polite-disagreement", "main", "reason",
     "I can see why moving to spot instances is attractive, because our bill doubled. I'm not sure it's the right move.",
     "I can see why spot instances are attractive. I'm not sure, because our longest jobs run for two weeks."),
    ("gpu-cluster-optimization", None, "teamwork",
     "Our all-reduce was slow. Could someone from the platform team help me with the NCCL settings?",
     "I rewrote the launcher, and Mina from the platform team tuned the NCCL settings with me."),
    ("gpu-cluster-optimization", None, "optimization_experience",
     "Our training job hung every few hours. I debugged the NCCL hang by collecting stack traces and fixed it.",
     "I tuned the NCCL buffer size and moved the all-reduce to overlap with the backward pass."),
]


@pytest.mark.parametrize("card_id, turn, criterion, wrong, right", CASES, ids=[f"{c[2]}-{i}" for i, c in enumerate(CASES)])
def test_the_credit_goes_to_what_the_speaker_did(library, card_id, turn, criterion, wrong, right):
    card = library.card(card_id)
    assert not scoring.score(card, turn, wrong).criteria[criterion].met, wrong
    assert scoring.score(card, turn, right).criteria[criterion].met, right


@pytest.mark.parametrize("text", [
    "After the fix, job failures went from three a week to zero.",
    "After the fix, job failures went from 3 a week to 0.",
    "Retries went from one per hour to zero.",
])
def test_spelled_out_numbers_are_numbers(library, text):
    result = scoring.score(library.card("gpu-cluster-optimization"), None, text)
    assert result.criteria["measured_results"].met and result.criteria["measured_results"].evidence == [text]
