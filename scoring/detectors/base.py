"""What every detector shares: pattern sets loaded from data, clause guards, the Hit result."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import ClassVar

import yaml
from pydantic import BaseModel, ConfigDict

from scoring.text import Answer, Span

PATTERNS_DIR = Path(__file__).resolve().parent.parent / "patterns"


@cache
def pattern_data(name: str) -> dict:
    with open(PATTERNS_DIR / f"{name}.yaml", encoding="utf-8") as handle:
        return yaml.safe_load(handle)


class PatternSet:
    """A list of regexes matched case-insensitively as whole words, as one alternation."""

    def __init__(self, patterns: list[str] | tuple[str, ...]):
        self.patterns = tuple(patterns)
        body = "|".join(f"(?:{p})" for p in self.patterns) or r"(?!x)x"
        # whole words: no word character may touch the match on a side where the match
        # itself has a word character (so patterns may also begin or end with punctuation)
        lead = r"(?:(?<![\w'’])(?=[\w'’])|(?=[^\w'’]))"
        trail = r"(?:(?<=[\w'’])(?![\w'’])|(?<=[^\w'’]))"
        self.regex = re.compile(rf"{lead}(?:{body}){trail}", re.IGNORECASE)

    def search(self, text: str) -> re.Match | None:
        return self.regex.search(text)

    def findall(self, text: str) -> list[re.Match]:
        return list(self.regex.finditer(text))

    def __bool__(self) -> bool:
        return bool(self.patterns)


@cache
def compiled(patterns: tuple[str, ...]) -> PatternSet:
    return PatternSet(patterns)


def guards() -> dict:
    return pattern_data("guards")


@cache
def negation() -> PatternSet:
    return PatternSet(guards()["negation"])


@cache
def future() -> PatternSet:
    return PatternSet(guards()["future"])


def is_negated(clause: Span) -> bool:
    return negation().search(clause.text) is not None


def is_future(clause: Span) -> bool:
    return future().search(clause.text) is not None


@dataclass
class Hit:
    met: bool
    score: float
    evidence: list[str] = field(default_factory=list)
    reason: str = ""

    @classmethod
    def none(cls, reason: str) -> Hit:
        return cls(False, 0.0, [], reason)


class Params(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def valid_regexes(patterns: list[str]) -> list[str]:
    """Field validator for author-written patterns: each must compile."""
    for pattern in patterns:
        try:
            re.compile(pattern)
        except re.error as exc:
            raise ValueError(f"invalid pattern {pattern!r}: {exc}") from None
    return patterns


class Detector:
    """A named scoring unit. Subclasses set `type`, `Params` and implement `detect`."""

    type: ClassVar[str]
    Params: ClassVar[type[Params]] = Params
    description: ClassVar[str] = ""

    def detect(self, answer: Answer, params: Params, turn_id: str) -> Hit:
        raise NotImplementedError


def first_sentences(answer: Answer, spans: list[tuple[Span, int | None]], limit: int = 3) -> list[str]:
    """Evidence strings for matched sentences, without repeats, in answer order."""
    seen, out = set(), []
    for sentence, match_start in sorted(spans, key=lambda s: s[0].start):
        text = answer.evidence(sentence, match_start)
        if text not in seen:
            seen.add(text)
            out.append(text)
    return out[:limit]
