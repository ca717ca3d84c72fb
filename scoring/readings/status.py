"""Status updates: work done, in progress or stuck, and what is not work (news about people, talk about the talk).

Each reading is declared with its predicate: what it is for, and examples it must and must not
match (tests/test_grammar.py runs them all)."""

from __future__ import annotations

from scoring.grammar import WORKERS, Clause, words
from scoring.readings.registry import reading


@reading(
    "done_work",
    "completed work on a named thing: past or perfect, by the speaker, the team or unsaid (a terse "
    "update); or a named thing in a done state. Announcements, meta-talk and plans are not.",
    match=(
        "Finished wiring the new login service into checkout.",
        "Merged the retry fix.",
        "I've moved twelve of the twenty jobs.",
        "The export API is done.",
    ),
    no_match=(
        "Our manager is leaving the team.",
        "I'll finish the parser tomorrow.",
        "I didn't finish the parser.",
        "I'll keep this short.",
    ),
)
def done_work(c: Clause) -> bool:
    if c.negated or c.question or stuck(c) or c.modal in {"would", "could", "should", "might", "may", "can", "must"}:
        return False
    if c.verb in words("mishap_verbs") or met_problem(c):
        return False  # "we missed two incidents", "we hit a bug": something that happened, not work done
    if announcement(c) or (c.verb in words("meta_talk_verbs") - words("meta_talk_work_verbs") and not c.named):
        return False
    if c.subject in WORKERS and c.tense in {"past", "perfect"} and c.named:
        return True
    return c.state == "done" and (c.named or c.subject in {"pronoun", "thing"}) and c.tense != "future"


@reading(
    "names_work",
    "the work placed for the listener: ongoing work on a named thing, or finished work on a thing "
    "described in detail.",
    match=("Finished wiring the new login service into checkout.", "Focused on the March milestone."),
    no_match=("I fixed three bugs and merged the config change.", "I finished the API part."),
)
def names_work(c: Clause) -> bool:
    """The work placed for the listener: work in progress on a named thing, or finished work on a
    thing described in detail ('Finished wiring the new login service into checkout'; not 'I fixed
    three bugs')."""
    return ongoing_work(c) or (done_work(c) and bool(c.detailed))


@reading(
    "ongoing_work",
    "work the speaker is doing now on a named thing ('On the billing task today', 'Focused on the "
    "March milestone', 'I'm migrating the build cache').",
    match=("On the billing task today.", "Focused on the March milestone.", "I'm migrating the build cache."),
    no_match=("I'm on it.", "Our manager is leaving the team.", "I'm not working on the cache."),
)
def ongoing_work(c: Clause) -> bool:
    if c.negated or c.question or announcement(c) or stuck(c) or not c.named or c.subject not in WORKERS:
        return False
    if c.tense == "progressive":
        return True
    if c.tense == "none":  # "On the billing task today."
        return c.fragment in {"ADP", "VERB"}
    return c.tense == "past" and c.verb in words("ongoing_past_verbs")


@reading(
    "stuck",
    "work that is stuck or waiting: a stuck state, 'can't', waiting on or blocked by something.",
    match=("Staging key still broken.", "We can't deploy without the key.", "I'm waiting on the security review.",
     "We hit an issue with the staging database.", "Encountered a bug in the exporter."),
    no_match=("The build is fixed.", "Can you review it?", "Nothing is broken.", "We didn't hit any issues.",
     "We had a bug in the exporter last year."),
)
def stuck(c: Clause) -> bool:
    if c.question:
        return False
    if met_problem(c):
        return True
    if c.state == "stuck" and not c.negated:
        return True
    can_not = c.negated and c.modal in {"can", "could"} and c.subject in WORKERS
    waiting = c.verb in words("waiting_verbs") and not c.negated and c.tense != "future"
    return can_not or (waiting and c.subject in WORKERS | {"thing", "pronoun"})


@reading(
    "request_to_listener",
    "a question asking the listener to do something ('could you approve it?').",
    match=("Could you approve my access request?", "Can you send me the link?"),
    no_match=("You approved it.", "Could I go first?"),
)
def request_to_listener(c: Clause) -> bool:
    return c.subject == "listener" and c.modal in {"can", "could", "would", "will"} and c.question and bool(c.named)


@reading(
    "announcement",
    "news about people (joining, leaving, moving), not work.",
    match=("Our manager is leaving the team.", "Priya joins us next week."),
    no_match=("I moved the jobs.",),
)
def announcement(c: Clause) -> bool:
    """News about people: a person or role joining or leaving, or leaving/joining a team."""
    if c.verb not in words("announcement_verbs"):
        return False
    return c.subject in {"person", "role"} or bool(c.words & words("announcement_groups"))


@reading(
    "meta_talk",
    "talk about the talk: keeping it short, handing over, wrapping up.",
    match=("I'll keep this short.", "I'll hand over to Mia."),
    no_match=("I'll keep the old cluster for a week.",),
)
def meta_talk(c: Clause) -> bool:
    if c.subject not in {"speaker", "none"}:
        return False
    if c.verb in words("handover_verbs") and c.words & words("handover_particles"):
        return True
    return c.verb in words("wrap_up_verbs") and not c.named


def met_problem(c: Clause) -> bool:
    """The work ran into something: "we hit an issue with the staging DB", "encountered a bug"."""
    if c.negated or c.question or c.tense == "future" or c.verb not in words("problem_verbs"):
        return False
    if c.verb in words("problem_verbs_now") and c.tense not in {"present", "progressive"}:
        return False  # "we had an issue" told as history, "got the bug fixed"
    return bool(c.words & words("problem_nouns"))
