""""Did you mean …?" with acoustic support: which card terms a spoken answer's transcript
probably misheard, decided by the recording, not by the spelling alone.

    term_hints(transcript, samples, vocabulary) -> [TermSuggestion(heard="them CCL", term="NCCL", ...)]
    candidates(words, vocabulary) -> [Candidate(term, first word, number of words, likeness)]

Candidates: for each card term the transcript does not hold, the transcript's run of words whose
sounds (CMU dictionary phones, or espeak-ng's reading mapped to them for words outside it:
coach.phones.said_as) are most like the term's; it is a candidate when that likeness is at least
LIKENESS, or when the spelling rule of coach.vocabulary.misheard_terms suggests the term there.
Each candidate is then put to the audio as coach.phones does (a PocketSphinx forced choice, a
finite-state grammar): the span of the candidate's words by Whisper's word timestamps, with the
word before and after as context, is decoded with one place that may hold either the transcribed
words or the term. The term carries a prior of THRESHOLD (acoustic log-likelihood; negative
favours it): it is hinted when the audio supports it at least that well against the transcribed
words. LIKENESS and THRESHOLD were chosen on the development half of benchmarks/hints.py only
(figures in benchmarks/README.md).

Without a recording (a typed answer's correction, a transcript with no timed words) the hints are
the spelling rule's, as before. The forced choices run only when a candidate exists: about 20-60
ms each for a span of one to three seconds on a loaded core.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from coach import phones
from coach.vocabulary import (
    TermSuggestion,
    _contains_word,
    _inflection,
    _only_parts_of,
    _squash,
    _suggestible,
    misheard_terms,
)

RATE = 16_000
LIKENESS = 0.5  # phone likeness (0-1) of a run of words to a term, to be put to the audio
THRESHOLD = -50.0  # the term's prior against the transcribed words (coach.phones units; negative favours it)
MAX_CANDIDATES = 6  # forced choices per answer at most, the likeliest first
PAD = 0.1  # seconds of audio kept either side of the context words
EDGE = 0.3  # seconds kept before or after a candidate at the start or end of the answer
MIN_TERM_PHONES = 3  # shorter terms ("ML": EH M EH L is 4) match too much ordinary speech
_CLEAN = re.compile(r"^[^\w]+|[^\w+]+$")


@dataclass(frozen=True)
class Candidate:
    term: str
    start: int  # index of the first transcript word
    size: int  # number of transcript words
    likeness: float  # 0-1, phones (or 1.0 when only the spelling rule found it)
    spelled: bool = False  # the spelling rule suggests it too


def _phones(text: str) -> list[list[str]]:
    """The ways `text` may be said (phones), the main one first."""
    return [p.split() for p in phones.phrase_prons(text.split())]


def _likeness(said: list[str], term: list[list[str]]) -> float:
    """How alike in sound (0-1): the transcribed words' main pronunciation against the term's
    closest one (normalised edit distance over phones)."""
    from rapidfuzz.distance import Levenshtein

    return max((float(Levenshtein.normalized_similarity(said, t)) for t in term if t), default=0.0) if said else 0.0


def candidates(words: list[str], vocabulary, *, text: str | None = None,
               likeness: float = LIKENESS) -> list[Candidate]:
    """Card terms not in the transcript's `words`, each with the run of words most like it in
    sound (or the one the spelling rule points at), at least `likeness` alike or spelled
    alike; one term per run of words, the likeliest first."""
    return select(all_candidates(words, vocabulary, text=text), likeness)


def all_candidates(words: list[str], vocabulary, *, text: str | None = None) -> list[Candidate]:
    """Each card term not in the transcript with its likeliest run of words, however unlike."""
    text = " ".join(words) if text is None else text
    said = _squash(text)
    known = {_squash(t) for t in vocabulary}
    spelled = {s.term: s.heard for s in misheard_terms(text, vocabulary, limit=len(vocabulary) or 1)}
    word_phones = [(_phones(w) or [[]])[0] for w in words]
    found: list[Candidate] = []
    for term in vocabulary:
        if not _suggestible(term) or _squash(term) in said:
            continue
        term_phones = _phones(term)
        if not term_phones or max(len(t) for t in term_phones) < MIN_TERM_PHONES:
            continue
        shortest, longest = min(len(t) for t in term_phones), max(len(t) for t in term_phones)
        term_words = [w for w in re.split(r"[\s\-]+", term) if len(w) > 2]
        best: Candidate | None = None
        for size in range(1, len(term.split()) + 3):
            for i in range(len(words) - size + 1):
                parts = words[i : i + size]
                heard = " ".join(parts)
                said_phones = [p for k in range(i, i + size) for p in word_phones[k]]
                if not said_phones or not 0.5 * shortest <= len(said_phones) <= 1.6 * longest + 1:
                    continue
                score = _likeness(said_phones, term_phones)
                if best is not None and score <= best.likeness:
                    continue  # (the checks below only for a better run: they cost more)
                if any(_squash(p) in known for p in parts) or _only_parts_of(parts, term) or _inflection(heard, term):
                    continue
                # the term's own words, inflected ("utilizations"), are not a mishearing; one of
                # them beside other words may be ("Micro matches" for Micro-batches)
                if all(any(_contains_word(p, w) for w in term_words) for p in parts):
                    continue
                best = Candidate(term, i, size, round(score, 3))
        hint = spelled.get(term)
        span = _find(words, hint) if hint is not None else None
        if span is not None:
            said_phones = [p for k in range(span[0], span[0] + span[1]) for p in word_phones[k]]
            score = round(_likeness(said_phones, term_phones), 3)
            if best is None or score >= best.likeness:
                best = Candidate(term, *span, likeness=score, spelled=True)
            else:  # the words most like it in sound, near where the spelling points
                best = Candidate(term, best.start, best.size, best.likeness, spelled=True)
        if best is not None:
            found.append(best)
    return found


def select(found: list[Candidate], likeness: float = LIKENESS) -> list[Candidate]:
    """The candidates worth a forced choice: spelled alike or at least `likeness` alike in sound;
    one term per run of words (the likeliest), the likeliest first."""
    found = sorted((c for c in found if c.spelled or c.likeness >= likeness), key=lambda c: (-c.spelled, -c.likeness))
    out: list[Candidate] = []
    for c in found:
        if all(c.start + c.size <= o.start or o.start + o.size <= c.start for o in out):
            out.append(c)
    return out


def _find(words: list[str], heard: str) -> tuple[int, int] | None:
    """Where the words `heard` stand in `words` (first occurrence): (first index, count)."""
    target = [_squash(w) for w in heard.split()]
    keys = [_squash(w) for w in words]
    for i in range(len(keys) - len(target) + 1):
        if keys[i : i + len(target)] == target:
            return i, len(target)
    return None


def timed_words(transcript) -> list[tuple[str, float, float]]:
    """The transcript's words, punctuation trimmed, with their start and end (seconds)."""
    out = []
    for w in getattr(transcript, "words", None) or []:
        word = _CLEAN.sub("", (w.word or "").strip())
        if word:
            out.append((word, float(w.start), float(w.end)))
    return out


def supported(samples: np.ndarray, timed: list[tuple[str, float, float]], candidate: Candidate,
              threshold: float = THRESHOLD) -> bool | None:
    """The forced choice: does the audio of the candidate's words (with a word of context on
    either side) support the term at least as well as the transcribed words, less `threshold`?
    None when the decoder found no path."""
    i, n = candidate.start, candidate.size
    before = timed[i - 1 : i]
    after = timed[i + n : i + n + 1]
    start = before[0][1] - PAD if before else timed[i][1] - EDGE
    end = after[0][2] + PAD if after else timed[i + n - 1][2] + EDGE
    first, last = max(0, int(start * RATE)), min(samples.size, int(end * RATE))
    if last - first < RATE // 10:
        return None
    said = [w for w, _, _ in timed[i : i + n]]
    choice = phones.forced_choice(samples[first:last], [w for w, _, _ in before], [said, candidate.term.split()],
                                  [w for w, _, _ in after], [0.0, threshold])
    return None if choice is None else choice == 1


def term_hints(transcript, audio, vocabulary, *, limit: int = 3, likeness: float = LIKENESS,
               threshold: float = THRESHOLD) -> list[TermSuggestion]:
    """"Did you mean …?" for a spoken answer: the candidates the audio supports (at most
    `limit`). `audio`: 16 kHz samples, or the recording's path (read only when a candidate
    exists). Without audio, timed words, or when the recording cannot be read: the spelling
    rule alone."""
    text = getattr(transcript, "text", "") or ""
    timed = timed_words(transcript)
    if audio is None or not timed:
        return misheard_terms(text, vocabulary, limit=limit)
    words = [w for w, _, _ in timed]
    found = candidates(words, vocabulary, text=text, likeness=likeness)[:MAX_CANDIDATES]
    if not found:
        return []
    samples = _samples(audio)
    if samples is None:
        return misheard_terms(text, vocabulary, limit=limit)
    out: list[TermSuggestion] = []
    for candidate in found:
        verdict = supported(samples, timed, candidate, threshold)
        if verdict or (verdict is None and candidate.spelled):
            heard = " ".join(words[candidate.start : candidate.start + candidate.size])
            out.append(TermSuggestion(heard=heard, term=candidate.term, score=int(round(100 * candidate.likeness))))
        if len(out) >= limit:
            break
    return out


def _samples(audio) -> np.ndarray | None:
    if isinstance(audio, np.ndarray):
        return audio if audio.size else None
    from coach.audio import read_samples
    from coach.errors import AudioError

    try:
        samples = read_samples(audio)
    except (AudioError, OSError):
        return None
    return samples if samples.size else None


def warm(vocabulary) -> None:
    """Read the card's terms (espeak-ng for those outside the dictionary) and make the decoder
    ahead of "stop", so that the hints after it wait for neither."""
    for term in vocabulary:
        if _suggestible(term):
            _phones(term)
    with phones._lock:
        phones._get_decoder()


def stored_turn_hints(turn, vocabulary) -> list:
    """The hints of an answer already stored (a session loaded again): put to its kept recording
    as after "stop", while the transcript is as heard; by spelling alone once it was corrected (the
    words' times no longer fit) or when the recording is gone."""
    from coach.stt import Transcript

    text = turn.answer_text or ""
    try:
        transcript = Transcript.model_validate_json(turn.transcript_json)
    except ValueError:
        return misheard_terms(text, vocabulary)
    if text != transcript.text:
        return misheard_terms(text, vocabulary)
    audio = getattr(turn, "audio_path", None)
    return term_hints(transcript, audio if audio and Path(audio).exists() else None, vocabulary)
