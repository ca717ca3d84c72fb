"""What speech-to-text returns: `Transcript` (text, segments, timed words)."""

from __future__ import annotations

from dataclasses import dataclass, field

from pydantic import BaseModel, Field

from scoring.models import SpeechTiming, TimedWord

# One word type for speech-to-text and scoring: a word with its time and probability.
Word = TimedWord


class Segment(BaseModel):
    start: float
    end: float
    text: str


class Transcript(BaseModel):
    """What was said, when, and how surely. `text` is the verbatim transcript."""

    text: str
    duration: float
    language: str = "en"
    segments: list[Segment] = Field(default_factory=list)
    words: list[Word] = Field(default_factory=list)
    words_per_minute: float | None = None
    engine: str = "faster-whisper"
    model: str = ""
    confidence: float | None = None  # mean word probability
    transcribe_seconds: float | None = None
    warnings: list[str] = Field(default_factory=list)  # e.g. the recording is cut off
    # which words came through (coach.pronunciation.Pronunciation as a dict), kept with the
    # turn's transcript; None when it was not computed
    pronunciation: dict | None = None
    pronunciation_pending: bool = False  # being computed after the answer was scored

    def to_timing(self) -> SpeechTiming:
        """What scoring.delivery needs: duration and the timed words with probabilities."""
        return SpeechTiming(duration=self.duration, words=list(self.words))

    def contract_dict(self) -> dict:
        """The `coach transcribe --format json` shape (DESIGN.md), plus the timed words."""
        return {
            "text": self.text,
            "duration": self.duration,
            "language": self.language,
            "segments": [s.model_dump() for s in self.segments],
            "words_per_minute": self.words_per_minute,
            "words": [w.model_dump() for w in self.words],
            "confidence": self.confidence,
        }


@dataclass
class RawSegment:
    """A decoder segment before cleaning: with the scores the quality checks need."""

    start: float
    end: float
    text: str
    avg_logprob: float
    no_speech_prob: float
    compression_ratio: float
    words: list[Word] = field(default_factory=list)
