"""Detectors for meeting language: named moves, author-written phrases, politeness (scoring.politeness)."""

from __future__ import annotations

from functools import cache

import re2
from pydantic import field_validator, model_validator

from scoring import politeness
from scoring.detectors.base import (
    Detector,
    Example,
    Hit,
    Params,
    check_readings,
    compiled,
    detector,
    first_sentences,
    lexicon,
    param,
    pattern_data,
    with_readings,
)
from scoring.regex import check_patterns, word_patterns
from scoring.text import Answer


def _moves() -> dict[str, dict]:
    return pattern_data("meeting")["moves"]


def _matches(answer: Answer, patterns) -> list:
    """Sentences with a match, in the words as said or with spoken numbers as digits
    ("fifty-two percent" meets a pattern written for "52%"); evidence is the sentence."""
    found = []
    for sentence in answer.sentences:
        if answer.is_bare_heading(sentence):
            continue
        match = patterns.search(sentence.text)
        if match:
            found.append((sentence, sentence.start + match.start()))
        elif sentence.numeric != sentence.text and patterns.search(sentence.numeric):
            found.append((sentence, None))
    return found


# --- meaning classes (meeting.yaml, `word_classes` and each move's `senses`) ----------------------

_TOKEN = re2.compile(r"[A-Za-z]+(?:['’][A-Za-z]+)?")
_CONTRACTED = {"s": "be", "re": "be", "m": "be", "ve": "have", "ll": "will", "d": "would"}
_NEGATED_BASE = {"ca": "can", "wo": "will", "sha": "shall", "ai": "be"}
# function words are kept as said: lemminflect would read "us" or "its" as nouns
_AS_SAID = frozenset({"i", "me", "my", "we", "us", "our", "you", "your", "it", "its", "this", "that", "the", "a",
                      "an", "one", "first", "then", "now", "after", "before", "more", "up", "on", "out", "off",
                      "in", "to", "for", "what", "when", "which", "where", "not", "no", "there", "here", "better",
                      "ahead", "again", "ok", "okay", "whats", "left", "quick", "some", "once", "only"})


@cache
def _lemma(word: str) -> str:
    if word in _AS_SAID:
        return word
    from scoring.lazy_imports import lemminflect

    found = lemminflect().getAllLemmas(word, "VERB").get("VERB") or lemminflect().getAllLemmas(word, "NOUN").get("NOUN")
    return found[0] if found else word


def lemma_words(text: str) -> list[str]:
    """The words of a text as lemmas, contractions opened: "didn't hear" -> do not hear."""
    out = []
    for token in _TOKEN.findall(text.lower().replace("’", "'")):
        if token.endswith("n't"):
            base = token[:-3]
            out += [_lemma(_NEGATED_BASE.get(base, base)), "not"]
        elif "'" in token:
            head, tail = token.split("'", 1)
            out += [_lemma(head), _CONTRACTED.get(tail, tail)]
        else:
            out.append(_lemma(token))
    return out


@cache
def _class_regex(name: str):
    """One word class as a regex over a space-joined lemma string: each entry's words in order and
    next to each other; "..." in an entry lets one other word in ("not ... catch": "didn't quite catch")."""
    entries = pattern_data("meeting")["word_classes"][name]
    alternatives = []
    for entry in entries:
        parts = [" ".join(re2.escape(w) for w in lemma_words(part)) for part in str(entry).split("...")]
        alternatives.append(r"(?: \S+)? ".join(p for p in parts if p))
    return re2.compile(r"(?: |^)(?:" + "|".join(alternatives) + r")(?: |$)")


def _sense_met(rule: dict, lemmas: str, sentence_text: str) -> bool:
    if rule.get("question") and "?" not in sentence_text:
        return False
    if (limit := rule.get("max_words")) and len(_TOKEN.findall(sentence_text)) > limit:
        return False
    return all(_class_regex(c).search(lemmas) for c in rule.get("all", ())) and not any(
        _class_regex(c).search(lemmas) for c in rule.get("none", ()))


def _concept_matches(answer: Answer, node: dict) -> list:
    """Sentences that do the move by meaning (its `senses` in meeting.yaml), not by a listed phrase."""
    rules = node.get("senses") or ()
    if not rules:
        return []
    found = []
    whole = " ".join(lemma_words(answer.text))
    for sentence in answer.sentences:
        lemmas = " ".join(lemma_words(sentence.text))
        for rule in rules:
            scope = whole if rule.get("scope") == "answer" else lemmas
            if _sense_met(rule, scope, sentence.text if rule.get("scope") != "answer" else answer.text):
                found.append((sentence, sentence.start))
                break
    return found


def _section_items(answer: Answer, headings, *, specific: bool) -> list:
    """Items listed under one of `headings` in a written update ("Done:" → "- merged the retry fix").
    With `specific`, only items that name their work (three words or more, or a product-like token)."""
    found = []
    for section in answer.sections:
        if not any(section.heading == h or section.heading.startswith(h + " ") for h in headings):
            continue
        for item in section.items:
            words = item.text.split()
            if not any(ch.isalnum() for ch in item.text) or item.text.strip().lower() in {"todo", "tbd", "?"}:
                continue
            if specific and len(words) < 3 and not any(_PRODUCT_LIKE.search(w) for w in words):
                continue
            sentence = answer.sentence_at(item.start)
            if sentence is not None:
                found.append((sentence, item.start))
    return found


_PRODUCT_LIKE = re2.compile(r"[A-Z0-9][a-z]*[A-Z0-9.]|[a-z][.-][a-z]|`")
_TITLE_WORDS = (3, 14)
_UPDATE_HEADING = re2.compile(
    r"(?i)(?:^|[\s:(–-])(?:update|updates|status|notes|stand-?up|sync|meeting|agenda|minutes|hi|hello)(?:$|[\s:),–-])")


def _title_line(answer: Answer) -> list:
    """A written update whose first line is a ticket's or task's title ("Add support for Windows
    2025 agents", "[AWS] Activate cost allocation tags") followed by the notes on it: the title
    names the work. A short line without end punctuation, of 3 to 14 words or with a product-like
    token; a greeting or a heading with a colon is not a title."""
    first, _, rest = answer.text.strip().partition("\n")
    words = first.split()
    if not rest.strip() or not words or first.rstrip()[-1] in ".?!:" or len(words) > _TITLE_WORDS[1]:
        return []
    if len(words) < _TITLE_WORDS[0] and not any(_PRODUCT_LIKE.search(w) for w in words):
        return []
    if _UPDATE_HEADING.search(first):  # "Eric + TC - status update" heads the update, names no work
        return []
    start = answer.text.index(first)
    sentence = answer.sentence_at(start)
    return [(sentence, start)] if sentence is not None else []


def _blunt_hits(answer: Answer, patterns) -> list[str]:
    return [answer.evidence(s, start) for s, start in _matches(answer, patterns)]


class MeetingMoveParams(Params):
    move: str | None = param("The move for every turn without a `by_turn` entry.", "move name", default=None)
    by_turn: dict[str, str] = param("A different move per turn.", "mapping turn id → move name",
                                    default_factory=dict)
    extra_patterns: list[str] = param("More phrases that count, added to the move's list.", "list of patterns",
                                      default_factory=list)
    forbid: list[str] = param("Any match makes the criterion unmet.", "list of patterns", default_factory=list)
    forbid_move: str | None = param("Every phrase of that move is forbidden; usually `blunt`.", "move name",
                                    default=None)
    needs_move: str | None = param(
        "The move counts only when the answer has this move too (an acknowledgement needs a disagreement).",
        "move name", default=None)
    forbid_rude: bool = param(
        "An impolite line (a bare command, a bare \"What?\", blame, dismissal, …: the politeness strategies "
        "marked `impolite`) does not count as the move.", "true or false", default=False)
    readings: list[str] = param(
        "Grammar readings that meet the move too, added to the move's own in `meeting.yaml`.",
        "list of reading names", default_factory=list)
    unless_readings: list[str] = param("A sentence with one of these readings does not count.",
                                       "list of reading names", default_factory=list)

    _regexes = field_validator("extra_patterns", "forbid")(check_patterns)
    _readings = field_validator("readings", "unless_readings")(check_readings)

    @model_validator(mode="after")
    def _known_moves(self):
        moves = _moves()
        named = [self.move, self.forbid_move, self.needs_move, *self.by_turn.values()]
        for move in filter(None, named):
            if move not in moves:
                raise ValueError(f"unknown move {move!r} (known: {', '.join(sorted(moves))})")
        if not (self.move or self.by_turn or self.extra_patterns):
            raise ValueError("give `move`, `by_turn` or `extra_patterns`")
        return self


@detector("meeting_move")
class MeetingMove(Detector):
    type = "meeting_move"
    Params = MeetingMoveParams
    description = (
        "A meeting move from the built-in phrase lists (context, progress, next_steps, "
        "blocker_or_ask, acknowledge, softened_disagreement, reason, alternative, invites_input, "
        "check_connection, ask_repeat, take_floor, yield_floor, share_screen), chosen per card "
        "or per turn (`by_turn`). A phrase from `forbid` or `forbid_move` anywhere makes it unmet; "
        "with `needs_move`, it only counts when that move is in the answer too; with `forbid_rude`, "
        "an impolite line (politeness.yaml's `impolite` strategies) does not count as the move. Each move may "
        "also be met by what its sentences do grammatically (its `readings` in meeting.yaml, plus "
        "`readings` here: done_work, planned_action, stuck, …) and is not met by a sentence whose "
        "`unless_readings` hold (meta_talk, announcement)."
    )

    examples = (
        Example(
            params={"move": "next_steps"},
            met=("Next, I'll add alerts by Thursday.",),
            not_met=("I'll keep this short.",),
        ),
    )

    def detect(self, answer, params, turn_id):
        move = params.by_turn.get(turn_id, params.move)
        extra = tuple(params.extra_patterns)
        patterns = lexicon("meeting", "moves", move, extra=extra) if move else compiled(extra)
        blunt = _blunt_hits(answer, compiled(tuple(params.forbid))) if params.forbid else []
        if params.forbid_move:
            blunt += _blunt_hits(answer, lexicon("meeting", "moves", params.forbid_move))
        if params.forbid_rude and (impolite := _rude(answer)):
            return Hit(False, 0.0, _sentences_of(answer, impolite)[:2], _how_it_sounds(impolite))
        if blunt:
            return Hit(False, 0.0, blunt[:2], "a blunt phrase undoes the softening")
        node = _moves()[move] if move else {}
        listed = _section_items(answer, node.get("headings", ()), specific=node.get("specific_items", False))
        if node.get("title_line"):
            listed += _title_line(answer)
        found = with_readings(
            answer,
            _matches(answer, patterns) + listed + _concept_matches(answer, node),
            (*node.get("readings", ()), *params.readings),
            (*node.get("unless_readings", ()), *params.unless_readings),
        )
        if node.get("unless_sentences"):  # a sentence that only looks like the move ("this week I'm working on")
            veto = compiled(tuple(node["unless_sentences"]))
            found = [(sentence, at) for sentence, at in found if not veto.search(sentence.text)]
        if found and params.needs_move and not _matches(answer, lexicon("meeting", "moves", params.needs_move)):
            found = []
        if not found:
            return Hit.none(f"no phrase that does '{(move or 'this').replace('_', ' ')}'")
        return Hit(True, 1.0, first_sentences(answer, found), f"{(move or 'phrase').replace('_', ' ')}")


class PhrasesParams(Params):
    patterns: list[str] = param("Patterns for every turn that has no `by_turn` entry.", "list of patterns",
                                default_factory=list)
    by_turn: dict[str, list[str]] = param(
        "Patterns for one turn; they **replace** `patterns` for that turn.", "mapping turn id → list of patterns",
        default_factory=dict)
    unless: list[str] = param("A match that holds one of these does not count.", "list of patterns",
                              default_factory=list)
    forbid: list[str] = param("Any match makes the criterion unmet.", "list of patterns", default_factory=list)
    min_matches: int = param("How many different sentences must match.", "whole number ≥ 1", default=1, ge=1)
    readings: list[str] = param("Grammar readings that meet it too.", "list of reading names",
                                default_factory=list)
    unless_readings: list[str] = param("A sentence with one of these readings does not count.",
                                       "list of reading names", default_factory=list)
    headings: list[str] = param(
        'Items listed under one of these headings in a written list ("Decisions:") meet it too.',
        "list of headings", default_factory=list)

    _regexes = field_validator("patterns", "unless", "forbid")(check_patterns)
    _readings = field_validator("readings", "unless_readings")(check_readings)

    @field_validator("by_turn")
    @classmethod
    def _turn_regexes(cls, value):
        for patterns in value.values():
            check_patterns(patterns)
        return value

    @model_validator(mode="after")
    def _something(self):
        if not (self.patterns or self.by_turn or self.readings):
            raise ValueError("give `patterns`, `by_turn` or `readings`")
        return self


@detector("phrases")
class Phrases(Detector):
    type = "phrases"
    Params = PhrasesParams
    description = (
        "Phrases the author lists in the card (regexes, whole words, any case), for the whole "
        "card or per turn; a match containing an `unless` pattern does not count; `min_matches` "
        "different sentences must match; `forbid` undoes it. `readings` (grammar: owner_action, "
        "timed_action, …) also meet it; `unless_readings` veto a sentence; items listed under one of "
        "`headings` in a written list (\"Decisions:\") meet it too."
    )

    examples = (
        Example(
            params={"patterns": ["let me share my screen"]},
            met=("Okay, let me share my screen.",),
            not_met=("Can you all see me?",),
        ),
    )

    def detect(self, answer, params, turn_id):
        patterns = word_patterns(tuple(params.by_turn.get(turn_id, params.patterns)), tuple(params.unless))
        if params.forbid and (blunt := _blunt_hits(answer, compiled(tuple(params.forbid)))):
            return Hit(False, 0.0, blunt[:2], "uses a phrase this criterion rules out")
        listed = _section_items(answer, tuple(h.lower() for h in params.headings), specific=False)
        found = with_readings(answer, _matches(answer, patterns) + listed, params.readings, params.unless_readings)
        if len(found) < params.min_matches:
            return Hit(False, 0.0, [], "none of the expected phrases")
        return Hit(True, 1.0, first_sentences(answer, found), "uses an expected phrase")


class PolitenessParams(Params):
    extra_markers: list[str] = param("More phrases that count as polite strategies.", "list of patterns",
                                     default_factory=list)
    extra_blunt: list[str] = param("More phrases that count as blunt (one makes it unmet).", "list of patterns",
                                   default_factory=list)

    _regexes = field_validator("extra_markers", "extra_blunt")(check_patterns)


@detector("politeness")
class Politeness(Detector):
    type = "politeness"
    Params = PolitenessParams
    description = (
        "Politeness as a colleague hears the line (scoring/patterns/politeness.yaml), the same decision "
        "as `coach politeness`: what makes a line impolite is found and named (a bare command, a bare "
        "\"What?\", blame, dismissal, cutting someone off, impatience); ordinary direct requests and "
        "checks are polite, and markers (please, could you, sorry, thanks, …) raise the score. "
        "`extra_markers` count as polite strategies, `extra_blunt` as impolite."
    )

    examples = (
        Example(
            params={},
            met=("Could you repeat the last part, please?", "Can you see my screen?", "Go ahead."),
            not_met=("Repeat that.", "What? Say it again.", "Your internet is terrible again."),
        ),
    )

    def detect(self, answer, params, turn_id):
        extra = tuple(params.extra_markers), tuple(params.extra_blunt)
        verdict = politeness.assess(answer, *extra, moment=True)
        suggestion = politeness.suggest(answer.text, *extra, moment=True) if not verdict.polite else None
        softer = f'; try "{suggestion}"' if suggestion else ""
        if verdict.impolite:
            return Hit(False, 0.0, _sentences_of(answer, verdict.impolite), _how_it_sounds(verdict.impolite) + softer)
        if not verdict.polite:
            reason = "sounds curt"
            if verdict.negative:
                reason += ": " + politeness.describe(verdict.negative, 2)
            return Hit(False, 0.0, _sentences_of(answer, verdict.negative), reason + softer)
        if verdict.markers:
            return Hit(True, 1.0, _sentences_of(answer, verdict.markers),
                       "polite wording: " + politeness.describe(verdict.markers))
        return Hit(True, 1.0, first_sentences(answer, [(s, s.start) for s in answer.sentences[:1]]),
                   "a plain, friendly line: nothing in it sounds impolite")


def _rude(answer: Answer) -> list:
    """What makes a line too rude to count as the move: anything impolite, except a bare command
    beside other words ("Is my audio working? Say something." still checks the connection; "Say
    it again." alone does not ask politely enough to count) and a cue marked `mild` in
    politeness.yaml (a reluctant "Fine, go ahead." still gives the floor)."""
    impolite = politeness.assess(answer, moment=True).impolite
    mild = politeness.mild_cues()
    return [f for f in impolite if (f.name != politeness.BARE_COMMAND or len(answer.sentences) == 1)
            and f.cue not in mild]


def _how_it_sounds(impolite) -> str:
    """'sounds impolite: bare command ("Say"): A bare command sounds like an order …' for feedback."""
    first = impolite[0]
    english, _korean = politeness.sounds(first.name, first.cue)
    return f'sounds impolite: {first.name.replace("_", " ")} ("{first.evidence}"). {english}'


def _sentences_of(answer: Answer, found) -> list[str]:
    spans = [(sentence, item.start) for item in found if (sentence := answer.sentence_at(item.start)) is not None]
    return first_sentences(answer, spans)
