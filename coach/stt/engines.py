"""The speech engines behind one protocol: `decode_window(samples, options)` turns up to 30 s
of 16 kHz mono speech into `RawSegment`s with timed words.

- ``faster-whisper`` (default): CTranslate2, int8 on the CPU, float16 on CUDA.
- ``openai-whisper`` (optional extra): torch, imported lazily.

Loading (which model, which device, digest checks) is in `coach.stt.loading`."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Protocol

from coach.audio import SAMPLE_RATE
from coach.errors import AudioError
from coach.stt.checks import NOT_ENGLISH
from coach.stt.options import DecodeOptions
from coach.stt.types import RawSegment, Word

# With word timestamps, faster-whisper moves on to the last word's end and runs a second pass
# (a whole 30 s encoder pass, 0.25-0.3 s on 2 cores) over what is left of the window. Once a
# segment ends this close to the window's end, what is left is the speech window's padding
# (`VAD_PAD_MS`, and Whisper's word ends fall up to 0.3 s early on people's speech): that pass is not
# run. Over 84 windows (espeak-ng turns, LibriVox and JFK) the rest after the last word was 0.02-0.56
# s and its pass found no word but two made up (" me.", " end."; benchmarks/README.md).
WINDOW_TAIL_S = 1.0


class SpeechEngine(Protocol):
    """What the transcribers need from a loaded model."""

    engine: str
    name: str
    device: str
    compute_type: str

    def decode_window(self, samples, options: DecodeOptions | None = None) -> list[RawSegment]: ...

    def sentence_end_probability(self, samples, words: str) -> float | None: ...


@dataclass
class SpeechModel:
    """A loaded engine: `decode_window(samples)` transcribes up to 30 s of 16 kHz audio."""

    engine: str
    name: str
    device: str
    compute_type: str
    model: Any
    load_seconds: float

    def decode_window(self, samples, options: DecodeOptions | None = None) -> list[RawSegment]:
        raise NotImplementedError

    def sentence_end_probability(self, samples, words: str) -> float | None:
        """How sure the decoder is that a sentence ends after `words` (its transcript of `samples`,
        closing punctuation taken off); None: this engine cannot say."""
        return None


class FasterWhisperModel(SpeechModel):
    def decode_window(self, samples, options: DecodeOptions | None = None) -> list[RawSegment]:
        options = options or DecodeOptions()
        # An English-only model (the default tiny.en) cannot tell languages apart; a
        # multilingual one named by COACH_STT_MODEL detects the language itself.
        multilingual = bool(getattr(self.model.model, "is_multilingual", False))
        segments, info = self.model.transcribe(
            samples,
            language=None if multilingual else "en",
            beam_size=options.beam_size,
            temperature=list(options.temperatures),
            initial_prompt=options.initial_prompt(),
            hotwords=options.hotwords(),
            condition_on_previous_text=False,
            word_timestamps=True,
            vad_filter=False,  # done by the caller (`speech_windows`, the live segmenter)
        )
        if multilingual and info.language != "en" and info.language_probability > 0.5:
            raise AudioError(NOT_ENGLISH)
        out = []
        padding_from = len(samples) / SAMPLE_RATE - WINDOW_TAIL_S
        for s in segments:  # a generator: the decoder's next pass runs only when asked for
            out.append(RawSegment(
                start=s.start,
                end=s.end,
                text=s.text,
                avg_logprob=s.avg_logprob,
                no_speech_prob=s.no_speech_prob,
                compression_ratio=s.compression_ratio,
                words=[
                    Word(word=w.word, start=w.start, end=w.end, probability=w.probability)
                    for w in (s.words or [])
                ],
            ))
            if s.end >= padding_from:
                break
        return out

    def sentence_end_probability(self, samples, words: str) -> float | None:
        """The decoder's probability that a full stop, question or exclamation mark (or the end of
        the text) comes next after `words` (its transcript of `samples` without the closing
        punctuation), with `samples` (at most 30 s) as they are: not padded to Whisper's 30 s
        window, so that the decoder hears the audio stop where the learner stopped. Padded, Whisper
        puts a full stop after a fragment as surely as after a sentence; unpadded, it often expects
        the "and" or the noun it left out ("I have checked the log yesterday" -> " and"). No
        prompt (the words are given): one decoder pass over them, about 0.07 s for a 5 s turn on 2
        cores (benchmarks/README.md, "Hands-free conversation")."""
        import numpy as np

        stem = words.strip()
        if not stem or len(samples) == 0:
            return None
        whisper = self.model
        features = whisper.feature_extractor(samples)[..., :-1][..., : whisper.feature_extractor.nb_max_frames]
        prompt = whisper.get_prompt(self._tokenizer, [], without_timestamps=True, prefix=stem)
        forced = len(prompt) - prompt.index(self._tokenizer.no_timestamps) - 1  # the words' tokens
        # max_length is counted differently with and without a prompt: this bound leaves room for
        # the forced words and the step after them either way
        result = whisper.model.generate(whisper.encode(features), [prompt], beam_size=1,
                                        max_length=len(prompt) + forced + 2, return_logits_vocab=True)[0]
        steps = result.logits[0]  # one per token from the words' first on
        if len(steps) <= forced:
            return None
        logits = np.asarray(steps[forced], dtype=np.float64)
        probabilities = np.exp(logits - logits.max())
        return float(probabilities[self._sentence_end_tokens].sum() / probabilities.sum())

    @cached_property
    def _tokenizer(self):
        from faster_whisper.tokenizer import Tokenizer

        return Tokenizer(self.model.hf_tokenizer, self.model.model.is_multilingual, task="transcribe",
                         language="en")

    @cached_property
    def _sentence_end_tokens(self) -> list[int]:
        """The tokens that end a sentence (".", "?", "!", with or without what may follow them in
        one token, but not "..."), and the end of the text."""
        tokenizer = self._tokenizer
        ends = []
        for token in range(tokenizer.eot):
            piece = tokenizer.decode([token]).strip()
            if piece[:1] in (".", "?", "!") and not piece.startswith(".."):
                ends.append(token)
        return [*ends, tokenizer.eot]


_openai_whisper_lock = threading.Lock()


class OpenAIWhisperModel(SpeechModel):
    def decode_window(self, samples, options: DecodeOptions | None = None) -> list[RawSegment]:
        options = options or DecodeOptions()
        # openai-whisper installs forward hooks on the shared model for every decode (key/
        # value cache, cross-attention capture for word times): two decodes at once would
        # corrupt each other, so they take turns.
        with _openai_whisper_lock:
            if self.model.is_multilingual:
                self._refuse_non_english(samples)
            result = self.model.transcribe(
                samples,
                language="en",
                beam_size=options.beam_size,
                best_of=5,  # faster-whisper's default for the sampling fallback
                temperature=tuple(options.temperatures),
                initial_prompt=options.initial_prompt(),
                condition_on_previous_text=False,
                word_timestamps=True,
                fp16=self.device == "cuda",
                verbose=None,
            )
        return [
            RawSegment(
                start=float(s["start"]),
                end=float(s["end"]),
                text=s["text"],
                avg_logprob=float(s.get("avg_logprob", 0.0)),
                no_speech_prob=float(s.get("no_speech_prob", 0.0)),
                compression_ratio=float(s.get("compression_ratio", 1.0)),
                words=[
                    Word(
                        word=w["word"],
                        start=float(w["start"]),
                        end=float(w["end"]),
                        probability=float(w.get("probability", 1.0)),
                    )
                    for w in s.get("words", [])
                ],
            )
            for s in result.get("segments", [])
        ]

    def _refuse_non_english(self, samples) -> None:
        """A multilingual checkpoint detects the language of the window, as faster-whisper
        does (English-only ones such as tiny.en cannot: `checks.looks_non_english` judges)."""
        import whisper

        mel = whisper.log_mel_spectrogram(
            whisper.pad_or_trim(samples), n_mels=self.model.dims.n_mels
        ).to(self.model.device)
        if self.device == "cuda":
            mel = mel.half()
        _, probs = self.model.detect_language(mel)
        language = max(probs, key=probs.get)
        if language != "en" and probs[language] > 0.5:
            raise AudioError(NOT_ENGLISH)
