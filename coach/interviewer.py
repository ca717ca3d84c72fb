"""What the persona says next: which rubric gap to probe, and in which words.

The choice is deterministic (from the session's rubric gaps): every criterion still missing
is asked once, most important first, then the learner retells the whole answer as a final
take. The words come from the card's follow-ups with the persona's lead-ins, or from the
configured LLM when there is one.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import yaml

from coach.content.schema import Card, Criterion, Persona
from coach.store import TurnKind


@dataclass
class NextPrompt:
    turn_id: str
    kind: TurnKind
    prompt: str
    criterion: str | None = None
    llm: dict | None = None
    note: str | None = None


def pick(options: list[str], seed: str) -> str:
    """A stable choice: the same session sees the same variant, different sessions vary."""
    digest = int(hashlib.sha256(seed.encode()).hexdigest(), 16)
    return options[digest % len(options)]


def opening(card: Card, persona: Persona, session_id: str, turn_index: int = 0) -> NextPrompt:
    turn = card.turns[turn_index]
    prompt = pick([turn.prompt, *turn.variants], f"{session_id}:{turn.id}")
    if turn_index == 0 and persona.greeting:
        prompt = f"{persona.greeting} {prompt}"
    return NextPrompt(turn_id=turn.id, kind=TurnKind.QUESTION, prompt=prompt)


@dataclass
class FollowUp:
    """The next interview question: the criteria it probes (one, or two combined) and its words."""

    criteria: list[Criterion]
    question: str


def next_interview_question(
    card: Card, persona: Persona, missing: list[Criterion], asked_criteria: set[str], questions_asked: int
) -> FollowUp | None:
    """A follow-up on the most important criterion still missing that has not been asked yet.

    Every gap is asked once. A strict persona asks each on its own; a balanced or lenient
    one combines the two most important into one question when more gaps are left than
    its `max_follow_ups` budget has questions left, so no gap goes unasked either way."""
    candidates = sorted((c for c in missing if c.id not in asked_criteria and c.follow_ups),
                        key=lambda c: -c.weight)  # stable: card order on ties
    if not candidates:
        return None
    budget_left = max(persona.max_follow_ups - questions_asked, 1)
    if persona.strictness != "strict" and len(candidates) > budget_left and len(candidates) >= 2:
        first, second = candidates[:2]
        return FollowUp([first, second], f"{first.follow_ups[0]} And {_lower_first(second.follow_ups[0])}")
    return FollowUp([candidates[0]], candidates[0].follow_ups[0])


def _lower_first(text: str) -> str:
    if len(text) > 1 and text[0].isupper() and not text[1].isupper() and not text.startswith("I "):
        return text[0].lower() + text[1:]
    return text


def depth_question(card: Card, session_id: str) -> str | None:
    """When the first answer already covers the rubric: one of the card's general follow-ups."""
    return pick(card.follow_ups, f"{session_id}:depth") if card.follow_ups else None


def _duration(seconds: int) -> str:
    if seconds < 120:
        return f"{seconds} seconds"
    minutes = seconds / 60
    return f"{minutes:g} minutes"


def retell_prompt(card: Card) -> str:
    """The closing invitation: the whole answer again, in the card's time, as a final take."""
    seconds = card.estimated_seconds or 90
    return (f"Before we finish: please tell me the whole story once more, in about {_duration(seconds)}, "
            "as you would answer the first question in the real interview, with everything you have added since.")


def persona_words(persona: Persona, question: str, index: int) -> str:
    """The question with the persona's lead-in; lead-ins rotate so none repeats back to back."""
    if not persona.follow_up_lead_ins:
        return question
    return f"{persona.follow_up_lead_ins[index % len(persona.follow_up_lead_ins)]} {question}"


def retry_prompt(card: Card, persona: Persona, turn_id: str, missing: list[Criterion],
                 met: list[Criterion] | None = None, index: int = 0) -> NextPrompt:
    """Another go at a meeting situation, for what is still missing. When the answer already
    met part of it, the persona takes that and asks only for the missing piece (its lead-in
    and the criterion's follow-up); its `retry_line` ("Let's try that again …") is only for an
    answer that met nothing, so the persona never contradicts the scorecard."""
    hint = missing[0].follow_ups[0] if missing else card.turn(turn_id).prompt
    if met:
        prompt = persona_words(persona, hint, index)
    else:
        prompt = f"{persona.retry_line} {hint}"
    return NextPrompt(
        turn_id=turn_id,
        kind=TurnKind.RETRY,
        prompt=prompt,
        criterion=missing[0].id if missing else None,
    )


def korean_hint(card: Card, kind: str, turn_id: str, criteria: str | None) -> str | None:
    """The question in Korean, for listening practice: the card's own translation of a question,
    or what a follow-up or the retell asks for."""
    if kind in (TurnKind.QUESTION, TurnKind.RETRY):
        turn = next((t for t in card.turns if t.id == turn_id), None)
        if turn and turn.prompt_ko:
            return turn.prompt_ko
    if kind == TurnKind.FOLLOW_UP and criteria:
        labels = [card.criterion(c).label_ko for c in criteria.split(",") if c in {x.id for x in card.criteria}]
        if labels:
            return "이 질문이 묻는 것: " + ", ".join(labels)
    if kind == TurnKind.FOLLOW_UP:
        return "답변을 한 단계 더 깊게 설명해 달라는 질문입니다."
    if kind == TurnKind.RETELL:
        seconds = card.estimated_seconds or 90
        return f"처음 질문에 대한 답을 약 {seconds}초 안에, 지금까지 보탠 내용까지 모두 담아 처음부터 다시 말해 보세요."
    return None


FRAMES_FILE = Path(__file__).with_name("english_frames.yaml")
KOREAN_ANSWER = ("Your answer was in Korean, so it is kept but not scored. Please say it in English: "
                 "the question is asked again.")
KOREAN_ANSWER_KO = "한국어로 답하셔서 답변은 저장하고 채점하지 않았어요. 같은 질문을 다시 드릴게요. 영어로 말해 보세요."
NOT_ENGLISH_KO = ("녹음이 영어로 들리지 않았어요 (녹음은 저장했어요). 아래 영어 문장 틀로 다시 말해 보거나, "
                  "답을 입력하세요.")


@cache
def _frames() -> dict:
    with open(FRAMES_FILE, encoding="utf-8") as handle:
        return yaml.safe_load(handle)


def english_frame(criterion_id: str) -> str:
    """An English sentence frame for a criterion ("My teammate ___ handled ___, while I ___.")."""
    data = _frames()
    return data["frames"].get(criterion_id, data["default"])


def say_it_in_english(card: Card, missing: list[str], limit: int = 3, said: tuple[str, ...] = ()) -> str:
    """What the coach says to an answer in Korean: that it was Korean (in English and Korean),
    and English frames for the criteria the turn still needs (`missing`, most important first).
    `said`: what to say instead (a spoken answer that did not sound like English)."""
    lines = list(said or (KOREAN_ANSWER, KOREAN_ANSWER_KO))
    wanted = [c for c in missing if any(x.id == c for x in card.criteria)][:limit]
    if wanted:
        lines.append("Frames for what this answer still needs / 이 답변에 필요한 영어 문장 틀:")
        for cid in wanted:
            criterion = card.criterion(cid)
            lines.append(f"- {criterion.label} ({criterion.label_ko}): “{english_frame(cid)}”")
    return "\n".join(lines)
