"""Key-concept coverage for technical cards: which of the card's concepts the answer names."""

from __future__ import annotations

import math

import re2
from pydantic import Field, field_validator

from scoring.detectors.base import Detector, Hit, Params, compiled
from scoring.regex import check_patterns
from scoring.text import Answer


class Concept(Params):
    name: str
    ko: str = ""
    synonyms: list[str] = Field(default_factory=list)

    _regexes = field_validator("synonyms")(check_patterns)

    def patterns(self) -> tuple[str, ...]:
        return (re2.escape(self.name), *self.synonyms)


class KeyConceptsParams(Params):
    concepts: list[Concept] = Field(min_length=1)
    min_covered: int | None = Field(default=None, ge=1)

    def required(self) -> int:
        return self.min_covered or max(1, math.ceil(len(self.concepts) / 2))


class KeyConcepts(Detector):
    type = "key_concepts"
    Params = KeyConceptsParams
    description = (
        "Coverage of the card's concepts (each with synonyms and its Korean term). Met when at "
        "least `min_covered` concepts (default: half) are named; the score is the share of that."
    )

    def detect(self, answer: Answer, params: KeyConceptsParams, turn_id: str) -> Hit:
        covered, evidence = [], []
        for concept in params.concepts:
            for sentence in answer.sentences:
                match = compiled(concept.patterns()).search(sentence.text)
                if match:
                    covered.append(concept.name)
                    evidence.append(sentence.text[match.start() : match.end()])
                    break
        required = params.required()
        score = min(1.0, len(covered) / required)
        missing = [c.name for c in params.concepts if c.name not in covered]
        met = len(covered) >= required
        reason = f"covers {len(covered)} of {len(params.concepts)} concepts (needs {required})"
        if missing and not met:
            reason += "; missing: " + ", ".join(missing[:4])
        return Hit(met, round(score, 3), evidence, reason)
