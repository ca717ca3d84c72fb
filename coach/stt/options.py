"""How a recording is decoded: one documented dataclass, shared by every engine and by the
whole-file and the incremental (live) transcribers."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

# A disfluent prompt makes Whisper transcribe verbatim, keeping more of the fillers. The
# often-quoted "Umm, let me think like, hmm... Okay, here's what I'm, like, thinking." kept
# 0 of 5 fillers of tests/fixtures/audio/fillers.ogg with tiny.en and beam 2; this one,
# dense in "um" and "uh", kept 5 of 5 there and added none to filler-free English, synthetic
# or human (benchmarks/README.md).
VERBATIM_PROMPT = "So, um, I think, uh, the main issue was, um, latency. Uh, we fixed it."
BEAM_SIZE = 2
WINDOW_SECONDS = 28.0  # under Whisper's 30 s so that each window is one decoder pass
VAD_MIN_SILENCE_MS = 1000
VAD_PAD_MS = 300
TEMPERATURES = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)
# Whisper keeps at most 223 prompt tokens (half its 448-token context); the card's terms
# go first, the verbatim prompt last, and the list is cut so that both fit.
MAX_VOCABULARY_CHARS = 400


@dataclass(frozen=True)
class DecodeOptions:
    """Decoder settings for one transcription.

    beam_size      beam search width (2: a little more faithful than greedy, 35 % slower).
    temperatures   the fallback schedule when a decode looks wrong (compression, log-prob).
    prompt         the initial prompt of every window; the default keeps "um"/"uh".
    vocabulary     terms to bias recognition towards (a card's key terms: "NCCL",
                   "Nsight", "utilization"); put in front of the prompt as a glossary
                   (see `initial_prompt`), never as faster-whisper ``hotwords``, which made
                   tiny.en skip audio (benchmarks/README.md).
    bias           how the vocabulary reaches the decoder: "prompt" (the default, a glossary
                   before the verbatim prompt) or "hotwords" (faster-whisper's own option;
                   kept for the measurement in benchmarks/vocabulary.py).
    window_seconds most speech decoded in one pass (under Whisper's 30 s).
    vad_min_silence_ms, vad_pad_ms
                   Silero VAD: a silence this long ends a speech span; each span is padded.
    """

    beam_size: int = BEAM_SIZE
    temperatures: tuple[float, ...] = TEMPERATURES
    prompt: str = VERBATIM_PROMPT
    vocabulary: tuple[str, ...] = field(default_factory=tuple)
    bias: str = "prompt"
    window_seconds: float = WINDOW_SECONDS
    vad_min_silence_ms: int = VAD_MIN_SILENCE_MS
    vad_pad_ms: int = VAD_PAD_MS

    def hotwords(self) -> str | None:
        if not self.vocabulary or self.bias != "hotwords":
            return None
        return ", ".join(self.vocabulary)

    def with_vocabulary(self, terms) -> DecodeOptions:
        return replace(self, vocabulary=tuple(terms or ()))

    def initial_prompt(self) -> str:
        """The prompt the decoder is primed with: "Glossary: A, B, C." then the verbatim
        prompt. Whisper reads the prompt as text that came before, so the glossary makes the
        card's spellings likely without being transcribed itself."""
        if not self.vocabulary or self.bias != "prompt":
            return self.prompt
        terms: list[str] = []
        used = 0
        for term in self.vocabulary:
            if used + len(term) + 2 > MAX_VOCABULARY_CHARS:
                break
            terms.append(term)
            used += len(term) + 2
        return f"Glossary: {', '.join(terms)}. {self.prompt}"
