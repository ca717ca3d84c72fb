"""Sound by sound: did the learner say the word they meant, or a Korean-L1-typical variant of it?

    variants(word)                      -> the word's meant pronunciations and its variants
    check(samples, words) -> list[PhoneVerdict | None]   # one per word (None: not checked)

PocketSphinx's US-English acoustic model and CMU pronouncing dictionary (both in the
`pocketsphinx` 5.1.1 wheel; nothing is downloaded) make a forced choice. The words meant
become a finite-state grammar in which each checkable word may be said as meant or as one of
the variants that apply to its phones: r/l, f/p, v/b, th → s/t (and dh → d), z → j, an added
vowel after a final consonant ("desk-eu"), vowel length (ee/i, oo/u). Each variant enters the
grammar with a prior against it: it wins only when the audio supports it better than the meant
pronunciation by its substitution type's threshold (in natural-log acoustic likelihood), so one
decode of the line decides every word. The thresholds were calibrated on the development half
of benchmarks/phones.py (never on its test half; figures in benchmarks/README.md).

Words the dictionary does not have (NCCL_TOPO_FILE, p95, names) and numbers are not checked:
they stand in the grammar as espeak-ng reads them, so they take their time in the audio and
nothing else. One decoder per process, reused behind a lock. Deterministic per call: each
decode starts from the decoder's initial cepstral mean and takes this clip's own (as
`forced_choice`), so a clip is decided the same way whatever was checked before it.
"""

from __future__ import annotations

import functools
import math
import re
import threading
from dataclasses import dataclass

import numpy as np

RATE = 16_000
MAX_VARIANTS = 8  # per word: enough for the swaps of a long word, a bound on the grammar
MAX_ADDED_WORDS = 20_000  # variant pronunciations added before the decoder is made afresh

# The substitution types (keys of pronunciation_tips.yaml's sounds) and, for each, how much
# better (natural-log acoustic likelihood) the variant must be supported than the meant
# pronunciation before the word is flagged. Tuned on the development half of
# benchmarks/phones.py only.
THRESHOLDS: dict[str, float] = {
    # (dev half, espeak-ng speech: the most substituted words caught with at most 3 false flags
    # per 100 correctly said words, all types together; a grid of 0-450 in steps of 50,
    # benchmarks/phones.py --grid. The finer grid (250, 350, 400 added) moved r/l and v/b
    # 300 -> 250, paid for by the added vowel 300 -> 400 (and f/p 300 -> 400: 2 fewer of 136
    # caught, the budget's last fraction). Synthetic speech gives every variant a wide margin either way:
    # th never won wrongly, vowel length and an added vowel often did)
    "r_l": 250.0,
    "f_p": 400.0,
    "v_b": 250.0,
    "th": 0.0,
    "z_j": 200.0,
    "final_vowel": 400.0,
    "vowel_length": 450.0,
}


# The chance of a silence between words, tried in this order until a path reaches the line's
# end. PocketSphinx's default (0.005) lets its silence model take whole stretches of synthetic
# speech (no path then reaches the end); at 1e-10 a long pause of real speech (the JFK clip) has
# no path. The thresholds were calibrated with the first.
SILENCE_PROBABILITIES = (1e-10, 1e-5, 0.005)

_SWAPS: dict[str, tuple[tuple[str, str], ...]] = {  # phone -> (replacement, type)
    "R": (("L", "r_l"),),
    "L": (("R", "r_l"),),
    "F": (("P", "f_p"),),
    "V": (("B", "v_b"),),
    "TH": (("S", "th"), ("T", "th")),
    "DH": (("D", "th"),),
    "Z": (("JH", "z_j"),),
    "ZH": (("JH", "z_j"),),
    "IY": (("IH", "vowel_length"),),
    "IH": (("IY", "vowel_length"),),
    "UW": (("UH", "vowel_length"),),
    "UH": (("UW", "vowel_length"),),
}
# The vowel a Korean speaker may add after a final consonant (으 / 우 / 이). It is decoded as a
# word of its own after the meant word: PocketSphinx's grammar search lost every path of some
# lines when a word and the same word with a vowel added were alternatives in one place.
_FINAL_VOWELS = ("AH", "UW", "IY")
_VOWELS = frozenset("AA AE AH AO AW AY EH ER EY IH IY OW OY UH UW".split())
_WORD = re.compile(r"[a-z]+(?:'[a-z]+)?")


@dataclass(frozen=True)
class Variant:
    phones: str  # ARPAbet, space-separated
    type: str  # a key of THRESHOLDS
    said: str  # the phone(s) the learner said instead, e.g. "R" for an l, "AH" added


@dataclass(frozen=True)
class PhoneVerdict:
    """One checked word: the meant pronunciation against the best-supported variant."""

    word: str
    meant: str  # the meant pronunciation (ARPAbet)
    heard: str  # the best-supported pronunciation (the meant one when no variant won)
    type: str | None  # the substitution type of `heard`, None when the meant one won
    start: float
    end: float
    flag: bool


@functools.lru_cache(maxsize=1)
def _model_paths() -> tuple[str, str]:
    from pocketsphinx import get_model_path

    base = get_model_path()
    return f"{base}/en-us/en-us", f"{base}/en-us/cmudict-en-us.dict"


@functools.lru_cache(maxsize=1)
def dictionary() -> dict[str, tuple[str, ...]]:
    """The CMU dictionary in the wheel: word -> its pronunciations (first is the main one)."""
    entries: dict[str, list[str]] = {}
    with open(_model_paths()[1], encoding="utf-8") as handle:
        for line in handle:
            head, _, phones = line.strip().partition(" ")
            word = re.sub(r"\(\d+\)$", "", head)
            entries.setdefault(word, []).append(" ".join(phones.split()))
    return {word: tuple(prons) for word, prons in entries.items()}


def key(token: str) -> str | None:
    """The dictionary word a written token stands for, or None when it is not one word of
    letters (numbers, identifiers like NCCL_TOPO_FILE or p95, empty punctuation)."""
    bare = token.lower().replace("’", "'").strip(" \t\n,.;:!?\"“”()[]{}…-—")
    if not bare or not _WORD.fullmatch(bare):
        return None
    return bare


def pronunciations(token: str) -> tuple[str, ...]:
    word = key(token)
    return dictionary().get(word, ()) if word else ()


# espeak-ng's IPA (en-us) to the acoustic model's phones, longest first
_IPA = sorted({
    "tʃ": "CH", "dʒ": "JH", "aɪ": "AY", "aʊ": "AW", "ɔɪ": "OY", "eɪ": "EY", "oʊ": "OW", "ɑː": "AA",
    "ɔː": "AO", "ɜː": "ER", "iː": "IY", "uː": "UW", "ɪɹ": "IH R", "ɛɹ": "EH R", "ʊɹ": "UH R", "ɑːɹ": "AA R",
    "ɔːɹ": "AO R", "ɚ": "ER", "ɝ": "ER", "ə": "AH", "ᵻ": "IH", "ɐ": "AH", "ʌ": "AH", "æ": "AE", "ɑ": "AA",
    "ɔ": "AO", "ɛ": "EH", "e": "EH", "ɪ": "IH", "i": "IY", "ʊ": "UH", "u": "UW", "o": "OW", "a": "AA",
    "p": "P", "b": "B", "t": "T", "d": "D", "k": "K", "ɡ": "G", "g": "G", "f": "F", "v": "V",
    "θ": "TH", "ð": "DH", "s": "S", "z": "Z", "ʃ": "SH", "ʒ": "ZH", "h": "HH", "m": "M", "n": "N",
    "ŋ": "NG", "l": "L", "ɹ": "R", "r": "R", "w": "W", "j": "Y", "ɾ": "T", "ʔ": "T", "x": "K",
}.items(), key=lambda kv: -len(kv[0]))


@functools.lru_cache(maxsize=4096)
def spoken_as(token: str) -> str | None:
    """A pronunciation for a word the dictionary does not have (NCCL_TOPO_FILE, p95, a name):
    how espeak-ng reads it, in the acoustic model's phones; None without espeak-ng."""
    import shutil
    import subprocess

    text = token.strip(" ,.;:!?\"“”()[]{}").replace("_", " ")
    if not text or not shutil.which("espeak-ng"):
        return None
    try:
        ipa = subprocess.run(["espeak-ng", "-q", "--ipa", "-v", "en-us", text], capture_output=True,
                             text=True, timeout=5, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    ipa = re.sub(r"[ˈˌ:ː̩\-‿|]", lambda m: "ː" if m.group() in ":ː" else "", ipa)
    out: list[str] = []
    i = 0
    while i < len(ipa):
        for sign, phones in _IPA:
            if ipa.startswith(sign, i):
                out += phones.split()
                i += len(sign)
                break
        else:
            i += 1  # spaces, stress marks, anything unknown
    return " ".join(out) or None


def variants(token: str) -> list[Variant]:
    """The Korean-L1-typical variants of a word that apply to its phones: one change each,
    none equal to a meant pronunciation; at most MAX_VARIANTS, the kinds of change spread."""
    meant = pronunciations(token)
    if not meant:
        return []
    found: dict[str, Variant] = {}
    main = meant[0].split()
    for i, phone in enumerate(main):
        for new, kind in _SWAPS.get(phone, ()):
            if kind == "vowel_length" and i == len(main) - 1:  # "latency" ends in a weak ee
                continue
            changed = " ".join([*main[:i], new, *main[i + 1 :]])
            found.setdefault(changed, Variant(changed, kind, new))
    if main and main[-1] not in _VOWELS:
        for vowel in _FINAL_VOWELS:  # "desk-eu", "check-u", "page-i"
            found.setdefault(f"{meant[0]} {vowel}", Variant(f"{meant[0]} {vowel}", "final_vowel", vowel))
    for pron in meant:
        found.pop(pron, None)
    chosen: list[Variant] = []
    by_type: dict[str, list[Variant]] = {}
    for variant in found.values():
        by_type.setdefault(variant.type, []).append(variant)
    while len(chosen) < MAX_VARIANTS and any(by_type.values()):  # round-robin over the types
        for kind in list(by_type):
            if by_type[kind] and len(chosen) < MAX_VARIANTS:
                chosen.append(by_type[kind].pop(0))
    return chosen


# --- the decoder --------------------------------------------------------------------------


class _Decoder:
    """One PocketSphinx decoder and the pronunciations added to its dictionary."""

    def __init__(self, silence: float) -> None:
        from pocketsphinx import Decoder

        hmm, dict_path = _model_paths()
        self.decoder = Decoder(hmm=hmm, dict=dict_path, lm=None, loglevel="FATAL", silprob=silence)
        self.names: dict[str, str] = {}  # phones -> the dictionary word that says them
        self.phones: dict[str, str] = {}  # and back
        self.pending: list[tuple[str, str]] = []
        self.added = 0
        self.lw = float(self.decoder.config["lw"])
        self.cmn = self.decoder.get_cmn()  # the initial cepstral mean, before any audio

    def name(self, phones: str) -> str:
        """A dictionary word for a pronunciation (added at the next `flush`)."""
        if phones not in self.names:
            name = f"pv.{len(self.names)}"
            self.pending.append((name, phones))
            self.names[phones] = name
            self.phones[name] = phones
            self.added += 1
        return self.names[phones]

    def flush(self) -> None:
        """Add the pending pronunciations to the dictionary (one update for all of them)."""
        for k, (name, phones) in enumerate(self.pending):
            self.decoder.add_word(name, phones, k == len(self.pending) - 1)
        self.pending.clear()

    def decode(self, raw: bytes, slots: list[list[tuple[tuple[str, ...], float]]], *,
               fresh: bool = False) -> list[tuple[str, int, int]]:
        """Decode `raw` with a grammar of `slots` (each the dictionary words that may be said
        in that place, with a weight): the best path as (word,
        first frame, last frame), empty when none reached the end. `fresh`: the cepstral mean
        starts from its initial value, not from the audio decoded before (the decoder's "batch"
        mean still carries over from one utterance to the next: the same short span could
        otherwise be decided one way after one answer and the other way after another)."""

        transitions: list[tuple] = []
        extra = len(slots) + 1
        for state, slot in enumerate(slots):
            for sequence, weight in slot:
                here = state
                for k, word in enumerate(sequence):
                    last = k == len(sequence) - 1
                    there = state + 1 if last else extra
                    extra += 0 if last else 1
                    transitions.append((here, there, weight if k == 0 else 1.0, word))
                    here = there
        fsg = self.decoder.create_fsg("words", 0, len(slots), transitions)
        self.decoder.add_fsg("words", fsg)
        self.decoder.activate_search("words")
        if fresh:  # the mean of this audio: one pass without search from the initial mean
            self.decoder.set_cmn(self.cmn)
            self.decoder.start_utt()
            self.decoder.process_raw(raw, no_search=True, full_utt=True)
            self.decoder.end_utt()
        self.decoder.start_utt()
        self.decoder.process_raw(raw, full_utt=True)
        self.decoder.end_utt()
        if self.decoder.hyp() is None:
            return []
        return [(seg.word, seg.start_frame, seg.end_frame) for seg in self.decoder.seg()]


_lock = threading.Lock()
_decoders: dict[float, _Decoder] = {}


def _get_decoder(silence: float = SILENCE_PROBABILITIES[0]) -> _Decoder:
    if silence not in _decoders or _decoders[silence].added > MAX_ADDED_WORDS:
        _decoders[silence] = _Decoder(silence)
    return _decoders[silence]


def to_raw(samples: np.ndarray) -> bytes:
    """16 kHz float samples (-1..1) as PocketSphinx's 16-bit little-endian PCM."""
    clipped = np.clip(np.asarray(samples, dtype=np.float32), -1.0, 1.0)
    return (clipped * 32767).astype("<i2").tobytes()


def check(samples: np.ndarray, words: list[str], offset: float = 0.0,
          thresholds: dict[str, float] | None = None, skip: frozenset[str] = frozenset()
          ) -> list[PhoneVerdict | None]:
    """Each written word of `words` (the line read, or a transcript's words, in order) said in
    16 kHz `samples`: its verdict, or None when it is not checked (not in the dictionary, a
    number, punctuation). Words in `skip` are said as meant only, never flagged. Times are
    seconds plus `offset`."""
    limits = thresholds or THRESHOLDS
    if not words or samples.size == 0:
        return [None] * len(words)
    raw = to_raw(samples)
    with _lock:
        for silence in SILENCE_PROBABILITIES:
            verdicts = _check(_get_decoder(silence), raw, words, offset, limits, skip)
            if verdicts is not None:
                return verdicts
    return [None] * len(words)


def _check(dec: _Decoder, raw: bytes, words: list[str], offset: float, limits: dict[str, float],
           skip: frozenset[str]) -> list[PhoneVerdict | None] | None:
    """`check` with one decoder; None when no path reached the end of the line."""
    # each slot: its alternatives, as (the dictionary words said in a row, weight, variant)
    slots: list[list[tuple[tuple[str, ...], float, Variant | None]]] = []
    places: list[int] = []
    for index, word in enumerate(words):
        prons = pronunciations(word)
        if not prons:  # not checked, but said: espeak-ng's reading stands for it
            said = spoken_as(word) if re.search(r"[A-Za-z0-9]", word) else None
            if said:
                slots.append([((dec.name(said),), 1.0, None)])
                places.append(index)
            continue
        slot: list[tuple[tuple[str, ...], float, Variant | None]] = [((dec.name(p),), 1.0, None) for p in prons]
        pause = index == len(words) - 1 or bool(re.search(r"[,.;:!?…—)\"”]$", word))
        for v in [] if key(word) in skip else variants(word):
            if v.type == "final_vowel" and pause:
                # before a pause, the model takes the release of the last consonant for an
                # added vowel (benchmarks/phones.py, dev half): not checked there
                continue
            # a variant needs to be better supported than the meant pronunciation by its
            # type's threshold: a prior against it (the search multiplies it by its
            # language weight, so it is divided here to stay in acoustic log-likelihood)
            weight = math.exp(-limits.get(v.type, 1e3) / dec.lw)
            if v.type == "final_vowel":  # the word, then the vowel on its own (see _FINAL_VOWELS)
                sequence: tuple[str, ...] = (dec.name(prons[0]), dec.name(v.said))
            else:
                sequence = (dec.name(v.phones),)
            slot.append((sequence, weight, v))
        slots.append(slot)
        places.append(index)
    dec.flush()
    # fresh: the cepstral mean of this clip from the initial one, not the last clip's
    best = dec.decode(raw, [[(seq, weight) for seq, weight, _ in slot] for slot in slots], fresh=True)
    out: list[PhoneVerdict | None] = [None] * len(words)
    if not best:
        return None
    chosen = _chosen(best, [[seq for seq, _, _ in slot] for slot in slots])
    for k, index in enumerate(places):
        found = chosen[k]
        prons = pronunciations(words[index])
        if found is None or not prons:
            continue
        which, first, last = found
        start, end = round(first / 100 + offset, 3), round((last + 1) / 100 + offset, 3)
        sequence, _, variant = slots[k][which]
        if variant is None:
            heard = dec.phones.get(sequence[0], prons[0])
            out[index] = PhoneVerdict(words[index], heard, heard, None, start, end, False)
        else:
            out[index] = PhoneVerdict(words[index], prons[0], variant.phones, variant.type, start, end, True)
    return out


_LETTERS = dict(zip("abcdefghijklmnopqrstuvwxyz", (
    "EY", "B IY", "S IY", "D IY", "IY", "EH F", "JH IY", "EY CH", "AY", "JH EY", "K EY", "EH L", "EH M",
    "EH N", "OW", "P IY", "K Y UW", "AA R", "EH S", "T IY", "Y UW", "V IY", "D AH B AH L Y UW", "EH K S",
    "W AY", "Z IY"), strict=True))


def said_as(token: str) -> tuple[str, ...]:
    """How a written token may be said, in the acoustic model's phones: the dictionary's
    pronunciations, else espeak-ng's reading (a term outside the dictionary: NCCL, BF16); an
    acronym (OOM, MIG, QoS) may also be spelled out letter by letter."""
    token = token.strip(" ,.;:!?\"“”()[]{}")
    prons = pronunciations(token)
    if not prons:
        said = spoken_as(token) if re.search(r"[A-Za-z0-9]", token) else None
        prons = (said,) if said else ()
    letters = token.lower()
    if 2 <= len(token) <= 5 and token.isalpha() and sum(ch.isupper() for ch in token) >= 2 \
            and not token.endswith("s"):  # "GPUs" is the plural of a spelled GPU, not G-P-U-S
        spelled = " ".join(_LETTERS[ch] for ch in letters)
        if spelled not in prons:
            prons = (*prons, spelled)
    return prons


def phrase_prons(words: list[str], limit: int = 4) -> tuple[str, ...]:
    """The pronunciations of words said in a row (each word's first `limit` combined, at most
    `limit` in all, the main one first); empty when a word has none."""
    out: list[str] = [""]
    for word in words:
        prons = said_as(word)
        if not prons:
            return ()
        out = [f"{head} {p}".strip() for head in out for p in prons][:limit]
    return tuple(out)


_Slot = list[tuple[tuple[str, ...], float]]  # one place in a decode: the word sequences it may hold, with priors


def forced_choice(samples: np.ndarray, before: list[str], options: list[list[str]], after: list[str],
                  priors: list[float]) -> int | None:
    """Which of `options` (each a list of written words that may have been said in one place,
    between the words `before` and `after`) the audio of `samples` supports best, each option
    held back by its prior (the units of THRESHOLDS: how much better supported, in acoustic
    log-likelihood, it must be; negative favours it). One decode of a finite-state grammar, as
    `check`: the context words as the dictionary (or espeak-ng) says them, then one slot of the
    options' pronunciations. None when an option has no pronunciation or no path reached the
    end at any silence probability."""
    if samples.size == 0 or not options:
        return None
    prons = [phrase_prons(option) for option in options]
    if not all(prons):
        return None
    priors = [p - min(priors) for p in priors]  # a prior for one option is one against the others
    raw = to_raw(samples)
    with _lock:
        for silence in SILENCE_PROBABILITIES:
            dec = _get_decoder(silence)
            around: list[list[_Slot]] = [[[((dec.name(p),), 1.0) for p in said_as(w)] for w in side]
                                        for side in (before, after)]
            head, tail = ([slot for slot in side if slot] for side in around)
            owner: dict[str, int] = {}
            choice: list[tuple[tuple[str, ...], float]] = []
            for k, (option_prons, prior) in enumerate(zip(prons, priors, strict=True)):
                for p in option_prons:
                    name = dec.name(p)
                    if name not in owner:
                        owner[name] = k
                        choice.append(((name,), math.exp(-prior / dec.lw)))
            slots, place = [*head, choice, *tail], len(head)
            dec.flush()
            best = dec.decode(raw, slots, fresh=True)
            if not best:
                continue
            chosen = _chosen(best, [[seq for seq, _ in slot] for slot in slots])[place]
            if chosen is None:
                continue
            return owner[choice[chosen[0]][0][0]]
    return None


def _chosen(path: list[tuple[str, int, int]], slots: list[list[tuple[str, ...]]]
            ) -> list[tuple[int, int, int] | None]:
    """Which alternative of each slot the best path went through, and its first and last frame
    (fillers and silences skipped); None for a slot the path does not line up with."""
    out: list[tuple[int, int, int] | None] = []
    words = [p for p in path if not p[0].startswith("<") and not p[0].startswith("[")]
    k = 0
    for slot in slots:
        order = sorted(range(len(slot)), key=lambda i: -len(slot[i]))  # longest first
        for i in order:
            sequence = slot[i]
            if tuple(w[0] for w in words[k : k + len(sequence)]) == sequence:
                out.append((i, words[k][1], words[k + len(sequence) - 1][2]))
                k += len(sequence)
                break
        else:
            out.append(None)
    return out
