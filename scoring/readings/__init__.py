"""The grammar readings: named questions about a clause ("is this completed work on a named
thing?") that detectors ask for (`readings:` in a card or a pattern file). One module per family,
each reading declared next to its predicate with `@reading(...)` (scoring/readings/registry.py);
the words they ask about live in scoring/patterns/grammar.yaml, the parse in scoring/grammar.py.

A new reading: write its predicate with its `@reading` declaration in the family module it belongs
to (a new family module is added to FAMILIES below)."""

from __future__ import annotations

from scoring.readings import disagreement, experience, plans, presenting, questions, status
from scoring.readings.registry import REGISTERED, Reading, reading

FAMILIES = (status, plans, experience, disagreement, questions, presenting)

READINGS: dict[str, Reading] = dict(REGISTERED)

__all__ = ["FAMILIES", "READINGS", "Reading", "reading"]
