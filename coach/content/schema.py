"""The content schema: a card, a persona and their parts, as strict pydantic models (unknown keys
are errors); a problem found while loading them, and the Library they are served from.

Scoring reads cards through these models only (not the loader)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, MutableMapping
from dataclasses import dataclass, field
from pathlib import Path
from sys import intern
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from coach.errors import UnknownCardError, UnknownPersonaError, UnknownTurnError

SLUG = r"^[a-z0-9][a-z0-9_-]*$"


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _non_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("must not be empty")
    return value


class DetectorSpec(Strict):
    type: str
    params: dict[str, Any] = Field(default_factory=dict)


class Criterion(Strict):
    id: str = Field(pattern=SLUG)
    label: str
    label_ko: str
    definition: str
    detector: DetectorSpec
    tip: str
    tip_ko: str
    follow_ups: list[str] = Field(min_length=1)
    weight: float = Field(default=1.0, gt=0, le=10)

    _blank = field_validator("label", "label_ko", "definition", "tip", "tip_ko")(_non_blank)


class Turn(Strict):
    id: str = Field(pattern=SLUG)
    label: str | None = None  # the moment, for learners ("Ask Ravi to repeat"); default: from the id
    label_ko: str | None = None
    prompt: str
    prompt_ko: str | None = None
    variants: list[str] = Field(default_factory=list)
    criteria: list[str] = Field(min_length=1)

    _blank = field_validator("prompt")(_non_blank)


class Pitfall(Strict):
    """A habit the card warns about: shown when its criterion is unmet, or, with a `detector`
    (e.g. `generic_reason`), when that detector finds it, quoting the sentence that shows it."""

    text: str
    text_ko: str
    criterion: str | None = None
    detector: DetectorSpec | None = None


# what one practice can cover: a rubric a learner can hear feedback on, a session of a few minutes
MAX_CRITERIA = 40


MAX_TURNS = 40


class CardFrontMatter(Strict):
    id: str = Field(pattern=SLUG)
    kind: Literal["meeting", "interview"]
    title: str
    title_ko: str
    level: Literal["beginner", "intermediate", "upper-intermediate", "advanced"]
    tags: list[str] = Field(min_length=1)
    persona: str
    estimated_seconds: int | None = Field(default=None, gt=0)
    turns: list[Turn] = Field(min_length=1, max_length=MAX_TURNS)
    criteria: list[Criterion] = Field(min_length=1, max_length=MAX_CRITERIA)
    follow_ups: list[str] = Field(default_factory=list)
    pitfalls: list[Pitfall] = Field(default_factory=list)
    structure: list[str] | None = None

    _blank = field_validator("title", "title_ko")(_non_blank)


class ModelAnswer(Strict):
    """A model answer from the body; a `### turn-id` title ties it to that turn."""

    title: str
    text: str
    notes: str = ""
    turn: str | None = None


class Card(CardFrontMatter):
    """A card as loaded: the front matter plus what the markdown body holds."""

    sections: dict[str, str] = Field(default_factory=dict)
    model_answers: list[ModelAnswer] = Field(default_factory=list)
    path: str = ""
    content_version: str = ""
    personal: bool = False  # the learner's own card, from the data dir's cards/ (coach.personal)

    def turn(self, turn_id: str | None) -> Turn:
        if turn_id is None:
            return self.turns[0]
        for turn in self.turns:
            if turn.id == turn_id:
                return turn
        known = ", ".join(t.id for t in self.turns)
        raise UnknownTurnError(f"card {self.id!r} has no turn {turn_id!r} (turns: {known})")

    def criterion(self, criterion_id: str) -> Criterion:
        for criterion in self.criteria:
            if criterion.id == criterion_id:
                return criterion
        raise KeyError(criterion_id)

    def criteria_for(self, turn_id: str | None) -> list[Criterion]:
        return [self.criterion(cid) for cid in self.turn(turn_id).criteria]

    def turn_label(self, turn_id: str | None, korean: bool = False) -> str:
        """A card turn as learners read it: its `label` (and `label_ko` in Korean mode), or
        the id spelt as words ("take floor"), never the bare id."""
        turn = next((t for t in self.turns if t.id == turn_id), None)
        text = (turn.label if turn and turn.label else (turn_id or "").replace("-", " ").replace("_", " ")).strip()
        if korean and turn is not None and turn.label_ko:
            return f"{text} · {turn.label_ko}"
        return text

    @property
    def several_moments(self) -> bool:
        """A meeting card with several situations: its criteria are asked once per situation."""
        return self.kind == "meeting" and len(self.turns) > 1


class Voice(Strict):
    voice: str = "en-us"
    rate: int = Field(default=165, ge=80, le=300)
    pitch: int = Field(default=50, ge=0, le=99)


class PersonaFrontMatter(Strict):
    id: str = Field(pattern=SLUG)
    name: str
    role: str
    company: str
    style: str
    voice: Voice = Field(default_factory=Voice)
    max_follow_ups: int = Field(default=3, ge=0, le=10)
    strictness: Literal["lenient", "balanced", "strict"] = "balanced"
    greeting: str | None = None
    follow_up_lead_ins: list[str] = Field(default_factory=list)
    retry_line: str = "Let's try that one again."
    closing: str = "Thank you, that's all from me."

    _blank = field_validator("name", "role", "style")(_non_blank)


class Persona(PersonaFrontMatter):
    instructions: str = ""
    path: str = ""


# What the loader asks of whoever knows the detectors (scoring, passed in by coach.library): the
# problems with a detector's type and params, as messages (none when it is valid). The content
# layer never imports scoring; the check is passed to it.
DetectorCheck = Callable[[str, dict[str, Any]], list[str]]


@dataclass(frozen=True)
class Problem:
    path: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


@dataclass(frozen=True, slots=True)
class CardSummary:
    """What a listing shows of a card (`coach cards`, the Start page, the card pickers), without
    its rubric, sections or model answers' text: an own card's summary is kept in its folder's
    index once the card has loaded (issue 29), so listing thousands of own cards builds none."""

    id: str
    kind: str
    title: str
    title_ko: str
    level: str
    tags: tuple[str, ...]
    persona: str
    turns: tuple[tuple[str, tuple[str, ...]], ...]  # (turn id, its criterion ids)
    criteria: tuple[str, ...]
    follow_ups: tuple[str, ...]
    model_answers: tuple[str, ...]  # their titles
    question: str  # the first turn's prompt
    path: str = ""
    personal: bool = False

    STORED = ("id", "kind", "title", "title_ko", "level", "tags", "persona", "turns", "criteria", "follow_ups",
              "model_answers", "question")

    def to_json(self) -> dict:
        """The card as `coach cards --format json` lists it."""
        return {
            "id": self.id,
            "kind": self.kind,
            "title": self.title,
            "title_ko": self.title_ko,
            "level": self.level,
            "tags": list(self.tags),
            "persona": self.persona,
            "turns": [{"id": turn, "criteria": list(criteria)} for turn, criteria in self.turns],
            "criteria": list(self.criteria),
            "follow_ups": list(self.follow_ups),
            "model_answers": list(self.model_answers),
            "personal": self.personal,
        }

    def stored(self) -> list:
        """The summary as the own-card index keeps it (the path and `personal` are the file's)."""
        return [getattr(self, name) for name in self.STORED]

    @classmethod
    def from_stored(cls, values: Any, path: str, personal: bool) -> CardSummary | None:
        """The summary the index kept, or None when it does not read as one. The strings cards
        repeat (kinds, tags, criterion and turn ids, a rubric's follow-ups) are kept once."""
        try:
            (card_id, kind, title, title_ko, level, tags, persona, turns, criteria, follow_ups, answers,
             question) = values
            if not all(isinstance(t, str) for t in (card_id, kind, title, title_ko, level, persona, question)):
                return None
            turns = tuple((intern(turn), tuple(map(intern, ids))) for turn, ids in turns)
            return cls(card_id, intern(kind), title, title_ko, intern(level), tuple(map(intern, tags)),
                       intern(persona), turns, tuple(map(intern, criteria)), tuple(map(intern, follow_ups)),
                       tuple(map(intern, answers)), question, path, personal)
        except (TypeError, ValueError):  # sys.intern takes only strings
            return None


def summary_of(card: Card) -> CardSummary:
    return CardSummary(
        card.id, card.kind, card.title, card.title_ko, card.level, tuple(card.tags), card.persona,
        tuple((t.id, tuple(t.criteria)) for t in card.turns), tuple(c.id for c in card.criteria),
        tuple(card.follow_ups), tuple(a.title for a in card.model_answers), card.turns[0].prompt, card.path,
        card.personal,
    )


def _listing_order(card: Card | CardSummary) -> tuple:
    """The first card to practise (STARTER_CARDS) first, then by title (then id)."""
    return (card.kind, card.id != STARTER_CARDS.get(card.kind), card.title, card.id)


# The card each kind of practice starts with on the first screen (the flagship interview question
# and the everyday meeting drill); listed first wherever cards are listed.
STARTER_CARDS = {"interview": "gpu-cluster-optimization", "meeting": "status-update"}


@dataclass
class Library:
    cards: MutableMapping[str, Card] = field(default_factory=dict)
    personas: dict[str, Persona] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    # personal cards the learner removed, kept (cards/.removed/) so their past sessions still
    # load and read; never listed, and `coach score` / `coach practice --card` refuse them
    removed: MutableMapping[str, Card] = field(default_factory=dict)
    # meeting scenes (`kind: scene`, coach.scenes): several personas and the moments the learner acts in
    scenes: dict[str, Any] = field(default_factory=dict)

    def card(self, card_id: str) -> Card:
        """A listed card, or a removed personal card (for the sessions practised on it)."""
        try:
            return self.cards[card_id]
        except KeyError:
            if card_id in self.removed:
                return self.removed[card_id]
            broken = next((p for p in self.problems if Path(p.path).stem == card_id), None)
            if broken is not None:  # its file is there but did not load: say why
                raise UnknownCardError(f"card {card_id!r} did not load: {broken}") from None
            raise UnknownCardError(f"unknown card {card_id!r}; see `coach cards`") from None

    def current_card(self, card_id: str) -> Card:
        """A card that may be practised or scored now: not one the learner removed."""
        if card_id not in self.cards and card_id in self.removed:
            raise UnknownCardError(f"card {card_id!r} was removed; its past sessions are still in `coach history`")
        return self.card(card_id)

    def persona(self, persona_id: str) -> Persona:
        try:
            return self.personas[persona_id]
        except KeyError:
            raise UnknownPersonaError(f"unknown persona {persona_id!r}") from None

    def cards_of_kind(self, kind: str | None = None) -> list[Card]:
        """Cards of a kind, the first card to practise (STARTER_CARDS) first, then by title."""
        return sorted((c for c in self.cards.values() if kind is None or c.kind == kind), key=_listing_order)

    def summaries(self, kind: str | None = None) -> list[CardSummary]:
        """What `cards_of_kind` lists, as summaries: the learner's own cards are listed from their
        folder's index and no Card is built for them (issue 29)."""
        listed = getattr(self.cards, "summaries", None)
        found = listed() if listed is not None else [summary_of(c) for c in self.cards.values()]
        return sorted((s for s in found if kind is None or s.kind == kind), key=_listing_order)

    def starter(self, kind: str) -> Card | None:
        """The card a new learner should start with for this kind of practice."""
        chosen = STARTER_CARDS.get(kind)
        if chosen is not None and chosen in self.cards and self.cards[chosen].kind == kind:
            return self.cards[chosen]  # listed first (`cards_of_kind`): nothing else is read
        cards = self.summaries(kind)
        return self.cards[cards[0].id] if cards else None

    def search(self, kind: str | None = None, query: str = "", tags: Iterable[str] = ()) -> list[Card]:
        """Cards of a kind whose id, titles or tags contain `query` and that carry any of `tags`."""
        return [card for card in self.cards_of_kind(kind) if _matches(card, query.strip().lower(), set(tags))]

    def find(self, kind: str | None = None, query: str = "", tags: Iterable[str] = ()) -> list[CardSummary]:
        """`search` over the summaries (no own Card is built)."""
        return [card for card in self.summaries(kind) if _matches(card, query.strip().lower(), set(tags))]


def _matches(card: Card | CardSummary, query: str, wanted: set[str]) -> bool:
    return bool((not wanted or wanted & set(card.tags))
                and (not query or query in f"{card.id} {card.title} {card.title_ko} {' '.join(card.tags)}".lower()))
