"""The declaration of a grammar reading: a named question about one clause (scoring.grammar.Clause),
with what it is for and examples it must and must not match, registered where its predicate is
written (`@reading(...)`). `scoring.readings.READINGS` holds every registered one."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from scoring.grammar import Clause

Test = Callable[[Clause], bool]


@dataclass(frozen=True)
class Reading:
    description: str
    test: Test
    match: tuple[str, ...]
    no_match: tuple[str, ...]


REGISTERED: dict[str, Reading] = {}  # filled by @reading as the family modules are imported


def reading(
    name: str, description: str, *, match: tuple[str, ...], no_match: tuple[str, ...]
) -> Callable[[Test], Test]:
    """Register the predicate below as the reading `name`: what it is for (one line, shown in
    content/README.md's reading table), and answers' sentences it must match (at least one) and must
    not match (tests/test_grammar.py runs them all)."""
    if not match or not no_match:
        raise ValueError(f"reading {name!r} needs examples it matches and examples it does not")

    def register(test: Test) -> Test:
        if name in REGISTERED:
            raise ValueError(f"grammar reading {name!r} declared twice")
        REGISTERED[name] = Reading(description, test, match, no_match)
        return test

    return register
