"""Presenting: orienting the audience on what is shown.

Each reading is declared with its predicate: what it is for, and examples it must and must not
match (tests/test_grammar.py runs them all)."""

from __future__ import annotations

from scoring.grammar import Clause, words
from scoring.readings.registry import reading


@reading(
    "points_out",
    "orienting the audience on what is shown: you can see, here you see, this shows.",
    match=(
        "Then you can see the massive spike in network use.",
        "Here you see one example of a big block.",
        "This chart shows the hourly load.",
    ),
    no_match=(
        "Can you see my screen?",
        "I can't see it.",
        "Okay, I think you can see.",
        "If you look at the peak, it's 97%.",
    ),
)
def points_out(c: Clause) -> bool:
    """Orienting an audience on something shown: 'you can see the spike', 'here you see one block'."""
    return (
        c.verb in words("point_out_verbs")
        and c.subject in {"listener", "team", "pronoun", "thing"}
        and not c.question
        and not c.negated
        and "if" not in c.words
        and (bool(c.named) or not c.governor)
        and (c.modal == "can" or "here" in c.words or c.verb == "show")
    )
