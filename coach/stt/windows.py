"""Where the speech is in a recording: Silero VAD (bundled with faster-whisper), grouped
into windows that are each decoded in one pass."""

from __future__ import annotations

from dataclasses import dataclass

from coach import audio as audio_mod
from coach.stt.options import DecodeOptions


@dataclass
class SpeechWindow:
    """Speech spans (sample ranges of the recording) decoded together in one pass, with the
    silences between them cut out; times in the decoded audio map back to the recording."""

    spans: list[tuple[int, int]]

    @property
    def samples_count(self) -> int:
        return sum(end - start for start, end in self.spans)

    def audio(self, samples):
        import numpy as np

        return np.concatenate([samples[start:end] for start, end in self.spans])

    def to_original(self, seconds: float, anchor: float | None = None) -> float:
        """Map a time of the decoded audio to the recording. `anchor` (a word's middle)
        picks the span, so that a word's start and end stay in the same span."""
        rate = audio_mod.SAMPLE_RATE
        where = (seconds if anchor is None else anchor) * rate
        offset = 0
        for index, (start, end) in enumerate(self.spans):
            length = end - start
            if where < offset + length or index == len(self.spans) - 1:
                original = start + (seconds * rate - offset)
                return min(max(original, start), end) / rate
            offset += length
        return seconds  # pragma: no cover - no spans


def speech_windows(samples, options: DecodeOptions | None = None) -> list[SpeechWindow]:
    """Where the speech is: Silero VAD (bundled with faster-whisper), grouped into windows of
    at most WINDOW_SECONDS of speech, each decoded in one pass with the verbatim prompt (the
    decoders drop an initial prompt after the first 30 s window). Silences of a second or
    more are cut out before decoding and restored in the times: Whisper stretches the word
    before a silence over it, which would hide the long pauses that delivery reports."""
    from faster_whisper.vad import VadOptions, get_speech_timestamps

    options = options or DecodeOptions()
    vad = VadOptions(
        min_silence_duration_ms=options.vad_min_silence_ms,
        speech_pad_ms=options.vad_pad_ms,
        max_speech_duration_s=options.window_seconds,
    )
    spans = get_speech_timestamps(samples, vad, sampling_rate=audio_mod.SAMPLE_RATE)
    return group_spans([(int(s["start"]), int(s["end"])) for s in spans], options.window_seconds)


def group_spans(spans: list[tuple[int, int]], window_seconds: float) -> list[SpeechWindow]:
    """Consecutive speech spans, packed into windows of at most `window_seconds` of speech."""
    limit = int(window_seconds * audio_mod.SAMPLE_RATE)
    windows: list[SpeechWindow] = []
    for start, end in spans:
        if windows and windows[-1].samples_count + (end - start) <= limit:
            windows[-1].spans.append((start, end))
        else:
            windows.append(SpeechWindow(spans=[(start, end)]))
    return windows
