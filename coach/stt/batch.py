"""Transcribing a whole recording: decode, find the speech (VAD), decode each window, check
the result, assemble the `Transcript`. The live path (`coach.stt.incremental`) decodes its
segments with the same `decode_speech` and assembles them with the same `assemble`."""

from __future__ import annotations

import time
from pathlib import Path

from coach import audio as audio_mod
from coach.errors import AudioError
from coach.stt import checks
from coach.stt.engines import SpeechEngine
from coach.stt.loading import _settings, load_model
from coach.stt.options import DecodeOptions
from coach.stt.types import RawSegment, Segment, Transcript
from coach.stt.windows import SpeechWindow, speech_windows


def decode_speech(model: SpeechEngine, window: SpeechWindow, samples, options: DecodeOptions,
                  offset: float = 0.0) -> list[RawSegment]:
    """Decode one window of `samples`; times come back in the recording's seconds, shifted
    by `offset` (where `samples` start in the recording). Hallucinated tails are dropped."""
    out: list[RawSegment] = []
    for segment in model.decode_window(window.audio(samples), options):
        if checks.is_tail_hallucination(segment):
            continue
        for word in segment.words:
            middle = (word.start + word.end) / 2
            word.start = window.to_original(word.start, middle) + offset
            word.end = window.to_original(word.end, middle) + offset
        if segment.words:
            segment.start, segment.end = segment.words[0].start, segment.words[-1].end
        else:
            segment.start = window.to_original(segment.start) + offset
            segment.end = window.to_original(segment.end) + offset
        out.append(segment)
    return out


def assemble(segments: list[RawSegment], duration: float, model: SpeechEngine,
             elapsed: float, narrowband: bool = False) -> Transcript:
    """The transcript of decoded segments; AudioError when there are no words or they are
    not English."""
    words = checks.clean_words([w for s in segments for w in s.words])
    text = " ".join(s.text.strip() for s in segments if s.text.strip()).strip()
    if not words and not any(ch.isalnum() for ch in text):
        raise AudioError(checks.NO_SPEECH)
    if checks.looks_non_english(segments, narrowband):
        raise AudioError(checks.NOT_ENGLISH)
    mean_prob = checks.mean([w.probability for w in words])
    return Transcript(
        text=text,
        duration=round(duration, 3),
        language="en",
        segments=[
            Segment(start=round(s.start, 3), end=round(s.end, 3), text=s.text.strip())
            for s in segments
            if s.text.strip()
        ],
        words=words,
        words_per_minute=checks.words_per_minute(words),
        engine=model.engine,
        model=model.name,
        confidence=round(mean_prob, 4) if mean_prob is not None else None,
        transcribe_seconds=round(elapsed, 3),
    )


def transcribe(audio: bytes | str | Path, settings=None, options: DecodeOptions | None = None,
               *, vocabulary=None) -> Transcript:
    """Transcribe one recording. `vocabulary` (terms such as a card's key terms) biases the
    decoder towards those spellings. Raises AudioError (a clear reason to retry or type
    instead) or SpeechModelError (the model cannot be loaded)."""
    settings = settings or _settings()
    options = options or DecodeOptions()
    if vocabulary:
        options = options.with_vocabulary(vocabulary)
    decoded = audio_mod.load(audio, settings.max_audio_seconds)
    declared = decoded.declared_duration
    if decoded.cut_off and declared is not None and decoded.duration < 0.5 * declared:  # too little to trust
        raise AudioError(decoded.cut_off_text(audio_mod.CUT_OFF))
    narrowband = (decoded.source_rate or audio_mod.SAMPLE_RATE) < audio_mod.SAMPLE_RATE
    windows = speech_windows(decoded.samples, options)
    if not windows:
        raise AudioError(checks.NO_SPEECH)
    model = load_model(settings)
    started = time.perf_counter()
    segments: list[RawSegment] = []
    judged = False
    try:
        for window in windows:
            segments += decode_speech(model, window, decoded.samples, options)
            if not judged and segments and segments[-1].end - segments[0].start >= checks.EARLY_CHECK_SECONDS:
                # Judge the language on the first window, rather than decode all of a long
                # recording in another language.
                judged = True
                if checks.looks_non_english(segments, narrowband):
                    raise AudioError(checks.NOT_ENGLISH)
        transcript = assemble(segments, decoded.duration, model, time.perf_counter() - started, narrowband)
    except AudioError as exc:
        if decoded.cut_off and str(exc) in (checks.NOT_ENGLISH, checks.NO_SPEECH):  # the cut, not the language
            raise AudioError(decoded.cut_off_text(audio_mod.CUT_OFF)) from None
        if str(exc) == checks.NO_SPEECH:
            # the voice detector heard speech (`windows`) that the model wrote down as no words at
            # all: speech it cannot read as English (a Korean answer's decode falls back to sampling,
            # which sometimes gives nothing), not silence
            raise AudioError(checks.NOT_ENGLISH) from None
        raise
    if decoded.cut_off:
        transcript.warnings.append(decoded.cut_off_text(audio_mod.CUT_OFF_NOTE))
    return transcript
