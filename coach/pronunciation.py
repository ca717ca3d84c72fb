"""Which words a listener probably did not understand, and what to do about each.

    assess_transcript(model, transcript, samples)       # a free answer: its own words
    assess_reading(model, samples, text, transcript)    # a read-aloud line: the words meant
    pronounce(audio, text=None)                         # both from a file (`coach pronounce`)

How well the audio supports a word is Whisper's own forced alignment (CTranslate2's
`Whisper.align`, on the model faster-whisper has loaded): the probability of the word's
tokens given the audio. A raw probability is not a verdict: tiny.en gives some clearly
spoken words 0.05 ("desk", "of") and others 0.99. So each word is measured against the
same words spoken by a clear reference voice (espeak-ng through `coach.tts`, cached on
disk): `score = probability / expected`, clipped to 1. A content word is flagged when its
score and its probability are both low, or, reading a line, when the free transcript heard
another word in its place and its score is low; function words are never flagged (a
listener gets them from the sentence). The thresholds were tuned on the development half of
benchmarks/pronunciation.py only (figures in benchmarks/README.md).

Sound by sound (coach.phones, issue 28): each word is also put against its Korean-L1 variants
with PocketSphinx's acoustic model; a variant clearly better supported flags the word and names
the sound that changed. Where the phones checked a word, they decide it: Whisper's doubt then
flags nothing (on synthetic speech it tripled the false flags, benchmarks/README.md); Whisper
still flags the words the phones cannot check (terms outside the dictionary). Words are the
line's as written ("NCCL_TOPO_FILE"); numbers and punctuation are never flagged nor counted.

A flagged word gets the sound that went wrong (the phones' type, else from how it was heard,
else from its letters) and one tip in English and Korean (`pronunciation_tips.yaml`).

A free answer costs almost nothing at "stop": the transcript's word probabilities are
already this alignment (faster-whisper computes them the same way), and the reference of
each live segment is made while the learner speaks (`ReferenceWarmer`). Deterministic:
the same audio and text give the same result.
"""

from __future__ import annotations

import difflib
import functools
import logging
import queue
import re
import threading
from pathlib import Path

import numpy as np
import yaml
from pydantic import BaseModel, Field

from coach.content.schema import Voice

log = logging.getLogger(__name__)

TIPS_FILE = Path(__file__).with_name("pronunciation_tips.yaml")
RATE = 16_000
MAX_ALIGN_SECONDS = 30.0  # one Whisper window
# The clear reference voice the learner's words are measured against, always espeak-ng (the
# thresholds were measured with it); the app says lines and flagged words for the learner to
# copy in the same voice settings, natural where a natural voice is installed (coach.tts).
REFERENCE_VOICE = Voice(voice="en-us", rate=150, pitch=50)
SLOW_VOICE_RATE = 110

# Tuned on the development half of benchmarks/pronunciation.py (never on its test half).
# (dev half, 80 substituted words and 1093 correct ones: flagged 0.56 of the substituted
# words at 3.8 false flags per 100 correct synthetic words; looser settings caught at most
# 0.64 at twice the false flags, because half of the respellings leave tiny.en's alignment
# of the meant word unchanged)
EXPECTED_FLOOR = 0.05  # a reference below this says little: compare against this instead
FLAG_SCORE = 0.3  # score (probability / expected) under this ...
FLAG_PROBABILITY = 0.5  # ... and probability under this: not understood
HEARD_FLAG_SCORE = 0.5  # reading a line, another word heard in its place and a score under this
# Whisper's doubt about a word, or another word in the free transcript, flags it only when the
# phone check could not check the word (a term outside the dictionary, a line with no path). On
# the dev half of benchmarks/phones.py Whisper's flags beside the phones' raised the substituted
# words caught from 0.57 to 0.72 but the false flags on unchanged words from 3.5 to 10.5 per 100
WHISPER_NEEDS_PHONES = True

_WORD_CHARS = re.compile(r"[^a-z0-9']+")


class WordScore(BaseModel):
    """One word the learner meant, and how well it came through."""

    word: str
    start: float
    end: float
    score: float = Field(ge=0, le=1)  # probability against the reference voice's, at most 1
    probability: float = Field(ge=0, le=1)  # the aligned probability of the word itself
    expected: float = Field(ge=0, le=1)  # the same word's probability in the reference voice
    flag: bool = False
    heard: str | None = None  # what the free transcript has in its place, when different
    heard_probability: float | None = None  # how sure the transcript was of that
    sound: str | None = None  # the sound that probably went wrong (a key of the tips file)
    tip: str | None = None
    tip_ko: str | None = None
    phones: str | None = None  # the word's meant pronunciation (ARPAbet), when the phone check ran
    heard_phones: str | None = None  # the variant the audio supported better, when it flagged the word

    @property
    def sound_name(self) -> str | None:
        """The changed sound in words ("r / l"), when the phone check heard it changed."""
        if not self.heard_phones or not self.sound:
            return None
        return tips()["sounds"][self.sound]["name"]

    def contract(self) -> dict:
        out: dict = {"word": self.word, "start": self.start, "end": self.end, "score": self.score,
                     "flag": self.flag}
        for key in ("heard", "sound", "tip", "tip_ko", "phones", "heard_phones"):
            value = getattr(self, key)
            if value:
                out[key] = value
        return out


class Pronunciation(BaseModel):
    """Per word, and overall: the share of the content words that came through."""

    text: str
    score: float = Field(ge=0, le=1)
    words: list[WordScore] = Field(default_factory=list)

    @property
    def flagged(self) -> list[WordScore]:
        return [w for w in self.words if w.flag]

    def contract_dict(self) -> dict:
        """The `coach pronounce --format json` shape."""
        return {"text": self.text, "score": self.score, "words": [w.contract() for w in self.words]}


# --- the tips -----------------------------------------------------------------------------


@functools.lru_cache(maxsize=1)
def tips() -> dict:
    with open(TIPS_FILE, encoding="utf-8") as handle:
        return yaml.safe_load(handle)


def function_words() -> frozenset[str]:
    return frozenset(tips()["function_words"])


def normalise(word: str) -> str:
    return _WORD_CHARS.sub("", word.lower().replace("’", "'")).strip("'")


def is_content_word(word: str) -> bool:
    """A word a listener needs to hear: letters, no digits (a number, "p95" or "28H" is read
    in many ways and is not a word to pronounce), not a function word."""
    key = normalise(word)
    return (bool(key) and any(ch.isalpha() for ch in key) and not any(ch.isdigit() for ch in key)
            and key not in function_words())


def is_word(token: str) -> bool:
    """Punctuation on its own ("-", "—", "...") is not a word."""
    return any(ch.isalnum() for ch in token)


def tokens(text: str) -> list[str]:
    """The words of a line as written (NCCL_TOPO_FILE stays one word), punctuation alone dropped."""
    return [t for t in text.split() if is_word(t)]


_SWAPS = (  # (said, heard) letter changes that name a sound
    ("v", "b", "v_b"), ("f", "p", "f_p"), ("ph", "p", "f_p"), ("th", "s", "th"), ("th", "d", "th"),
    ("th", "t", "th"), ("r", "l", "r_l"), ("l", "r", "r_l"), ("z", "j", "z_j"), ("s", "j", "z_j"),
    ("ee", "i", "vowel_length"), ("ea", "i", "vowel_length"), ("i", "ee", "vowel_length"),
    ("i", "ea", "vowel_length"),
)
_VOWEL_ENDINGS = ("eu", "u", "e", "i", "o", "a")


def diagnose(word: str, heard: str | None = None) -> str:
    """The sound that probably went wrong: read from how the word was heard when that is
    known ("belly" for "very": v/b), else the first risky sound the word's letters hold."""
    said = normalise(word)
    if heard:
        got = normalise(heard).replace(" ", "")
        for ending in _VOWEL_ENDINGS:  # "desku" for "desk"
            if said and said[-1] not in "aeiouy" and got == said + ending:
                return "final_vowel"
        matcher = difflib.SequenceMatcher(a=said, b=got, autojunk=False)
        for op, a0, a1, b0, b1 in matcher.get_opcodes():
            if op != "replace":
                continue
            for old, new, sound in _SWAPS:
                if old in said[max(0, a0 - 1) : a1 + 1] and new in got[max(0, b0 - 1) : b1 + 1]:
                    return sound
    for sound, entry in tips()["sounds"].items():
        if any(letters in said for letters in entry["letters"]):
            return sound
    if len(re.findall(r"[aeiouy]+", said)) >= 2:
        return "stress"
    return "final_vowel"


def tip_for(sound: str) -> tuple[str, str]:
    entry = tips()["sounds"][sound]
    return entry["en"], entry["ko"]


# --- alignment ----------------------------------------------------------------------------


class Aligned(BaseModel):
    word: str
    start: float
    end: float
    probability: float


def can_align(model) -> bool:
    """Only faster-whisper's CTranslate2 model has `Whisper.align`."""
    return getattr(model, "engine", "") == "faster-whisper"


def _tokenizer(whisper):
    from faster_whisper.tokenizer import Tokenizer

    multilingual = bool(getattr(whisper.model, "is_multilingual", False))
    return Tokenizer(whisper.hf_tokenizer, multilingual, task="transcribe", language="en")


def align(model, samples: np.ndarray, text: str, offset: float = 0.0, *, trim: bool = False) -> list[Aligned]:
    """Force-align `text` to at most 30 s of 16 kHz `samples`: each word (as Whisper splits
    the text) with its time in seconds (plus `offset`) and its probability given the audio.
    `trim` encodes only the audio's own length (a second past it, whole seconds) instead of
    a padded 30 s window: ten times faster on a short line, probabilities a little different,
    so a learner's words and their reference are aligned the same way."""
    if not text.strip() or samples.size == 0:
        return []
    whisper = model.model
    tokenizer = _tokenizer(whisper)
    features = whisper.feature_extractor(samples[: int(MAX_ALIGN_SECONDS * RATE)])
    content_frames = min(features.shape[-1] - 1, whisper.feature_extractor.nb_max_frames)
    frames = whisper.feature_extractor.nb_max_frames
    if trim:
        frames = min(frames, (content_frames // 100 + 2) * 100)
    chunk = features[:, :frames]
    if chunk.shape[-1] < frames:
        chunk = np.pad(chunk, ((0, 0), (0, frames - chunk.shape[-1])))
    encoded = whisper.encode(chunk)
    tokens = tokenizer.encode(" " + " ".join(text.split()))
    found = whisper.find_alignment(tokenizer, [tokens], encoded, max(1, content_frames))[0]
    return [
        Aligned(word=w["word"].strip(), start=round(float(w["start"]) + offset, 3),
                end=round(float(w["end"]) + offset, 3), probability=float(np.clip(w["probability"], 0, 1)))
        for w in found
        if w["word"].strip()
    ]


_reference_lock = threading.Lock()
_reference_cache: dict[tuple[str, str], tuple[tuple[str, float], ...]] = {}
MAX_REFERENCES = 1024


def expected_scores(model, text: str, settings=None) -> list[tuple[str, float]]:
    """Each word of `text` with its probability when the reference voice says it: what the
    model gives the word spoken clearly. Cached per process (and the speech on disk)."""
    key = (getattr(model, "name", ""), " ".join(text.split()))
    with _reference_lock:
        if key in _reference_cache:
            return list(_reference_cache[key])
    from coach import audio as audio_mod
    from coach import tts

    speech = audio_mod.decode(tts.synthesize(key[1], REFERENCE_VOICE, settings, natural=False)).samples
    words = tuple((w.word, w.probability) for w in align(model, speech, key[1], trim=True))
    with _reference_lock:
        if len(_reference_cache) >= MAX_REFERENCES:
            _reference_cache.pop(next(iter(_reference_cache)))
        _reference_cache[key] = words
    return list(words)


# --- the verdicts -------------------------------------------------------------------------


def judge(word: str, start: float, end: float, probability: float, expected: float,
          instead: tuple[str, float] | None = None) -> WordScore:
    """One word's score and whether a listener probably missed it (see the module docstring);
    `instead`: what the free transcript heard in its place, and how surely."""
    score = min(1.0, probability / max(expected, EXPECTED_FLOOR))
    heard, heard_probability = instead if instead is not None else (None, None)
    flag = False
    if is_content_word(word):
        if heard is not None:
            flag = score < HEARD_FLAG_SCORE
        else:
            flag = score < FLAG_SCORE and probability < FLAG_PROBABILITY
    result = WordScore(word=word, start=start, end=end, score=round(score, 3),
                       probability=round(probability, 3), expected=round(expected, 3), flag=flag,
                       heard=heard,
                       heard_probability=None if heard_probability is None else round(heard_probability, 3))
    if flag:
        sound = diagnose(word, heard)
        result.sound = sound
        result.tip, result.tip_ko = tip_for(sound)
    return result


def _overall(words: list[WordScore]) -> float:
    content = [w for w in words if is_content_word(w.word)] or words
    if not content:
        return 0.0
    return round(sum(not w.flag for w in content) / len(content), 3)


def _match(meant: list[str], other: list[str]) -> list[int | None]:
    """For each word of `meant`, the index of the same word in `other` (normalised), or None."""
    a, b = [normalise(w) for w in meant], [normalise(w) for w in other]
    out: list[int | None] = [None] * len(a)
    for block in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_matching_blocks():
        for k in range(block.size):
            out[block.a + k] = block.b + k
    return out


def _heard_in_place(meant: list[str], heard: list[str], sureness: list[float] | None = None
                    ) -> list[tuple[str, float] | None]:
    """For each meant word, what the transcript has in its place when it differs (a
    substitution; "" when nothing) with the transcript's probability of it, else None."""
    a, b = [normalise(w) for w in meant], [normalise(w) for w in heard]
    sure = sureness if sureness is not None else [1.0] * len(b)
    out: list[tuple[str, float] | None] = [None] * len(a)
    for op, a0, a1, b0, b1 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if op == "replace":
            for i in range(a0, a1):
                out[i] = _closest(a[i], heard[b0:b1], sure[b0:b1], i - a0 if a1 - a0 == b1 - b0 else None)
        elif op == "delete":
            for i in range(a0, a1):
                out[i] = ("", 0.0)
    return out


def _closest(meant: str, heard: list[str], sure: list[float], same_place: int | None) -> tuple[str, float]:
    """What was heard for one meant word of a replaced stretch: the word in the same place
    when the stretches are as long, else the most alike heard word (or all of them)."""
    if same_place is not None:
        return heard[same_place].strip(" ,.;:!?"), sure[same_place]
    likeness = [difflib.SequenceMatcher(a=meant, b=normalise(h)).ratio() for h in heard]
    best = int(np.argmax(likeness))
    if likeness[best] >= 0.5:
        return heard[best].strip(" ,.;:!?"), sure[best]
    return " ".join(heard).strip(" ,.;:!?"), float(np.mean(sure))


def assess_transcript(model, transcript, settings=None, samples: np.ndarray | None = None) -> Pronunciation:
    """A free answer: each transcript word, its probability (the transcriber's alignment)
    against the reference voice's for the same segment's words, and, given the answer's 16 kHz
    `samples`, the phone check of each segment's words against its stretch of audio."""
    words = [w for w in transcript.words if is_word(w.word)]
    scored: list[WordScore] = []
    segments = list(transcript.segments) or []
    used = 0
    for index, segment in enumerate(segments):
        last = index == len(segments) - 1
        mine = [w for w in words[used:] if last or w.start < segment.end + 0.05]
        used += len(mine)
        reference = expected_scores(model, segment.text, settings) if mine else []
        where = _match([w.word for w in mine], [r[0] for r in reference])
        verdicts: list = [None] * len(mine)
        if samples is not None and mine:
            start = max(0.0, min(segment.start, mine[0].start) - 0.2)
            end = max(segment.end, mine[-1].end) + 0.2
            verdicts = phone_check(samples[int(start * RATE) : int(end * RATE)],
                                   [w.word.strip() for w in mine], start)
        for word, place, verdict in zip(mine, where, verdicts, strict=True):
            expected = reference[place][1] if place is not None else 1.0
            judged = judge(word.word.strip(), word.start, word.end, float(word.probability), expected)
            scored.append(with_phones(judged, verdict))
    return Pronunciation(text=transcript.text, score=_overall(scored), words=scored)


def _pieces_of(pieces: list[str], text: str) -> list[list[int]] | None:
    """For each written word of `text` (`tokens`), the indices of Whisper's words that make it
    up: Whisper splits "NCCL_TOPO_FILE" into three and gives some punctuation as words of its
    own. None when the pieces do not spell the text."""
    raw = text.split()
    joined = "".join(raw)
    owner = [i for i, token in enumerate(raw) for _ in token]
    groups: dict[int, list[int]] = {}
    pos = 0
    for k, piece in enumerate(pieces):
        bare = "".join(piece.split())
        if not bare:
            continue
        if joined[pos : pos + len(bare)] != bare:
            return None
        groups.setdefault(owner[pos], []).append(k)
        pos += len(bare)
    if pos != len(joined):
        return None
    out = []
    for i, token in enumerate(raw):
        if is_word(token):
            if i not in groups:
                return None
            out.append(groups[i])
    return out


def _mean_probability(values: list[float]) -> float:
    """A written word's probability from its pieces' (their geometric mean)."""
    return float(np.exp(np.mean(np.log(np.clip(values, 1e-6, 1.0)))))


def _on_written_words(aligned: list[Aligned], reference: list[tuple[str, float]], text: str
                      ) -> tuple[list[Aligned], list[float | None]]:
    """Whisper's alignment of the learner and of the reference voice, per written word of
    `text` (as written: "NCCL_TOPO_FILE", "p95,"); Whisper's own words when they do not
    spell the text."""
    mine = _pieces_of([a.word for a in aligned], text)
    theirs = _pieces_of([r[0] for r in reference], text)
    if mine is None:
        where = _match([a.word for a in aligned], [r[0] for r in reference])
        words = [a for a in aligned if is_word(a.word)]
        expected = [reference[p][1] if p is not None else None for a, p in zip(aligned, where, strict=True)
                    if is_word(a.word)]
        return words, expected
    written = tokens(text)
    words = [
        Aligned(word=word, start=aligned[group[0]].start, end=aligned[group[-1]].end,
                probability=_mean_probability([aligned[k].probability for k in group]))
        for word, group in zip(written, mine, strict=True)
    ]
    if theirs is None:
        return words, [None] * len(words)
    expected_of = [_mean_probability([reference[k][1] for k in group]) for group in theirs]
    return words, list(expected_of)


def phone_check(samples: np.ndarray, words: list[str], offset: float = 0.0) -> list:
    """coach.phones' verdict for each word (None where it is not checked, or where the phone
    check cannot run: the result is then Whisper's alone)."""
    try:
        from coach import phones

        return phones.check(samples, words, offset, skip=function_words())
    except (ImportError, RuntimeError, OSError) as exc:
        log.warning("no phone-level check (%s)", exc)
        return [None] * len(words)


def with_phones(word: WordScore, verdict) -> WordScore:
    """A word's result with the phone check's verdict: a variant clearly better supported than
    the meant pronunciation flags the word, and names the sound that was changed."""
    if verdict is None:
        return word
    word.phones = verdict.meant
    if verdict.flag and is_content_word(word.word):
        word.flag = True
        word.heard_phones = verdict.heard
        word.sound = verdict.type
        word.tip, word.tip_ko = tip_for(verdict.type)
    elif word.flag and WHISPER_NEEDS_PHONES and word.heard is None:
        # Whisper's doubt against the phones, which say the word was said as meant: not flagged
        # (another word in the free transcript, "scleen" for "screen", still is)
        word.flag = False
        word.sound = word.tip = word.tip_ko = None
    return word


def assess_reading(model, samples: np.ndarray, text: str, transcript=None, settings=None,
                   offset: float = 0.0) -> Pronunciation:
    """A read-aloud line (at most 30 s): each written word of `text`, Whisper's alignment of it
    against the reference voice's, what the free transcript heard in its place, and the phone
    check (the meant pronunciation against its Korean-L1 variants)."""
    aligned = align(model, samples, text, offset, trim=True)
    reference = expected_scores(model, text, settings)
    words, expected = _on_written_words(aligned, reference, text)
    heard: list[tuple[str, float] | None] = [None] * len(words)
    if transcript is not None:
        heard = _heard_in_place([w.word for w in words], [w.word.strip() for w in transcript.words],
                                [float(w.probability) for w in transcript.words])
    verdicts = phone_check(samples, [w.word for w in words], offset)
    scored = []
    for word, wanted, instead, verdict in zip(words, expected, heard, verdicts, strict=True):
        judged = judge(word.word, word.start, word.end, word.probability, wanted if wanted is not None else 1.0,
                       instead)
        scored.append(with_phones(judged, verdict))
    return Pronunciation(text=" ".join(text.split()), score=_overall(scored), words=scored)


def pronunciation_of(transcript, settings=None, audio=None) -> dict | None:
    """A spoken answer's result as stored with its turn, or None when it cannot be made (an
    engine without alignment, no text-to-speech for the reference): the answer is scored
    without it, never refused for it. `audio`: the recording, for the phone check."""
    from coach import audio as audio_mod
    from coach import stt
    from coach.errors import CoachError

    try:
        model = stt.load_model(settings)
        if not can_align(model) or not transcript.words:
            return None
        samples = None
        if audio is not None:
            try:
                samples = audio_mod.load(audio).samples
            except CoachError as exc:
                log.warning("no phone-level check for this answer (%s)", exc)
        return assess_transcript(model, transcript, settings, samples).model_dump()
    except CoachError as exc:
        log.warning("no pronunciation feedback for this answer (%s)", exc)
        return None


# a 30 s window holds about this many words even read fast (190 words a minute)
MAX_READ_WORDS = 100
_ENGLISH_WORD = re.compile(r"[A-Za-z]+(?:['’][A-Za-z]+)*")
_HANGUL = re.compile(r"[\u1100-\u11ff\u3130-\u318f\uac00-\ud7af]+")


def reading_problem(text: str) -> str | None:
    """Why `text` cannot be the line a recording read aloud (checked before any audio is
    decoded): no English words to check (a Korean line), or more words than 30 s can hold."""
    english = _ENGLISH_WORD.findall(text)
    korean = _HANGUL.findall(text)
    if not english or len(korean) > len(english):
        what = " (it is Korean)" if korean else ""
        return (f"The line to read has no English words to check{what}: give the English line that was "
                "read aloud, or leave out --text to check the recording's own words.")
    if len(english) > MAX_READ_WORDS:
        return (f"The line to read is {len(english)} words long; a reading is scored on at most "
                f"{MAX_ALIGN_SECONDS:.0f} s of audio (about {MAX_READ_WORDS} words). Give a shorter line.")
    return None


def pronounce(audio, text: str | None = None, settings=None) -> Pronunciation:
    """`coach pronounce`: a recording, and the line read (or its own transcript). AudioError
    (unreadable, silent, not English) as `coach transcribe`; CoachError for a line that cannot
    have been read in one window (no English words, too many)."""
    from coach import audio as audio_mod
    from coach import stt
    from coach.errors import AudioError, CoachError, SpeechModelError

    if text is not None and text.strip() and (problem := reading_problem(text)):
        raise CoachError(problem)
    settings = settings or stt.loading._settings()
    model = stt.load_model(settings)
    if not can_align(model):
        raise SpeechModelError("Pronunciation feedback needs COACH_STT_ENGINE=faster-whisper.")
    decoded = audio_mod.load(audio, settings.max_audio_seconds)
    if text is None or not text.strip():
        return assess_transcript(model, stt.transcribe(audio, settings), settings, decoded.samples)
    if decoded.duration > MAX_ALIGN_SECONDS:
        raise AudioError(f"A line to read is scored on at most {MAX_ALIGN_SECONDS:.0f} s of audio; "
                         f"this recording is {decoded.duration:.0f} s. Record the line on its own.")
    from coach.stt.checks import NOT_ENGLISH

    try:
        transcript = stt.transcribe(audio, settings)
    except AudioError as exc:
        if str(exc) != NOT_ENGLISH:  # silence is one clear message
            raise
        # a heavy accent is what a reading of a given line is scored for, never refused: it is
        # aligned to the line all the same (without what a free transcript heard in its place)
        return assess_reading(model, decoded.samples, text, None, settings)
    return assess_reading(model, decoded.samples, text, transcript, settings)


def word_clip(recording: str | Path, start: float, end: float, margin: float = 0.25) -> bytes:
    """The learner's own word, cut from their recording (a little around it), as a WAV. A stored
    recording is read only around the word (decoding all of a 60 s answer per flagged word held up
    the scorecard by 0.1 s a word)."""
    from coach import audio as audio_mod

    return audio_mod.wav_bytes(audio_mod.read_samples(Path(recording), max(0.0, start - margin), end + margin), RATE)


def slow_voice() -> Voice:
    """The reference voice, slower: a flagged word said the way to copy it."""
    return REFERENCE_VOICE.model_copy(update={"rate": SLOW_VOICE_RATE})


def line_around(result: Pronunciation, index: int, reach: int = 6) -> str:
    """The words around `result.words[index]` to say again: its sentence, at most `reach`
    words either side. A word said on its own aligns badly (Whisper scores a lone word low
    however it is said); inside its sentence it is scored as it was in the answer."""
    words = [w.word for w in result.words]
    start = index
    while start > 0 and index - start < reach and not re.search(r"[.!?]$", words[start - 1]):
        start -= 1
    end = index
    while end < len(words) - 1 and end - index < reach and not re.search(r"[.!?]$", words[end]):
        end += 1
    return " ".join(words[start : end + 1])


def say_again(audio, line: str, word: str, settings=None) -> WordScore | None:
    """"Say it again": a new recording of the line with a flagged word, read against that
    line; the result for the word, or None when the word is not in the line."""
    result = pronounce(audio, line, settings)
    target = normalise(word)
    return next((w for w in result.words if normalise(w.word) == target), None)


class ReferenceWarmer:
    """Makes each live segment's reference while the learner is still speaking, so that at
    "stop" only the last segment's is left. One worker thread; `see` never blocks."""

    def __init__(self, model, settings=None):
        self.model = model
        self.settings = settings
        self._seen = 0
        self._queue: queue.Queue[str | None] = queue.Queue()
        self._thread = threading.Thread(target=self._work, name="pronunciation-reference", daemon=True)
        self._thread.start()

    def see(self, segments) -> None:
        """Hand over the segments finished so far (the live transcriber's list)."""
        new = list(segments)[self._seen :]
        self._seen += len(new)
        for segment in new:
            if segment.text.strip():
                self._queue.put(segment.text.strip())

    def drain(self) -> None:
        """Wait until every segment seen so far has its reference."""
        self._queue.join()

    def close(self) -> None:
        self._queue.put(None)

    def _work(self) -> None:
        while True:
            text = self._queue.get()
            try:
                if text is None:
                    return
                expected_scores(self.model, text, self.settings)
            except Exception as exc:  # noqa: BLE001 - only a warm-up: the answer is scored without it
                log.warning("pronunciation reference failed (%s)", exc)
            finally:
                self._queue.task_done()
