"""The end-of-session summary: the session's result per criterion with evidence, the model
answers in full beside the learner's best answer (what each had that it lacked), the retell
compared with the first answer, and the top three things to practise next."""

from __future__ import annotations

from pydantic import BaseModel, Field

import scoring
from coach.content.schema import Card
from coach.session import SessionView
from coach.store import TurnKind
from scoring import english
from scoring.english import Review
from scoring.models import Scorecard


class CriterionSummary(BaseModel):
    id: str
    label: str
    label_ko: str
    met: bool
    evidence: list[str] = Field(default_factory=list)
    turn: str | None = None  # the card turn (meeting cards with several situations)
    turn_label: str | None = None  # that turn as learners read it
    answer: int | None = None  # index in the session's turns of the answer that first met it
    answer_number: int | None = None  # the learner's answer number (1, 2, …) that first met it


class PracticeItem(BaseModel):
    title: str
    tip: str
    tip_ko: str


class YourAnswer(BaseModel):
    """One of the learner's scored answers, and what it added to the session's result."""

    number: int  # 1, 2, … in the order answered
    index: int  # index in the session's turns
    turn: str | None = None  # the card turn it answered (meeting cards with several situations)
    text: str
    added: list[str] = Field(default_factory=list)  # labels first met by this answer
    retell: bool = False  # the learner's retell of the whole answer


class ModelAnswerGap(BaseModel):
    title: str
    turn: str | None = None  # the card turn it answers (meeting cards with several situations)
    had: list[str]  # labels of criteria the model answer meets and the session did not
    concepts: list[str] = Field(default_factory=list)  # key concepts it named that the learner's answers did not
    text: str = ""
    notes: str | None = None
    meets: list[str] = Field(default_factory=list)  # labels of the criteria the model answer meets
    yours: list[int] = Field(default_factory=list)  # numbers of the learner's answers shown beside it


class RetellComparison(BaseModel):
    first_met: int
    retell_met: int
    of: int
    gained: list[str] = Field(default_factory=list)  # labels met by the retell, not by the first answer
    lost: list[str] = Field(default_factory=list)  # labels the first answer met and the retell did not
    first_words: int = 0
    retell_words: int = 0
    target_seconds: int = 90
    retell_seconds: float | None = None  # when the retell was spoken


class EnglishHabit(BaseModel):
    """A kind of English error that came back across the session's answers."""

    kind: str
    label: str
    label_ko: str
    count: int  # corrections of this kind in the session
    answers: int  # answers that had one
    examples: list[tuple[str, str]] = Field(default_factory=list)  # (wrong, right), the first two


class Summary(BaseModel):
    """The session's one result and everything said about it. Every count and every "met" in
    it comes from the session result (coach.result), so no two parts can disagree."""

    session_id: str
    card: str
    title: str
    answered: int
    met: int
    of: int
    overall: float
    criteria: list[CriterionSummary]
    answers: list[YourAnswer] = Field(default_factory=list)
    model_answer_gaps: list[ModelAnswerGap]
    practise_next: list[PracticeItem]
    retell: RetellComparison | None = None
    english: list[EnglishHabit] = Field(default_factory=list)  # the kinds of English error that came back
    # the first answer against the previous session's on this card (coach.progress.since_last; set by
    # coach.practice, which reads the learner's other sessions); None for a card's first session
    since_last: dict | None = None

    def answer(self, number: int) -> YourAnswer:
        return self.answers[number - 1]


FILLER_TIP = PracticeItem(
    title="Fewer fillers",
    tip="Pause silently instead of 'um' or 'like'; a short pause sounds confident.",
    tip_ko="'um', 'like' 대신 잠깐 멈추세요. 짧은 침묵이 더 자신 있게 들립니다.",
)
LENGTH_TIP = PracticeItem(
    title="Shorter sentences",
    tip="Keep sentences under about 20 words: one idea per sentence.",
    tip_ko="한 문장에 한 가지 생각만, 20단어 안쪽으로 말해 보세요.",
)
HEDGE_TIP = PracticeItem(
    title="Fewer hedges",
    tip="Say 'I measured' rather than 'I think maybe'; keep one hedge where you are really unsure.",
    tip_ko="'I think maybe' 대신 'I measured'처럼 단정적으로 말해 보세요.",
)


def summarise(view: SessionView) -> Summary:
    card = view.card
    scored = view.scorecards()
    result = view.result()
    several = card.several_moments
    answers: list[YourAnswer] = []
    numbers: dict[int, int] = {}
    for index, turn in enumerate(view.turns):
        if not turn.scorecard_json:
            continue
        numbers[index] = len(answers) + 1
        delta = result.deltas.get(index)
        answers.append(YourAnswer(
            number=len(answers) + 1, index=index, turn=turn.turn_id if several else None,
            text=turn.answer_text or "", retell=turn.kind == TurnKind.RETELL,
            added=[result.criteria[k].label for k in delta.added] if delta else []))
    rows = [
        CriterionSummary(
            id=state.criterion,
            label=state.label,
            label_ko=state.label_ko,
            met=state.met,
            evidence=state.evidence if state.met else [],
            turn=state.card_turn if several else None,
            turn_label=card.turn_label(state.card_turn) if several else None,
            answer=state.turn,
            answer_number=numbers.get(state.turn) if state.turn is not None else None,
        )
        for state in result.current()
    ]
    overall = round(result.met / result.of, 3) if result.of else 0.0
    return Summary(
        session_id=view.id,
        card=card.id,
        title=card.title,
        answered=len(scored),
        met=result.met,
        of=result.of,
        overall=overall,
        criteria=rows,
        answers=answers,
        model_answer_gaps=_model_answers(view, rows, answers),
        practise_next=_practise_next(view, rows, [s for _, s in scored]),
        retell=retell_comparison(view),
        english=english_habits([a.text for a in answers]),
    )


def english_of(text: str) -> Review:
    """The corrections of one answer's English (scoring.english; the parse is the scorer's)."""
    return english.review(text or "")


def english_habits(texts: list[str], min_answers: int = 2) -> list[EnglishHabit]:
    """The kinds of English error found in at least `min_answers` of these answers (or twice in a
    session of one answer), most frequent first: what keeps coming back, not a one-off slip."""
    counts: dict[str, EnglishHabit] = {}
    for text in texts:
        review = english_of(text)
        for kind in dict.fromkeys(c.kind for c in review.corrections):
            label, label_ko = english.KIND_LABELS.get(kind, english.KIND_LABELS["other"])
            habit = counts.setdefault(kind, EnglishHabit(kind=kind, label=label, label_ko=label_ko, count=0, answers=0))
            habit.answers += 1
        for c in review.corrections:
            habit = counts[c.kind]
            habit.count += 1
            if len(habit.examples) < 2:
                habit.examples.append((c.wrong, c.right))
    need = min(min_answers, max(len(texts), 1))
    keep = [h for h in counts.values() if h.answers >= need and h.count >= 2]
    return sorted(keep, key=lambda h: (-h.answers, -h.count, h.kind))


def _met_labels(view: SessionView, scorecard: Scorecard) -> list[str]:
    return [view.card.criterion(cid).label for cid, r in scorecard.criteria.items()
            if r.met and cid in {c.id for c in view.card.criteria}]


def retell_comparison(view: SessionView) -> RetellComparison | None:
    """The retell's criteria against the first answer's (None before there is a retell)."""
    first, retell = view.first_answer(), view.retell()
    if first is None or retell is None or first is retell:
        return None
    a = Scorecard.model_validate_json(first.scorecard_json or "{}")
    b = Scorecard.model_validate_json(retell.scorecard_json or "{}")
    met_a, met_b = _met_labels(view, a), _met_labels(view, b)
    return RetellComparison(
        first_met=len(met_a), retell_met=len(met_b), of=len(b.criteria),
        gained=[label for label in met_b if label not in met_a],
        lost=[label for label in met_a if label not in met_b],
        first_words=a.delivery.word_count, retell_words=b.delivery.word_count,
        target_seconds=view.card.estimated_seconds or 90,
        retell_seconds=b.delivery.duration,
    )


def _model_answers(view: SessionView, rows: list[CriterionSummary],
                   answers: list[YourAnswer]) -> list[ModelAnswerGap]:
    """Every model answer in full, the criteria it meets, and what it had that the session (on
    a card with several situations: that situation) did not show, beside the learner's answers
    that added to the result."""
    card = view.card
    several = card.several_moments
    met = {(r.turn, r.id) for r in rows if r.met}
    out = []
    for answer in card.model_answers:
        turn_id = answer.turn or card.turns[0].id
        key = turn_id if several else None
        model = scoring.score(card, turn_id, answer.text)
        meets = [card.criterion(cid).label for cid, r in model.criteria.items() if r.met]
        had = [card.criterion(cid).label for cid, r in model.criteria.items() if r.met and (key, cid) not in met]
        mine = [a for a in answers if a.turn == key]
        user_text = " ".join(a.text for a in mine)
        shown = [a.number for a in mine if a.added] or [a.number for a in mine[-1:]]
        # the retell, the whole answer told once more, is read beside the model answer too
        shown += [a.number for a in mine if a.retell and a.number not in shown]
        out.append(ModelAnswerGap(
            title=card.turn_label(answer.turn) if answer.turn else answer.title, turn=answer.turn,
            had=had, concepts=_concepts_missing(card, turn_id, answer.text, user_text), text=answer.text,
            notes=answer.notes, meets=meets, yours=shown))
    return out


def _concepts_missing(card, turn_id: str, model_text: str, user_text: str) -> list[str]:
    from scoring.detectors import detector_for
    from scoring.text import Answer

    missing: list[str] = []
    for criterion in card.criteria_for(turn_id):
        if criterion.detector.type != "key_concepts":
            continue
        detector = detector_for("key_concepts")
        params = detector.Params.model_validate(criterion.detector.params)  # type: ignore[attr-defined]
        in_model = detector.detect(Answer(model_text), params, turn_id).evidence
        in_user = {e.lower() for e in detector.detect(Answer(user_text), params, turn_id).evidence}
        missing.extend(e for e in in_model if e.lower() not in in_user)
    return missing


def _practise_next(view: SessionView, rows: list[CriterionSummary], scorecards) -> list[PracticeItem]:
    card = view.card
    items: list[PracticeItem] = []
    seen: set[str] = set()
    for row in sorted((r for r in rows if not r.met), key=lambda r: -card.criterion(r.id).weight):
        if row.id in seen:
            continue
        seen.add(row.id)
        criterion = card.criterion(row.id)
        items.append(PracticeItem(title=criterion.label, tip=criterion.tip, tip_ko=criterion.tip_ko))
    items += delivery_tips(card, [s.delivery for s in scorecards])
    return items[:3]


def delivery_tips(card: Card, deliveries: list) -> list[PracticeItem]:
    """Tips from the delivery of these answers (fillers, hedges, long sentences). Meeting
    drills teach softeners ("I think", "maybe", "I'm not sure, but"), so a meeting card never
    gets the advice to drop hedges; an interview answer does, where it sounds unsure of facts."""
    words = sum(d.word_count for d in deliveries) or 1
    items = []
    if sum(d.filler_count for d in deliveries) / words > 0.03:
        items.append(FILLER_TIP)
    if card.kind == "interview" and sum(d.hedge_count for d in deliveries) / words > 0.03:
        items.append(HEDGE_TIP)
    if max((d.avg_sentence_words for d in deliveries), default=0) > 28:
        items.append(LENGTH_TIP)
    return items


def next_steps(view: SessionView, limit: int = 2) -> list[PracticeItem]:
    """After an answer: the one or two most useful things to do next, most important gap first,
    then delivery (fillers, hedges, long sentences) of the latest answer."""
    scored = view.scorecards()
    if not scored:
        return []
    last_turn, last = scored[-1]
    card_turn = view.card.turns[0].id if view.card.kind == "interview" else last_turn.turn_id
    # a habit the latest answer showed, quoted, comes first: it is the most concrete advice
    items = [
        PracticeItem(title=f"You said: “{p.evidence[0]}”", tip=p.text, tip_ko=p.text_ko)
        for p in last.pitfalls
        if p.evidence
    ][:1]
    items += [
        PracticeItem(title=c.label, tip=c.tip, tip_ko=c.tip_ko)
        for c in (view.card.criterion(s.criterion) for s in view.result().missing() if s.card_turn == card_turn)
    ]
    return (items[:limit] + delivery_tips(view.card, [last.delivery]))[:limit]
