"""Questions: about one particular thing, checking understanding, to everyone, and the closing question.

Each reading is declared with its predicate: what it is for, and examples it must and must not
match (tests/test_grammar.py runs them all)."""

from __future__ import annotations

from scoring.grammar import Clause, words
from scoring.readings.registry import reading


@reading(
    "pointed_question",
    "a question about one particular thing: a named term, a thing described in detail, or a time.",
    match=(
        "Is the idea that we could stabilize RPITIT quicker than AFIT?",
        "Does the Thursday deadline still hold?",
        "Is the new login service part of the March release?",
    ),
    no_match=("Can you explain that again?", "What do you mean?", "Sorry, could you repeat the question?",
     "Am I on the right track here?"),
)
def pointed_question(c: Clause) -> bool:
    """A question about one particular thing: a named product or term, a thing described in detail,
    or a time ("Is the idea that we stabilize RPITIT before AFIT?"), not "Can you explain that again?"."""
    return c.question and (bool(c.detailed) or c.timed) and c.subject != "speaker"


@reading(
    "restates_meaning",
    "checking one's understanding of what was said: are you saying, is the idea that, if I understand.",
    match=(
        "Are you saying that's only at the surface level?",
        "Is the idea that we could ship it sooner?",
        "If I understand, you are saying we keep the old API.",
        "Am I right in inferring that this needs a lock?",
    ),
    no_match=(
        "What is the deadline?",
        "You said it was done.",
        "I understand.",
        "Could you say what it includes?",
        "Which one do you mean?",
        "So, um, what exactly is the plan?",
    ),
)
def restates_meaning(c: Clause) -> bool:
    """Checking one's understanding: 'Are you saying …?', 'Is the idea that …?', 'If I understand, you …',
    'Am I right in inferring …?', 'did you mean X or Y?'."""
    if c.subject == "listener" and c.verb in words("restate_verbs"):
        if c.modal in {"can", "could", "would", "will"} or c.words & words("wh_words"):
            return False  # "Could you say what … includes?", "Which one do you mean?": a question, not a restatement
        return c.question or "if" in c.introduces or c.governor in words("restate_governors")
    if c.question and c.verb == "be" and c.words & words("proposal_nouns"):
        return not c.words & words("wh_words")  # "What exactly is the plan?" asks, it restates nothing
    if c.subject == "speaker" and c.verb in words("understand_verbs"):
        return c.question or bool(c.words & words("understand_markers")) or c.governor == "make"
    return c.question and c.subject == "speaker" and "right" in c.words


@reading(
    "question_to_group",
    "a question to everyone: 'Anything else anyone wants to add?'",
    match=("Anything else anyone wants to add?", "Did everyone get the invite?"),
    no_match=("What is the latency?",),
)
def question_to_group(c: Clause) -> bool:
    return c.question and bool(c.words & words("group_question_words"))


@reading(
    "closing_question",
    "the answer ends by asking the others something.",
    match=(
        "I think we should wait. What do you all think?",
        "That is my concern. Tomasz?",
        "Is that a sensible direction or not?",
    ),
    no_match=(
        "What do you think? I would wait.",
        "Can I ask a question?",
        "Maybe we could start with one team?",
        "How about we ship on Thursday instead?",
        "Maybe we split it into two parts?",
    ),
)
def closing_question(c: Clause) -> bool:
    """The answer ends by asking the others something (their view, or a name handed the floor)."""
    # a closing proposal ("Maybe we could …?", "How about we ship on Thursday?") is an alternative, not an invitation
    proposal = (
        (c.subject == "team" and c.verb not in words("asking_view_verbs"))
        or (words("how_about") <= c.words)
        or (words("what_if") <= (c.words | c.introduces))
    )
    return c.question and c.last and c.subject not in {"speaker"} and not proposal
