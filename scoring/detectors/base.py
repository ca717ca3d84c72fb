"""What every detector shares: pattern sets loaded from data, clause guards, the Hit result."""

from __future__ import annotations

import builtins
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, ClassVar, TypeVar

import yaml
from pydantic import BaseModel, ConfigDict, Field

from scoring.regex import Regex, WordPatterns, check_patterns, word_patterns
from scoring.text import Answer, Span

PATTERNS_DIR = Path(__file__).resolve().parent.parent / "patterns"


@cache
def pattern_data(name: str) -> dict:
    """One lexicon file of scoring/patterns/. Each entry is a mapping with `patterns` (a list,
    matched as whole words; optional `unless`, `case_sensitive`) or `regex` (one structural
    regex), plus `about` and its `match` / `no_match` examples (checked by the tests)."""
    with open(PATTERNS_DIR / f"{name}.yaml", encoding="utf-8") as handle:
        return yaml.load(handle, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))  # libyaml when there


def entry(name: str, *path: str) -> dict:
    node = pattern_data(name)
    for key in path:
        node = node[key]
    return node


def is_entry(node) -> bool:
    return isinstance(node, dict) and ("patterns" in node or "regex" in node)


@cache
def lexicon(name: str, *path: str, extra: tuple[str, ...] = ()) -> WordPatterns:
    """The word patterns of one entry, with a card's extra patterns added."""
    node = entry(name, *path)
    return WordPatterns(
        [*node["patterns"], *extra], node.get("unless", ()), ignore_case=not node.get("case_sensitive", False)
    )


@cache
def regex(name: str, *path: str) -> Regex:
    node = entry(name, *path)
    return Regex(node["regex"], ignore_case=not node.get("case_sensitive", False))


def compiled(patterns: tuple[str, ...]) -> WordPatterns:
    """An author's pattern list (from a card) as whole-word patterns."""
    return word_patterns(tuple(patterns))


def is_negated(clause: Span) -> bool:
    return lexicon("guards", "negation").search(clause.text) is not None


def is_future(clause: Span) -> bool:
    return lexicon("guards", "future").search(clause.text) is not None


def negated_before(answer: Answer, position: int) -> bool:
    """A negation or plan in the few words just before a match ("we never profiled")."""
    return regex("guards", "negation_before").search(answer.text[max(0, position - 40) : position]) is not None


def check_readings(names: list[str]) -> list[str]:
    """Field validator: every named grammar reading exists (scoring.readings.READINGS)."""
    from scoring.readings import READINGS

    for name in names:
        if name not in READINGS:
            raise ValueError(f"unknown grammar reading {name!r} (known: {', '.join(sorted(READINGS))})")
    return names


def with_readings(
    answer: Answer, found: list[tuple[Span, int | None]], readings=(), unless=()
) -> list[tuple[Span, int | None]]:
    """Phrase matches plus the sentences whose clauses have one of `readings` (what the grammar
    says the sentence does), minus the sentences where an `unless` reading holds and no positive
    one does ("I'll keep this short" is meta-talk, not a plan)."""
    if not (readings or unless) or (found and not unless):
        return found  # the phrase lists already settle it: no parse needed
    positive: dict[int, int] = {}
    for name in readings:
        for clause in answer.reading(name):
            sentence = answer.sentence_at(clause.position)
            if sentence is not None and not answer.is_bare_heading(sentence):
                positive.setdefault(sentence.start, clause.position)  # "- Blocked:" alone says nothing
    vetoed = set()
    for name in unless:
        for clause in answer.reading(name):
            sentence = answer.sentence_at(clause.position)
            if sentence is not None and sentence.start not in positive:
                vetoed.add(sentence.start)
    out = [(s, p) for s, p in found if s.start not in vetoed]
    have = {s.start for s, _ in out}
    for sentence in answer.sentences:
        if sentence.start in positive and sentence.start not in have:
            out.append((sentence, positive[sentence.start]))
    return out


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


def param(description: str, kind: str, *, shown_default: str | None = None, **field: Any) -> Any:
    """A detector parameter with what content/README.md's detector reference says of it: its
    meaning, its kind in an author's words ("list of patterns") and, when the value alone would
    mislead, how its default reads."""
    extra: dict[str, Any] = {"kind": kind} | ({"shown_default": shown_default} if shown_default else {})
    return Field(description=description, json_schema_extra=extra, **field)


@dataclass(frozen=True)
class Example:
    """Answers a detector must meet and must not meet with these params (a test runs them all,
    and the detector reference shows them)."""

    params: dict
    met: tuple[str, ...]
    not_met: tuple[str, ...]
    turn: str = "main"


valid_regexes = check_patterns  # field validator for author-written patterns (RE2)

# The base class, for annotations inside Detector, whose own `Params` (and `type`) names a class attribute.
AnyParams = Params


class Detector:
    """A named scoring unit. Subclasses are registered under their `type` by `@detector("type")`,
    set `Params`, `description` and `examples`, and implement `detect`; `scoring.detectors.REGISTRY`
    lists every registered one."""

    Params: ClassVar[builtins.type[AnyParams]] = AnyParams
    type: ClassVar[str]
    description: ClassVar[str] = ""
    examples: ClassVar[tuple[Example, ...]] = ()

    def detect(self, answer: Answer, params: Any, turn_id: str) -> Hit:  # Any: each detector takes its own Params
        raise NotImplementedError


_REGISTERED: dict[str, Detector] = {}  # filled by @detector as the detector modules are imported

D = TypeVar("D", bound=type[Detector])


def detector(name: str) -> Callable[[D], D]:
    """Class decorator: register a detector under the criterion `type` that cards name
    (`@detector("measured_result")`). It sets the class's `type`; a class that also spells `type`
    itself must spell the same name. One instance serves every criterion of that type."""

    def register(cls: D) -> D:
        declared = cls.__dict__.get("type")
        if declared is not None and declared != name:
            raise TypeError(f"{cls.__name__} declares type {declared!r} but is registered as {name!r}")
        if name in _REGISTERED and type(_REGISTERED[name]) is not cls:
            first = type(_REGISTERED[name]).__name__
            raise ValueError(f"detector type {name!r} registered twice ({first}, {cls.__name__})")
        cls.type = name
        _REGISTERED[name] = cls()
        return cls

    return register


def registered() -> dict[str, Detector]:
    """Every detector registered so far, by type, in the order their modules defined them."""
    return dict(_REGISTERED)


def first_sentences(answer: Answer, spans: list[tuple[Span, int | None]], limit: int = 3) -> list[str]:
    """Evidence strings for matched sentences, without repeats, in answer order."""
    seen, out = set(), []
    for sentence, match_start in sorted(spans, key=lambda s: s[0].start):
        text = answer.evidence(sentence, match_start)
        if text not in seen:
            seen.add(text)
            out.append(text)
    return out[:limit]
