"""Views and disagreement: a view in the first person, a softened disagreement, the other view
acknowledged, another way suggested, facts and drawbacks that argue against a plan, and a 'because'
that is not a view.

Each reading is declared with its predicate: what it is for, and examples it must and must not
match (tests/test_grammar.py runs them all)."""

from __future__ import annotations

from scoring.grammar import Clause, words
from scoring.readings.registry import reading


@reading(
    "first_person_view",
    "a view, observation or suggestion in the first person.",
    match=(
        "I'm imagining a rule where each borrow gets a fresh lifetime.",
        "I have the feeling the arguments favour it.",
        "I noticed the tests are slow.",
        "I think we should wait.",
    ),
    no_match=("We established three goals.", "Can I go first?", "I can see your screen."),
)
def first_person_view(c: Clause) -> bool:
    """A view, observation or suggestion in the first person: 'I think …', 'I noticed …', 'I'm imagining …',
    'I have the feeling …', 'I'd prefer …'."""
    if c.subject != "speaker" or c.question:
        return False
    views = words("view_verbs")
    if c.verb in views and not (c.verb == "see" and c.words & words("screen_words")):
        return True
    return c.verb == "have" and bool(c.words & words("view_nouns"))


@reading(
    "softened_disagreement",
    "a disagreement the speaker hedges: a stance, a belief denied, or a disagreeing verb with a softener.",
    match=(
        "I'm a bit skeptical.",
        "I guess I disagree.",
        "I'd push back a bit on that.",
        "I'm not convinced it scales.",
        "I don't think we should announce a date.",
    ),
    no_match=("I disagree.", "I agree with the plan.", "Are you worried?"),
)
def softened_disagreement(c: Clause) -> bool:
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


@reading(
    "acknowledges",
    "the other view recognised first: 'I don't disagree with that', 'I see the appeal'.",
    match=("I don't disagree with that.", "I see the appeal of one cluster.", "I get why you want it."),
    no_match=("I see a problem with the timeline.", "I disagree."),
)
def acknowledges(c: Clause) -> bool:
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


@reading(
    "suggestion",
    "another way put forward: we could, it might make sense to, I'd prefer, if we go with.",
    match=(
        "I'd prefer to keep the default.",
        "I think it might make sense to just wait.",
        "We could start with one team.",
        "If we go with only withdrawals, it is simple.",
    ),
    no_match=("We went with withdrawals.", "I prefer not to.", "It could be slow."),
)
def suggestion(c: Clause) -> bool:
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


@reading(
    "fact_against",
    "a plain fact that argues against a plan: missing, broken, not done, or a cost it brings.",
    match=("There are no tests in this.", "That doesn't fix the core problem.", "It removes a lot of flexibility."),
    no_match=("I don't like it.", "The tests pass.", "Does it scale?"),
)
def fact_against(c: Clause) -> bool:
    """A plain fact that argues against a plan: something missing, broken or not done ('there are no
    tests in this', 'that doesn't fix the core problem', 'it removes a lot of flexibility')."""
    if c.question or c.subject in {"speaker", "listener"} or c.governor in words("opinion_governors") and not c.negated:
        return False
    if c.tense in {"future"} and c.modal != "will":
        return False
    missing = c.negated and c.verb in words("lacking_verbs")
    harm = c.verb in words("harm_verbs") and not c.negated and c.subject in {"pronoun", "thing"}
    return missing or harm or c.state == "stuck"


@reading(
    "drawback",
    "a cost, risk or catch of a plan said plainly, not as the speaker's feeling.",
    match=(
        "The catch is that the cache invalidation gets much harder.",
        "There's a real risk that we lose the audit trail.",
        "That's a month of refactoring.",
        "To me it feels like there are still open questions.",
        "Three months is extremely unrealistic.",
    ),
    no_match=("It isn't risky.", "There's no real risk here.", "I'm worried.", "We can do it next month.",
     "The migration is done."),
)
def drawback(c: Clause) -> bool:
    """A cost, risk or catch of the plan said plainly: 'the catch is …', 'there's a real risk that …',
    'there are still open questions', 'that's a month of refactoring', 'it gets much harder'."""
    if c.question or c.negated or c.subject in {"speaker", "listener", "team"} or c.verb not in words("being_verbs"):
        return False
    if c.words & words("drawback_nouns") or words("open_question_words") <= c.words:
        return True
    if "of" in c.words and c.words & words("time_costs"):
        return True  # "a month of refactoring"
    return bool(c.words & words("drawback_states"))


@reading(
    "asks_because",
    "a 'because' that explains the speaker's own question or remark, not the view they hold.",
    match=("I asked because I thought the date was fixed.", "I mention it because the team asked."),
    no_match=("I disagree because our jobs run for two weeks.", "I asked for more time."),
)
def asks_because(c: Clause) -> bool:
    """A 'because' that explains the speaker's own question or remark, not a view: 'I asked because I
    thought the date was fixed'."""
    talk = words("talk_verbs")
    return c.subject == "speaker" and c.verb in talk and bool(c.introduces & words("because_words"))
