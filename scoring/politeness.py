"""Request politeness as strategies (Danescu-Niculescu-Mizil et al., ACL 2013).

The strategies, their patterns and weights are data: scoring/patterns/politeness.yaml. A request's
score is a logistic function of the strategies found in it; it is polite when the score reaches
the threshold and nothing in it is impolite (a bare command, a bare "What?", blame, dismissal,
cutting someone off, impatience: each named, with how it sounds). `coach politeness` and the
`politeness` detector both call `assess`, so they make the same decision. Every strategy found
carries its evidence: the matched span, verbatim.

    assess(text) -> Verdict(score, polite, strategies=[Found(name, evidence, start, weight)])
    suggest(text) -> a softer wording of an impolite request, or None
    sounds(name, cue) -> (English, Korean): how an impolite strategy sounds to a colleague
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

import re2

from scoring.detectors.base import compiled, pattern_data
from scoring.regex import WordPatterns
from scoring.text import Answer

WHERE = ("anywhere", "start", "not_start")
AUTHOR_MARKER = "author_marker"
AUTHOR_BLUNT = "author_blunt"
BARE_COMMAND = "bare_command"
IMPERATIVE_START = "imperative_start"


@dataclass(frozen=True)
class Strategy:
    name: str
    description: str
    weight: float
    where: str
    fit: bool
    patterns: tuple[str, ...]
    marker: bool = True
    impolite: bool = False

    @property
    def regex(self) -> WordPatterns:
        return compiled(self.patterns)

    @property
    def label(self) -> str:
        return self.name.replace("_", " ")


@dataclass(frozen=True)
class Found:
    name: str
    evidence: str  # the matched span, a verbatim substring of the request
    start: int  # its offset in the request
    weight: float
    marker: bool = True
    impolite: bool = False
    cue: str = ""  # the parsed cue that found it (politeness.yaml, `parsed_cues`), if one did

    def to_json_dict(self) -> dict:
        return {"name": self.name, "evidence": self.evidence}


@dataclass(frozen=True)
class Verdict:
    score: float
    polite: bool
    strategies: tuple[Found, ...]

    @property
    def names(self) -> set[str]:
        return {f.name for f in self.strategies}

    @property
    def positive(self) -> list[Found]:
        return [f for f in self.strategies if f.weight > 0]

    @property
    def markers(self) -> list[Found]:
        """Polite strategies that are politeness markers (not pronouns): what feedback quotes as
        having made a line polite."""
        return [f for f in self.positive if f.marker]

    @property
    def negative(self) -> list[Found]:
        """The strategies that pull the score down, the heaviest first."""
        return sorted((f for f in self.strategies if f.weight < 0), key=lambda f: (f.weight, f.start))

    @property
    def impolite(self) -> list[Found]:
        """What makes the request impolite whatever else it has, in text order."""
        return [f for f in self.strategies if f.impolite]


@cache
def _data() -> dict:
    return pattern_data("politeness")


@cache
def strategies() -> tuple[Strategy, ...]:
    out = []
    for item in _data()["strategies"]:
        where = item.get("where", "anywhere")
        if where not in WHERE:
            raise ValueError(f"politeness.yaml: {item['name']}: where must be one of {WHERE}")
        if not all(isinstance(p, str) for p in item.get("patterns") or ()):
            raise ValueError(f"politeness.yaml: {item['name']}: a pattern is not a string (quote it)")
        out.append(
            Strategy(
                name=item["name"],
                description=" ".join(str(item["description"]).split()),
                weight=float(item["weight"]),
                where=where,
                fit=bool(item.get("fit", False)),
                patterns=tuple(item.get("patterns") or ()),
                marker=bool(item.get("marker", True)),
                impolite=bool(item.get("impolite", False)),
            )
        )
    return tuple(out)


@cache
def _bare_command() -> dict:
    return dict(_data()["bare_command"])


def sounds(name: str, cue: str = "") -> tuple[str, str]:
    """How an impolite strategy sounds to a colleague, in English and Korean; said more closely by
    the parsed cue that found it (`Found.cue`) where that cue has its own `sounds` ("It sounds
    like you are mocking them" for "is everyone asleep?", not the dismissal's "disagree with the idea")."""
    item = next((c.spec for c in parsed_cues() if c.name == cue and "sounds" in c.spec), None)
    if item is None:
        item = _bare_command() if name == BARE_COMMAND else next(s for s in _data()["strategies"] if s["name"] == name)
    return " ".join(str(item["sounds"]).split()), " ".join(str(item["sounds_ko"]).split())


def _obligation(answer: Answer, spec: dict) -> Found | None:
    """'You must …', 'You need to …' said to the listener: a command in other words."""
    pattern = compiled((spec["obligation"],))
    for sentence in answer.sentences:
        if match := pattern.search(sentence.text):
            return Found(BARE_COMMAND, match.group(0), sentence.start + match.start(), 0.0, marker=False, impolite=True)
    return None


def _parsed_command(answer: Answer, spec: dict) -> Found | None:
    """A command the word list of `imperative_start` does not hold ("Define 'production-ready'."),
    read from the parse; its evidence is the verb."""
    exempt = set(spec["exempt_verbs"])
    seen: set[tuple[int, int]] = set()
    for clause in answer.grammar:
        first = clause.sentence not in seen
        seen.add(clause.sentence)
        if clause.verb in exempt or not (clause.imperative or (first and _led_in_command(answer, clause, spec))):
            continue
        word = answer.text[clause.position:].split(maxsplit=1)[0].rstrip(".,!?;:")
        return Found(BARE_COMMAND, word, clause.position, 0.0, marker=False, impolite=True)
    return None


_NAME_COMMA = re2.compile(r"^[A-Z][a-z]+,$")


def _led_in_command(answer: Answer, clause, spec: dict) -> bool:
    """A command after a reaction or a name the parse does not take for an interjection ("Wow,
    great, just decide everything", "Mina, confirm you can hear me"): the sentence's first verb in
    its base form, no subject, no modal, not a question, and only `lead_in` words or a name before it."""
    if clause.subject != "none" or clause.tense != "present" or clause.modal or clause.question or not clause.verb:
        return False
    word = _WORD.match(answer.text, clause.position)
    if word is None or word.group(0).lower() != clause.verb:  # the base form itself, not "sharing"
        return False
    before = answer.text[clause.sentence[0] : clause.position].split()
    if not before:
        return False
    lead = {str(w).lower() for w in spec.get("lead_in") or ()}
    return all(_NAME_COMMA.match(w) or w.strip(",.!—–-").lower() in lead for w in before)


# --- impoliteness read from the parse (politeness.yaml, `parsed_cues`) -------------------------

_WORD = re2.compile(r"[A-Za-z]+(?:['’][A-Za-z]+)?")
_CONDITIONAL = re2.compile(r"(?i)\b(?:if|unless|whether|when|once)\b[^,.;!?]*$")
_EVEN_SO = re2.compile(r"\b[Ee]ven (?:so|if|though|when|more|less|better|worse|faster|further|to|the|a|an|for|in|on|at"
                       r"|with)\b|\beven [A-Z]")


@dataclass(frozen=True)
class Cue:
    """One structural cue of impoliteness: a rule in code over word classes from the YAML."""

    name: str
    reports: str  # the impolite strategy it is named as
    rule: str
    spec: dict
    softened_by: frozenset[str]

    def words(self, key: str) -> frozenset[str]:
        return frozenset(str(w).lower() for w in self.spec.get(key) or ())


@cache
def parsed_cues() -> tuple[Cue, ...]:
    out = []
    for item in _data().get("parsed_cues") or ():
        if item["rule"] not in _RULES:
            raise ValueError(f"politeness.yaml: {item['name']}: unknown rule {item['rule']!r}")
        if item["reports"] not in {s.name for s in strategies() if s.impolite} | {BARE_COMMAND}:
            raise ValueError(f"politeness.yaml: {item['name']}: reports {item['reports']!r}, not an impolite strategy")
        out.append(Cue(item["name"], item["reports"], item["rule"], item, frozenset(item.get("softened_by") or ())))
    return tuple(out)


@cache
def mild_cues() -> frozenset[str]:
    """Cues marked `mild`: impolite, but the line still does its move ("Fine, go ahead.")."""
    return frozenset(c.name for c in parsed_cues() if c.spec.get("mild"))


def _lower_words(text: str) -> list[str]:
    return [w.lower().replace("’", "'") for w in _WORD.findall(text)]


def _sentence_text(answer: Answer, clause) -> str:
    return answer.text[clause.sentence[0] : clause.sentence[1]]


def _conditional(answer: Answer, clause) -> bool:
    """The clause sits in an if-clause ("If you can't see it, …")."""
    return _CONDITIONAL.search(answer.text[clause.sentence[0] : clause.position]) is not None


def _listener_does(cue: Cue, answer: Answer, clause) -> bool:
    if clause.subject != "listener" or _conditional(answer, clause):
        return False
    if clause.question or clause.words & cue.words("unless"):
        return False
    if _EVEN_SO.search(_sentence_text(answer, clause)):
        return False  # "even though you didn't …" concedes, it does not judge
    if clause.words & cue.words("adverbs") and clause.tense in {"present", "future"}:
        return True  # a habit ("you always do that"), not one past event ("you never created the page")
    return clause.negated and bool(clause.verb in cue.words("verbs") or clause.words & cue.words("negated_adverbs"))


def _yours_is_bad(cue: Cue, answer: Answer, clause) -> bool:
    return (clause.verb == "be" and "your" in clause.words and not clause.question and not clause.negated
            and bool(clause.words & cue.words("words")) and not _conditional(answer, clause))


def _judged_bad(cue: Cue, answer: Answer, clause) -> bool:
    if clause.question or clause.negated or clause.modal in {"might", "may", "could", "would"}:
        return False
    if not clause.words & cue.words("words"):
        return False
    if clause.fragment == "NOUN" or (clause.fragment and clause.verb == ""):  # "Another vague deadline."
        return True
    subject = clause.subject_text.lower()
    return clause.verb == "be" and (subject in cue.words("subjects") or clause.subject == "none")


def _rhetorical(cue: Cue, answer: Answer, clause) -> bool:
    if not clause.question:
        return False
    sentence = _sentence_text(answer, clause)
    if clause.words & cue.words("adverbs") and not clause.words & cue.words("unless") and not _EVEN_SO.search(sentence):
        return True
    return "really" in clause.words and "than" in _lower_words(sentence)


def _negated_anyway(cue: Cue, answer: Answer, clause) -> bool:
    words = _lower_words(_sentence_text(answer, clause))
    return (bool(words) and words[-1] == "anyway" and clause.negated and "anyway" in clause.words
            and clause.subject == "listener")


def _own_turn(cue: Cue, answer: Answer, clause) -> bool:
    if clause.subject != "speaker" or clause.tense != "past" or clause.question or "be" not in clause.words:
        return False
    if clause.subject_text.lower() not in {"i"} or clause.governor or _conditional(answer, clause):
        return False  # "what I was saying is …" is not a claim on the floor
    before = answer.text[clause.sentence[0] : clause.position].lower()
    if "what" in _lower_words(before):
        return False
    if clause.verb == "do":  # "I wasn't done"
        return clause.state == "done" and clause.negated
    return clause.verb in cue.words("verbs") and not (clause.words & {"to", "with", "about", "that"})


def _let_me(cue: Cue, answer: Answer, clause) -> bool:
    """"Let me finish." said as a demand: nothing after the verb but a word or two ("now", "first")."""
    after = _lower_words(answer.text[clause.position : clause.sentence[1]])[1:]
    return clause.verb in cue.words("verbs") and clause.subject_text.lower() == "me" and not clause.question and (
        "let" in _lower_words(answer.text[clause.sentence[0] : clause.position])[-2:]) and len(after) <= 1


_RULES = {
    "listener_does": _listener_does,
    "yours_is_bad": _yours_is_bad,
    "judged_bad": _judged_bad,
    "rhetorical": _rhetorical,
    "negated_anyway": _negated_anyway,
    "own_turn": _own_turn,
    "let_me": _let_me,
    "only_words": None,
    "phrases": None,
    "sarcastic_praise": None,
    "reluctant": None,
}


def _only_words(cue: Cue, sentence) -> bool:
    text = sentence.text.strip()
    words = _lower_words(text)
    if not words:
        return False
    if words[0] in cue.words("opens") and re2.match(r"(?i)^\W*[a-z]+\s*[,.!]", text):
        return True
    if cue.spec.get("ends") == "statement" and text.endswith("?"):
        return False
    allowed = cue.words("words") | cue.words("filler")
    return all(w in allowed for w in words) and any(w in cue.words("words") for w in words)


def _phrase(cue: Cue, sentence) -> bool:
    """One of the cue's `patterns` in the sentence (whole words, any case); with `ends: statement`,
    a question does not count ("Is it on your end?" asks, "It must be your end." blames)."""
    text = sentence.text.strip()
    if cue.spec.get("ends") == "statement" and text.endswith("?"):
        return False
    return compiled(tuple(cue.spec.get("patterns") or ())).search(text) is not None


def _praise_only(cue: Cue, sentence) -> bool:
    words = _lower_words(sentence.text)
    praise = cue.words("words")
    allowed = praise | cue.words("nouns") | cue.words("filler")
    return (bool(words) and any(w in praise for w in words) and all(w in allowed for w in words)
            and not sentence.text.strip().endswith("?"))


def _reluctant(cue: Cue, sentence) -> bool:
    text = sentence.text.strip()
    words = _lower_words(text)
    lead = cue.words("lead")
    i = 0
    while i < len(words) and words[i] in lead:
        i += 1
    if i < len(words) and words[i] in cue.words("words"):
        after = words[i + 1] if i + 1 < len(words) else ""
        # "fine" closed by a comma or a full stop, not "fine by me" / "fine, thanks"
        said = re2.search(r"(?i)\b" + words[i] + r"\s*[,.!—–-]", text)
        if said and after not in cue.words("unless"):
            return True
    tail = text.rstrip(".!… ").lower()
    return any(tail.endswith(" " + t.lower()) or tail.endswith("," + t.lower()) for t in cue.spec.get("tails") or ())


def _cue_found(cue: Cue, answer: Answer, found_names: set[str]) -> Found | None:
    if found_names & cue.softened_by:
        return None
    if cue.rule in {"only_words", "reluctant", "phrases"}:
        test = {"only_words": _only_words, "reluctant": _reluctant, "phrases": _phrase}[cue.rule]
        for sentence in answer.sentences:
            if test(cue, sentence):
                return Found(cue.reports, sentence.text, sentence.start, 0.0, marker=False, impolite=True, cue=cue.name)
        return None
    if cue.rule == "sarcastic_praise":
        trigger = cue.words("trigger")
        for sentence in answer.sentences:
            others = " ".join(s.text for s in answer.sentences
                              if s is not sentence and not s.text.rstrip().endswith("?"))
            if _praise_only(cue, sentence) and set(_lower_words(others)) & trigger:
                return Found(cue.reports, sentence.text, sentence.start, 0.0, marker=False, impolite=True, cue=cue.name)
        return None
    rule = _RULES[cue.rule]
    assert rule is not None  # the rules without a parse reading were handled above
    for clause in answer.grammar:
        if rule(cue, answer, clause):
            said = answer.sentence_at(clause.position)
            if said is None:
                return None
            return Found(cue.reports, said.text, said.start, 0.0, marker=False, impolite=True, cue=cue.name)
    return None


def _parsed_impoliteness(found: list[Found], answer: Answer) -> list[Found]:
    """What the parse finds impolite that no phrase named (politeness.yaml, `parsed_cues`), each
    named as the impolite strategy it reports, once per strategy."""
    names = {f.name for f in found}
    out = []
    for cue in parsed_cues():
        if cue.reports in names:
            continue
        if hit := _cue_found(cue, answer, names):
            out.append(hit)
            names.add(hit.name)
    return out


def cue_names(text: str | Answer) -> list[str]:
    """The parsed cues that fire on a line, by their own names, softeners counted (for the tests)."""
    answer = text if isinstance(text, Answer) else Answer(text)
    names = {s.name for s in find(answer)}
    return [cue.name for cue in parsed_cues() if _cue_found(cue, answer, names)]


def _unsoftened_command(found: list[Found], answer: Answer) -> Found | None:
    """A bare command: an imperative start with no softener anywhere in the request (politeness.yaml,
    `bare_command`), unless it is one of the ordinary commands of a meeting ("Give me a second")."""
    spec = _bare_command()
    names = {f.name for f in found}
    if names & set(spec["softened_by"]):
        return None
    unless = compiled(tuple(spec["unless"]))
    for command in (*_commands_at_start(found, answer), _obligation(answer, spec), _parsed_command(answer, spec)):
        if command is None:
            continue
        sentence = answer.sentence_at(command.start)
        if sentence is not None and unless.search(sentence.text):
            continue  # an ordinary command of a meeting ("See, it's up."); another sentence may still be one
        if sentence is not None and any(f.impolite and sentence.start <= f.start < sentence.end for f in found):
            return None  # "Stop, my turn now" is named once, as cutting someone off
        return Found(BARE_COMMAND, command.evidence, command.start, 0.0, marker=False, impolite=True)
    return None


def _commands_at_start(found: list[Found], answer: Answer) -> list[Found]:
    """Each sentence's `imperative_start`, not only the first found ("See it? Answer." commands
    in its second sentence though "See it?" is an ordinary check)."""
    first = next((f for f in found if f.name == IMPERATIVE_START), None)
    if first is None:
        return []
    strategy = next(s for s in strategies() if s.name == IMPERATIVE_START)
    out = [first]
    for sentence in answer.sentences:
        if sentence.start <= first.start:
            continue
        match = strategy.regex.search(sentence.text)
        if match is not None and match.start() == 0 and match.end() > 0:
            out.append(Found(IMPERATIVE_START, match.group(0), sentence.start, strategy.weight, strategy.marker))
    return out


def model() -> dict:
    """intercept, threshold and where the weights come from."""
    return dict(_data()["model"])


def _strategies_for(extra_markers: tuple[str, ...], extra_blunt: tuple[str, ...]) -> tuple[Strategy, ...]:
    out = []
    for strategy in strategies():
        extra = {AUTHOR_MARKER: extra_markers, AUTHOR_BLUNT: extra_blunt}.get(strategy.name, ())
        if extra:
            strategy = Strategy(**{**strategy.__dict__, "patterns": strategy.patterns + tuple(extra)})
        if strategy.patterns:
            out.append(strategy)
    return tuple(out)


def find(
    text: str | Answer, extra_markers: tuple[str, ...] = (), extra_blunt: tuple[str, ...] = ()
) -> list[Found]:
    """The first occurrence of each strategy in the request, in text order."""
    answer = text if isinstance(text, Answer) else Answer(text)
    found = []
    for strategy in _strategies_for(tuple(extra_markers), tuple(extra_blunt)):
        first = None
        for sentence in answer.sentences:
            for match in strategy.regex.findall(sentence.text):
                at_start = match.start() == 0
                if (strategy.where == "start" and not at_start) or (strategy.where == "not_start" and at_start):
                    continue
                if match.end() > match.start():
                    first = Found(strategy.name, match.group(0), sentence.start + match.start(), strategy.weight,
                                  strategy.marker, strategy.impolite)
                    break
            if first:
                break
        if first:
            found.append(first)
    found += _parsed_impoliteness(found, answer)
    if command := _unsoftened_command(found, answer):
        found.append(command)
    return sorted(found, key=lambda f: (f.start, f.name))


def score_of(found: list[Found] | tuple[Found, ...]) -> float:
    logit = float(model()["intercept"]) + sum(f.weight for f in found)
    return 1.0 / (1.0 + math.exp(-logit))


def assess(
    text: str | Answer, extra_markers: tuple[str, ...] = (), extra_blunt: tuple[str, ...] = (), moment: bool = False
) -> Verdict:
    """A written request (`moment=False`, `coach politeness`) is polite when its score reaches the
    threshold and nothing in it is impolite. A line said in a meeting moment (`moment=True`, the
    cards' detector, `coach politeness --moment`) is polite when nothing in it is impolite: there
    a plain line is fine, and the markers that raise the score are a bonus."""
    found = tuple(find(text, tuple(extra_markers), tuple(extra_blunt)))
    score = score_of(found)
    impolite = any(f.impolite for f in found)
    polite = not impolite if moment else score >= float(model()["threshold"]) and not impolite
    return Verdict(round(score, 4), polite, found)


def describe(found: list[Found], limit: int = 3) -> str:
    """'apologizing ("Sorry"), counterfactual modal ("Could you")' for feedback."""
    return ", ".join(f'{f.name.replace("_", " ")} ("{f.evidence}")' for f in found[:limit])


# --- softer rewording -------------------------------------------------------------------------
# Rewording rules, in code because they rewrite text rather than detect a strategy. Each step is
# tried in turn until the model calls the request polite.

_LEAD = re2.compile(r"(?i)^(?:(?:just|now|ok|okay|hey)\b,?\s*)+")
_CONJ = re2.compile(r"(?i)^(?:so|then|and|but|or)\b,?\s*")
_PLEASE_LEAD = re2.compile(r"(?i)^(?:please|pls|plz|kindly)\b,?\s*")
_DONT = re2.compile(r"(?i)^(?:don['’]t|do not|never)\s+")
_NEED_YOU = re2.compile(
    r"(?i)^(?:you (?:need|have|must|should|got|gotta)(?: to)?|I (?:need|want) you to|you['’]d better)\s+"
)
_INDICATIVE = re2.compile(r"(?i)\b(can|will)(\s+(?:you|u|I|we|anyone|someone|everyone)\b)")
_END = re2.compile(r"[\s.!?]*$")
_SOFTER = {"can": "could", "will": "would"}
# "Can you see my screen?", "Can everyone hear me?": a check of the call, not a request; "could you
# see" would ask something else, and the check needs no softer version
_CALL_CHECK = re2.compile(
    r"(?i)\b(?:can|will)\s+(?:you|u|we|anyone|everyone|everybody)(?:\s+all)?(?:\s+still)?\s+(?:see|hear)\b"
)
_COMMANDS = {"imperative_start", "please_start", "bare_command"}
# what the sentence says is the rudeness: made a request ("Could you wait, let me finish?"), it is
# still a cut-off or a dismissal, so it is left out of the softer wording
_SAID_RUDELY = frozenset({"dismissal", "cutting_off"})


def _match_case(word: str, like: str) -> str:
    return word.capitalize() if like[:1].isupper() else word


def _lower_first(text: str) -> str:
    return text if text[:2].isupper() or text[:2] in ("I ", "I'", "I’") else text[:1].lower() + text[1:]


# "Say again" has no object in English: "say that again"
_SAY_AGAIN = re2.compile(r"(?i)^(say) again\b")
# a command with its reason after a comma: "Stop sharing, I want to show mine"
_REASON_AFTER = re2.compile(r",\s+((?:I|we|I'm|I’m|we're|we’re|it's|it’s)\b.*)$")


def _as_request(body: str) -> str:
    """'Send me the file.' -> 'Could you send me the file?'; 'Don't X.' -> 'Could you please not X?';
    a reason after a comma stays a sentence of its own ('Could you stop sharing? I want to show mine.')."""
    body = _LEAD.sub("", body)
    please = "please " if _PLEASE_LEAD.match(body) else ""
    body = _END.sub("", _LEAD.sub("", _PLEASE_LEAD.sub("", body)))
    after = _REASON_AFTER.search(body)
    command, reason = (body[: after.start()], after.group(1)) if after else (body, "")
    if again := _SAY_AGAIN.match(command):
        command = f"{again.group(1)} that again{command[again.end():]}"
    reason = f" {reason}." if reason else ""
    if negative := _DONT.match(command):
        return f"Could you please not {command[negative.end():]}?{reason}"
    return f"Could you {please}{_lower_first(command)}?{reason}"


def _reword(sentence: str, names: set[str]) -> str:
    text = sentence
    if "direct_start" in names and (conj := _CONJ.match(text)) and text[conj.end() :]:
        rest = text[conj.end() :]
        text = rest[:1].upper() + rest[1:]
    if need := _NEED_YOU.match(text):
        return _as_request(text[need.end() :])
    if names & _COMMANDS:
        return _as_request(text)
    if _CALL_CHECK.search(text):
        return text
    return _INDICATIVE.sub(lambda m: _match_case(_SOFTER[m.group(1).lower()], m.group(1)) + m.group(2), text)


def suggest(
    text: str, extra_markers: tuple[str, ...] = (), extra_blunt: tuple[str, ...] = (), moment: bool = False
) -> str | None:
    """A softer wording of an impolite request, or None when it is polite already or nothing is
    left to reword: a bare command becomes "Could you ...?", "You need to X" too, "Can you"
    becomes "Could you" (not in a check of the call: "Can you see my screen?"), a leading
    "So"/"But" goes, then an apology, "please" or thanks is added until the model calls it polite.
    Rude sentences that are not commands are left out; when one of them made a point (a dismissal,
    not a bare "What?") and nothing else was reworded, what is left is not a softer version of the
    line, and there is none."""
    verdict = assess(text, extra_markers, extra_blunt, moment)
    if verdict.polite:
        return None

    def judged(candidate: str) -> Verdict:
        return assess(candidate, extra_markers, extra_blunt, moment)

    parts: list[str] = []
    questions: list[int] = []
    dropped = dropped_a_point = reworded = False
    for sentence in Answer(text).sentences:
        names = {f.name for f in verdict.strategies if sentence.start <= f.start < sentence.end}
        wording = _reword(sentence.text, names)
        if names & _SAID_RUDELY or judged(wording).impolite:
            dropped = True
            dropped_a_point |= bool({f.name for f in judged(sentence.text).impolite} - {"bare_what"})
            continue
        if "direct_question" in names:
            questions.append(len(parts))
        reworded |= wording != sentence.text
        parts.append(wording)
    if not parts or (dropped_a_point and not reworded):
        return None  # what is left after a rude point is not a softer version of it ("Absolutely not. Next topic.")
    if not reworded and not dropped and _CALL_CHECK.search(text):
        return None  # a check of the call with nothing else to soften: "Can you see my screen?" is fine
    steps: list[Callable[[list[str]], None]] = []
    if questions:
        question = questions[0]
        steps.append(lambda p: p.__setitem__(question, "Sorry to bother you, but " + _lower_first(p[question])))
    commands = [i for i, part in enumerate(parts) if part.startswith("Could you") and "please" not in part.lower()]
    if commands and not questions:
        command = commands[0]
        steps.append(lambda p: p.__setitem__(command, p[command][:-1] + ", please?"))
    if dropped and not questions and "apologizing" not in judged(" ".join(parts)).names:
        steps.append(lambda p: p.__setitem__(0, "Sorry, " + _lower_first(p[0])))
    steps.append(lambda p: p.append("Thank you!" if p[-1].rstrip().endswith(("?", ".", "!")) else "— thank you!"))
    for step in [lambda p: None, *steps]:
        step(parts)
        candidate = " ".join(parts)
        if judged(candidate).polite:
            return candidate
    return None
