"""Corrections of the English errors Korean speakers make most, offline and deterministic.

    review(text) -> Review(text, corrections=[Correction(start, end, wrong, right, kind, why, why_ko)],
                           corrected, language)

Precision first: a learner corrected wrongly stops listening, so every rule fires only where what it
matches is wrong in (nearly) every context. Two sources, both declared in
scoring/patterns/english.yaml with their reasons in English and Korean:
- `phrases`: fixed errors matched by one RE2 pattern each ("discuss about", "I am agree", "more faster");
- `checks`: errors read from the answer's dependency parse, the same parse the scorer's readings use
  (scoring.grammar.parse, made once per text): agreement, tense with a time cue, articles, noun
  number, word order of embedded questions. Inflections come from lemminflect.

A text mostly in Korean (Hangul) gets no corrections and `language == "ko"`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache

from scoring.detectors.base import pattern_data
from scoring.lazy_imports import lemminflect
from scoring.regex import compile_pattern

KINDS = ("article", "number", "agreement", "tense", "verb-pattern", "word-order", "word-choice", "comparison", "other")
# how each kind is named to a learner, in English and Korean
KIND_LABELS = {
    "article": ("Articles (a, an, the)", "관사 (a, an, the)"),
    "number": ("Singular and plural nouns", "명사의 단수·복수"),
    "agreement": ("Subject–verb agreement", "주어와 동사의 수 일치"),
    "tense": ("Verb tense", "시제"),
    "verb-pattern": ("Verbs and their prepositions", "동사와 전치사의 쓰임"),
    "word-order": ("Word order in questions", "의문문 어순"),
    "word-choice": ("Word choice", "단어 선택"),
    "comparison": ("Comparisons and quantities", "비교급과 수량 표현"),
    "other": ("Other", "기타"),
}
MAX_CHARS = 20_000
_HANGUL = re.compile(r"[\uac00-\ud7a3\u3131-\u318e]")
_LATIN = re.compile(r"[A-Za-z]")


@dataclass(frozen=True)
class Correction:
    start: int
    end: int
    wrong: str  # == text[start:end]
    right: str
    kind: str
    why: str
    why_ko: str
    rule: str = ""

    def to_json_dict(self) -> dict:
        return {
            "start": self.start,
            "end": self.end,
            "wrong": self.wrong,
            "right": self.right,
            "kind": self.kind,
            "why": self.why,
            "why_ko": self.why_ko,
        }


@dataclass(frozen=True)
class Review:
    text: str
    corrections: tuple[Correction, ...] = ()
    language: str = "en"
    corrected: str = field(default="")

    def to_json_dict(self) -> dict:
        out: dict = {
            "text": self.text,
            "corrections": [c.to_json_dict() for c in self.corrections],
            "corrected": self.corrected,
        }
        if self.language != "en":
            out["language"] = self.language
        return out


def hangul_share(text: str) -> float:
    """The share of the text's letters that are Hangul (0 when it has no letters)."""
    hangul = len(_HANGUL.findall(text))
    latin = len(_LATIN.findall(text))
    return hangul / (hangul + latin / 4) if hangul + latin else 0.0  # about four Latin letters a syllable


def is_korean(text: str) -> bool:
    """Wholly or mostly Korean: more than half of what is said is in Hangul."""
    return hangul_share(text) > 0.5


def apply(text: str, corrections) -> str:
    """The text with every correction applied (they do not overlap)."""
    out, last = [], 0
    for c in sorted(corrections, key=lambda c: c.start):
        out.append(text[last : c.start])
        out.append(c.right)
        last = c.end
    out.append(text[last:])
    return "".join(out)


def review(text: str, parse=None) -> Review:
    """The corrections of one text. `parse` is the text's spaCy Doc when the caller has it
    (otherwise scoring.grammar.parse makes it, or reuses the scorer's)."""
    if is_korean(text):
        return Review(text=text, language="ko", corrected=text)
    text_part = text[:MAX_CHARS]
    found = list(_phrase_corrections(text_part))
    if _LATIN.search(text_part):
        from scoring import grammar

        doc = parse if parse is not None else grammar.parse(text_part)
        found += _parse_corrections(text_part, doc)
    chosen: list[Correction] = []
    for c in sorted(found, key=lambda c: (c.start, -(c.end - c.start))):
        if c.wrong == c.right or c.wrong != text[c.start : c.end]:
            continue
        if chosen and c.start < chosen[-1].end:
            merged = _merge(chosen[-1], c)
            if merged is not None:
                chosen[-1] = merged
            continue  # overlaps one already taken (phrases come first, then the longer)
        chosen.append(c)
    return Review(text=text, corrections=tuple(chosen), corrected=apply(text, chosen))


def warm() -> None:
    """The rules, their word lists and the inflection table loaded, on the text the parser was
    warmed with (scoring.warm_up): 0.1-0.4 s that the learner's first answer would otherwise wait."""
    from scoring import grammar

    review(grammar.WARM_TEXT)
    inflect("finish", "VBD")


def _merge(outer: Correction, inner: Correction) -> Correction | None:
    """Two corrections of one place made one ("we discuss about" yesterday -> "we discussed"): when
    `inner` lies inside `outer` and its words are kept once in `outer`'s right words."""
    if not (outer.start <= inner.start and inner.end <= outer.end):
        return None
    if inner.kind == outer.kind or re.search(rf"(?<![\w'’]){re.escape(inner.right)}(?![\w'’])", outer.right):
        return None  # one correction found twice ("reply the" by a phrase and by the parse)
    found = list(re.finditer(rf"(?<![\w'’]){re.escape(inner.wrong)}(?![\w'’])", outer.right))
    if len(found) != 1:
        return None
    at = found[0]
    right = outer.right[: at.start()] + inner.right + outer.right[at.end() :]
    return Correction(
        outer.start,
        outer.end,
        outer.wrong,
        right,
        outer.kind,
        outer.why + " " + inner.why,
        outer.why_ko + " " + inner.why_ko,
        outer.rule,
    )


# --- declared phrase rules ----------------------------------------------------------------


@dataclass(frozen=True)
class PhraseRule:
    id: str
    kind: str
    pattern: str
    right: str
    why: str
    why_ko: str
    until: str | None
    unless_before: frozenset[str]
    examples: tuple[tuple[str, str], ...]
    no_match: tuple[str, ...]

    @property
    def regex(self):
        return compile_pattern(self.pattern)


@cache
def phrase_rules() -> tuple[PhraseRule, ...]:
    return tuple(
        PhraseRule(
            id=r["id"],
            kind=r["kind"],
            pattern=r["pattern"],
            right=r["right"],
            why=r["why"],
            why_ko=r["why_ko"],
            until=r.get("until"),
            unless_before=frozenset(r.get("unless_before", ())),
            examples=tuple(tuple(e) for e in r.get("examples", ())),
            no_match=tuple(r.get("no_match", ())),
        )
        for r in pattern_data("english")["phrases"]
    )


def check(name: str) -> dict:
    return pattern_data("english")["checks"][name]


@cache
def words(name: str) -> frozenset[str]:
    values = pattern_data("english")["words"][name]
    return frozenset(str(w) if name == "letter_acronyms" else str(w).lower() for w in values)


_TEMPLATE = re.compile(r"\{([A-Za-z0-9_]+)(?:([|~])([^}]*))?\}")
_KONGLISH = {
    "handphone": "cell phone",
    "handphones": "cell phones",
    "eyeshopping": "window shopping",
    "skinship": "physical affection",
    "runningmachine": "treadmill",
    "concent": "outlet",
    "concents": "outlets",
    "multitap": "power strip",
    "multitaps": "power strips",
    "remocon": "remote control",
    "remocons": "remote controls",
    "yshirt": "dress shirt",
    "yshirts": "dress shirts",
    "morningcall": "wake-up call",
    "morningcalls": "wake-up calls",
    "ballpen": "ballpoint pen",
    "ballpens": "ballpoint pens",
    "gagman": "comedian",
    "gagmen": "comedians",
    "selca": "selfie",
    "selcas": "selfies",
    "vinylbag": "plastic bag",
    "vinylbags": "plastic bags",
    "goldentime": "critical window",
    "salaryman": "office worker",
    "salarymen": "office workers",
}
_UNCOUNTABLE = {
    "datas": "data",
    "metadatas": "metadata",
    "stuffs": "stuff",
    "researches": "research",
    "evidences": "evidence",
    "machineries": "machinery",
    "sceneries": "scenery",
    "jewelries": "jewelry",
    "source codes": "source code",
    "vocabularys": "vocabulary",
}
_SINGULAR_VERB = {"are": "is", "were": "was", "have": "has", "don't": "doesn't", "don’t": "doesn’t"}


def _verb_tag(word: str) -> str:
    """The Penn tag of a verb form ("made" -> VBD, "makes" -> VBZ), VB when unknown."""
    tables = lemminflect()
    lemmas = tables.getLemma(word.lower(), upos="VERB")
    table = tables.getAllInflections(lemmas[0]) if lemmas else {}
    for tag in ("VBZ", "VBG", "VBD", "VBN"):
        if word.lower() in table.get(tag, ()):
            return tag
    return "VB"


def inflect_all(word: str, tag: str) -> tuple[str, ...]:
    """Every form of a word's lemma with one tag, lower case ("knew" -> ("knew",) for VBD)."""
    tables = lemminflect()
    base = tables.getLemma(word.lower(), upos="VERB")
    return tuple(f.lower() for f in tables.getInflection(base[0] if base else word.lower(), tag=tag))


def inflect(word: str, tag: str) -> str:
    if tag == "NNS" and word.lower() == "person":
        return "people"
    tables = lemminflect()
    upos = "NOUN" if tag.startswith("NN") else "ADJ" if tag.startswith("JJ") else "VERB"
    base = tables.getLemma(word.lower(), upos=upos)
    forms = tables.getInflection(base[0] if base else word.lower(), tag=tag)
    if not forms:
        return word
    form = forms[0]
    if word.isupper() and len(word) > 1:
        return form[: len(word)].upper() + form[len(word) :]  # GPU -> GPUs
    return form


def _like(form: str, phrase: str) -> str:
    """`phrase` ("set up") with its first word in the form of `form` ("made" -> "set up")."""
    tag = _verb_tag(form)
    first, _, rest = phrase.partition(" ")
    word = first if tag == "VB" else inflect(first, tag)
    return f"{word} {rest}".strip()


class _Skip(Exception):
    """A template that cannot be filled for this match (a word that is not a verb, say)."""


_WORD_MAPS = {
    "object": {"i": "me", "he": "him", "she": "her", "they": "them", "we": "us", "you": "you"},
    "subject": {"me": "I", "him": "he", "her": "she", "them": "they", "us": "we", "you": "you"},
    "pronoun": {"i": "I", "we": "we", "he": "he", "she": "she", "they": "they", "you": "you", "it": "it"},
    "depend": {"is": "depends", "are": "depend", "was": "depended", "were": "depended"},
    "price": {"cheap": "low", "expensive": "high"},
    "temperature": {"hot": "high", "warm": "high", "cold": "low"},
    "complaint": {"claim": "complaint", "claims": "complaints"},
    "incident": {"accident": "incident", "accidents": "incidents"},
    "superlative": {"worse": "worst", "better": "best"},
    "i-be": {"is": "I'm", "was": "I was"},
    "singular-do": {"don't": "doesn't", "don’t": "doesn’t", "do not": "does not"},
    "plural-do": {"doesn't": "don't", "doesn’t": "don’t", "does not": "do not"},
    "level": {"big": "high", "small": "low", "bigger": "higher", "smaller": "lower"},
    "worried": {"worry": "worried", "concern": "concerned"},
}


def _is_verb(word: str) -> bool:
    return "VERB" in lemminflect().getAllLemmas(word.lower())


def _transform(value: str, op: str, arg: str) -> str:
    if op == "~":
        return _like(value, arg)
    if arg in _WORD_MAPS:
        return _WORD_MAPS[arg].get(value.lower(), value)
    if arg.startswith("VB") and not _is_verb(value):
        raise _Skip
    if arg == "lower":
        return value.lower()
    if arg == "bare":  # a verb already in its base form ("fix", not "fixed" or "were"), else no correction
        if inflect(value, "VB").lower() != value.lower():
            raise _Skip
        return value
    if arg == "konglish":
        return _KONGLISH.get(value.lower().replace(" ", "").replace("-", ""), value)
    if arg == "uncountable":
        return _UNCOUNTABLE.get(value.lower(), value[:-1])
    if arg == "active":  # "was happened" -> "happened", "is occurred" -> "occurs"
        be, verb = value.split()
        tag = {"was": "VBD", "were": "VBD", "is": "VBZ", "are": "VB", "am": "VB", "be": "VB", "been": "VBN"}[be.lower()]
        return inflect(verb, tag)
    if arg == "plural-be":
        return {"was": "were", "wasn't": "weren't", "wasn’t": "weren’t"}.get(value.strip().lower(), "are")
    if arg == "singular":
        return _SINGULAR_VERB.get(value.lower(), value)
    return inflect(value, arg)


def _fill(template: str, match) -> str:
    def one(m) -> str:
        key = m.group(1)
        value = match.group(int(key) if key.isdigit() else match.re.groupindex[key]) or ""
        return _transform(value, m.group(2), m.group(3)) if m.group(2) and value else value

    return _TEMPLATE.sub(one, template)


def _case_like(wrong: str, right: str) -> str:
    if wrong[:1].isupper() and right[:1].islower() and not (len(wrong) > 1 and wrong.isupper()):  # not "PPT"
        return right[:1].upper() + right[1:]
    if wrong[:1].islower() and right[:1].isupper() and not right.startswith(("I ", "I'", "I’")):
        return right[:1].lower() + right[1:]
    return right


def _wordish(char: str) -> bool:
    return char.isalnum() or char in "_'’-"


def _phrase_corrections(text: str):
    for rule in phrase_rules():
        for match in rule.regex.finditer(text):
            start, end = match.span()
            names = rule.regex.groupindex
            if "w" in names and match.start(names["w"]) >= 0:
                start, end = match.span(names["w"])
            elif rule.until:
                end = match.start(names[rule.until])
            if start >= end:
                continue
            if (start > 0 and _wordish(text[start - 1]) and _wordish(text[start])) or (
                end < len(text) and _wordish(text[end]) and _wordish(text[end - 1])
            ):
                continue  # not whole words
            before = text[: match.start()].split()[-1:]
            if rule.unless_before and before and before[0].lower() in rule.unless_before:
                continue
            wrong = text[start:end]
            try:
                right = _case_like(wrong, _fill(rule.right, match))
            except _Skip:
                continue
            yield Correction(start, end, wrong, right, rule.kind, rule.why, rule.why_ko, rule.id)


# --- corrections read from the parse --------------------------------------------------------


def _make(doc, name: str, first, last, right: str, keep_case: bool = False) -> Correction:
    """A correction of the tokens first..last (inclusive)."""
    reason = check(name)
    start, end = first.idx, last.idx + len(last.text)
    wrong = doc.text[start:end]
    return Correction(
        start,
        end,
        wrong,
        right if keep_case else _case_like(wrong, right),
        reason["kind"],
        reason["why"],
        reason["why_ko"],
        name,
    )


def _parse_corrections(text: str, doc) -> list[Correction]:
    out: list[Correction] = []
    for sent in doc.sents:
        if _is_heading_like(sent):
            if _is_command(sent):
                out.extend(_collocation_corrections(doc, sent))  # "Please open the light."
            continue
        for check_one in (
            _a_an,
            _missing_article,
            _plural_after_number,
            _one_of,
            _every_singular,
            _fewer,
            _tense,
            _agreement,
            _base_after_aux,
            _will_after_if,
            _unreal_conditional,
            _embedded_question,
            _enough,
            _comparative_as,
            _question_order,
            _adverb_before_object,
            _superlative_article,
            _verb_complements,
            _quantifiers,
            _collocation_corrections,
            _article_checks,
            _number_checks,
        ):
            out.extend(check_one(doc, sent))
    return out


def _is_heading_like(sent) -> bool:
    """Notes, lists and headings ("- Fix bug in parser") are not sentences to correct."""
    text = sent.text.strip()
    if "\n" in text or text[:1] in {"-", "*", "#", "•", "|", ">"} or " * " in text:
        return True
    return not any(t.dep_ in {"nsubj", "nsubjpass", "expl"} for t in sent)


def _is_command(sent) -> bool:
    """A whole sentence that gives a command: "Please close the light." (no subject, so not a note
    unless it is one line that starts with a capital and ends with a full stop)."""
    text = sent.text.strip()
    if "\n" in text or not text[:1].isupper() or text[-1:] not in {".", "!"} or len(sent) < 3:
        return False
    root = sent.root
    return root.tag_ == "VB" and root.i <= sent.start + 2 and not any(c.dep_ in {"aux", "nsubj"} for c in root.children)


_VOWEL_LETTERS = set("aefhilmnorsx")  # letters whose name starts with a vowel sound: "an SQL", "an HTTP"
_YOU_SOUND = ("uni", "use", "usa", "usu", "uti", "ura", "uri", "uro", "uku", "ubi", "eu", "ewe", "one", "once")
_SILENT_H = ("hour", "honest", "honor", "honour", "heir")


def _vowel_sound(word: str) -> bool | None:
    """Whether a word starts with a vowel sound; None when unsure."""
    if not word or not word[0].isalpha():
        return True if word[:1] == "8" else None
    if word[0].isupper() and (len(word) == 1 or word[1].isdigit() or word[1] == "-"):
        return word[0].lower() in _VOWEL_LETTERS  # "an H100", "an A-series"
    letters = "".join(ch for ch in word.split("-")[0] if ch.isalpha())
    if len(letters) > 1 and any(ch.isupper() for ch in letters[1:]):  # an acronym: "FP32", "HTTP", "MoE"
        if not any(v in letters.upper() for v in "AEIOU") or letters.upper() in words("letter_acronyms"):
            return word[0].lower() in _VOWEL_LETTERS  # said letter by letter: "an HTTP call", "an FP32 copy"
        return None  # maybe said as a word: "a SLURM job", "a NIC"
    if word[0].isupper() and word[0].lower() in _VOWEL_LETTERS - set("aeio"):
        return None  # "an Nsight profile", "a Linux box": a name may be said by its letters
    low = word.lower()
    if low.startswith(("unin", "unim", "unid")):
        return True
    if low.startswith(_YOU_SOUND):
        return False
    if low.startswith(_SILENT_H):
        return True
    if low.startswith("u") and len(low) > 2 and low[1] not in "aeiou" and low[2] in "aeiou" and low[1] not in "nmpgsl":
        return None  # "unit"-like or "upon"-like: unsure
    return low[0] in "aeiou"


def _a_an(doc, sent) -> list[Correction]:
    out = []
    for t in sent:
        low = t.text.lower()
        if low not in {"a", "an"} or t.tag_ != "DT" or t.i + 1 >= len(doc):
            continue
        nxt = doc[t.i + 1]
        if not nxt.text[:1].isalnum() or doc.text[t.idx + len(t.text) : nxt.idx] != " ":
            continue
        vowel = _vowel_sound(nxt.text)
        if vowel is None or (low == "an") == vowel:
            continue
        out.append(_make(doc, "a-an", t, t, "an" if vowel else "a"))
    return out


_CLAUSE_ROLES = {"dobj", "attr", "pobj"}
_FIXED_BARE = {
    ("for", "example"),
    ("for", "review"),
    ("on", "paper"),
    ("in", "case"),
    ("for", "instance"),
    ("in", "time"),
    ("on", "time"),
    ("by", "hand"),
    ("in", "person"),
    ("at", "work"),
    ("in", "production"),
    ("on", "call"),
    ("in", "fact"),
    ("by", "design"),
    ("on", "disk"),
    ("to", "disk"),
    ("from", "disk"),
    ("in", "memory"),
    ("on", "purpose"),
    ("in", "place"),
    ("at", "scale"),
    ("into", "account"),
    ("in", "review"),
    ("on", "email"),
    ("by", "email"),
    ("over", "email"),
    ("via", "email"),
    ("in", "progress"),
}


def _asked(doc, verb, subj) -> bool:
    """A question's auxiliary opens the clause before its subject: "Can you send …"."""
    first = subj.left_edge
    return (
        first.i > 0
        and doc[first.i - 1].dep_ == "aux"
        and doc[first.i - 1].head.i == verb.i
        and doc[first.i - 1].i == doc[first.i - 1].sent.start
    )


_PLACE_PREPOSITIONS = {"in", "on", "with", "for", "about", "from", "into", "to"}
_EVENTS = {"incident", "outage", "meeting", "interview", "call", "demo", "presentation"}
_DEGREE_WORDS = {"very", "really", "quite", "pretty", "extremely", "super"}  # "very good question"
_WORDS_WITH_THEIR_OWN_CHECK = frozenset(
    "different such same only first last next own multiple various several numerous many".split()
)


def _from_to(doc, noun) -> bool:
    """ "from model to model", "day to day": a noun repeated across "to" needs no article."""
    word = noun.text.lower()

    def said(i: int, text: str) -> bool:
        return 0 <= i < len(doc) and doc[i].text.lower() == text

    return (said(noun.i + 1, "to") and said(noun.i + 2, word)) or (said(noun.i - 1, "to") and said(noun.i - 2, word))


def _clause_owner(verb):
    """The verb whose subject does this verb's work: "need to buy" -> "need", "responsible for
    building" -> "was"."""
    node = verb
    for _ in range(4):
        if node.dep_ not in {"xcomp", "pcomp", "prep", "acomp"} or node.head.i == node.i:
            break
        node = node.head
    return node


_TAKES_A_NEW_THING = {"be", "have", "buy", "need", "order", "add", "create", "build", "write", "want", "request"}


def _missing_article(doc, sent) -> list[Correction]:
    out = []
    for t in sent:
        if t.tag_ != "NN" or t.text.lower() not in words("countable") or not t.text.islower():
            continue
        if t.dep_ not in _CLAUSE_ROLES or any(
            c.dep_ in {"det", "poss", "nummod", "predet", "quantmod"} for c in t.children
        ):
            continue
        if t.dep_ == "pobj" and t.head.dep_ != "prep":
            continue
        if any(c.dep_ in {"conj", "cc", "appos"} for c in t.children) or t.dep_ == "conj":
            continue
        left = list(doc[t.left_edge.i : t.i])
        first = left[0] if left else t
        if any(
            (x.tag_ not in {"JJ", "NN", "NNS", "HYPH"} and not (x.tag_ == "RB" and x.text.lower() in _DEGREE_WORDS))
            or any(ch.isdigit() for ch in x.text)
            for x in left
        ):
            continue
        if any(x.text.lower() in _WORDS_WITH_THEIR_OWN_CHECK for x in left):
            continue  # other checks say what it needs: "such a problem", "the same problem"
        if first.i > 0:
            prev = doc[first.i - 1]
            if prev.text.lower() in words("no_article_before") or prev.tag_ in {"POS", "PRP$", "CD", "DT", "WDT"}:
                continue
            if prev.text in {"-", "/", "(", "'", '"', "“", "`"} or prev.text.lower() in {"as", "of", "by", "per"}:
                continue
        if t.i + 1 < len(doc) and (
            doc[t.i + 1].tag_ in {"NN", "NNS", "NNP", "CD", "POS"} or doc[t.i + 1].text in {"-", "/"}
        ):
            continue
        if t.dep_ == "pobj" and t.head.text.lower() not in _PLACE_PREPOSITIONS:
            if t.head.text.lower() not in {"during", "after", "before"} or t.text.lower() not in _EVENTS:
                continue  # "during the incident", but "during startup", "after lunch"
        if first.i == 0:
            continue
        before = doc[first.i - 1]
        if (
            before.tag_ == "PRP"
            and before.dep_ in {"dative", "dobj"}
            and before.head.i == t.head.i
            and t.dep_ == "dobj"
        ):
            before = doc[before.i - 1]  # "send me link": past the person it goes to
        if before.i != t.head.i and not (t.dep_ == "nsubj" and before.dep_ == "mark"):
            continue  # right after its verb or preposition: "fixed bug", "in parser"; "because batch size was"
        if (t.head.text.lower(), t.text.lower()) in _FIXED_BARE or _from_to(doc, t):
            continue
        if not (sent.text[:1].isupper() and sent.text.rstrip()[-1:] in {".", "!", "?", ";"}):
            continue  # notes and fragments
        verb = t.head if t.dep_ != "pobj" else t.head.head
        hangs_on_a_noun = False
        while verb.pos_ not in {"VERB", "AUX"} and verb.dep_ in {"dobj", "pobj", "prep"} and verb.head.i != verb.i:
            verb, hangs_on_a_noun = verb.head, True  # "file a ticket with vendor": the verb the phrase hangs on
        if t.dep_ == "nsubj" and first.i != sent.start:
            if doc[first.i - 1].dep_ not in {"punct", "cc", "mark", "advmod"}:
                continue
        owner = _clause_owner(verb)  # "we need to buy new switch", "I was responsible for building internal tool"
        subjects = [c for c in owner.children if c.dep_ in {"nsubj", "nsubjpass", "expl"} and c.i < owner.i]
        if not subjects or not (_opens_clause(doc, subjects[0]) or _asked(doc, owner, subjects[0])):
            continue
        own_subject = subjects[0].i == t.i and doc[first.i - 1].dep_ == "mark"  # "because batch size was …"
        relative = subjects[0].tag_ == "WDT" and t.dep_ == "attr"  # "which is rare case"
        if (
            subjects[0].tag_ != "PRP"
            and subjects[0].text.lower() not in _SINGULAR_PRONOUNS
            and not any(c.dep_ in {"det", "poss"} for c in subjects[0].children)
            and not own_subject
            and not relative
        ):
            continue  # "I fixed bug", "The team found bug", not a heading's "Name one rejected fix"
        article = "a" if t.dep_ == "attr" or _lemma(verb) in _TAKES_A_NEW_THING else "the"
        if t.dep_ == "pobj" and (t.head.text.lower() in {"during", "after", "before"} or hangs_on_a_noun):
            article = "the"  # "during the incident", "a ticket with the vendor": one already known
        if article == "a" and _vowel_sound(first.text):
            article = "an"
        span_text = doc.text[first.idx : t.idx + len(t.text)]
        out.append(_make(doc, "missing-article", first, t, f"{article} {span_text}"))
    return out


_SMALL_NUMBERS = frozenset("two three four five six seven eight nine ten".split())
_NUMBER_WORDS = _SMALL_NUMBERS | frozenset(
    "eleven twelve twenty thirty forty fifty hundred hundreds thousands dozens".split()
    + "many several multiple various few both numerous".split()
)


_NOT_A_COUNT_AFTER = frozenset(
    {"the", "of", "$", "#", "top", "version", "v", "page", "step", "phase", "option", "every", "each"}
)


def _plural_after_number(doc, sent) -> list[Correction]:
    out = []
    for t in sent:
        if t.tag_ not in {"NN", "NNP"} or t.dep_ == "compound" or not t.text.isalpha():
            continue
        low = t.text.lower()
        if low in words("units") or low in words("uncountable") or low in words("collective"):
            continue
        if t.tag_ == "NNP" and not _acronym(t.text):
            continue  # a name; an acronym such as GPU is counted
        if not (t.text.islower() or _acronym(t.text)):
            continue  # "MHz", "Gbps", "B" as in "seven B": units and names
        quantity = None
        for c in t.children:
            if c.i < t.i and c.dep_ in {"nummod", "amod", "det"}:
                word = c.text.lower()
                digits = word.replace(",", "")  # "3,000 server"
                if word in _NUMBER_WORDS or (c.like_num and digits.isdigit() and int(digits) > 1):
                    quantity = c
        if quantity is None:
            continue
        between = doc[quantity.i + 1 : t.i]
        hyphenated = len(between) > 1 and " " not in between.text and "-" in between.text  # "top-of-rack"
        if quantity.i + 3 < t.i and not hyphenated:
            continue
        if t.i + 1 < len(doc) and (
            doc[t.i + 1].tag_ in {"NN", "NNS", "NNP", "NNPS"} or doc[t.i + 1].text in {"-", "/", "%"}
        ):
            continue
        if quantity.i > 0 and doc[quantity.i - 1].tag_ in {"NN", "NNP", "NNS"}:
            continue  # a label: "stage two", "rank three"
        before_quantity = doc[quantity.i - 1].text.lower() if quantity.i > 0 else ""
        if before_quantity in _NOT_A_COUNT_AFTER or (before_quantity == "a" and quantity.text.lower() != "few"):
            continue  # "the two", "version 2", "a 2-node", but "a few"
        if quantity.i + 1 < len(doc) and doc[quantity.i + 1].text in {"-", "/", "x", "."}:
            continue
        if not hyphenated and any(
            x.tag_ not in {"JJ", "VBN", "JJR"}
            and not (x.dep_ in {"compound", "amod"} and _counted_compound(x) and low in words("countable"))
            for x in between
        ):
            continue  # "two power supply", "two GPU vendor": a compound before a countable noun is counted
        if any(c.dep_ in {"conj", "cc"} for c in t.children):
            continue
        out.append(_make(doc, "plural-after-number", t, t, inflect(t.text, "NNS")))
    return out


def _acronym(text: str) -> bool:
    """GPU, NCCL, H100: counted and inflected like a noun, unlike a name."""
    return text.isupper() and 2 <= len(text) <= 5


def _counted_compound(token) -> bool:
    """A noun that only says what kind the counted noun is: "power" (supply), "GPU" or "H100" (node)."""
    if token.tag_ == "NN" and token.text.islower():
        return True
    return token.tag_ in {"NN", "NNP"} and token.text[:1].isupper() and _acronym(token.text)


_PICK_FROM_MANY = frozenset({"one", "both", "each", "several", "many", "few", "either", "neither"}) | _SMALL_NUMBERS


def _one_of(doc, sent) -> list[Correction]:
    """ "One of the biggest problem", "Both of the solution": a pick from a group names the group in
    the plural."""
    out = []
    for t in sent:
        if t.text.lower() not in _PICK_FROM_MANY or t.i + 1 >= len(doc) or doc[t.i + 1].text.lower() != "of":
            continue
        of = doc[t.i + 1]
        objs = [c for c in of.children if c.dep_ == "pobj"]
        if not objs:
            continue
        noun = objs[0]
        acronym = noun.tag_ in {"NN", "NNP"} and _acronym(noun.text) and noun.text.isalpha()  # "one of the GPU"
        if not acronym and (
            noun.tag_ != "NN"
            or not noun.text.isalpha()
            or not noun.text.islower()
            or noun.text.lower() in words("uncountable")
        ):
            continue
        if not any(
            c.dep_ == "det" and c.text.lower() in {"the", "my", "our", "your", "their", "his", "her", "these", "those"}
            for c in noun.children
        ) and not any(c.dep_ == "poss" for c in noun.children):
            continue
        if noun.i + 1 < len(doc) and doc[noun.i + 1].tag_ in {"NN", "NNS", "POS"}:
            continue
        out.append(_make(doc, "one-of-plural", noun, noun, inflect(noun.text, "NNS")))
    return out


def _every_singular(doc, sent) -> list[Correction]:
    out = []
    for t in sent:
        if t.tag_ != "NNS" or not t.text.isalpha() or not t.text.islower():
            continue
        dets = [c for c in t.children if c.dep_ == "det" and c.text.lower() in {"every", "each"} and c.i < t.i]
        if not dets or any(c.dep_ in {"nummod"} or c.like_num for c in t.children):
            continue
        if doc[dets[0].i + 1].text.lower() in {"other", "few", "couple"}:
            continue  # "every other day", "every few hours"
        if any(x.tag_ not in {"JJ"} for x in doc[dets[0].i + 1 : t.i]):
            continue
        singular = inflect(t.text, "NN")
        if singular == t.text:
            continue
        out.append(_make(doc, "every-singular", t, t, singular))
    return out


def _fewer(doc, sent) -> list[Correction]:
    out = []
    for t in sent:
        low = t.text.lower()
        if low not in {"less", "much"} or t.i + 1 >= len(doc):
            continue
        noun = doc[t.i + 1]
        if noun.tag_ == "JJ" and t.i + 2 < sent.end and doc[t.i + 2].tag_ == "NNS":
            noun = doc[t.i + 2]  # "much free GPUs"
        if noun.tag_ != "NNS" or noun.head.i != noun.i and noun.dep_ == "compound" or t.head.i != noun.i:
            continue
        if (
            noun.text.lower() in words("uncountable")
            or noun.text.lower() in {"means", "news", "series", "people"}
            and low == "less"
        ):
            continue
        if t.i > 0 and doc[t.i - 1].text.lower() in {"no", "so", "too", "how", "very", "far"} and low == "much":
            continue
        if low == "much" and noun.text.lower() in {"times"}:
            continue
        out.append(_make(doc, "fewer" if low == "less" else "much-many", t, t, "fewer" if low == "less" else "many"))
    return out


_SINGULAR_PRONOUNS = {
    "he",
    "she",
    "it",
    "this",
    "that",
    "everyone",
    "everybody",
    "someone",
    "somebody",
    "nobody",
    "something",
    "nothing",
    "everything",
    "anyone",
    "anybody",
    "anything",
}
_PLURAL_PRONOUNS = {"we", "they", "you", "i"}


_CLAUSE_OPENERS = {"CC", "WRB", "RB", ",", ":", "-LRB-", "``", "''", "NFP", "HYPH", "UH"}


def _opens_clause(doc, subj) -> bool:
    """The subject starts its clause: nothing but a conjunction, an adverb or punctuation before it
    ("and it work", "because the job fail"), so the parser did not take an object for a subject."""
    first = subj.left_edge
    if first.i == first.sent.start:
        return True
    prev = doc[first.i - 1]
    for c in subj.head.children:  # after an opening phrase of its own verb: "On the TPU pod the job fail"
        complete = c.dep_ != "prep" or any(x.dep_ in {"pobj", "pcomp"} for x in c.children)
        if c.dep_ == "advcl" and not any(x.dep_ == "mark" for x in c.children):
            complete = False  # "Sharding the parameters … helps": a gerund, not an opening clause
        if (
            c.i < subj.i
            and c.dep_ in {"prep", "npadvmod", "advmod", "advcl"}
            and complete
            and (c.left_edge.i <= prev.i <= c.right_edge.i)
        ):
            return True
    if prev.tag_ == "IN":
        return prev.dep_ != "prep"  # "because the job fail", not "over several servers helps"
    if subj.head.dep_ == "ccomp" and prev.i == subj.head.head.i and _lemma(prev) in words("clause_verbs"):
        return True  # "I think the vendor understand": a clause without "that"
    return prev.tag_ in _CLAUSE_OPENERS or prev.is_punct


def _noun_like_verb(doc, verb, subj) -> bool:
    """ "the median wait for …", "the queue wait time is": a noun after a noun, not a verb (the
    parser's compound mistake)."""
    if verb.i != subj.i + 1 or not subj.tag_.startswith("NN") or "NOUN" not in lemminflect().getAllLemmas(
        verb.text.lower()
    ):
        return False
    nxt = doc[verb.i + 1] if verb.i + 1 < len(doc) else None
    if nxt is not None and nxt.dep_ == "mark" and nxt.head.head.i == verb.i:
        return False  # "my manager say that …": a clause hangs on it, so it is the verb
    return nxt is None or nxt.tag_ in {"IN", "TO", ".", "NN", "NNS"} or nxt.is_punct


def _lemma(token) -> str:
    from scoring.grammar import lemma

    return lemma(token.text, token.pos_)


def _determined_nouns(*nouns) -> bool:
    """Nouns each with its own determiner, none of them "every", "each" or "no" (which keep the
    verb singular: "every node and every switch has")."""
    return all(
        x.tag_ in {"NN", "NNS"}
        and any(c.dep_ in {"det", "poss"} for c in x.children)
        and not any(c.text.lower() in {"every", "each", "no", "any"} for c in x.children)
        for x in nouns
    )


def _joined_by_and(subj) -> bool:
    """ "The model weights and the optimizer state": two things, each with its determiner (so not
    one activity such as "monitoring and alerting")."""
    conjuncts = [c for c in subj.children if c.dep_ == "conj"]
    cc = [c.text.lower() for c in subj.children if c.dep_ == "cc"]
    return (
        cc == ["and"]
        and not _after_as_or_than(subj)
        and len(conjuncts) == 1
        and not any(c.dep_ == "conj" for c in conjuncts[0].children)
        and _determined_nouns(subj, *conjuncts)
        and not any(c.dep_ == "preconj" for c in subj.children)
    )


def _after_as_or_than(noun) -> bool:
    """ "… the same queue as the preemptor and the preemptee has …": after "as" or "than" the parse
    may join two nouns that are not one subject."""
    first = noun.left_edge
    return first.i > first.sent.start and first.doc[first.i - 1].text.lower() in {"as", "than", "like", "with"}


def _two_subjects(doc, subjects) -> bool:
    """The parser's other reading of two subjects joined by "and": both hang on the verb."""
    if len(subjects) != 2:
        return False
    first, second = subjects
    if _after_as_or_than(first):
        return False
    between = doc[first.i + 1 : second.left_edge.i]
    return [t.text.lower() for t in between] == ["and"] and _determined_nouns(first, second)


def _agrees_with_two(doc, subjects, verb, out: list) -> bool:
    """Whether `subjects` are two joined by "and" ("The weights and the state takes"); then a
    singular `verb` right after them is corrected into `out`."""
    if not (_two_subjects(doc, subjects) and _opens_clause(doc, subjects[0])):
        return False
    plural = _PLURAL_OF_VBZ.get(verb.text.lower()) or (inflect(verb.text, "VBP") if verb.tag_ == "VBZ" else None)
    if plural and verb.i == subjects[1].right_edge.i + 1:
        out.append(_make(doc, "agreement-plural", verb, verb, plural))
    return True


def _subject_number(subj) -> str | None:
    low = subj.text.lower()
    if any(c.dep_ in {"conj", "cc"} for c in subj.children):
        return "plural" if _joined_by_and(subj) else None
    if any(c.dep_ == "prep" and c.text.lower() == "of" for c in subj.children):
        if low in {"one", "each"}:
            return "singular"  # "One of the switches is", "Each of the pods has"
        if low in _COUNTS_ABOVE_ONE:
            return "plural"  # "Two of my teammates were"
    if subj.tag_ == "NN" and any(c.text.lower() == "both" for c in subj.children):
        return None  # "both server need": the noun is what is wrong
    if low in _SINGULAR_PRONOUNS:
        return "singular"
    if low in _PLURAL_PRONOUNS or low in {"these", "those"}:
        return "plural"
    if any(c.dep_ == "det" and c.text.lower() in {"these", "those"} for c in subj.children):
        return None  # "these file are": the noun is what is wrong
    each_or_every = any(c.dep_ == "det" and c.text.lower() in {"every", "each"} for c in subj.children)
    if subj.tag_ == "NNS" and each_or_every:
        return None  # "each nodes has": likewise
    if subj.tag_ == "NN" and subj.text.islower() and each_or_every:
        return "singular"  # "each team gets": whatever the noun, one at a time
    if low in words("collective") or low in words("units") or subj.ent_type_ or not subj.text.isalpha():
        return None
    if subj.tag_ == "NN" and subj.text.islower():
        if any(c.dep_ in {"nummod"} or c.text.lower() in {"all", "some", "most", "any", "none"} for c in subj.children):
            return None
        return "singular"
    if subj.tag_ == "NNS" and subj.text.islower() and not low.endswith(("ss", "ics", "us", "is")):
        return "plural"
    return None


_COUNTS_ABOVE_ONE = _SMALL_NUMBERS | {"both", "several"}
_PLURAL_OF_VBZ = {"is": "are", "has": "have", "does": "do", "was": "were"}
_SINGULAR_OF_VBP = {"are": "is", "have": "has", "do": "does", "were": "was"}


def _loose_subject(doc, subj, verb) -> bool:
    """A comma or an "and" between the subject and its verb leaves the parse unsure which noun the
    verb agrees with ("the invention of X and other techniques have", "reaction, people … are")."""
    return any(t.text == "," or (t.dep_ == "conj" and t.head.i != subj.i) for t in doc[subj.i + 1 : verb.i])


def _unreal(doc, subj) -> bool:
    """ "If it were", "I wish it were", "as though it were": "were" after a singular subject is right."""
    return any(
        t.text.lower() in {"if", "wish", "though", "suppose", "imagine", "unless"}
        for t in doc[subj.sent.start : subj.i]
    )


def _calls_for_subjunctive(governor) -> bool:
    """ "suggest that he go", "it is important that it run": a verb or an adjective of need."""
    return (
        _lemma(governor) in words("bare_infinitive_governors")
        or governor.pos_ == "ADJ"
        or any(c.dep_ == "acomp" and c.pos_ == "ADJ" for c in governor.children)
    )


def _agreement(doc, sent) -> list[Correction]:
    out: list[Correction] = []
    past_cues = _cue_tokens(sent, _PAST_CUES)
    for verb in sent:
        if verb.tag_ not in {"VB", "VBP", "VBZ"} and not (verb.text.lower() in {"was", "were"} and verb.tag_ == "VBD"):
            continue  # "was", "were" as the verb itself: "each of the alerts were", "the researchers was"
        if past_cues and (_cue_of(verb, past_cues) or _cue_of(verb.head, past_cues)):
            continue  # "yesterday the job fail": the tense check says what it should be
        subjects = [c for c in verb.children if c.dep_ == "nsubj" and c.i < verb.i]
        if _agrees_with_two(doc, subjects, verb, out):
            continue
        if len(subjects) != 1 or any(
            c.dep_ in {"aux", "auxpass"} and c.i < verb.i for c in verb.children if c is not verb
        ):
            continue
        if verb.dep_ in {"aux", "auxpass"}:
            continue
        subj = subjects[0]
        number = _subject_number(subj)
        if number is None or subj.text.lower() in {"that", "which", "who", "what"}:
            continue
        if verb.dep_ in {"ccomp", "xcomp", "advcl", "acl", "relcl"} and _lemma(verb.head) in words(
            "bare_infinitive_governors"
        ):
            continue
        if verb.pos_ not in {"VERB", "AUX"} or verb.i - subj.right_edge.i > 4 or verb.i - subj.i > 12:
            continue
        if not _opens_clause(doc, subj) or _noun_like_verb(doc, verb, subj):
            continue
        inside = {x.i for x in subj.subtree}
        if _loose_subject(doc, subj, verb):
            continue
        if any(x.i not in inside and x.tag_ not in {"RB"} for x in doc[subj.i + 1 : verb.i]):
            continue
        if verb.i > subj.i + 1 and doc[subj.i + 1].tag_ in {"NNP", "NNPS", "PRP"}:
            continue  # "All continents Hyperping has probes in": a relative clause without "that"
        if (
            subj.tag_.startswith("NN")
            and subj.text.lower() not in _SINGULAR_PRONOUNS
            and not any(c.dep_ in {"det", "poss"} for c in subj.children)
        ):
            continue  # "The job fail", "my team", not a headline's bare noun
        if subj.tag_ == "NNS" and any(c.dep_ in {"nummod", "compound", "quantmod"} for c in subj.children):
            continue  # "three months is", "node counts means": a measure is one amount
        if any(x.text.lower() in {"to", "lest"} for x in doc[max(sent.start, subj.i - 2) : subj.i]) or (
            any(x.text.lower() == "that" for x in doc[max(sent.start, subj.i - 2) : subj.i])
            and _calls_for_subjunctive(verb.head)
        ):
            continue  # "to": not a subject; "suggest that he go", "it is important that it run": the subjunctive
        low = verb.text.lower()
        if number == "singular" and (verb.tag_ in {"VB", "VBP"} or low == "were"):
            if low in {"be", "can", "will", "must", "should", "may", "might", "would", "could", "shall", "let"}:
                continue
            if subj.text.lower() in {"this", "that"} and subj.dep_ != "nsubj":
                continue
            right = _SINGULAR_OF_VBP.get(low) or inflect(verb.text, "VBZ")
            if low == "were" and (_unreal(doc, subj) or verb.i + 1 < len(doc) and doc[verb.i + 1].text.lower() == "to"):
                continue  # "if it were", "someone were to ask": subjunctive
            out.append(_make(doc, "agreement-singular", verb, verb, right))
        elif number == "plural" and (verb.tag_ == "VBZ" or low == "was") and subj.text.lower() not in {"i", "you"}:
            right = _PLURAL_OF_VBZ.get(low) or inflect(verb.text, "VBP")
            if right == verb.text:
                continue
            out.append(_make(doc, "agreement-plural", verb, verb, right))
    # auxiliaries: "he don't", "the jobs was killed", "the documentation for these tools are outdated"
    for aux in sent:
        low = aux.text.lower()
        if aux.dep_ not in {"aux", "auxpass"} or low not in {"do", "does", "have", "has", "is", "are", "was", "were"}:
            continue
        if any(c.dep_ in {"aux", "auxpass"} and c.i < aux.i for c in aux.head.children if c is not aux):
            continue  # only the first auxiliary agrees
        subjects = [c for c in aux.head.children if c.dep_ in {"nsubj", "nsubjpass"} and c.i < aux.i]
        if _agrees_with_two(doc, subjects, aux, out):
            continue
        subj = subjects[0] if subjects else None
        if subj is None or aux.i - subj.i > 12 or subj.text.lower() in {"that", "which", "who", "what"}:
            continue
        inside = {x.i for x in subj.subtree}
        if _loose_subject(doc, subj, aux):
            continue
        if any(x.i not in inside and x.tag_ != "RB" for x in doc[subj.i + 1 : aux.i]):
            continue
        number = _subject_number(subj)
        if number is None or not _opens_clause(doc, subj):
            continue
        if (
            subj.tag_.startswith("NN")
            and subj.text.lower() not in _SINGULAR_PRONOUNS
            and not any(c.dep_ in {"det", "poss", "predet"} for c in subj.children)
        ):
            continue
        if subj.tag_ == "NNS" and any(c.dep_ in {"nummod", "compound", "quantmod"} for c in subj.children):
            continue
        if number == "singular" and low in {"do", "have", "are", "were"}:
            if subj.text.lower() in {"this", "that"} and low in {"were"}:
                continue
            if low == "were":
                if _unreal(doc, subj):
                    continue  # "if it were"
                out.append(_make(doc, "agreement-singular", aux, aux, "was"))
                continue
            out.append(_make(doc, "agreement-singular", aux, aux, _SINGULAR_OF_VBP[low]))
        elif number == "plural" and low in {"does", "has", "is", "was"} and subj.text.lower() not in {"i", "you"}:
            out.append(_make(doc, "agreement-plural", aux, aux, _PLURAL_OF_VBZ[low]))
    # a question's be or auxiliary before its subject: "Where is the new servers?", "Does the new
    # drivers fix it?"
    for verb in sent:
        low = verb.text.lower()
        if verb.dep_ == "ROOT" and low in {"is", "are", "was", "were"}:
            clause = verb
        elif (
            verb.dep_ in {"aux", "auxpass"}
            and low in {"does", "do", "has", "have", "is", "are", "was", "were"}
            and all(x.tag_ in {"WRB", "WP", "WDT"} for x in doc[sent.start : verb.i])
        ):
            clause = verb.head
        else:
            continue
        subj = next((c for c in clause.children if c.dep_ in {"nsubj", "nsubjpass"} and c.i > verb.i), None)
        if subj is None or not subj.text.islower() or subj.i - verb.i > 4:
            continue
        if not any(
            c.dep_ == "det" and c.text.lower() in {"the", "these", "those", "this", "that", "my", "our", "your"}
            for c in subj.children
        ) or any(c.dep_ in {"conj", "nummod"} for c in subj.children):
            continue
        if subj.text.lower() in words("collective") or subj.text.lower() in words("uncountable"):
            continue
        if subj.tag_ == "NNS" and low in _PLURAL_OF_VBZ:
            out.append(_make(doc, "agreement-plural", verb, verb, _PLURAL_OF_VBZ[low]))
        elif subj.tag_ == "NN" and low in _SINGULAR_OF_VBP:
            out.append(_make(doc, "agreement-singular", verb, verb, _SINGULAR_OF_VBP[low]))
    return out


_PAST_CUES = re.compile(
    r"(?i)\b(?:yesterday|last (?:week|night|month|year|sprint|quarter|time|friday|monday|tuesday|wednesday|"
    r"thursday|saturday|sunday|weekend)|(?:\w+) (?:days?|weeks?|months?|years?|hours?|minutes?) ago|"
    r"this morning|earlier today|(?:in|during|at) (?:the|my|your|our|his|her|their) last "
    r"(?:interview|meeting|sprint|release|incident|review|call|project|job|quarter|demo|retro|on-call|shift|"
    r"rotation|company|team)|in (?:january|february|march|april|may|june|july|august|september|october|"
    r"november|december) (?:19|20)\d\d|in (?:19\d\d|20[01]\d|202[0-5]))\b"
)
_POINT_IN_TIME = re.compile(r"(?i)yesterday|last|ago")  # "Last week we have upgraded": no span up to now
_FUTURE_CUES = re.compile(
    r"(?i)\b(?:tomorrow|next (?:week|month|year|sprint|quarter|monday|tuesday|wednesday|thursday|friday|"
    r"weekend|release)|later today|the day after tomorrow)\b"
)
_TIME_NOUNS = {
    "morning",
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
    "week",
    "month",
    "year",
    "then",
    "yesterday",
    "day",
    "beginning",
    "start",
    "launch",
    "release",
}


_DESCRIBING_VERBS = {
    "show",
    "display",
    "depict",
    "illustrate",
    "contain",
    "include",
    "cover",
    "mean",
    "say",
    "list",
    "compare",
    "represent",
    "summarize",
    "summarise",
    "describe",
    "plot",
    "track",
    "explain",
}


def _cue_tokens(sent, regex) -> list:
    spans = [
        (sent.start_char + m.start(), sent.start_char + m.end())
        for m in regex.finditer(sent.text)
        if not (
            m.group(0).lower().startswith(("last", "next"))
            and sent.text[: m.start()].lower().endswith(("the ", "since "))
        )
        and not sent.text[m.end() :].startswith(("'s", "’s"))
    ]  # "for the last week", "over the next quarter": a span, not a point in time; "last week's
    # run": a thing, not the verb's time
    return [t for t in sent if any(a <= t.idx < b for a, b in spans)]


_COMPARED_WITH = {"than", "as", "vs", "vs.", "versus"}


def _cue_of(verb, cue_tokens) -> bool:
    """The time cue hangs on this verb (its nearest verb ancestor), and not as what the verb's
    clause is compared with ("is lower than last week" is about now)."""
    for cue in cue_tokens:
        node = cue
        while node.head.i != node.i and node.pos_ not in {"VERB", "AUX"}:
            same_with = node.text.lower() == "with" and node.head.text.lower() == "same"  # "the same with last week"
            if node.text.lower() in _COMPARED_WITH or same_with or node.dep_ in {"nsubj", "nsubjpass"}:
                break  # "lower than last week", "the logs from last night": not the verb's time
            node = node.head
        else:
            if node.i == verb.i:
                return True
    return False


def _past_clause(verb, loose: bool = False) -> bool:
    """A "when I joined" clause hangs on the verb: its time is past. `loose` also takes a "when"
    the parser called an adverb ("When I was a student, I have used …"), for the perfect only."""
    return any(
        c.dep_ == "advcl"
        and c.tag_ == "VBD"
        and any(
            (m.dep_ == "mark" or (loose and m.dep_ == "advmod")) and m.text.lower() in {"when", "after", "before"}
            for m in c.children
        )
        for c in verb.children
    )


_DURATIONS = frozenset(
    "years year months month weeks week days day hours hour minutes while long ages decade decades time".split()
)


_PRESENT_BE_PROGRESSIVE = frozenset({"am", "is", "are", "'m", "’m", "'re", "’re"})  # "'s" may be "has"
_PRESENT_BE = _PRESENT_BE_PROGRESSIVE | {"'s", "’s"}


def _span_up_to_now(prep) -> bool:
    """ "since March", "for three years", "for a while": a time up to now."""
    if prep.dep_ != "prep" or prep.text.lower() not in {"since", "for"}:
        return False
    objects = [c for c in prep.children if c.dep_ == "pobj"]
    return prep.text.lower() == "since" or any(
        o.text.lower() in _DURATIONS
        and not (
            o.text.lower() == "time" and any(c.text.lower() in {"first", "second", "third", "last"} for c in o.children)
        )
        for o in objects
    )  # "for the first time" is once, not a span


def _finite_simple(verb) -> bool:
    if verb.dep_ == "advcl" and not any(c.dep_ == "nsubj" for c in verb.children):
        return False
    return verb.dep_ in {"ROOT", "conj", "advcl"} and not any(
        c.dep_ in {"aux", "auxpass"} and c.i < verb.i for c in verb.children
    )


def _tense(doc, sent) -> list[Correction]:
    out = []
    cue_tokens = _cue_tokens(sent, _PAST_CUES)
    future_tokens = _cue_tokens(sent, _FUTURE_CUES)
    for verb in sent:
        if not _finite_simple(verb) or verb.pos_ not in {"VERB", "AUX"}:
            continue
        anchor = verb if verb.dep_ == "ROOT" else verb.head
        if verb.dep_ == "conj" and anchor.tag_ not in {"VBD", "VBP", "VBZ", "VB"}:
            continue
        subj = next((c for c in verb.children if c.dep_ == "nsubj"), None)
        if subj is None and (verb.dep_ == "ROOT" or not any(c.dep_ == "nsubj" for c in anchor.children)):
            continue
        low = verb.text.lower()
        if (
            _lemma(verb) in {"think", "guess", "believe", "suppose", "mean", "remember", "say"}
            and subj is not None
            and subj.text.lower() == "i"
        ):
            continue  # "I think in 2017 or so": a remark about now
        if _lemma(verb) in _DESCRIBING_VERBS and (
            subj is None or subj.text.lower() not in {"i", "we", "he", "she", "they"}
        ):
            continue  # "This chart shows last month": a chart or a document says it now
        if low.startswith(("'", "’")):
            continue  # "that's": a contraction is not rewritten
        if any(c.text.lower() in {"than", "now", "currently"} for c in verb.children):
            continue  # "more stable last year than it is now": the clause compared is about now
        if subj is not None and subj.text.lower() in {"which", "who"}:
            continue  # "… last month, which is too low": a comment, said now
        own_time = any(t in future_tokens or t.text.lower() in {"tomorrow", "tonight", "today"} for t in verb.subtree)
        own_time = own_time or (  # "It arrived this morning, but the cables are missing": a state now
            verb.dep_ == "conj"
            and subj is not None
            and any(c.dep_ == "cc" and c.text.lower() in {"but", "yet"} and c.i < verb.i for c in anchor.children)
        )
        if (
            verb.tag_ in {"VBP", "VBZ", "VB"}
            and not own_time
            and (  # "… and the postmortem is tomorrow"
                _cue_of(anchor, cue_tokens)
                or _cue_of(verb, cue_tokens)
                or _past_clause(anchor)
                or any(c.dep_ == "advcl" and _cue_of(c, cue_tokens) for c in verb.children)
            )
        ):
            right = {"am": "was", "is": "was", "are": "were", "'s": "was"}.get(low) or inflect(verb.text, "VBD")
            if right.lower() != low:
                out.append(_make(doc, "past-with-cue", verb, verb, right))
        elif (
            verb.tag_ == "VBD"
            and (_cue_of(anchor, future_tokens) or _cue_of(verb, future_tokens))
            and not cue_tokens
            and not any(c.dep_ == "mark" and c.text.lower() == "if" for c in verb.children)
            and not any(t.text.lower() in {"would", "could", "might", "wish"} for t in sent)
        ):  # not "Would it help if I took the shift next week?": a past that is only supposed
            if low in {"was", "were"}:
                right = "will be"
            else:
                right = "will " + inflect(verb.text, "VB")
            out.append(_make(doc, "future-with-cue", verb, verb, right))
    # "Last year I am working on …" -> "I was working"
    for aux in sent:
        low = aux.text.lower()
        if aux.dep_ != "aux" or low not in _PRESENT_BE_PROGRESSIVE or aux.head.tag_ != "VBG":
            continue
        if aux.head.text.lower() == "going":
            continue  # "are going to be": the future
        verb = aux.head
        if aux.i + 1 != verb.i or not _cue_of(verb, cue_tokens) or any(_span_up_to_now(c) for c in verb.children):
            continue
        if low.startswith(("'", "’")):
            continue  # "I'm working": a contraction is not rewritten
        out.append(_make(doc, "past-with-cue", aux, aux, "were" if low == "are" else "was"))
    # "we don't have" in a past time
    for aux in sent:
        if (
            aux.dep_ != "aux"
            or aux.text.lower() not in {"do", "does"}
            or not any(c.dep_ == "neg" for c in aux.head.children)
        ):
            continue
        if _cue_of(aux.head, cue_tokens) or _past_clause(aux.head):
            out.append(_make(doc, "past-with-cue", aux, aux, "did"))
    # "I have fixed it yesterday" -> "I fixed it yesterday"; "When I was a student, I have used"
    for verb in sent:
        if verb.tag_ != "VBN" or any(_span_up_to_now(c) for c in verb.children):
            continue  # "have worked here for three years", "since March"
        aux = [c for c in verb.children if c.dep_ == "aux" and c.text.lower() in {"have", "has", "'ve", "’ve"}]
        if len(aux) != 1 or aux[0].i + 1 != verb.i:
            continue
        if _past_clause(verb, loose=True) and not any(t.text.lower() == "since" for t in sent):
            out.append(_make(doc, "perfect-with-cue", aux[0], verb, _simple_past(doc, verb)))
            continue
        if not cue_tokens or not _cue_of(verb, cue_tokens) or any(t.text.lower() == "since" for t in sent):
            continue
        if not any(c.i > verb.i or _POINT_IN_TIME.match(c.text) for c in cue_tokens if _cue_of(verb, [c])):
            continue  # "In 2023 … have pushed": a cue said first frames a span up to now
        out.append(_make(doc, "perfect-with-cue", aux[0], verb, _simple_past(doc, verb)))
    # "Since 2021 I am working" -> "I have been working"; "The job is running for six hours already"
    for prep in sent:
        low = prep.text.lower()
        if low not in {"since", "for"} or prep.dep_ != "prep":
            continue
        objs = [c for c in prep.children if c.dep_ == "pobj"]
        if not objs:
            continue
        obj = objs[0]
        if low == "since" and not (
            obj.like_num or obj.text.lower() in _TIME_NOUNS or any(c.like_num for c in obj.children)  # "2 a.m."
        ):
            continue
        if low == "for" and not (
            obj.text.lower() in {"hours", "days", "weeks", "months", "years", "minutes"}
            and any(t.text.lower() in {"already", "now"} for t in sent)
        ):
            continue
        verb = prep.head
        subj = next((c for c in verb.children if c.dep_ == "nsubj"), None)
        if subj is None or verb.pos_ not in {"VERB", "AUX"}:
            continue
        have = "has" if _subject_number(subj) == "singular" or subj.text.lower() in {"he", "she", "it"} else "have"
        if subj.text.lower() in {"i", "you", "we", "they"}:
            have = "have"
        aux = [c for c in verb.children if c.dep_ == "aux" and c.i < verb.i]
        if verb.tag_ == "VBG" and len(aux) == 1 and aux[0].text.lower() in _PRESENT_BE_PROGRESSIVE:
            if aux[0].i + 1 != verb.i:
                continue
            out.append(_make(doc, "since-perfect", aux[0], verb, f"{have} been {verb.text}"))
        elif low == "for" and not (
            verb.text.lower() in _PRESENT_BE
            and not aux
            and any(t.text.lower() == "now" and t.head.i == verb.i for t in sent)
        ):
            continue  # "I'm on this project for six months now" -> "I've been"; not "I'm here for a week"
        elif verb.tag_ in {"VBP", "VBZ"} and not aux and verb.text.lower() not in _PRESENT_BE:
            out.append(_make(doc, "since-perfect", verb, verb, f"{have} {inflect(verb.text, 'VBN')}"))
        elif verb.text.lower() in _PRESENT_BE and not aux:
            if verb.text[:1] in "'’":  # "I'm" -> "I've been"
                out.append(
                    _make(doc, "since-perfect", verb, verb, f"{verb.text[0]}{'s' if have == 'has' else 've'} been")
                )
            else:
                out.append(_make(doc, "since-perfect", verb, verb, f"{have} been"))
    return out


_AUX_BASE = {
    "did",
    "does",
    "do",
    "will",
    "would",
    "can",
    "could",
    "should",
    "must",
    "might",
    "may",
    "wo",
    "ca",
    "shall",
}


def _base_after_aux(doc, sent) -> list[Correction]:
    out = []
    for verb in sent:
        if verb.pos_ != "VERB" or not (
            verb.tag_ in {"VBD", "VBZ", "VBN"}
            or (
                verb.tag_ == "VB"
                and verb.text.lower().endswith("ed")
                and verb.text.lower() in inflect_all(verb.text, "VBD")
            )
        ):
            continue
        if verb.tag_ == "VBN" and verb.text.lower() not in inflect_all(verb.text, "VBD"):
            continue  # "didn't knew", "will finished"; not a participle that is only one
        if verb.tag_ == "VBN" and verb.i + 1 < len(doc) and doc[verb.i + 1].tag_ in {"NN", "NNS", "NNP", "JJ"}:
            continue  # "How did distributed training jobs get …": an adjective before its noun
        aux = [c for c in verb.children if c.dep_ == "aux" and c.i < verb.i]
        if not aux or aux[-1].text.lower() not in _AUX_BASE:
            continue
        between = doc[aux[-1].i + 1 : verb.i]
        subject = {x.i for c in verb.children if c.dep_ == "nsubj" and c.i > aux[-1].i for x in c.subtree}
        if any(x.dep_ not in {"neg", "advmod"} and x.i not in subject for x in between):
            continue  # "did not knew", "Did you already restarted …?"
        if any(c.dep_ == "aux" and c.text.lower() in {"have", "be", "been"} for c in verb.children):
            continue
        base = inflect(verb.text, "VB")
        if base.lower() == verb.text.lower():
            continue
        out.append(_make(doc, "base-after-aux", verb, verb, base))
    return out


_CONDITION_MARKS = {"if", "when", "once", "until", "before", "after", "unless"}


def _will_after_if(doc, sent) -> list[Correction]:
    """A condition about the future takes the present: "If the job will fail again, I'll open a
    ticket" -> "If the job fails again". Only when the main clause says "will" (so not "If it will
    help, I can share", nor "tell me if it will be late", where "if" means "whether")."""
    out = []
    for verb in sent:
        if verb.dep_ != "advcl" or not any(
            c.dep_ in {"mark", "advmod"} and c.text.lower() in _CONDITION_MARKS for c in verb.children
        ):
            continue
        will = [c for c in verb.children if c.dep_ == "aux" and c.text.lower() in {"will", "'ll", "’ll"}]
        if len(will) != 1 or will[0].i + 1 != verb.i or verb.tag_ != "VB":
            continue
        if verb.text.lower() in {"excuse", "forgive", "allow", "permit", "bear"}:
            continue  # "If you'll excuse me": a polite formula
        if not any(c.dep_ == "aux" and c.text.lower() in {"will", "'ll", "’ll", "wo"} for c in verb.head.children):
            continue
        subj = next((c for c in verb.children if c.dep_ in {"nsubj", "nsubjpass"}), None)
        number = _subject_number(subj) if subj is not None else None
        if subj is not None and subj.text.lower() == "i":
            right = "am" if verb.text.lower() == "be" else verb.text
        elif number == "singular":
            right = "is" if verb.text.lower() == "be" else inflect(verb.text, "VBZ")
        elif number == "plural":
            right = "are" if verb.text.lower() == "be" else verb.text
        else:
            continue
        out.append(_make(doc, "present-in-condition", will[0], verb, right))
    return out


_MODALS_OF_UNREAL = {"would", "could", "might", "'d", "’d"}


def _unreal_conditional(doc, sent) -> list[Correction]:
    """The tenses of an unreal "if": "If I knew earlier, I would have asked" -> "If I had known";
    "If it had worked, we would not lose it" -> "would not have lost"; "If we would have more GPUs,
    we could …" -> "If we had more GPUs"."""
    out = []
    for condition in sent:
        if condition.dep_ != "advcl" or not any(
            c.dep_ == "mark" and c.text.lower() == "if" for c in condition.children
        ):
            continue
        main = condition.head
        main_aux = [c.text.lower() for c in main.children if c.dep_ == "aux" and c.i < main.i]
        if not main_aux or main_aux[0] not in _MODALS_OF_UNREAL | {"will", "'ll", "’ll"}:
            continue
        future_main = main_aux[0] not in _MODALS_OF_UNREAL  # "If I would do it again, I will …"
        cond_aux = [c for c in condition.children if c.dep_ in {"aux", "auxpass"} and c.i < condition.i]
        subject = next((c for c in condition.children if c.dep_ in {"nsubj", "nsubjpass"}), None)
        past_main = "have" in main_aux and main.tag_ == "VBN"
        if (
            past_main
            and not cond_aux
            and condition.tag_ == "VBD"
            and condition.text.lower() != "had"  # "if we had had" is right, and reads as a slip
            and not any(c.dep_ == "xcomp" for c in condition.children)  # "if the IO were to be slower"
        ):
            right = "had been" if condition.text.lower() in {"was", "were"} else f"had {inflect(condition.text, 'VBN')}"
            out.append(_make(doc, "unreal-conditional", condition, condition, right))
        elif (
            not past_main
            and main.tag_ == "VB"
            and [a.text.lower() for a in cond_aux] == ["had"]
            and condition.tag_ == "VBN"
        ):
            out.append(_make(doc, "unreal-conditional", main, main, f"have {inflect(main.text, 'VBN')}"))
        elif (
            [a.text.lower() for a in cond_aux] == ["would"]
            and condition.tag_ == "VB"
            and (future_main or not past_main)
        ):
            # "If we would have more GPUs, we could" -> "had"; "If I would do it again, I will" -> "did … would"
            if not future_main and (subject is None or subject.text.lower() == "you"):
                continue  # "If you would like, …": a polite offer
            be_form = "was" if not future_main and subject is not None and subject.text.lower() == "i" else "were"
            right = be_form if condition.text.lower() == "be" else inflect(condition.text, "VBD")
            out.append(_make(doc, "unreal-conditional", cond_aux[0], condition, right))
            if future_main:
                will = next(c for c in main.children if c.dep_ == "aux" and c.i < main.i)
                out.append(_make(doc, "unreal-conditional", will, will, "would"))
    return out


@cache
def _embedding_regex():
    body = "|".join(words("embedding"))
    return compile_pattern(
        rf"\b(?:{body})(?: (?:me|us|him|her|them|you|the \w+))?(?: exactly| really| yet)?,? "
        r"(what|where|when|why|how|which|if|whether)\b"
    )


_MOVABLE = {
    "is",
    "are",
    "was",
    "were",
    "does",
    "did",
    "do",
    "will",
    "would",
    "should",
    "can",
    "could",
    "has",
    "have",
    "am",
    "might",
    "must",
}
_WH_PHRASE_TAGS = {"JJ", "JJR", "NN", "NNS", "NNP", "NNPS", "RB", "RBR", "IN", "DT", "HYPH", "CD"}
_BETWEEN_SUBJECT_AND_VERB = {"actually", "really", "even", "still", "just", "usually", "normally", "already"}
_SUBJECT_PRONOUNS = {"it", "he", "she", "they", "we", "you", "i"}


def _subject_end(doc, start: int, end: int) -> int | None:
    """The end (exclusive) of the noun phrase that starts at `start`, or None when none does."""
    first = doc[start]
    if first.tag_ == "PRP":
        return start + 1 if first.text.lower() in _SUBJECT_PRONOUNS else None
    i = start
    while i < end and doc[i].tag_ in {
        "DT",
        "PRP$",
        "JJ",
        "JJS",
        "JJR",
        "NN",
        "NNS",
        "NNP",
        "NNPS",
        "CD",
        "POS",
        "HYPH",
    }:
        i += 1
    if i == start or not doc[i - 1].tag_.startswith("NN"):
        return None
    if i + 1 < end and doc[i].text.lower() == "of" and doc[i + 1].tag_ in {"DT", "PRP$", "NN", "NNS", "NNP", "NNPS"}:
        j = i + 1
        while j < end and doc[j].tag_ in {"DT", "PRP$", "JJ", "NN", "NNS", "NNP", "NNPS", "CD", "HYPH"}:
            j += 1
        if doc[j - 1].tag_.startswith("NN"):
            i = j
    return i


def _embedded_question(doc, sent) -> list[Correction]:
    out = []
    for m in _embedding_regex().finditer(doc.text, sent.start_char, sent.end_char):
        found = doc.char_span(m.start(1), m.end(1))
        wh = found[0] if found is not None and len(found) == 1 else None
        if wh is None:
            continue
        k = wh.i + 1  # the wh-phrase: "how many GPUs", "which version of NCCL"
        while k < sent.end and doc[k].text.lower() not in _MOVABLE and doc[k].tag_ in _WH_PHRASE_TAGS and k - wh.i <= 5:
            k += 1
        if k >= sent.end - 1 or doc[k].text.lower() not in _MOVABLE:
            continue
        if wh.text.lower() in {"if", "whether"} and k != wh.i + 1:
            continue
        verb = doc[k]
        low = verb.text.lower()
        np_end = _subject_end(doc, k + 1, sent.end)
        if np_end is None or np_end - (k + 1) > 6:
            continue
        if (
            wh.text.lower() in {"what", "which"}
            and k == wh.i + 1
            and low in {"is", "are", "was", "were"}
            and doc[k + 1].tag_ in {"JJ", "JJS"}
            and np_end - (k + 1) == 1
        ):
            continue
        np_text = doc.text[doc[k + 1].idx : doc[np_end - 1].idx + len(doc[np_end - 1].text)]
        following = doc[np_end] if np_end < sent.end else None
        if (
            following is not None
            and following.text.lower() in _BETWEEN_SUBJECT_AND_VERB
            and np_end + 1 < sent.end
            and doc[np_end + 1].tag_ in {"VB", "VBP"}
        ):  # "how many GPUs does this job actually need" -> "this job actually needs"
            np_text, following = f"{np_text} {following.text}", doc[np_end + 1]
        if low in {"is", "are", "was", "were", "am"}:
            if (
                following is None
                or following.is_punct
                or following.tag_ in {"IN", "RB", "TO"}
                and following.text.lower() != "than"
            ):
                last, right = doc[np_end - 1], f"{np_text} {verb.text}"
            elif following.tag_ in {"VBG", "VBN", "JJ", "JJR"}:
                last, right = following, f"{np_text} {verb.text} {following.text}"
            else:
                continue
        elif low in {"does", "did", "do"}:
            if following is None or following.tag_ not in {"VB", "VBP"} or following.text.lower() in {"be"}:
                continue
            if low == "does" and doc[k + 1].text.lower() in {"i", "you", "we", "they"}:
                continue
            form = {
                "did": inflect(following.text, "VBD"),
                "does": inflect(following.text, "VBZ"),
                "do": following.text,
            }[low]
            last, right = following, f"{np_text} {form}"
        else:
            if following is None or following.tag_ not in {"VB", "VBP", "VBN"}:
                continue
            last, right = following, f"{np_text} {verb.text} {following.text}"
        out.append(_make(doc, "embedded-question", verb, last, right))
    return out


def _enough(doc, sent) -> list[Correction]:
    """ "enough big" -> "big enough"."""
    out = []
    for t in sent:
        if t.text.lower() != "enough" or t.i + 1 >= sent.end:
            continue
        adj = doc[t.i + 1]
        if adj.tag_ != "JJ" or (adj.i + 1 < sent.end and doc[adj.i + 1].tag_.startswith("NN")):
            continue
        out.append(_make(doc, "enough-order", t, adj, f"{adj.text} enough"))
    return out


_WH_WORDS = {"why", "where", "when", "how", "what", "which", "who"}
_QUESTION_AUX = frozenset("is are was were am do does did can could will would should has have had".split())
_NOUN_PHRASE_TAGS = {"DT", "PRP$", "JJ", "JJR", "JJS", "NN", "NNS", "NNP", "NNPS", "CD", "HYPH", "POS"}


_DO_FOR = {"VBZ": "does", "VBP": "do", "VBD": "did"}  # "How long it takes?" -> "How long does it take?"


def _question_order(doc, sent) -> list[Correction]:
    """A direct question puts its auxiliary before the subject: "Why the job is pending?" -> "Why is
    the job pending?", "What you did change?" -> "What did you change?", "How long it takes?" ->
    "How long does it take?". Not a question answered at once ("Where the bottleneck is? Probably
    the storage."), which speakers use as a way to introduce the answer."""
    tokens = [t for t in sent if not t.is_space]
    if len(tokens) < 4 or tokens[-1].text != "?" or tokens[0].text.lower() not in _WH_WORDS:
        return []
    following = doc[sent.end :].text.strip()
    answered = bool(following) and not following.rstrip().endswith("?")
    if answered and not following.lower().startswith("because"):
        return []
    start = 1  # past the wh-phrase: "How long", "What time", "What kind of GPUs", "Which part of the work"
    while (
        start < len(tokens)
        and start <= 6
        and (
            tokens[start].tag_ in {"NN", "NNS", "JJ", "RB", "JJR"}
            or tokens[start].text.lower() in {"of", "much", "many"}
        )
    ):
        if tokens[start].text.lower() == "of" and start + 1 < len(tokens) and tokens[start + 1].tag_ in {"DT", "PRP$"}:
            start += 1  # "of the work": the determiner belongs to the wh-phrase
        start += 1
    if start >= len(tokens) - 2:
        return []
    first = tokens[start]
    if first.text.lower() in _SUBJECT_PRONOUNS:
        subject_end = start
    elif first.tag_ in {"DT", "PRP$"} and first.text.lower() not in {"a", "an", "any", "some", "all", "no"}:
        subject_end = start
        while subject_end + 1 < len(tokens) and tokens[subject_end + 1].tag_ in _NOUN_PHRASE_TAGS:
            subject_end += 1
        if subject_end == start or not tokens[subject_end].tag_.startswith("NN") or subject_end - start > 4:
            return []
    else:
        return []
    after = subject_end + 1
    if after >= len(tokens) - 1:
        return []
    subject = doc[first.i : tokens[subject_end].i + 1]
    subject_text = subject.text if first.text == "I" else first.text.lower() + subject.text[len(first.text) :]
    verb = tokens[after]
    main = verb if verb.dep_ == "ROOT" else verb.head
    if main.dep_ != "ROOT" or any(t.text in {",", "-", "–", "—", ":", ";", '"', "“", "”"} for t in tokens[after:]):
        return []  # "When you say 1,600 services - what are you measuring?": a clause before the question
    if verb.text.lower() in _QUESTION_AUX and verb.dep_ in {"aux", "auxpass", "ROOT"}:
        last = tokens[after + 1] if tokens[after + 1].text.lower() == "n't" else verb
        moved = doc[verb.i : last.i + 1].text.lower()
        return [_make(doc, "question-order", first, last, f"{moved} {subject_text}", keep_case=True)]
    if answered:
        return []  # "Why we chose FSDP? Because …": a title-like question, said to give its answer
    if verb.pos_ == "VERB" and verb.tag_ in _DO_FOR and not any(c.dep_ in {"aux", "auxpass"} for c in verb.children):
        base = inflect(verb.text, "VB")
        right = f"{_DO_FOR[verb.tag_]} {subject_text} {base}"
        return [_make(doc, "question-order", first, verb, right, keep_case=True)]
    return []


_ADVERBS_AFTER_OBJECT = frozenset(
    "well first fluently carefully again quickly regularly properly correctly manually thoroughly closely completely"
    " fully briefly clearly successfully automatically".split()
)
_TIME_BEFORE_OBJECT = frozenset({"yesterday", "week", "month", "year", "night", "quarter", "sprint"})


def _adverb_before_object(doc, sent) -> list[Correction]:
    """An adverb of manner goes after the object: "writes very well CUDA kernels" -> "writes CUDA
    kernels very well", "check first the logs" -> "check the logs first"; "also" before the verb:
    "check also the network" -> "also check the network"."""
    out = []
    for adverb in sent:
        low = adverb.text.lower()
        manner = low in _ADVERBS_AFTER_OBJECT | {"also"} and adverb.dep_ == "advmod"
        when = low in _TIME_BEFORE_OBJECT and adverb.dep_ == "npadvmod"  # "migrated last month the fleet"
        if not (manner or when) or adverb.head.pos_ != "VERB":
            continue
        verb = adverb.head
        obj = next((c for c in verb.children if c.dep_ == "dobj" and c.i > adverb.i), None)
        first = adverb.left_edge
        if obj is None or first.i != verb.i + 1 or obj.left_edge.i != adverb.i + 1:
            continue
        # the object as far as its head noun and what is joined to it ("Korean and English"), not
        # the phrases that hang on it ("the driver | on the staging cluster")
        joined = [c.right_edge for c in obj.children if c.dep_ in {"conj", "cc"} and c.i > obj.i]
        last = max([obj, *joined], key=lambda t: t.i)
        language = obj.tag_ == "JJ" and obj.text[:1].isupper()  # "speaks very well Korean"
        if obj.tag_ not in {"NN", "NNS", "NNP", "NNPS"} and not language or last.i - obj.left_edge.i > 3:
            continue
        after = doc[last.i + 1] if last.i + 1 < len(doc) else None
        if after is not None and not (after.is_punct or after.dep_ in {"prep", "cc", "advcl"}):
            continue
        moved = doc[obj.left_edge.i : last.i + 1].text
        said = doc[first.i : adverb.i + 1].text
        if low == "also":
            if verb.tag_ != "VB":
                continue  # "it has also the …": leave the finite verbs to a person
            out.append(_make(doc, "also-before-verb", verb, last, f"also {verb.text} {moved}", keep_case=True))
            continue
        out.append(_make(doc, "adverb-before-object", first, last, f"{moved} {said}", keep_case=True))
    return out


def _comparative_as(doc, sent) -> list[Correction]:
    """A comparative is followed by "than": "slower as the first one" -> "slower than"; not "more
    useful as a library" (a role) nor "as the team grew" (a clause)."""
    out = []
    for as_ in sent:
        if as_.text.lower() != "as" or as_.dep_ != "prep":
            continue
        compared = as_.head
        if not (
            compared.tag_ in {"JJR", "RBR"}
            and compared.text.lower() not in {"more", "less"}
            or (compared.pos_ in {"ADJ", "ADV"} and any(c.text.lower() in {"more", "less"} for c in compared.children))
        ):
            continue
        objects = [c for c in as_.children if c.dep_ == "pobj"]
        if not objects or any(c.dep_ == "det" and c.text.lower() in {"a", "an"} for c in objects[0].children):
            continue
        if as_.i != compared.i + 1 or any(t.text.lower() == "as" for t in doc[sent.start : compared.i]):
            continue  # "as fast as" is another matter
        out.append(_make(doc, "comparative-than", as_, as_, "than"))
    return out


def _superlative_article(doc, sent) -> list[Correction]:
    """ "This is best option" -> "the best option"."""
    out = []
    for t in sent:
        if t.tag_ != "JJS" or t.text.lower() in {"most", "least"} or t.i == 0:
            continue
        prev = doc[t.i - 1]
        if prev.text.lower() not in {"is", "was", "be", "are", "were", "'s", "’s"}:
            continue
        noun = doc[t.i + 1] if t.i + 1 < sent.end else None
        if (
            noun is None
            or noun.tag_ != "NN"
            and noun.text.lower() != "one"
            or noun.text.lower() in words("uncountable")
        ):
            continue
        if noun.i + 1 < sent.end and doc[noun.i + 1].tag_.startswith("NN"):
            continue
        out.append(_make(doc, "superlative-the", t, t, f"the {t.text}"))
    return out


def _verb_complements(doc, sent) -> list[Correction]:
    """ "make the training to run" -> "make the training run"; "decided using" -> "decided to use"."""
    out = []
    for verb in sent:
        lem = _lemma(verb)
        if lem in {"make", "let"}:
            for c in verb.children:
                to = [a for a in c.children if a.dep_ == "aux" and a.text.lower() == "to"]
                if (
                    c.dep_ in {"ccomp", "xcomp"}
                    and c.tag_ == "VB"
                    and to
                    and any(s.dep_ == "nsubj" for s in c.children)
                ):
                    if to[0].i + 1 == c.i and to[0].i > verb.i + 1:
                        out.append(_make(doc, "bare-after-make", to[0], c, c.text))
        if lem in words("to_verbs") and verb.i + 1 < sent.end:
            c = doc[verb.i + 1]
            if (
                c.tag_ == "VBG"
                and c.dep_ in {"xcomp", "dobj", "ccomp"}
                and c.head.i == verb.i
                and any(x.dep_ in {"dobj", "prep", "advmod", "prt"} for x in c.children)
            ):
                out.append(_make(doc, "to-after-verb", c, c, "to " + inflect(c.text, "VB")))
    return out


def _simple_past(doc, participle) -> str:
    """The simple past that replaces "have" + `participle` ("have seen" -> "saw"): "been to" a
    place is "went to", "been" otherwise "was" or "were" by its subject."""
    low = participle.text.lower()
    if low != "been":
        return inflect(participle.text, "VBD")
    if participle.i + 1 < len(doc) and doc[participle.i + 1].text.lower() == "to":
        return "went"
    subjects = [c for c in participle.children if c.dep_ in {"nsubj", "expl"}]
    plural = any(c.text.lower() in _PLURAL_PRONOUNS - {"i"} or c.tag_ in {"NNS", "NNPS"} for c in subjects)
    return "were" if plural else "was"


def _quantifiers(doc, sent) -> list[Correction]:
    """ "a little engineers", "few information", "many memory", "a lot of error"."""
    out = []
    for t in sent:
        low = t.text.lower()
        nxt = doc[t.i + 1] if t.i + 1 < sent.end else None
        if nxt is None:
            continue
        if nxt.i + 1 < sent.end and doc[nxt.i + 1].tag_.startswith("NN"):
            continue
        if (
            low == "little"
            and t.i > 0
            and doc[t.i - 1].text.lower() == "a"
            and nxt.tag_ == "NNS"
            and nxt.text.islower()
        ):
            out.append(_make(doc, "few-little", doc[t.i - 1], t, "a few"))
        elif low == "few" and nxt.tag_ == "NN" and nxt.text.lower() in words("uncountable"):
            out.append(_make(doc, "few-little", t, t, "little"))
        elif low == "many" and nxt.tag_ == "NN" and nxt.text.lower() in words("uncountable"):
            out.append(_make(doc, "much-many", t, t, "much"))
        elif (
            low == "of"
            and t.i >= 2
            and doc[t.i - 1].text.lower() in {"lot", "lots"}
            and nxt.tag_ == "NN"
            and nxt.text.lower() in words("countable")
        ):
            out.append(_make(doc, "plural-after-number", nxt, nxt, inflect(nxt.text, "NNS")))
    return out


# --- collocations read from the parse (english.yaml `collocations`) -------------------------------
#
# Word choice generalises only when a rule is keyed on lemmas rather than on fixed strings: "did a
# mistake", "doing two small mistakes" and "mistakes were done" share the lemmas do + mistake. Each
# entry of `collocations` is one of these shapes (keys in english.yaml):
#   verb + object + right          the verb with that object is replaced: do a mistake -> make a mistake
#   verb + object: any + insert    the verb needs a preposition before its object: reply the email -> reply to
#   verb + drop                    the verb takes its object without this preposition: discuss about -> discuss
#   adjective + noun               an adjective before its noun, or after "be" with that noun as subject:
#                                  expensive price -> high price, the price is expensive -> high
#   noun + context                 a Konglish noun in a sentence about its topic: notebook -> laptop (RAM)


@dataclass(frozen=True)
class Collocation:
    id: str
    kind: str
    why: str
    why_ko: str
    verb: frozenset[str] = frozenset()
    object: frozenset[str] = frozenset()  # lemmas, or "compound head" ("air conditioner"); empty: any object
    unless_object: frozenset[str] = frozenset()
    right: str = ""
    insert: tuple[tuple[str, str], ...] = ()  # (verb lemma, preposition); ("", preposition) for every verb
    drop: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (verb lemma, prepositions it does not take)
    adjective: tuple[tuple[str, str], ...] = ()  # (adjective, right)
    noun: tuple[tuple[str, str], ...] = ()  # (noun, right) for Konglish nouns; (noun, "") for nouns of adjectives
    position: frozenset[str] = frozenset({"before", "after-be"})
    adverb: frozenset[str] = frozenset()  # the verb must have one of these adverbs ("see … carefully")
    context: frozenset[str] = frozenset()
    unless_context: frozenset[str] = frozenset()
    examples: tuple[tuple[str, str], ...] = ()
    no_match: tuple[str, ...] = ()


def _pairs(value) -> tuple[tuple[str, str], ...]:
    if isinstance(value, dict):
        return tuple((str(k).lower(), str(v)) for k, v in value.items())
    return tuple((str(v).lower(), "") for v in value or ())


def _lower_set(value) -> frozenset[str]:
    return frozenset(str(v).lower() for v in value or ())


@cache
def collocations() -> tuple[Collocation, ...]:
    out = []
    for r in pattern_data("english").get("collocations", ()):
        obj = r.get("object", ())
        out.append(
            Collocation(
                id=r["id"],
                kind=r["kind"],
                why=r["why"],
                why_ko=r["why_ko"],
                verb=_lower_set(r.get("verb")),
                object=frozenset() if obj == "any" else _lower_set(obj),
                unless_object=_lower_set(r.get("unless_object")),
                right=r.get("right", ""),
                insert=tuple((k, str(v)) for k, v in r["insert"].items())
                if isinstance(r.get("insert"), dict)
                else (("", r["insert"]),)
                if r.get("insert")
                else (),
                drop=tuple((str(k), tuple(v)) for k, v in (r.get("drop") or {}).items()),
                adjective=_pairs(r.get("adjective")),
                noun=_pairs(r.get("noun")),
                position=_lower_set(r.get("position", ("before", "after-be"))),
                adverb=_lower_set(r.get("adverb")),
                context=_lower_set(r.get("context")),
                unless_context=_lower_set(r.get("unless_context")),
                examples=tuple(tuple(e) for e in r.get("examples", ())),
                no_match=tuple(r.get("no_match", ())),
            )
        )
    return tuple(out)


def _noun_key(noun) -> tuple[str, str]:
    """A noun's lemma and, with its compound words, the whole name: ("conditioner", "air conditioner")."""
    from scoring.grammar import lemma

    head = lemma(noun.text, "NOUN").lower() if noun.tag_ in {"NNS", "NNPS"} else noun.text.lower()
    compounds = [c.text.lower() for c in noun.children if c.dep_ == "compound" and c.i < noun.i]
    return head, " ".join([*compounds, head])


def _object_of(verb):
    """The verb's direct object (or the object of its particle-less preposition-free complement)."""
    objs = [c for c in verb.children if c.dep_ in {"dobj"}]
    return objs[0] if objs else None


def _verb_lemma(token) -> str:
    from scoring.grammar import lemma

    return lemma(token.text, "VERB").lower()


@cache
def _collocation_index() -> tuple[dict, dict, dict]:
    """The rules by the word that can start them: verb lemma, adjective, Konglish noun."""
    by_verb: dict[str, list[Collocation]] = {}
    by_adjective: dict[str, list[Collocation]] = {}
    by_noun: dict[str, list[Collocation]] = {}
    for rule in collocations():
        if rule.verb:
            for v in rule.verb:
                by_verb.setdefault(v, []).append(rule)
        elif rule.adjective:
            for a, _ in rule.adjective:
                by_adjective.setdefault(a, []).append(rule)
        elif rule.noun:
            for n, _ in rule.noun:
                by_noun.setdefault(n, []).append(rule)
    return by_verb, by_adjective, by_noun


def _collocation_corrections(doc, sent) -> list[Correction]:
    out: list[Correction] = []
    by_verb, by_adjective, by_noun = _collocation_index()
    lows = None
    for t in sent:
        low = t.text.lower()
        if t.pos_ in {"VERB", "AUX"} and t.text.isalpha():
            rules = by_verb.get(_verb_lemma(t))
            passive_like = t.tag_ == "VBN" and not any(
                c.dep_ == "aux" and c.text.lower() in {"have", "has", "had", "'ve", "’ve"} for c in t.children
            )  # "spoken language", "the work done"
            if rules and not passive_like and t.dep_ not in {"aux", "auxpass", "amod", "compound"}:
                if not any(c.dep_ in {"prt", "auxpass"} for c in t.children):  # "make up", "was done"
                    for rule in rules:
                        c = _verb_collocation(doc, sent, t, rule)
                        if c is not None:
                            out.append(c)
                            break
        for rule in by_adjective.get(low, ()):
            out.extend(_adjective_collocation(doc, t, rule))
        for rule in by_noun.get(low, ()):
            if t.pos_ not in {"NOUN", "PROPN"} or any(c.dep_ == "compound" for c in t.children):
                continue
            if lows is None:
                lows = {x.text.lower() for x in sent}
            if (rule.context and not (lows & rule.context)) or lows & rule.unless_context:
                continue
            out.append(_made(doc, rule, t, t, dict(rule.noun)[low]))
    return out


def _made(doc, rule: Collocation, first, last, right: str) -> Correction:
    if first.i > 0 and doc[first.i - 1].text.lower() in {"a", "an"}:
        article = doc[first.i - 1]
        vowel = _vowel_sound(right.split()[0])
        if vowel is not None and (article.text.lower() == "an") != vowel:
            first, right = article, ("an " if vowel else "a ") + right  # "an expensive price" -> "a high price"
    start, end = first.idx, last.idx + len(last.text)
    wrong = doc.text[start:end]
    if not (wrong.isupper() and len(wrong) > 1):
        right = _case_like(wrong, right)
    return Correction(start, end, wrong, right, rule.kind, rule.why, rule.why_ko, rule.id)


def _verb_collocation(doc, sent, verb, rule: Collocation) -> Correction | None:
    if rule.drop:
        dropped = dict(rule.drop).get(_verb_lemma(verb), ())
        for prep in verb.children:
            if prep.dep_ != "prep" or prep.text.lower() not in dropped or prep.i != verb.i + 1:
                continue
            objs = [c for c in prep.children if c.dep_ == "pobj"]
            if not objs or objs[0].tag_ in {"CD"} or objs[0].text.lower() in {"me", "us", "him", "her", "them", "you"}:
                continue
            if _noun_key(objs[0])[0] in rule.unless_object or _noun_key(objs[0])[1] in rule.unless_object:
                continue
            if any(c.dep_ == "dobj" for c in verb.children):
                continue  # "explain it about" is another matter
            return _made(doc, rule, verb, prep, verb.text)
        return None
    obj = _object_of(verb)
    if obj is None or obj.i <= verb.i:
        return None
    if obj.tag_ not in {"NN", "NNS", "NNP", "PRP"} or not obj.text.isalpha():
        return None
    head, whole = _noun_key(obj)
    if head in rule.unless_object or whole in rule.unless_object:
        return None
    if rule.object and head not in rule.object and whole not in rule.object:
        return None
    if rule.adverb and not any(c.dep_ == "advmod" and c.text.lower() in rule.adverb for c in verb.children):
        return None
    if rule.insert:
        table = dict(rule.insert)
        prep = table.get(_verb_lemma(verb), table.get(""))
        if not prep or obj.left_edge.i != verb.i + 1:
            return None  # "look it up", "wait a minute for"
        if obj.tag_ == "PRP" and obj.text.lower() in {"it", "that", "this", "what"} and not rule.object:
            return None
        if any(c.dep_ == "det" and c.text.lower() in {"every", "each", "all", "next", "last"} for c in obj.children):
            return None  # "talk every layer": a time or a frequency, not an object
        if obj.tag_ in {"NNP"} and obj.text[:1].isupper() and _verb_lemma(verb) in {"speak", "talk"}:
            return None  # "speak Korean"
        return _made(doc, rule, verb, verb, f"{verb.text} {prep}")
    if obj.tag_ == "PRP":
        return None
    between = doc[verb.i + 1 : obj.i]
    if any(x.tag_ not in {"DT", "JJ", "JJR", "JJS", "PRP$", "CD", "NN", "NNP", "RB", "HYPH", "POS"} for x in between):
        return None
    if any(x.dep_ in {"ccomp", "xcomp", "oprd", "acomp"} for x in verb.children):
        return None  # "make the meeting shorter", "make the light work"
    if any(
        x.i > obj.i
        and x.tag_ in {"JJ", "JJR", "RBR", "VB"}
        and x.dep_ != "conj"
        and not (x.dep_ == "advcl" and any(m.dep_ == "mark" for m in x.children))
        for x in verb.children
    ):
        return None  # "makes the job faster"; not "open the camera so we can see it"
    if any(
        x.text.lower() in {"forward", "back", "up", "down", "out", "off", "over", "away", "apart"}
        for x in verb.children
    ):
        return None  # "pull the meeting forward", "take the server down": a phrasal verb
    return _made(doc, rule, verb, verb, _like(verb.text, rule.right))


_BE = {"is", "are", "was", "were", "be", "been", "being", "am", "'s", "’s", "'re", "’re", "'m", "’m"}


def _adjective_collocation(doc, adj, rule: Collocation) -> list[Correction]:
    out: list[Correction] = []
    nouns = {n for n, _ in rule.noun}
    right = dict(rule.adjective)[adj.text.lower()]
    if "before" in rule.position and adj.dep_ == "amod" and adj.head.i > adj.i:
        noun = adj.head
        if noun.tag_ not in {"NN", "NNS"}:
            return out
        if any(x.tag_ not in {"JJ", "RB", "HYPH"} and x.i != adj.i for x in doc[adj.i + 1 : noun.i]):
            return out
        head, whole = _noun_key(noun)
        if head in nouns or whole in nouns:
            out.append(_made(doc, rule, adj, adj, right))
        return out
    if "after-be" in rule.position and adj.dep_ in {"acomp", "attr", "amod", "advmod"}:
        be = adj.head
        if be.text.lower() not in _BE and _verb_lemma(be) not in {"be", "get", "become", "seem", "look"}:
            return out
        subjects = [c for c in be.children if c.dep_ in {"nsubj"} and c.i < be.i]
        if not subjects or subjects[0].tag_ not in {"NN", "NNS"}:
            return out
        if rule.kind == "word-choice" and any(
            c.dep_ in {"prep", "agent"} and c.text.lower() != "for" for c in adj.children
        ):
            return out  # "the project was interested in", "the meeting was tired of": another sense
        head, whole = _noun_key(subjects[0])
        if head in nouns or whole in nouns:
            out.append(_made(doc, rule, adj, adj, right))
    return out


# --- more article and number checks read from the parse --------------------------------------------

_QUANTITY_OF = {
    "most",
    "some",
    "many",
    "all",
    "one",
    "each",
    "none",
    "both",
    "several",
    "few",
    "majority",
    "half",
    "any",
    "much",
    "two",
    "three",
    "four",
    "five",
}
_NOT_BARE_PLURAL_AFTER_A = {
    "few",
    "lot",
    "lots",
    "couple",
    "number",
    "dozen",
    "hundred",
    "thousand",
    "million",
    "series",
    "means",
    "species",
    "data",
    "media",
    "criteria",
    "news",
    "headquarters",
    "thanks",
    "kudos",
    "bunch",
    "pair",
    "set",
    "variety",
    "range",
    "handful",
    "total",
    "many",
    "whole",
    "physics",
    "mathematics",
    "economics",
    "analytics",
    "logistics",
    "statistics",
    "graphics",
    "ops",
    "devops",
    "mlops",
    "sales",
    "goods",
}


def _noun_then_verb(between, plural) -> bool:
    """ "an alert fires": the words after "a" are a noun and its verb, not an adjective and a plural
    noun ("a good results")."""
    return any(x.text.lower() in words("nouns_read_as_adjectives") for x in between) and _is_verb(plural.text)


def _article_checks(doc, sent) -> list[Correction]:
    out: list[Correction] = []
    for t in sent:
        low = t.text.lower()
        nxt = doc[t.i + 1] if t.i + 1 < sent.end else None
        # "a good results" -> "good results"
        if low in {"a", "an"} and t.dep_ == "det" and t.head.tag_ == "NNS" and t.head.i > t.i:
            noun = t.head
            between = doc[t.i + 1 : noun.i]
            if (
                noun.text.islower()
                and noun.text.isalpha()
                and noun.text.endswith("s")
                and not noun.text.endswith(("ss", "us", "is"))
                and noun.text.lower() not in _NOT_BARE_PLURAL_AFTER_A
                and all(x.tag_ in {"JJ", "RB"} and x.text.lower() not in _NOT_BARE_PLURAL_AFTER_A for x in between)
                and (noun.i + 1 >= len(doc) or doc[noun.i + 1].tag_ not in {"NN", "NNS", "NNP", "POS", "HYPH", "CD"})
                and inflect(noun.text, "NN").lower() != noun.text.lower()
                and not any(c.dep_ in {"nummod", "quantmod"} for c in noun.children)
                and not _noun_then_verb(between, noun)
            ):
                out.append(_make(doc, "a-plural", t, noun, doc.text[doc[t.i + 1].idx : noun.idx + len(noun.text)]))
        # "most of engineers" -> "most of the engineers"
        if low == "of" and t.i > sent.start and doc[t.i - 1].text.lower() in _QUANTITY_OF and nxt is not None:
            objs = [c for c in t.children if c.dep_ == "pobj"]
            if objs and objs[0].tag_ == "NNS" and objs[0].text.islower() and objs[0].text.isalpha():
                noun = objs[0]
                left = list(noun.lefts)
                if (
                    nxt.i == (left[0].i if left else noun.i)
                    and all(x.tag_ in {"JJ", "NN", "HYPH"} and x.dep_ in {"amod", "compound"} for x in left)
                    and not any(x.text.lower() in words("no_article_before") for x in left)
                    and doc[t.i - 1].dep_ not in {"amod", "advmod", "det"}  # "the most of", "more of"
                    and not (t.i - 2 >= sent.start and doc[t.i - 2].text.lower() in {"the", "a", "in", "at"})
                    and inflect(noun.text, "NN").lower() != noun.text.lower()
                ):
                    out.append(_make(doc, "quantity-of-the", nxt, nxt, f"the {nxt.text}"))
        # "such problem" -> "such a problem"
        if low == "such" and nxt is not None and t.dep_ in {"amod", "predet"}:
            noun = t.head
            if (
                noun.tag_ == "NN"
                and noun.text.lower() in words("countable")
                and noun.text.islower()
                and noun.i > t.i
                and all(x.tag_ in {"JJ"} for x in doc[t.i + 1 : noun.i])
                and not (noun.i + 1 < len(doc) and doc[noun.i + 1].tag_ in {"NN", "NNS", "HYPH"})
            ):
                article = "an" if _vowel_sound(nxt.text) else "a"
                out.append(_make(doc, "such-a", t, t, f"such {article}"))
        # "I work as engineer" -> "as an engineer"
        if low == "as" and t.dep_ == "prep" and nxt is not None:
            objs = [c for c in t.children if c.dep_ == "pobj"]
            if objs and objs[0].tag_ == "NN" and objs[0].text.lower() in words("roles") and objs[0].text.islower():
                noun = objs[0]
                left = list(noun.lefts)
                if (
                    nxt.i == (left[0].i if left else noun.i)
                    and all(
                        (x.tag_ in {"JJ", "NN", "HYPH"} or x.tag_ == "NNS" and x.dep_ == "compound")
                        and x.text.islower()
                        for x in left
                    )
                    and not any(c.dep_ in {"det", "poss", "nummod"} for c in noun.children)
                    and not (noun.i + 1 < len(doc) and doc[noun.i + 1].tag_ in {"NN", "NNS", "HYPH", "POS"})
                    and not any(c.dep_ in {"conj", "cc"} for c in noun.children)
                    and t.head.pos_ in {"VERB", "AUX"}
                    and _verb_lemma(t.head) in {"work", "join", "hire", "start", "employ", "intern", "apply", "begin"}
                    and not any(
                        x.text.lower() in {"lead", "chief", "head", "principal", "main", "sole", "acting", "interim"}
                        for x in left
                    )
                ):
                    article = "an" if _vowel_sound(nxt.text) else "a"
                    out.append(_make(doc, "as-role", nxt, nxt, f"{article} {nxt.text}"))
        # "the PyTorch", "a Kubernetes" -> "PyTorch", "Kubernetes"
        if (
            low in {"the", "a", "an"}
            and nxt is not None
            and nxt.text[:1].isupper()
            and nxt.text.lower() in words("names")
        ):
            after = doc[nxt.i + 1] if nxt.i + 1 < len(doc) else None
            if after is None or (
                after.text.lower() not in words("plurals_read_as_verbs")
                and (
                    after.is_punct
                    or after.tag_ in {"IN", "TO", "RB", "MD", "VBZ", "VBD", "WDT"}
                    or after.text.lower() in {"last", "this", "next", "yesterday", "today"}
                )
                and after.text.lower() not in {"of", "'s", "’s", "-", "/"}
            ):
                out.append(_make(doc, "the-name", t, nxt, nxt.text, keep_case=True))
        # "It is same as before" / "We had same problem" -> "the same"
        if low == "same" and t.i > sent.start and nxt is not None:
            prev = doc[t.i - 1]
            if (
                prev.text.lower() not in words("no_article_before")
                and prev.tag_ in {"VB", "VBD", "VBZ", "VBP", "VBG", "VBN", "IN"}
                and prev.text.lower() not in {"as", "like", "than"}
                and (nxt.text.lower() in {"as", "with"} or (nxt.tag_ in {"NN", "NNS"} and nxt.text.islower()))
                and not (nxt.i + 1 < len(doc) and nxt.text.lower() == "as" and doc[nxt.i + 1].text.lower() == "well")
            ):
                out.append(_make(doc, "same-the", t, t, "the same"))
    return out


def _number_checks(doc, sent) -> list[Correction]:
    out: list[Correction] = []
    for t in sent:
        low = t.text.lower()
        # "these file" -> "these files"; "a few day" -> "a few days"; "the number of user" -> "users"
        quantity = None
        if low in {"these", "those"} and t.dep_ == "det":
            quantity = t
        elif low == "few" and t.i > sent.start and doc[t.i - 1].text.lower() == "a":
            quantity = t
        if quantity is not None:
            noun = t.head
            if (
                noun.i > t.i
                and noun.tag_ == "NN"
                and noun.text.islower()
                and noun.text.isalpha()
                and noun.text.lower() in words("countable")
                and noun.text.lower() not in {"kind", "sort", "type"}
                and all(x.tag_ in {"JJ", "NN"} for x in doc[t.i + 1 : noun.i])
                and not (noun.i + 1 < len(doc) and doc[noun.i + 1].tag_ in {"NN", "NNS", "HYPH", "POS"})
                and not any(c.dep_ in {"conj", "cc"} for c in noun.children)
            ):
                out.append(_make(doc, "plural-after-number", noun, noun, inflect(noun.text, "NNS")))
        if (
            low == "of"
            and t.i > sent.start
            and doc[t.i - 1].text.lower() in {"number", "variety", "couple", "dozens", "hundreds", "thousands"}
        ):
            objs = [c for c in t.children if c.dep_ == "pobj"]
            if objs:
                noun = objs[0]
                if (
                    noun.tag_ == "NN"
                    and noun.text.islower()
                    and noun.text.lower() in words("countable")
                    and not any(c.dep_ in {"det", "poss"} for c in noun.children)
                    and not (noun.i + 1 < len(doc) and doc[noun.i + 1].tag_ in {"NN", "NNS", "HYPH", "POS"})
                    and not any(c.dep_ in {"conj", "cc"} for c in noun.children)
                ):
                    out.append(_make(doc, "plural-after-number", noun, noun, inflect(noun.text, "NNS")))
        # "researches", "staffs" as nouns
        if t.tag_ == "NNS" and low in {"researches", "staffs"} and t.dep_ not in {"ROOT"}:
            out.append(
                _make(
                    doc,
                    "uncountable-plural-parse",
                    t,
                    t,
                    t.text[:-2] if low.endswith("es") and low != "staffs" else t.text[:-1],
                )
            )
    return out
