"""The end-of-session summary: per-criterion results with evidence, what the model answer
had that the user's answers lacked, and the top three things to practise next."""

from __future__ import annotations

from pydantic import BaseModel, Field

import scoring
from coach.session import SessionView


class CriterionSummary(BaseModel):
    id: str
    label: str
    label_ko: str
    met: bool
    evidence: list[str] = Field(default_factory=list)
    turn: str | None = None


class PracticeItem(BaseModel):
    title: str
    tip: str
    tip_ko: str


class ModelAnswerGap(BaseModel):
    title: str
    had: list[str]  # labels of criteria the model answer met and the user did not
    concepts: list[str] = Field(default_factory=list)  # key concepts it named that the user did not


class Summary(BaseModel):
    session_id: str
    card: str
    title: str
    answered: int
    overall: float
    criteria: list[CriterionSummary]
    model_answer_gaps: list[ModelAnswerGap]
    practise_next: list[PracticeItem]


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
    turn_ids = [t.id for t in card.turns] if card.kind == "meeting" else [card.turns[0].id]
    rows: list[CriterionSummary] = []
    for turn_id in turn_ids:
        progress = view.progress(turn_id if card.kind == "meeting" else None)
        for criterion in card.criteria_for(turn_id):
            result = progress.results.get(criterion.id)
            rows.append(
                CriterionSummary(
                    id=criterion.id,
                    label=criterion.label,
                    label_ko=criterion.label_ko,
                    met=bool(result and result.met),
                    evidence=result.evidence if result and result.met else [],
                    turn=turn_id if card.kind == "meeting" else None,
                )
            )
    overall = round(sum(r.met for r in rows) / len(rows), 3) if rows else 0.0
    return Summary(
        session_id=view.id,
        card=card.id,
        title=card.title,
        answered=len(scored),
        overall=overall,
        criteria=rows,
        model_answer_gaps=_model_answer_gaps(view, rows),
        practise_next=_practise_next(view, rows, [s for _, s in scored]),
    )


def _model_answer_gaps(view: SessionView, rows: list[CriterionSummary]) -> list[ModelAnswerGap]:
    card = view.card
    user_met = {(r.turn, r.id) for r in rows if r.met}
    user_text = " ".join(t.answer_text or "" for t in view.turns)
    gaps = []
    for answer in card.model_answers:
        turn_id = answer.turn or card.turns[0].id
        model = scoring.score(card, turn_id, answer.text)
        key = turn_id if card.kind == "meeting" else None
        had = [
            card.criterion(cid).label
            for cid, result in model.criteria.items()
            if result.met and (key, cid) not in user_met
        ]
        concepts = _concepts_missing(card, turn_id, answer.text, user_text)
        if had or concepts:
            gaps.append(ModelAnswerGap(title=answer.title, had=had, concepts=concepts))
    return gaps


def _concepts_missing(card, turn_id: str, model_text: str, user_text: str) -> list[str]:
    from scoring.detectors import detector_for
    from scoring.text import Answer

    missing = []
    for criterion in card.criteria_for(turn_id):
        if criterion.detector.type != "key_concepts":
            continue
        detector = detector_for("key_concepts")
        params = detector.Params.model_validate(criterion.detector.params)
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
    words = sum(s.delivery.word_count for s in scorecards) or 1
    fillers = sum(s.delivery.filler_count for s in scorecards)
    hedges = sum(s.delivery.hedge_count for s in scorecards)
    longest = max((s.delivery.avg_sentence_words for s in scorecards), default=0)
    if fillers / words > 0.03:
        items.append(FILLER_TIP)
    if hedges / words > 0.03:
        items.append(HEDGE_TIP)
    if longest > 28:
        items.append(LENGTH_TIP)
    return items[:3]
