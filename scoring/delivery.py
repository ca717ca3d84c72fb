"""Delivery metrics: fillers, hedges and sentence length from the words; pace, pauses and
unsure words from speech-to-text timing when there is some."""

from __future__ import annotations

from collections import Counter

from scoring.detectors.base import lexicon, pattern_data
from scoring.models import Delivery, Pause, SpeechTiming
from scoring.regex import WordPatterns
from scoring.text import Answer


def fillers() -> dict[str, WordPatterns]:
    return {name: lexicon("delivery", "fillers", name) for name in pattern_data("delivery")["fillers"]}


def is_filler(word: str) -> bool:
    return any(patterns.search(word) for patterns in fillers().values())


LONG_PAUSE_S = 1.5
UNCLEAR_PROBABILITY = 0.5
SPEECH_FILLER_NOTE = (
    "Counted from the transcript; the recogniser was asked to keep 'um' and 'uh' but may "
    "still drop some, so the true count can be higher."
)


def _count_fillers(text: str) -> Counter:
    counts = Counter({name: len(patterns.findall(text)) for name, patterns in fillers().items()})
    return +counts  # drop the zeros


def _count_hedges(text: str) -> Counter:
    return Counter(m.text.lower().replace("’", "'") for m in lexicon("delivery", "hedges").findall(text))


def measure(answer: Answer, timing: SpeechTiming | None = None) -> Delivery:
    words = answer.words
    sentences = answer.sentences
    fillers = _count_fillers(answer.text)
    hedges = _count_hedges(answer.text)
    word_count = len(words)
    delivery = Delivery(
        word_count=word_count,
        sentence_count=len(sentences),
        avg_sentence_words=round(word_count / len(sentences), 1) if sentences else 0.0,
        filler_count=sum(fillers.values()),
        filler_rate=round(100 * sum(fillers.values()) / word_count, 2) if word_count else 0.0,
        fillers=dict(fillers),
        hedge_count=sum(hedges.values()),
        hedges=dict(hedges),
    )
    if timing is not None:
        _add_timing(delivery, timing, word_count)
    return delivery


def _add_timing(delivery: Delivery, timing: SpeechTiming, word_count: int) -> None:
    delivery.duration = round(timing.duration, 2)
    delivery.filler_note = SPEECH_FILLER_NOTE
    spoken = timing.words
    if spoken:
        speaking_time = max(spoken[-1].end - spoken[0].start, 0.1)
        delivery.words_per_minute = round(60 * len(spoken) / speaking_time, 1)
    elif timing.duration > 0:
        delivery.words_per_minute = round(60 * word_count / timing.duration, 1)
    for before, after in zip(spoken, spoken[1:], strict=False):
        gap = after.start - before.end
        if gap >= LONG_PAUSE_S:
            delivery.long_pauses.append(
                Pause(
                    start=round(before.end, 2),
                    end=round(after.start, 2),
                    duration=round(gap, 2),
                    after_word=before.word.strip(),
                )
            )
    delivery.unclear_words = [
        w.word.strip()
        for w in spoken
        if w.probability < UNCLEAR_PROBABILITY and w.word.strip() and not is_filler(w.word.strip())
    ]
