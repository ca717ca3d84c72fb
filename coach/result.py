"""One rubric per session: the running result across a session's answers, and what each
answer added to it.

A criterion is met for the session once any answer meets it; `turn` is the index (in the
session's turns) of the answer that first met it. Interview cards and single-turn meeting
cards key the result by criterion id. A meeting card with several situations asks the same
criteria in each, so its keys are `<card turn>/<criterion id>`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from coach.content.schema import Card
from coach.store import Turn
from scoring import politeness


@dataclass
class CriterionState:
    key: str
    criterion: str
    card_turn: str
    label: str
    label_ko: str
    weight: float
    met: bool = False
    evidence: list[str] = field(default_factory=list)
    turn: int | None = None  # index in the session's turns of the answer that first met it
    # scored once, but the card no longer has it (renamed or removed since): kept so old
    # answers stay readable, never asked for, and not counted in `met` / `of`
    retired: bool = False

    def to_json(self) -> dict:
        return {"met": self.met, "evidence": list(self.evidence), "turn": self.turn}


@dataclass
class TurnDelta:
    """What one scored answer did to the session's result."""

    index: int
    card_turn: str = ""  # the card turn the answer was scored against
    added: list[str] = field(default_factory=list)  # keys first met by this answer
    again: list[str] = field(default_factory=list)  # keys this answer met that an earlier one had met
    missing: list[str] = field(default_factory=list)  # keys still missing after it, most important first
    met_so_far: int = 0
    of: int = 0


@dataclass(frozen=True)
class Credit:
    """One criterion in a turn's headline, with the quote from this answer that earned it."""

    key: str
    criterion: str
    label: str
    label_ko: str
    quote: str = ""


@dataclass(frozen=True)
class HowItSounds:
    """What made an answer impolite, and how it sounds to a colleague (scoring.politeness)."""

    name: str  # "bare command", "blame", …
    evidence: str  # the words, verbatim
    sounds: str
    sounds_ko: str


@dataclass(frozen=True)
class TurnHeadline:
    """What one answer did, in the one wording every front end shows: the app's headline and
    full scorecard, the terminal's line and the report's. Criteria of another situation of a
    meeting card are not this answer's business: "missing" and "covered before" are this
    answer's situation only."""

    added: tuple[Credit, ...]  # first met by this answer, each with its own quote
    again: tuple[Credit, ...]  # met again; an earlier answer had met them
    missing: tuple[Credit, ...]  # still missing in this situation, most important first
    covered_before: frozenset[str]  # criterion ids an earlier answer met in this situation
    met_so_far: int
    of: int
    sounds: tuple[HowItSounds, ...] = ()  # what made the answer impolite, when its politeness was judged
    softer: str | None = None  # a softer wording people say, for an impolite answer

    @property
    def summary(self) -> str:
        """'Added: A, B' / 'Shown again: A · nothing new yet' / 'Nothing new in this answer' /
        'No criterion met yet', with the running count."""
        so_far = f"so far {self.met_so_far} of {self.of}"
        if self.added:
            return f"Added: {', '.join(c.label for c in self.added)} · {so_far}"
        if self.again:
            return f"Shown again: {', '.join(c.label for c in self.again)} · nothing new yet · {so_far}"
        if self.met_so_far:
            return f"Nothing new in this answer · {so_far}"
        return f"No criterion met yet · {so_far}"


@dataclass
class SessionResult:
    criteria: dict[str, CriterionState]
    deltas: dict[int, TurnDelta] = field(default_factory=dict)  # by turn index

    @property
    def met(self) -> int:
        return sum(c.met for c in self.current())

    @property
    def of(self) -> int:
        return len(self.current())

    def current(self) -> list[CriterionState]:
        """The criteria of the card as it is now (not the retired ones)."""
        return [c for c in self.criteria.values() if not c.retired]

    def missing(self) -> list[CriterionState]:
        """Criteria not met yet, most important first (card order on ties)."""
        return sorted((c for c in self.current() if not c.met), key=lambda c: -c.weight)

    def met_ids(self, card_turn: str | None = None) -> list[str]:
        return [c.criterion for c in self.current()
                if c.met and (card_turn is None or c.card_turn == card_turn)]

    def to_json(self) -> dict:
        return {"met": self.met, "of": self.of,
                "criteria": {key: state.to_json() for key, state in self.criteria.items()}}

    def headline(self, delta: TurnDelta, evidence: dict[str, list[str]], answer: str = "",
                 impolite: bool = False) -> TurnHeadline:
        """The headline of the answer `delta` is about; `evidence` is its scorecard's quotes by
        criterion id. When its scorecard found the `answer` `impolite`, what made it so is said,
        with how it sounds and a softer wording."""
        def credit(key: str) -> Credit:
            state = self.criteria[key]
            quotes = evidence.get(state.criterion) or []
            return Credit(key, state.criterion, state.label, state.label_ko, quotes[0] if quotes else "")

        def here(key: str) -> bool:
            return not delta.card_turn or self.criteria[key].card_turn == delta.card_turn

        covered = frozenset(s.criterion for s in self.current()
                            if s.met and s.turn is not None and s.turn < delta.index and here(s.key))
        sounds, softer = _how_it_sounds(answer) if impolite and answer.strip() else ((), None)
        return TurnHeadline(
            added=tuple(credit(k) for k in delta.added),
            again=tuple(credit(k) for k in delta.again),
            missing=tuple(credit(k) for k in delta.missing if here(k)),
            covered_before=covered,
            met_so_far=delta.met_so_far,
            of=delta.of,
            sounds=sounds,
            softer=softer,
        )


def _how_it_sounds(answer: str) -> tuple[tuple[HowItSounds, ...], str | None]:
    verdict = politeness.assess(answer, moment=True)
    if verdict.polite:
        return (), None
    notes = tuple(HowItSounds(f.name.replace("_", " "), f.evidence, *politeness.sounds(f.name, f.cue))
                  for f in verdict.impolite)
    return notes, politeness.suggest(answer, moment=True)


def card_turn_of(card: Card | None, turn: Turn) -> str:
    """The card turn a session turn is scored against (interviews: always the main question)."""
    if card is not None and card.kind == "interview":
        return card.turns[0].id
    return turn.turn_id


def _blank(card: Card) -> dict[str, CriterionState]:
    turn_ids = [card.turns[0].id] if card.kind == "interview" else [t.id for t in card.turns]
    per_turn = len(turn_ids) > 1
    states = {}
    for turn_id in turn_ids:
        for criterion in card.criteria_for(turn_id):
            key = f"{turn_id}/{criterion.id}" if per_turn else criterion.id
            states[key] = CriterionState(key, criterion.id, turn_id, criterion.label, criterion.label_ko,
                                         criterion.weight)
    return states


def session_result(card: Card | None, turns: list[Turn]) -> SessionResult:
    """The session's result from its turns (store rows), oldest first."""
    states = _blank(card) if card is not None else {}
    per_turn = card is not None and card.kind == "meeting" and len(card.turns) > 1
    result = SessionResult(states)
    for index, turn in enumerate(turns):
        if not turn.scorecard_json:
            continue
        criteria = json.loads(turn.scorecard_json).get("criteria") or {}
        card_turn = card_turn_of(card, turn)
        delta = TurnDelta(index, card_turn)
        for cid, verdict in criteria.items():
            key = f"{card_turn}/{cid}" if per_turn else cid
            state = states.get(key)
            if state is None:  # a card edited since, or not in the library: keep what was scored
                state = states[key] = CriterionState(key, cid, card_turn, cid, cid, 1.0, retired=card is not None)
            if not verdict.get("met"):
                continue
            if state.met:
                delta.again.append(key)
            else:
                state.met, state.turn = True, index
                delta.added.append(key)
            quoted = {_quote_key(e) for e in state.evidence}
            for quote in verdict.get("evidence") or []:
                if _quote_key(quote) not in quoted:
                    quoted.add(_quote_key(quote))
                    state.evidence.append(quote)
        delta.missing = [c.key for c in result.missing()]
        delta.met_so_far, delta.of = result.met, result.of
        result.deltas[index] = delta
    return result


def _quote_key(quote: str) -> str:
    """A quote's words, lower case: the same sentence said again in a later answer ("utilization
    went from 40% to 83%" in the retell) is one piece of evidence, not two."""
    return " ".join(re.sub(r"[^\w%]+", " ", quote.lower()).split())
