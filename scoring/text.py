"""Answer text prepared once for all detectors: sentences and clauses with their offsets.

Detectors match on clauses but always report evidence as slices of the original answer,
so every evidence string is a verbatim substring of what the speaker said.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property

import re2
from text_to_num import alpha2digit

# Splitters (RE2, linear time): the text of the matched group is cut out between two spans.
# RE2's \s is ASCII: a no-break space, the other Unicode spaces and the zero-width ones (what a
# paste from a web page or a chat app puts after a period) end a sentence as well
_SPACE = r"(?:\s|\p{Z}|[\x{200B}-\x{200D}\x{2060}\x{FEFF}])"
_SENTENCE_END = re2.compile(rf"[.!?。;]({_SPACE}+)|(\n+)")
_EDGE = " \t\r\n\u00a0\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000" \
        "\u200b\u200c\u200d\u2060\ufeff"
_CLAUSE_BREAK = re2.compile(r"(?i)(,\s+)(?:but|although|though|however|yet)\b|(\s+)but\b|(—)|(\s-\s)")
_NUMBER_WORD = re2.compile(
    r"(?i)\b(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|"
    r"fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|"
    r"eighty|ninety|hundred|thousand|million|billion|point|zero)\b"
)
# A heading line of a written update ("- Done:", "Next", "* Blocked: N/A"): the label and what follows it.
_HEADING = re2.compile(r"^[\s*•·+-]*([A-Za-z][A-Za-z /'’-]{0,28}?)\s*(?::|\s*$)\s*(.*)$")
_BULLET = re2.compile(r"^[\s*•·+-]*")
# Labels that head a written update's parts even alone on a line, with nothing indented under
# them ("Got done\nLanded prometheus …"), and even with a remark in brackets ("Didn't get done
# (and had committed to last week)").
STATUS_LABELS = frozenset({"done", "got done", "didn't get done", "didn’t get done", "did not get done",
                           "in progress", "doing", "blocked", "blockers", "next", "next steps", "todo", "to do"})
# A fixed pattern with nothing to backtrack on, so stdlib `re` (whose findall is many times faster
# than the RE2 wrapper's on long answers) is as safe here as RE2.
WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'’%.-]*")
MAX_EVIDENCE_CHARS = 240


@dataclass(frozen=True)
class Section:
    """A headed part of a written update: the heading's words, lower case, and the item lines
    under it (the rest of the heading line counts as an item: "Blocked: N/A")."""

    heading: str
    items: tuple[Span, ...]


@dataclass(frozen=True)
class Span:
    start: int
    end: int
    text: str  # the original text of the span, verbatim
    numeric: str  # the same text with spoken numbers written as digits (for number patterns)


def _spans(text: str, start: int, end: int, splitter, cut=lambda text, match: True) -> list[tuple[int, int]]:
    out, cursor = [], start
    for match in splitter.finditer(text, start, end):
        if not cut(text, match):
            continue
        group = next(g for g in range(1, splitter.groups + 1) if match.start(g) >= 0)
        out.append((cursor, match.start(group)))
        cursor = match.end(group)
    out.append((cursor, end))
    return [(s, e) for s, e in (_strip(text, s, e) for s, e in out) if e > s]


# A period that ends an abbreviation, not a sentence: always ("e.g. the cache"), or before a
# lower-case word ("at 9 a.m. we met", "logs, traces etc. were lost")
_NEVER_ENDS = frozenset({"e.g", "i.e", "vs", "cf", "approx", "mr", "mrs", "ms", "dr"})
_ENDS_BEFORE_CAPITAL = frozenset({"etc", "a.m", "p.m", "incl", "esp"})


def _ends_sentence(text: str, match) -> bool:
    if text[match.start()] != ".":
        return True
    before = text[max(0, match.start() - 8) : match.start()].split()
    word = before[-1].lstrip("(\"'“‘").lower() if before else ""
    following = text[match.end() : match.end() + 1]
    return word not in _NEVER_ENDS and not (word in _ENDS_BEFORE_CAPITAL and following.islower())


def sentence_bounds(text: str) -> list[tuple[int, int]]:
    """The answer's sentences as (start, end) offsets: the one segmentation that the phrase lists,
    the evidence and the parse (scoring.grammar sets these as spaCy's sentence starts) all use."""
    return _spans(text, 0, len(text), _SENTENCE_END, _ends_sentence)


def _strip(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and (text[start] in _EDGE or text[start] in "\"'“”‘’("):
        start += 1
    while end > start and (text[end - 1] in _EDGE or text[end - 1] in ",\"'“”‘’)"):
        end -= 1
    return start, end


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t-*•"))


# text2num leaves "zero" and "one" as words (they are often not quantities: "one of them");
# after "from" or "to" they are the ends of a change ("from three a week to zero")
_CHANGE_END_ZERO = re2.compile(r"(?i)\b(from|to)\s+zero\b")
_CHANGE_END_ONE = re2.compile(r"(?i)\b(from|to)\s+one\b")


def to_digits(text: str) -> str:
    if not _NUMBER_WORD.search(text):
        return text
    try:
        text = alpha2digit(text, "en")
    except Exception:  # the parser is third-party; a failure must never stop scoring
        return text
    return _CHANGE_END_ONE.sub(r"\1 1", _CHANGE_END_ZERO.sub(r"\1 0", text))


class Answer:
    """One answer, split into sentences and clauses."""

    def __init__(self, text: str):
        self.text = text

    def _make(self, start: int, end: int) -> Span:
        raw = self.text[start:end]
        return Span(start, end, raw, to_digits(raw))

    @cached_property
    def sentences(self) -> list[Span]:
        return [self._make(s, e) for s, e in sentence_bounds(self.text)]

    @cached_property
    def clauses(self) -> list[tuple[Span, Span]]:
        """(clause, its sentence) pairs; clauses break at 'but', dashes and contrast words."""
        out = []
        for sentence in self.sentences:
            for s, e in _spans(self.text, sentence.start, sentence.end, _CLAUSE_BREAK):
                out.append((self._make(s, e), sentence))
        return out

    @cached_property
    def sections(self) -> list[Section]:
        """Headed lists ("Done:" / "Blocked:" / "Next:"), when the answer is written as one.
        A line is a heading when it is a short label ending in a colon, or a one-to-three-word
        line followed by indented or bulleted items."""
        lines, cursor = [], 0
        for raw in self.text.split("\n"):
            lines.append((cursor, raw))
            cursor += len(raw) + 1
        out: list[Section] = []
        current: tuple[str, list[Span]] | None = None
        for index, (start, raw) in enumerate(lines):
            match = _HEADING.match(raw)
            following = lines[index + 1][1] if index + 1 < len(lines) else ""
            status_label = (match is not None and match.group(1).strip().lower() in STATUS_LABELS
                            and (not match.group(2) or match.group(2).startswith("(")) and bool(following.strip()))
            labelled = match is not None and not match.group(2).startswith((")", "(", "-)", "//")) and (
                raw.rstrip().endswith(":") or ":" in raw[: match.end(1) + 2]  # not ":)", "https://"
                or (len(match.group(1).split()) <= 2 and not match.group(2)
                    and _indent(following) > _indent(raw))
            )
            is_heading = status_label or labelled
            if is_heading and len(match.group(1).split()) <= 4:  # "Emerging from this meeting:"
                if current:
                    out.append(Section(current[0], tuple(current[1])))
                current = (match.group(1).strip().lower(), [])
                if match.group(2).strip() and not status_label:  # a remark in brackets is no item
                    current[1].append(self._make(start + match.start(2), start + match.end(2)))
            elif current is not None:
                item_start = start + _BULLET.match(raw).end()
                item_end = start + len(raw.rstrip())
                if item_end > item_start:
                    current[1].append(self._make(item_start, item_end))
        if current:
            out.append(Section(current[0], tuple(current[1])))
        # one label is a sentence ("Note: …"), not a list, unless several items follow it
        return out if len(out) >= 2 or (out and len(out[0].items) >= 2) else []

    @cached_property
    def grammar(self):
        """The answer's clauses as read from its parse (scoring.grammar), made on first use."""
        from scoring.grammar import read

        return read(self.text)

    def reading(self, name: str) -> list:
        """The clauses with one grammar reading ("done_work", "planned_action", …)."""
        from scoring.grammar import clauses_reading

        return clauses_reading(self.grammar, name)

    def is_bare_heading(self, sentence: Span) -> bool:
        """A heading line with nothing after it ("- Blocked:"): it says nothing by itself."""
        return any(
            not section.items and sentence.text.strip(" -*•:").lower() == section.heading
            for section in self.sections
        )

    def sentence_at(self, position: int) -> Span | None:
        for sentence in self.sentences:
            if sentence.start <= position < sentence.end:
                return sentence
        return None

    @cached_property
    def words(self) -> list[str]:
        return WORD.findall(self.text)

    def evidence(self, sentence: Span, match_start: int | None = None) -> str:
        """The sentence as evidence; a long one is cut to a window around the match."""
        if len(sentence.text) <= MAX_EVIDENCE_CHARS or match_start is None:
            return sentence.text
        offset = max(0, match_start - sentence.start - MAX_EVIDENCE_CHARS // 3)
        window = sentence.text[offset : offset + MAX_EVIDENCE_CHARS]
        return window.strip()
