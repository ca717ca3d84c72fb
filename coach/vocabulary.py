"""A card's own technical vocabulary: what to bias speech recognition towards, and which
transcript words were probably misheard terms ("MCCL" -> "NCCL?").

    card_vocabulary(card) -> ["NCCL", "NVLink", "utilization", ...]
    misheard_terms(text, vocabulary) -> [TermSuggestion(heard="MCCL", term="NCCL", score=100)]

The vocabulary comes from the card itself, so authors add no new field: the bold terms of
its "Key concepts" section, and the technical-looking words (acronyms, mixed case, digits,
snake_case, joined words such as nccl-tests) of its prompts and model answers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

KEY_CONCEPTS = "Key concepts"
_BOLD = re.compile(r"\*\*(.+?)\*\*")
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9_\-./+]*[A-Za-z0-9+]|[A-Za-z0-9]")
_SPLIT = re.compile(r"\s*(?:/|,|\band\b|\bwith\b|\bvs\.?)\s*", re.IGNORECASE)
_STOP = {"the", "a", "an", "of", "on", "in", "for", "to", "per"}
MAX_TERMS = 60


def _technical(word: str) -> bool:
    """An acronym (NCCL, TPU), mixed case (NVLink, AllReduce), a word with digits (A100,
    BF16, ZeRO-3) or a joined word (NCCL_DEBUG, nccl-tests)."""
    core = word.strip(".-/")
    if len(core) < 2 or core[0].isdigit():
        return False
    upper = sum(ch.isupper() for ch in core)
    if upper >= 2 or (upper == 1 and not core[0].isupper()):
        return True
    if any(ch.isdigit() for ch in core) and any(ch.isalpha() for ch in core):
        return True
    return "_" in core


def _concept_terms(text: str) -> list[str]:
    terms: list[str] = []
    for bold in _BOLD.findall(text):
        for part in _SPLIT.split(bold):
            part = re.sub(r"\(.*?\)", "", part).strip(" .:-")
            words = part.split()
            if not words or len(words) > 3 or words[-1].lower() in _STOP:
                continue
            terms.append(" ".join(words))
    return terms


def card_vocabulary(card) -> list[str]:
    """The card's terms, key concepts first; de-duplicated case-insensitively."""
    terms = _concept_terms(card.sections.get(KEY_CONCEPTS, ""))
    texts = [t.prompt for t in card.turns] + [a.text for a in card.model_answers]
    for text in texts:
        terms += [w for w in _WORD.findall(text) if _technical(w)]
    seen: set[str] = set()
    unique: list[str] = []
    for term in terms:
        key = term.lower()
        if key not in seen:
            seen.add(key)
            unique.append(term)
    return unique[:MAX_TERMS]


@dataclass(frozen=True)
class TermSuggestion:
    heard: str  # what the transcript says
    term: str  # the card's term it probably was
    score: int  # 0-100, how alike they are

    def message(self) -> str:
        return f'"{self.heard}": did you mean {self.term}?'


def _sound(text: str) -> str:
    """A rough sound key: spelling differences that Whisper makes on unknown terms (m/n,
    c/k, "ight"/"ite", doubled letters, spaces and hyphens) disappear."""
    key = re.sub(r"[^a-z0-9]", "", text.lower())
    for old, new in (("ight", "ite"), ("ph", "f"), ("ck", "k"), ("q", "k"), ("c", "k"),
                     ("z", "s"), ("m", "n"), ("y", "i")):
        key = key.replace(old, new)
    return re.sub(r"(.)\1+", r"\1", key)


def _stem(word: str) -> str:
    word = word.lower()
    for suffix in ("ations", "ation", "ings", "ing", "ions", "ion", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def _inflection(a: str, b: str) -> bool:
    """The same word, or one inside the other ("topology" / "topology-aware")."""
    a, b = _squash(a), _squash(b)
    if not a or not b:
        return False
    short, long = sorted((a, b), key=len)
    return short in long or _stem(a) == _stem(b)


def _contains_word(heard: str, word: str) -> bool:
    """A heard word that is the term's word, or an inflection of it ("utilizations")."""
    heard, word = _squash(heard), _squash(word)
    return bool(heard) and (word in heard or _stem(heard) == _stem(word))


_PART = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")


def _term_parts(term: str) -> set[str]:
    """The words a term is built from: "NVLink" -> nv, link; "InfiniBand" -> infini, band."""
    return {_stem(part) for part in _PART.findall(term)}


def _only_parts_of(parts: list[str], term: str) -> bool:
    """Heard words that are each one of the term's own parts, but not all of them: the speaker
    said the ordinary word ("links between racks"), the likeness to "NVLink" comes only from
    the part they share, not from a mishearing."""
    term_parts = _term_parts(term)
    heard = {_stem(_squash(p)) for p in parts}
    return len(term_parts) > 1 and heard <= term_parts and heard != term_parts


def _squash(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def _suggestible(term: str) -> bool:
    """Terms worth flagging: technical words, names ("Nsight"), or long ones ("utilization");
    short common words ("ring", "tree") would match too much ordinary speech."""
    if "_" in term or "=" in term:
        return False  # environment variables and options are typed, not said
    letters = term.replace(" ", "")
    return _technical(term) or len(letters) >= 8 or (len(letters) >= 6 and term[0].isupper())


# How alike a heard word and a term must be (0-100, the better of spelling and sound): one
# word for one word; a pair of words for a joined term ("envy link" / "NVLink") or a
# term of several words needs more.
ONE_WORD_THRESHOLD = 70
SEVERAL_WORDS_THRESHOLD = 80
_CLAUSE = re.compile(r"[.,;:!?()\"“”]+")


def misheard_terms(text: str, vocabulary, *, limit: int = 3) -> list[TermSuggestion]:
    """Transcript words (or pairs of words) that look like one of the card's terms without
    being it: probably the term misheard. Best matches first, at most `limit`."""
    from rapidfuzz import fuzz

    clauses = [_WORD.findall(clause) for clause in _CLAUSE.split(text)]
    said = _squash(text)
    known = {_squash(term) for term in vocabulary}
    found: dict[str, TermSuggestion] = {}
    for term in vocabulary:
        if not _suggestible(term) or _squash(term) in said:
            continue
        size = len(term.split())
        term_sound = _sound(term)
        sizes = {size, size + 1} if size == 1 else {size}
        for words in clauses:
            for n in sizes:
                threshold = ONE_WORD_THRESHOLD if n == 1 else SEVERAL_WORDS_THRESHOLD
                for i in range(len(words) - n + 1):
                    parts = words[i : i + n]
                    heard = " ".join(parts)
                    if _squash(heard) in known or len(heard) < 3 or heard.isdigit():
                        continue
                    # the likeness first: it rules out nearly every pair, and costs least
                    score = max(fuzz.ratio(heard.lower(), term.lower()), fuzz.ratio(_sound(heard), term_sound))
                    if score < threshold:
                        continue
                    if _only_parts_of(parts, term) or _inflection(heard, term) or any(
                        _contains_word(p, w) for p in parts for w in re.split(r"[\s\-]+", term) if len(w) > 2
                    ):
                        continue
                    best = found.get(heard.lower())
                    if best is None or score > best.score:
                        found[heard.lower()] = TermSuggestion(heard=heard, term=term, score=int(round(score)))
    ranked = sorted(found.values(), key=lambda s: -s.score)
    # One suggestion per term (its best-matching words), and no overlapping words.
    out: list[TermSuggestion] = []
    for suggestion in ranked:
        if all(s.term != suggestion.term and s.heard.lower() not in suggestion.heard.lower()
               and suggestion.heard.lower() not in s.heard.lower() for s in out):
            out.append(suggestion)
    return out[:limit]
