"""What the persona says next: which rubric gap to probe, and in which words.

The choice is deterministic (from the rubric gaps); the words come from the card's
follow-ups with the persona's lead-ins, or from the configured LLM when there is one.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from coach.content import Card, Criterion, Persona
from scoring.models import CriterionResult


@dataclass
class NextPrompt:
    turn_id: str
    kind: str  # question | follow-up | retry
    prompt: str
    criterion: str | None = None
    llm: dict | None = None
    note: str | None = None


@dataclass
class Progress:
    """What the session has shown so far, across all its answers."""

    results: dict[str, CriterionResult] = field(default_factory=dict)

    def add(self, criteria: dict[str, CriterionResult]) -> None:
        for cid, result in criteria.items():
            best = self.results.get(cid)
            if best is None or (result.met and not best.met) or (result.met == best.met and result.score > best.score):
                merged = result.model_copy()
                if best and best.met and result.met:
                    merged.evidence = best.evidence + [e for e in result.evidence if e not in best.evidence]
                self.results[cid] = merged

    def missing(self, card: Card, turn_id: str) -> list[Criterion]:
        return [c for c in card.criteria_for(turn_id) if not (self.results.get(c.id) and self.results[c.id].met)]


def pick(options: list[str], seed: str) -> str:
    """A stable choice: the same session sees the same variant, different sessions vary."""
    digest = int(hashlib.sha256(seed.encode()).hexdigest(), 16)
    return options[digest % len(options)]


def opening(card: Card, persona: Persona, session_id: str, turn_index: int = 0) -> NextPrompt:
    turn = card.turns[turn_index]
    prompt = pick([turn.prompt, *turn.variants], f"{session_id}:{turn.id}")
    if turn_index == 0 and persona.greeting:
        prompt = f"{persona.greeting} {prompt}"
    return NextPrompt(turn_id=turn.id, kind="question", prompt=prompt)


def _normal(text: str) -> str:
    return " ".join(text.lower().split())


def next_interview_question(
    card: Card, persona: Persona, progress: Progress, asked: list[str], follow_ups_asked: int
) -> tuple[Criterion, str] | None:
    """The most important criterion still missing and a follow-up for it not yet asked."""
    if follow_ups_asked >= persona.max_follow_ups:
        return None
    turn_id = card.turns[0].id
    asked_normal = {_normal(a) for a in asked}
    missing = sorted(progress.missing(card, turn_id), key=lambda c: -c.weight)  # stable: card order on ties
    for criterion in missing:
        for question in criterion.follow_ups:
            if not any(_normal(question) in a for a in asked_normal):
                return criterion, question
    return None


def persona_words(persona: Persona, question: str, index: int) -> str:
    """The question with the persona's lead-in; lead-ins rotate so none repeats back to back."""
    if not persona.follow_up_lead_ins:
        return question
    return f"{persona.follow_up_lead_ins[index % len(persona.follow_up_lead_ins)]} {question}"


def retry_prompt(card: Card, persona: Persona, turn_id: str, missing: list[Criterion]) -> NextPrompt:
    hint = missing[0].follow_ups[0] if missing else card.turn(turn_id).prompt
    return NextPrompt(
        turn_id=turn_id,
        kind="retry",
        prompt=f"{persona.retry_line} {hint}",
        criterion=missing[0].id if missing else None,
    )
