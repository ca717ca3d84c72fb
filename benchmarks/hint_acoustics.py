"""Would an acoustic check make "did you mean …?" useful? An experiment, not the app's path.

    .venv/bin/python benchmarks/hint_acoustics.py [--sentences-per-card 8]

Card sentences that hold the card's terms, spoken by espeak-ng (en-us 150 wpm, en-gb 160 wpm),
transcribed by tiny.en with the card's vocabulary, as benchmarks/pronunciation.py (c) does. For
every card term not in the transcript, the transcript's windows of one to three words that look a
little like it (spelling or sound likeness >= 50) are candidates. Each candidate is scored against
the audio: the transcript is force-aligned (coach.pronunciation.align) once as heard and once with
the window replaced by the term, and the term's probability (geometric mean over its words) is
compared with the heard words'. Printed per half of the cards (dev: rules chosen there; test:
only scored), for three ways of hinting:

- today's hints (coach.vocabulary.misheard_terms, spelling likeness >= 70 / 80);
- a looser spelling likeness (>= 65) alone;
- that, kept only where the audio supports the term (probability >= 3e-4 and >= 0.1 x the heard
  words'), together with today's hints.

Figures: the share of misheard card terms that got the right hint, and false hints per 10
answers whose terms were all heard right. About 30 minutes on 2 cores. Asserts nothing.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import numpy as np  # noqa: E402
from pronunciation import speak, split_of, term_sentences  # noqa: E402  (benchmarks/pronunciation.py)
from rapidfuzz import fuzz  # noqa: E402

from coach import audio as audio_mod  # noqa: E402
from coach import pronunciation as pron  # noqa: E402
from coach import stt  # noqa: E402
from coach.config import load_settings  # noqa: E402
from coach.errors import AudioError  # noqa: E402
from coach.library import default_library  # noqa: E402

# the likeness measures of "did you mean" itself, so the candidates are the ones it would see
from coach.vocabulary import (  # noqa: E402
    _inflection,
    _only_parts_of,
    _sound,
    _squash,
    _suggestible,
    card_vocabulary,
    misheard_terms,
)

LOOSE, CANDIDATES = 50, 8  # likeness to look at, candidates per answer at most
RULES = {  # chosen on the dev half of the cards (a grid over likeness, probability and ratio)
    "spelling >= 65 alone": lambda c: c["likeness"] >= 65,
    "spelling >= 65 + the audio supports the term": lambda c: (
        c["likeness"] >= 65 and c["p_term"] >= 3e-4 and c["p_term"] / max(c["p_heard"], 1e-3) >= 0.1),
}


def _geometric_mean(aligned, start: int, size: int) -> float:
    probabilities = [a.probability for a in aligned[start : start + size]]
    return float(np.exp(np.mean(np.log(np.clip(probabilities, 1e-4, 1))))) if probabilities else 0.0


def candidates(words: list[str], vocabulary: list[str], heard: str) -> list[tuple[str, int, int, float]]:
    """(term, first word, number of words, likeness): the best window per unheard term."""
    best: dict[str, tuple[str, int, int, float]] = {}
    for term in vocabulary:
        if not _suggestible(term) or _squash(term) in _squash(heard):
            continue
        size = len(term.split())
        for n in {max(1, size - 1), size, size + 1}:
            for i in range(len(words) - n + 1):
                parts = words[i : i + n]
                window = " ".join(parts)
                if len(_squash(window)) < 2 or _only_parts_of(parts, term) or _inflection(window, term):
                    continue
                likeness = max(fuzz.ratio(window.lower(), term.lower()), fuzz.ratio(_sound(window), _sound(term)))
                if likeness >= LOOSE and likeness > best.get(term, ("", 0, 0, -1.0))[3]:
                    best[term] = (term, i, n, likeness)
    return sorted(best.values(), key=lambda c: -c[3])[:CANDIDATES]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sentences-per-card", type=int, default=8)
    args = parser.parse_args()
    settings = load_settings()
    model = stt.load_model(settings)
    folder = Path(tempfile.mkdtemp(prefix="hint-acoustics-"))
    answers = []  # per answer: its half, the terms misheard, today's hints, the scored candidates
    for card in sorted(default_library().cards.values(), key=lambda c: c.id):
        vocabulary = card_vocabulary(card)
        if not vocabulary:
            continue
        options = stt.DecodeOptions().with_vocabulary(vocabulary)
        for sentence, said in term_sentences(card, vocabulary, args.sentences_per_card):
            for voice, rate in (("en-us", 150), ("en-gb", 160)):
                data = speak(sentence, voice, rate, folder)
                try:
                    transcript = stt.transcribe(data, settings, options)
                except AudioError:
                    continue
                heard = transcript.text
                missed = {t for t in said
                          if not re.search(rf"(?<![\w-]){re.escape(t.lower())}(?![\w-])", heard.lower())}
                words = [w for w in (re.sub(r"[^\w\-+']", "", w.word.strip()) for w in transcript.words) if w]
                samples = audio_mod.decode(data).samples
                as_heard = pron.align(model, samples, " ".join(words), trim=True)
                scored = []
                if len(as_heard) == len(words):
                    for term, i, n, likeness in candidates(words, vocabulary, heard):
                        replaced = words[:i] + term.split() + words[i + n :]
                        with_term = pron.align(model, samples, " ".join(replaced), trim=True)
                        if len(with_term) == len(replaced):
                            scored.append({"term": term, "likeness": likeness,
                                           "p_heard": _geometric_mean(as_heard, i, n),
                                           "p_term": _geometric_mean(with_term, i, len(term.split()))})
                today = {s.term for s in misheard_terms(heard, vocabulary)}
                answers.append((split_of(card.id), missed, today, scored))
        print(f"  {card.id}: {len(answers)} answers so far", flush=True)

    ways = {"today's hints": lambda c: False, **RULES}
    for half in ("dev", "test"):
        mine = [a for a in answers if a[0] == half]
        misheard = sum(len(a[1]) for a in mine)
        right_answers = [a for a in mine if not a[1]]
        print(f"{half} cards: {len(mine)} answers, {misheard} misheard card terms, "
              f"{len(right_answers)} answers heard right")
        for name, rule in ways.items():
            hints = [(a, a[2] | {c["term"] for c in a[3] if rule(c)}) for a in mine]
            right = sum(len(h & a[1]) for a, h in hints)
            false = sum(len(h) for a, h in hints if not a[1])
            print(f"  {name:48} right hint for {right / max(1, misheard):.2f} of misheard terms; "
                  f"{10 * false / max(1, len(right_answers)):.1f} false hints per 10 right answers")


if __name__ == "__main__":
    main()
