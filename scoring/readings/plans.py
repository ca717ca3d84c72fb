"""Plans: actions that will happen, who owns them, and when.

Each reading is declared with its predicate: what it is for, and examples it must and must not
match (tests/test_grammar.py runs them all)."""

from __future__ import annotations

from scoring.grammar import Clause, words
from scoring.readings.registry import reading
from scoring.readings.status import meta_talk


@reading(
    "planned_action",
    "an action that will happen (will, going to, plan to, minutes' 'X to do Y'), by anyone who can act; "
    "meta-talk ('I'll keep it short') is not.",
    match=(
        "Next I'll add alerts to the dashboard.",
        "The coordinator will circulate the notes.",
        "Alice to send the slides by Friday.",
        "I plan to finish the migration this week.",
    ),
    no_match=("I'll keep this short.", "I finished the parser.", "We won't ship the cache."),
)
def planned_action(c: Clause) -> bool:
    will_happen = c.tense == "future" or (c.tense == "present" and c.timed and c.modal is None)  # "next week I do X"
    if c.negated or not will_happen or not c.verb or not (c.named or c.timed):
        return False
    if c.verb in words("meta_talk_verbs") and not c.named:
        return False
    if meta_talk(c):
        return False
    return c.subject in {"speaker", "team", "person", "role", "none"}


@reading(
    "owner_action",
    "a planned action with its owner as the subject: the speaker, a named person or a role.",
    match=("The coordinator will circulate the notes.", "Alice to send the slides by Friday.", "I'll book the room."),
    no_match=("It will be ready.", "We will see.", "I'll keep this short."),
)
def owner_action(c: Clause) -> bool:
    return planned_action(c) and c.subject in {"speaker", "person", "role"}


@reading(
    "timed_action",
    "an action tied to a time ('parked until the next sync', 'for Thursday's review', 'by EOD').",
    match=("Parked until the next sync.", "We present it at Thursday's review.", "I'll send it by Friday."),
    no_match=("I sent it.", "Thursday is a holiday."),
)
def timed_action(c: Clause) -> bool:
    no_action = words("empty_verbs") | words("announcement_verbs")
    return c.timed and bool(c.verb) and not c.negated and c.verb not in no_action
