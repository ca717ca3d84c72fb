"""Every pattern the scorer runs, shipped or author-written, is compiled here with RE2
(google-re2): matching takes linear time whatever the answer and whatever the pattern, so
no answer and no author's pattern can hang scoring. RE2 has no lookaround and no
backreferences; what a lookahead used to exclude is written as an `unless` list instead.

Two conveniences for pattern authors, both expanded before compiling:
- `{word}` stands for every inflection of an English word ("{profile}" matches profile,
  profiles, profiled, profiling), from lemminflect, so lists need no hand-written endings.
- Whole-word matching is done here (RE2 has no lookbehind): a match may not start or end
  inside a word, where apostrophes count as part of a word ("don't").
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from functools import cache
from pathlib import Path

import re2

_LEMMA = re2.compile(r"\{([A-Za-z][A-Za-z-]*)\}")
MAX_SHORTER_TRIES = 12  # word boundaries tried inside one over-long match


class PatternError(ValueError):
    """A pattern RE2 cannot run; the message says why, in one line."""


def _options(ignore_case: bool) -> re2.Options:
    options = re2.Options()
    options.case_sensitive = not ignore_case
    options.longest_match = True  # leftmost-longest: "moved" rather than "move" inside it
    options.log_errors = False
    return options


INFLECTIONS_FILE = Path(__file__).resolve().parent / "patterns" / "inflections.json"


@cache
def _shipped_inflections() -> dict[str, list[str]]:
    """`inflections` of every `{word}` in the shipped patterns and cards, written ahead by
    `scripts/update_inflections.py` (a test holds it to lemminflect): lemminflect's tables take
    0.2-0.5 s to load, and most runs need no other word."""
    try:
        with open(INFLECTIONS_FILE, encoding="utf-8") as handle:
            return json.load(handle)
    except FileNotFoundError:
        return {}


@cache
def inflections(word: str) -> tuple[str, ...]:
    """The word and its inflections (verb and noun forms), longest first."""
    shipped = _shipped_inflections().get(word)
    if shipped is not None:
        return tuple(shipped)
    return lemminflect_inflections(word)


def lemminflect_inflections(word: str) -> tuple[str, ...]:
    """`inflections` as lemminflect gives them (what the shipped table holds)."""
    from scoring.lazy_imports import lemminflect

    tables = lemminflect()
    forms = {word.lower()}
    table = dict(tables.getAllInflections(word))
    if not any(tag.startswith("VB") for tag in table):  # "shard", "checkpoint": used as verbs too
        table.update(tables.getAllInflectionsOOV(word, upos="VERB"))
    if not any(tag.startswith("NN") for tag in table):
        table.update(tables.getAllInflectionsOOV(word, upos="NOUN"))
    for values in table.values():
        forms.update(v.lower() for v in values)
    return tuple(sorted(forms, key=lambda f: (-len(f), f)))


def expand(pattern: str, inflected: bool = True) -> str:
    """`{word}` written as an alternation of its inflections (or, not `inflected`, as the word
    alone: the same syntax and the same empty matches, without looking the inflections up)."""
    out, last = [], 0
    for match in _LEMMA.finditer(pattern):
        out.append(pattern[last : match.start()])
        forms = inflections(match.group(1)) if inflected else (match.group(1).lower(),)
        out.append("(?:" + "|".join(re2.escape(f) for f in forms) + ")")
        last = match.end()
    out.append(pattern[last:])
    return "".join(out)


@cache
def compile_pattern(pattern: str, ignore_case: bool = True, inflected: bool = True):
    """One pattern compiled by RE2, or PatternError saying why it cannot be run. Not `inflected`,
    each `{word}` stands for the word alone (what loading a card checks; see `check_patterns`)."""
    try:
        return re2.compile(expand(pattern, inflected), _options(ignore_case))
    except re2.error as exc:
        detail = exc.args[0].decode() if exc.args and isinstance(exc.args[0], bytes) else str(exc)
        hint = ""
        if "(?<" in pattern or "(?=" in pattern or "(?!" in pattern:
            hint = " (lookahead and lookbehind are not supported: list exclusions under `unless`)"
        raise PatternError(f"pattern {pattern!r} cannot run on the linear-time engine: {detail}{hint}") from None


# Texts on which a pattern must not find an empty match: one that can match nothing ("x?",
# "a*", "(?:)") would "match" every answer with no words to quote as evidence.
_EMPTY_PROBES = ("", " ", "a", "a b")


def check_patterns(patterns: Iterable[str]) -> list[str]:
    """Field validator for author-written patterns: each must compile on RE2 and match at
    least one character wherever it matches. A `{word}` is checked as the word alone: its
    inflections are plain words, so they change neither (and loading a card needs no
    inflection tables; `coach validate` also scores each card, which compiles them in full)."""
    patterns = list(patterns)
    for pattern in patterns:
        if problem := _pattern_problem(pattern):
            raise PatternError(problem)
    return patterns


@cache
def _pattern_problem(pattern: str) -> str | None:
    """Why `check_patterns` refuses one pattern, or None (checked once per pattern: the learner's
    own cards repeat their rubric's patterns)."""
    try:
        compiled = compile_pattern(pattern, inflected=False)
    except PatternError as exc:
        return str(exc)
    for probe in _EMPTY_PROBES:
        found = compiled.search(probe)
        if found is not None and found.end() == found.start():
            return f"pattern {pattern!r} can match the empty string; make it match at least one character"
    return None


def _wordish(char: str) -> bool:
    return char.isalnum() or char in "_'’"


class Match:
    """A whole-word match, shaped like a `re.Match` where the detectors use one."""

    __slots__ = ("_start", "_end", "text")

    def __init__(self, start: int, end: int, text: str):
        self._start, self._end, self.text = start, end, text

    def start(self) -> int:
        return self._start

    def end(self) -> int:
        return self._end

    def group(self, index: int = 0) -> str:
        return self.text


class WordPatterns:
    """Patterns matched as one alternation, case-insensitively, as whole words; a match that
    contains one of the `unless` patterns is skipped (RE2's stand-in for a lookahead)."""

    def __init__(self, patterns: Iterable[str], unless: Iterable[str] = (), ignore_case: bool = True):
        self.patterns = tuple(patterns)
        self.unless = tuple(unless)
        body = "|".join(f"(?:{p})" for p in self.patterns)
        self._regex = compile_pattern(body, ignore_case) if body else None
        veto = "|".join(f"(?:{p})" for p in self.unless)
        self._veto = WordPatterns(self.unless, ignore_case=ignore_case) if veto else None

    def finditer(self, text: str) -> Iterator[Match]:
        regex = self._regex
        if regex is None:
            return
        pos, size = 0, len(text)
        while pos <= size:
            found = regex.search(text, pos)
            if found is None:
                return
            start, end = found.start(), found.end()
            inside_left = start > 0 and _wordish(text[start]) and _wordish(text[start - 1])
            inside_right = end < size and end > start and _wordish(text[end - 1]) and _wordish(text[end])
            if inside_right and not inside_left:  # the longest match ends inside a word: a shorter one may not
                end = self._shorter_whole_word(regex, text, start, end)
                inside_right = end == start
            if end > start and not inside_left and not inside_right:
                if not self._vetoed(text[start:end]):
                    yield Match(start, end, text[start:end])
                pos = end  # a vetoed span is excluded whole ("do you know," is not "you know,")
                continue
            # no whole-word match can start inside this word: go on at the next word
            pos = start + 1
            while pos < size and _wordish(text[pos]) and _wordish(text[pos - 1]):
                pos += 1

    @staticmethod
    def _shorter_whole_word(regex, text: str, start: int, end: int) -> int:
        """The end of the longest match from `start` that ends at a word boundary before
        `end` ("next time" in "next time I'd"), or `start` when there is none."""
        tries = 0
        for cut in range(end - 1, start, -1):
            if _wordish(text[cut - 1]) and _wordish(text[cut]):
                continue
            if regex.fullmatch(text, start, cut):
                return cut
            tries += 1
            if tries == MAX_SHORTER_TRIES:  # keeps the whole search linear in the answer
                break
        return start

    def _vetoed(self, span: str) -> bool:
        return self._veto is not None and self._veto.search(span) is not None

    def search(self, text: str) -> Match | None:
        return next(self.finditer(text), None)

    def findall(self, text: str) -> list[Match]:
        return list(self.finditer(text))

    def __bool__(self) -> bool:
        return bool(self.patterns)


@cache
def word_patterns(patterns: tuple[str, ...], unless: tuple[str, ...] = ()) -> WordPatterns:
    return WordPatterns(patterns, unless)


class Regex:
    """A single structural regex (numbers, units): RE2, no whole-word wrapping."""

    def __init__(self, pattern: str, ignore_case: bool = True):
        self.pattern = pattern
        self._regex = compile_pattern(pattern, ignore_case)

    def search(self, text: str):
        return self._regex.search(text)

    def sub(self, replacement: str, text: str) -> str:
        return self._regex.sub(replacement, text)
