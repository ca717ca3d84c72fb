"""Detectors for experience questions: what the speaker did, how, the proof, the team, the
option they rejected and what they would do differently."""

from __future__ import annotations

from functools import cache

from pydantic import field_validator

from scoring.detectors.base import (
    Detector,
    Example,
    Hit,
    Params,
    compiled,
    detector,
    entry,
    first_sentences,
    is_future,
    is_negated,
    lexicon,
    negated_before,
    param,
    regex,
    with_readings,
)
from scoring.regex import WordPatterns, check_patterns
from scoring.text import Answer


class ExtraPatterns(Params):
    extra_patterns: list[str] = param("More phrases that count, added to the built-in list.", "list of patterns",
                                      default_factory=list)

    _regexes = field_validator("extra_patterns")(check_patterns)


def _sentences_matching(answer: Answer, patterns: WordPatterns, *, guard: bool) -> list:
    """Sentences with a match in a clause that is not negated (and not future, with guard)."""
    found = []
    for clause, sentence in answer.clauses:
        match = patterns.search(clause.text)
        if match is None:
            continue
        if guard and (is_negated(clause) or is_future(clause)):
            continue
        found.append((sentence, clause.start + match.start()))
    return found


class SelfActionParams(Params):
    techniques: list[str] = param(
        'More named techniques, added to the built-in list; the clause still needs "I" and an action verb.',
        "list of patterns", default_factory=list)
    extra_patterns: list[str] = param(
        'Phrases that count **on their own**, without the "I + verb" check, so include the speaker in them.',
        "list of patterns", default_factory=list)

    _regexes = field_validator("techniques", "extra_patterns")(check_patterns)


@cache
def _self_action_regexes(techniques: tuple[str, ...]):
    subject = entry("experience", "self_action", "subject")["regex"]
    verbs = "|".join(f"(?:{v})" for v in entry("experience", "self_action", "verbs")["patterns"])
    action = WordPatterns([f"{subject}(?:{verbs})"])
    ownership = lexicon("experience", "self_action", "ownership")
    named = lexicon("experience", "self_action", "techniques", extra=techniques)
    code_like = lexicon("experience", "self_action", "technique_tokens")
    return action, ownership, named, code_like


@detector("self_action")
class SelfAction(Detector):
    Params = SelfActionParams
    description = (
        "The speaker took a concrete technical action themselves ('I rewrote the jit "
        "boundaries'): first person, an action verb and a named technique in one clause, or a change "
        "to a named part of the system read from the parse (grammar reading own_change, which also "
        "reads a logbook line with no subject: 'Switched from MBS=1 to MBS=2'). Actions of the team, "
        "a vendor or a colleague do not count."
    )

    examples = (
        Example(
            params={},
            met=("I rewrote the data loader so that it prefetches batches onto the GPU.",),
            not_met=("The team rewrote the data loader.", "I have a lot of optimization experience.",),
        ),
    )

    def detect(self, answer, params, turn_id):
        action, ownership, techniques, code_like = _self_action_regexes(tuple(params.techniques))
        extra = compiled(tuple(params.extra_patterns))
        found = []
        fault_fix = lexicon("experience", "self_action", "fault_fix")
        gain = lexicon("experience", "self_action", "performance_gain")
        for clause, sentence in answer.clauses:
            if fault_fix.search(sentence.text) and not gain.search(sentence.text):
                continue  # "I debugged the NCCL hang" is problem solving, not an optimization
            match = action.search(clause.text) or ownership.search(clause.text)
            if match and (techniques.search(clause.text) or code_like.search(clause.text)):
                found.append((sentence, clause.start + match.start()))
            elif extra and (m := extra.search(clause.text)):
                found.append((sentence, clause.start + m.start()))
        found = with_readings(answer, found, ("own_change",))
        if not found:
            return Hit.none("no technique the speaker applied themselves ('I …')")
        return Hit(True, 1.0, first_sentences(answer, found), "a concrete action of the speaker's own")


@detector("process")
class Process(Detector):
    Params = ExtraPatterns
    description = (
        "How the problem was worked: profiling, root-cause analysis, a hypothesis and its "
        "verification, a benchmark before and after; or the speaker's own diagnosis told as a "
        "narrative (grammar reading diagnosis: 'I compared the two captures byte by byte')."
    )

    examples = (
        Example(
            params={},
            met=("I profiled the training step and found the GPUs waiting on the input pipeline.",),
            not_met=("It got faster after the upgrade.",),
        ),
    )

    def detect(self, answer, params, turn_id):
        patterns = lexicon("experience", "process", extra=tuple(params.extra_patterns))
        found = [
            (sentence, start)
            for sentence, start in _sentences_matching(answer, patterns, guard=False)
            if not negated_before(answer, start)
        ]
        found = with_readings(answer, found, ("diagnosis",))
        reflection = lexicon("experience", "process_unless")
        found = [(sentence, at) for sentence, at in found if not reflection.search(sentence.text)]
        if not found:
            return Hit.none("no profiling, root cause, hypothesis or benchmark described")
        return Hit(True, 1.0, first_sentences(answer, found), "describes how the problem was found")


class MeasuredResultParams(Params):
    extra_outcome_words: list[str] = param(
        "More words that mark a change, added to the outcome words.", "list of patterns", default_factory=list)

    _regexes = field_validator("extra_outcome_words")(check_patterns)


@cache
def _result_regexes(extra_outcomes: tuple[str, ...]) -> dict:
    figures = {key: regex("experience", "measured_result", key)
               for key in ("percent", "multiplier", "from_to", "comparison", "unit", "setup_units", "year")}
    return {
        **figures,
        "outcome": lexicon("experience", "measured_result", "outcome_words", extra=extra_outcomes),
        "diagnosis": lexicon("experience", "measured_result", "diagnosis_context"),
        "after": lexicon("experience", "measured_result", "result_marker"),
        "metric": lexicon("experience", "measured_result", "metric_nouns"),
    }


@detector("measured_result")
class MeasuredResult(Detector):
    Params = MeasuredResultParams
    description = (
        "A figure that proves the outcome: before/after, a % change, an x-fold speed-up, a "
        "latency, throughput, cost or utilisation number. Setup numbers (a year, a team or "
        "cluster size, a version), vague claims, negations and plans do not count. Spoken "
        "numbers ('seventy eight percent') count like digits."
    )

    examples = (
        Example(
            params={},
            met=("After the fix, step time dropped from 410 ms to 290 ms.",),
            not_met=("We used 512 GPUs in 2023.", "It was much faster.",),
        ),
    )

    def detect(self, answer, params, turn_id):
        rx = _result_regexes(tuple(params.extra_outcome_words))
        changes, levels = [], []
        for clause, sentence in answer.clauses:
            if is_negated(clause) or is_future(clause):
                continue
            kind = self._result_figure(clause.numeric, rx)
            if kind == "level" and rx["diagnosis"].search(clause.text) and not rx["after"].search(sentence.text):
                continue  # "the GPUs were idle for about 30 percent of each step" is the problem, not the result
            if kind:
                (changes if kind == "change" else levels).append((sentence, None))
        if not (changes or levels):
            return Hit.none("no figure that shows the result (a before/after, %, x-fold or metric)")
        # a before → after or x-fold change proves the result better than a level ("the GPUs waited
        # about 30 % of each step" describes the problem): it is quoted first
        evidence = first_sentences(answer, changes) + first_sentences(answer, levels)
        return Hit(True, 1.0, list(dict.fromkeys(evidence))[:3], "gives a number for the outcome")

    @staticmethod
    def _result_figure(text: str, rx: dict) -> str | None:
        """'change' (before → after, x-fold, a comparison), 'level' (a metric with a figure) or None."""
        # blank out setup numbers and years so they cannot pass as results
        cleaned = rx["year"].sub(" ", rx["setup_units"].sub(" ", text))
        if rx["from_to"].search(cleaned) or rx["multiplier"].search(cleaned) or rx["comparison"].search(cleaned):
            return "change"
        has_outcome = rx["outcome"].search(cleaned) is not None or rx["metric"].search(cleaned) is not None
        return "level" if has_outcome and bool(rx["percent"].search(cleaned) or rx["unit"].search(cleaned)) else None


@cache
def _teamwork_regexes(extra: tuple[str, ...]):
    return (
        lexicon("experience", "teamwork", extra=extra),
        lexicon("experience", "teamwork_role_split"),
        lexicon("experience", "teamwork_named"),
        lexicon("experience", "speaker_action"),
    )


# verbs that do not make the speaker's own part ("I mostly used it" beside the team's work)
_NOT_ACTING = frozenset(
    {"", "be", "think", "feel", "guess", "know", "remember", "believe", "want", "like", "hope", "use"}
)


@detector("teamwork")
class Teamwork(Detector):
    Params = ExtraPatterns
    description = (
        "Concrete collaboration: who did what, a split of roles, working with a named "
        "person or team on something (grammar readings collaboration and named_colleague). A bare "
        "'we' does not count, and neither does only someone else's work: a colleague's part counts "
        "when the speaker's own part is said too."
    )

    examples = (
        Example(
            params={},
            met=("I wrote the kernel, and Mina from the platform team ran the benchmarks.",),
            not_met=("We made it faster.",),
        ),
    )

    def detect(self, answer, params, turn_id):
        together, others, named, speaker = _teamwork_regexes(tuple(params.extra_patterns))
        speaker_acted = speaker.search(answer.text) is not None or any(
            clause.subject == "speaker" and not clause.negated and clause.verb not in _NOT_ACTING
            for clause in answer.grammar  # "my job was to evaluate it", "I found the bottleneck"
        )
        found = []
        for sentence in answer.sentences:
            match = together.search(sentence.text)
            if match is None and speaker_acted:
                match = others.search(sentence.text) or named.search(sentence.text)
            if match and not negated_before(answer, sentence.start + match.start()):
                found.append((sentence, sentence.start + match.start()))
        readings = ("collaboration", "named_colleague") if speaker_acted else ("collaboration",)
        found = with_readings(answer, found, readings)
        asks_for_help = lexicon("experience", "teamwork_unless")
        found = [(sentence, at) for sentence, at in found if not asks_for_help.search(sentence.text)]
        if not found:
            return Hit.none("no concrete collaboration (who did what)")
        return Hit(True, 1.0, first_sentences(answer, found), "says who did what in the team")


class _SentencePhrases(Detector):
    """Sentences matching the lexicon's phrases for `type`, unless they say the opposite
    (its `<type>_negative` phrases: "we didn't consider alternatives")."""

    Params = ExtraPatterns
    missing_reason: str
    met_reason: str
    readings: tuple[str, ...] = ()

    def detect(self, answer, params, turn_id):
        negative = lexicon("experience", f"{self.type}_negative")
        patterns = lexicon("experience", self.type, extra=tuple(params.extra_patterns))
        found = []
        for sentence in answer.sentences:
            if negative.search(sentence.text):
                continue
            # whole sentences: "we considered X, but ..." spans two clauses
            match = patterns.search(sentence.text)
            if match:
                found.append((sentence, sentence.start + match.start()))
        found = with_readings(answer, found, self.readings)
        if not found:
            return Hit.none(self.missing_reason)
        return Hit(True, 1.0, first_sentences(answer, found), self.met_reason)


@detector("options_rejected")
class OptionsRejected(_SentencePhrases):
    description = (
        "An alternative that was considered and not chosen, ideally with why; or one turned down as the "
        "grammar reads it (choice_over_option: 'we looked at Redis and went with Postgres', 'switched from X')."
    )
    readings = ("choice_over_option",)
    missing_reason = "no alternative named that was considered and rejected"
    met_reason = "names an option that was rejected"
    examples = (
        Example(
            params={},
            met=("We looked at pipeline parallelism, but the bubble cost was too high.",),
            not_met=("We used FSDP.",),
        ),
    )


@detector("reflection")
class Reflection(_SentencePhrases):
    description = "What the speaker would do differently, or a lesson they learned."
    missing_reason = "no lesson or 'what I would do differently'"
    met_reason = "reflects on what to change"
    examples = (
        Example(params={}, met=("Next time I would profile before changing anything.",), not_met=("It worked well.",)),
    )
