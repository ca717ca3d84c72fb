"""The scorecard: the one shape every consumer (CLI, sessions, UI, golden tests) reads."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class TimedWord(BaseModel):
    word: str
    start: float
    end: float
    probability: float = 1.0


class SpeechTiming(BaseModel):
    """What speech-to-text knows beyond the words: when they were said and how surely."""

    duration: float
    words: list[TimedWord] = Field(default_factory=list)


class CriterionResult(BaseModel):
    met: bool
    score: float = Field(ge=0, le=1)
    evidence: list[str] = Field(default_factory=list)
    reason: str = ""


class FeedbackItem(BaseModel):
    criterion: str
    label: str
    label_ko: str
    tip: str
    tip_ko: str
    follow_up: str


class Pause(BaseModel):
    start: float
    end: float
    duration: float
    after_word: str = ""


class Delivery(BaseModel):
    word_count: int
    sentence_count: int
    avg_sentence_words: float
    filler_count: int
    filler_rate: float  # fillers per 100 words
    fillers: dict[str, int] = Field(default_factory=dict)
    filler_note: str | None = None
    hedge_count: int = 0
    hedges: dict[str, int] = Field(default_factory=dict)
    duration: float | None = None
    words_per_minute: float | None = None
    long_pauses: list[Pause] = Field(default_factory=list)
    unclear_words: list[str] = Field(default_factory=list)


class Structure(BaseModel):
    expected: list[str]
    found: list[str]
    in_order: bool


class PitfallHit(BaseModel):
    text: str
    text_ko: str
    criterion: str | None = None
    evidence: list[str] = Field(default_factory=list)


class Scorecard(BaseModel):
    model_config = ConfigDict(extra="allow")

    id: str | int | None = None  # echoed from the caller (coach score --jsonl)
    card: str
    turn: str
    criteria: dict[str, CriterionResult]
    overall: float
    delivery: Delivery
    feedback: list[FeedbackItem] = Field(default_factory=list)
    pitfalls: list[PitfallHit] = Field(default_factory=list)
    structure: Structure | None = None
    notes: list[str] = Field(default_factory=list)
    scorer_version: str
    # set only when an LLM judge was asked: {"status": "ok" | "unavailable" | "invalid", ...}
    llm: dict | None = None

    def missing(self) -> list[str]:
        return [cid for cid, result in self.criteria.items() if not result.met]

    def to_json_dict(self) -> dict:
        return self.model_dump(mode="json", exclude_none=True)
