"""What only the model can tell about a recording: no words, not English, a hallucinated
tail. And the cleaning of the decoder's words. Pure functions over `RawSegment`s."""

from __future__ import annotations

from coach.stt.types import RawSegment, Word

NO_SPEECH = (
    "No speech was found in the recording. Speak closer to the microphone and record again, "
    "or type your answer instead."
)
NOT_ENGLISH = (
    "The recording does not sound like English, and the speech model only understands "
    "English. Answer in English and record again (if you did, speak a little more slowly and "
    "clearly), or type your answer instead."
)

# The non-English signal, measured with tiny.en (benchmarks/README.md): English speech,
# synthetic (several espeak-ng voices, also English read by the Korean voice) or human,
# decodes at an average log-probability of -0.2 to -0.5, mean word probability 0.75 or
# more and at most 20 % of words under 0.5. German, French, Spanish, Korean, Japanese and
# Mandarin speech decode at -0.6 to -2.1 with mean word probability 0.17-0.55 and 40-92 %
# of words under 0.5 (the English-only decoder guesses English-looking words it is unsure
# of), or into repetition loops (compression ratio above 2.4 even after temperature
# fallback).
NON_ENGLISH_LOGPROB = -0.9
NON_ENGLISH_MEAN_PROB = 0.6
NON_ENGLISH_LOW_SHARE = 0.35
NON_ENGLISH_CERTAIN_LOGPROB = -1.4
REPETITION_RATIO = 2.4
EARLY_CHECK_SECONDS = 8.0  # judge the language once this much speech is decoded
# Under this much speech, word confidence is noisier: one clean espeak-ng sentence of 2-3.5 s ("Most
# of our batch jobs run at night.") decodes at mean word probability 0.34-0.60 with 36-60 % of words
# under 0.5, and 17 of 247 such sentences were refused (benchmarks/README.md, "Do the errors survive
# speech-to-text?"); 2.5-4 s stretches of the Korean and German fixtures have 55-100 % of words under
# 0.5, and those under 69 % a log-probability of -0.86 or lower. So a short recording is refused on
# word confidence only when most words are unsure (a margin chosen on those 17 + 10 clips: small).
SHORT_SPEECH_SECONDS = 4.0
NON_ENGLISH_SHORT_LOW_SHARE = 0.65


def mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def looks_non_english(segments: list[RawSegment], narrowband: bool = False) -> bool:
    """English-only Whisper on other languages: low confidence, or repetition loops.

    Narrow-band (telephone, 8 kHz) English decodes less surely: short espeak-ng answers at
    8 kHz reach a mean word probability of 0.57 with 46 % of words under 0.5, but keep an
    average log-probability of -0.45 to -0.78, while German, French, Spanish and Korean at
    8 kHz stay at -0.95 or lower. So for such a recording, word confidence alone does not
    refuse it; the log-probability must agree."""
    words = [w for s in segments for w in s.words]
    spoken = sum(max(s.end - s.start, 0.01) for s in segments)
    if not words or spoken <= 0:
        return False
    logprob = sum(s.avg_logprob * max(s.end - s.start, 0.01) for s in segments) / spoken
    mean_prob = sum(w.probability for w in words) / len(words)
    low_share = sum(w.probability < 0.5 for w in words) / len(words)
    if logprob < NON_ENGLISH_CERTAIN_LOGPROB:
        return True
    if not narrowband and mean_prob < NON_ENGLISH_MEAN_PROB and low_share > (
            NON_ENGLISH_LOW_SHARE if spoken >= SHORT_SPEECH_SECONDS else NON_ENGLISH_SHORT_LOW_SHARE):
        return True
    if logprob < NON_ENGLISH_LOGPROB and (mean_prob < 0.7 or low_share > 0.3):
        return True
    # A decoder stuck repeating itself at every temperature, and unsure of its words, has
    # not understood the speech (a speaker who really repeats a sentence is decoded with
    # high word probabilities, and is kept).
    looping = sum(
        max(s.end - s.start, 0.01) for s in segments if s.compression_ratio > REPETITION_RATIO
    )
    return looping > 0.5 * spoken and mean_prob < 0.8


def is_tail_hallucination(segment: RawSegment) -> bool:
    """Whisper's habit on a sliver of audio at the end of a window: an unsure, short
    "Thank you." where nobody spoke. Dropped; a real, clear "thank you" is kept."""
    if segment.end - segment.start >= 1.0:
        return False
    return segment.no_speech_prob > 0.6 or (
        segment.no_speech_prob > 0.4 and segment.avg_logprob < -1.0
    )


def clean_words(raw: list[Word]) -> list[Word]:
    """Stripped words; a token of symbols only ("%" after "78") joins the word before it and
    keeps that word's probability (its own is about spelling, not about how clearly the
    word was said)."""
    words: list[Word] = []
    for w in raw:
        text = w.word.strip()
        if not text:
            continue
        if not any(ch.isalnum() for ch in text):
            if words:
                last = words[-1]
                words[-1] = Word(word=last.word + text, start=last.start, end=round(w.end, 3),
                                 probability=last.probability)
            continue
        words.append(Word(word=text, start=round(w.start, 3), end=round(w.end, 3),
                          probability=round(w.probability, 4)))
    return words


def words_per_minute(words: list[Word]) -> float | None:
    if not words:
        return None
    span = max(words[-1].end - words[0].start, 0.1)
    return round(60 * len(words) / span, 1)
