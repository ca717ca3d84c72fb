"""Key-concept coverage for technical cards: which of the card's concepts the answer names."""

from __future__ import annotations

import math
from functools import cache

import re2
from pydantic import field_validator

from scoring.detectors.base import Detector, Example, Hit, Params, compiled, detector, param
from scoring.regex import check_patterns
from scoring.text import Answer


class Concept(Params):
    name: str = param("The term as a good answer says it; also shown in the session summary.", "text")
    ko: str = param("Korean term (for authors and learners).", "text", default="")
    synonyms: list[str] = param("Other ways to say it: abbreviations, spellings, close terms.", "list of patterns",
                                default_factory=list)

    _regexes = field_validator("synonyms")(check_patterns)

    def patterns(self) -> tuple[str, ...]:
        """The name and synonyms, with spaces and hyphens between words made interchangeable
        and optional ("all-reduce", "all reduce", "allreduce"), and the name's last word
        inflected ("reranker" also finds "rerankers")."""
        return _concept_patterns(self.name, tuple(self.synonyms))


@cache
def _concept_patterns(name: str, synonyms: tuple[str, ...]) -> tuple[str, ...]:
    words = [w for w in name.replace("-", " ").split(" ") if w]
    *head, last = words
    tail = "{" + last + "}" if last.isalpha() and last.islower() else re2.escape(last)
    pattern = "[-\\s]?".join([*(re2.escape(w) for w in head), tail])
    return tuple(flexible_separators(p) for p in (pattern, *synonyms))


def flexible_separators(pattern: str) -> str:
    """A literal space or hyphen between two words (outside [...] and {...}) as `[-\\s]?`."""
    out, depth_class, depth_brace, i = [], 0, 0, 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            out.append(pattern[i : i + 2])
            i += 2
            continue
        if char == "[":
            depth_class += 1
        elif char == "]" and depth_class:
            depth_class -= 1
        elif char == "{" and not depth_class:
            depth_brace += 1
        elif char == "}" and depth_brace:
            depth_brace -= 1
        separator = char in " -" and not depth_class and not depth_brace
        if separator and out and out[-1][-1:].isalnum() and pattern[i + 1 : i + 2].isalnum():
            out.append("[-\\s]?")
        elif separator and char == "-" and pattern[i + 1 : i + 2] == "?" and out and out[-1][-1:].isalnum():
            out.append("[-\\s]")  # "re-?rank": the "?" that follows makes it optional
        else:
            out.append(char)
        i += 1
    return "".join(out)


class KeyConceptsParams(Params):
    concepts: list[Concept] = param("The concepts.", "list of concepts, at least 1", min_length=1)
    min_covered: int | None = param(
        "How many concepts must be named. Keep it at most the number of concepts, or it can never be met.",
        "whole number ≥ 1", shown_default="half of the concepts, rounded up", default=None, ge=1)

    def required(self) -> int:
        return self.min_covered or max(1, math.ceil(len(self.concepts) / 2))


@detector("key_concepts")
class KeyConcepts(Detector):
    Params = KeyConceptsParams
    description = (
        "Coverage of the card's concepts (each with synonyms and its Korean term). Met when at "
        "least `min_covered` concepts (default: half) are named; the score is the share of that."
    )

    examples = (
        Example(
            params={"concepts": [{"name": "all-reduce"}, {"name": "NVLink"}], "min_covered": 2},
            met=("NCCL runs the all-reduce over NVLink inside the node.",),
            not_met=("NCCL is fast.",),
        ),
    )

    def detect(self, answer: Answer, params: KeyConceptsParams, turn_id: str) -> Hit:
        covered, evidence = [], []
        for concept in params.concepts:
            patterns = compiled(concept.patterns())
            for sentence in answer.sentences:
                match = patterns.search(sentence.text)
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
