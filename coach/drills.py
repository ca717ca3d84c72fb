"""Read-aloud and shadowing drills: lines from a card to listen to and say, and which of their
words came through. The lines are the card's own: its key phrases (meeting cards) and the
sentences of its model answers, those holding the card's technical terms first (NCCL,
all-reduce, NVLink: the words Korean engineers are misheard on first). A reading is scored by
`coach.pronunciation.pronounce` against the line, with the bundled speech model, offline."""

from __future__ import annotations

import re
from dataclasses import dataclass

from coach import pronunciation
from coach.content.schema import Card
from coach.vocabulary import card_vocabulary
from scoring.text import Answer

MIN_LINE_WORDS = 4  # shorter lines align badly (a lone word scores low however it is said)
MAX_LINE_WORDS = 28  # said in well under one 30 s alignment window, and short enough to repeat
MAX_LINES = 8
KEY_PHRASES = "Key phrases"
KEY_PHRASE = re.compile(r'^\s*-\s*\*\*["“](.+?)["”]\*\*', re.MULTILINE)


@dataclass(frozen=True)
class DrillLine:
    """One line to listen to and say: its text, where it comes from and the card terms in it."""

    text: str
    source: str  # "Key phrase" or the title of the model answer it is from
    terms: tuple[str, ...]


def _terms_in(text: str, terms: list[str]) -> tuple[str, ...]:
    """The card terms the text says, without those that are only a part of a longer one it says
    ("RDMA" in "GPUDirect RDMA", "GPU" in "GPUs")."""
    lowered = text.lower()
    found = [t for t in terms if re.search(rf"(?<![\w-]){re.escape(t.lower())}(?![\w-])", lowered)]
    return tuple(t for t in found
                 if not any(t != longer and t.lower() in longer.lower() for longer in found))


def _sayable(text: str) -> bool:
    """A whole line a learner can say: no "..." gap to fill, a sensible length."""
    return "..." not in text and "…" not in text and MIN_LINE_WORDS <= len(text.split()) <= MAX_LINE_WORDS


def lines_for(card: Card, limit: int = MAX_LINES) -> list[DrillLine]:
    """The card's lines to read aloud: key phrases first, then model-answer sentences, those
    with the most card terms first (in the order they come within the same count)."""
    terms = card_vocabulary(card)
    phrases = [p.strip() for p in KEY_PHRASE.findall(card.sections.get(KEY_PHRASES, ""))]
    lines = [DrillLine(p, "Key phrase", _terms_in(p, terms)) for p in phrases if _sayable(p)]
    sentences = [DrillLine(s.text.strip(), answer.title or "Model answer", _terms_in(s.text, terms))
                 for answer in card.model_answers for s in Answer(answer.text).sentences if _sayable(s.text.strip())]
    lines += sorted(sentences, key=lambda line: -len(line.terms))
    unique: dict[str, DrillLine] = {}
    for line in lines:  # a key phrase that a model answer also says stays a key phrase
        unique.setdefault(line.text, line)
    return list(unique.values())[:limit]


def read_aloud(audio, line: str, settings=None) -> pronunciation.Pronunciation:
    """A recording of `line` read aloud: each of its words and whether it came through (AudioError
    for unreadable audio, silence or another language, as `coach pronounce`)."""
    return pronunciation.pronounce(audio, line, settings)
