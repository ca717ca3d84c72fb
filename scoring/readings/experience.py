"""Experience stories: working with others, options turned down, diagnosis, changes made, colleagues' parts.

Each reading is declared with its predicate: what it is for, and examples it must and must not
match (tests/test_grammar.py runs them all)."""

from __future__ import annotations

from scoring.grammar import WORKERS, Clause, lemma, words
from scoring.readings.registry import reading


@reading(
    "collaboration",
    "the speaker (or the team) acting together with another person, role or team.",
    match=(
        "I paired with her on the review.",
        "After agreeing a target with the PM, we profiled the job.",
        "I worked with the storage team on the cache.",
    ),
    no_match=("I profiled the job.", "We fixed it.", "I didn't work with them."),
)
def collaboration(c: Clause) -> bool:
    if c.negated:
        return False
    if c.others and c.subject in {"speaker", "team", "none", "implicit"}:
        return True
    return c.subject == "speaker" and c.verb in words("collaboration_verbs") and c.others


@reading(
    "choice_over_option",
    "an option turned down: rejected, ruled out, dropped, or not gone with.",
    match=(
        "We ruled out a bigger cluster.",
        "We didn't go with Kafka.",
        "We looked at Redis and went with Postgres.",
        "At iteration 21680 switched from PR 272 to a different version of the fix.",
    ),
    no_match=("We went with Kafka.", "I fixed the bug."),
)
def choice_over_option(c: Clause) -> bool:
    if c.verb_negated and c.verb in words("choose_verbs"):
        return bool(c.named) and c.subject in WORKERS  # "we didn't go with Kafka"
    if (
        c.verb in words("switch_verbs")
        and "from" in c.words
        and c.tense in {"past", "perfect"}
    ):
        return c.subject in WORKERS and bool(c.named)  # "switched from PR 272 to a different version"
    if c.verb in words("consider_verbs") and c.partners & words("choose_verbs") and c.tense in {"past", "perfect"}:
        return c.subject in WORKERS and bool(c.named)  # "we looked at Redis and went with Postgres"
    return (
        c.verb in words("reject_verbs")
        and c.subject in WORKERS
        and c.tense in {"past", "perfect"}
    )


@reading(
    "diagnosis",
    "the speaker or team working out a cause: profiling, tracing, comparing, reproducing, measuring.",
    match=("I compared the two captures byte by byte.", "We traced the stalls to the data loader."),
    no_match=("We will profile it.", "The job was slow."),
)
def diagnosis(c: Clause) -> bool:
    return (
        not c.negated
        and c.modal is None
        and c.subject in WORKERS
        and c.tense in {"past", "perfect", "progressive"}
        and c.verb in words("diagnosis_verbs")
    )


@reading(
    "own_change",
    "a change the speaker made to the system, in the first person or as a logbook line with no subject.",
    match=(
        "Switched from MBS=1 to MBS=2 at GBS=784.",
        "I moved the reduce-scatter launch into a backward hook.",
        "I fused the two attention kernels.",
    ),
    no_match=("We will switch to MBS=2.", "I didn't change the batch size.", "The team switched to BF16."),
)
def own_change(c: Clause) -> bool:
    """A change the speaker made to the system, said in the first person or as a logbook line with no
    subject: 'I fused the two kernels', 'Switched from MBS=1 to MBS=2', 'I moved the launch into a hook'."""
    if c.negated or c.question or c.subject not in {"speaker", "none"} or c.tense not in {"past", "perfect"}:
        return False
    return c.verb in words("change_verbs") and bool(c.named) and c.modal is None


@reading(
    "named_colleague",
    "another person's part, by name or role (subject, possessor or agent).",
    match=(
        "Based on Daniel's suggestion we set num_workers to 0.",
        "The benchmark run by Remi showed 2.5%.",
        "My colleague wanted to shard the optimizer.",
    ),
    no_match=("I profiled the job.", "We fixed it.", "Priya joins us next week."),
)
def named_colleague(c: Clause) -> bool:
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
