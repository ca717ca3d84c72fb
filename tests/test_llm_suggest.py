"""Suggestions for the learner's own cards (issue 20) with a faked provider: litellm's
mock_response and the scripted OpenAI-compatible server of test_llm. Each suggestion is
cleaned like typed input and becomes a card only once kept; without a model, one message."""

from __future__ import annotations

import json
import sys

import pytest

from coach import llm_suggest, personal
from coach.config import load_settings
from coach.library import library_for
from tests.test_llm import FakeOpenAI, closed_port, make_settings, mocked
from tests.test_own_cards_app import app, texts

QUESTION = "Explain how paged attention saves KV cache memory."
CONCEPT_REPLY = {
    "terms": ["paged attention", "KV cache", "kv cache", "***", "<b>block table</b>", "x" * 90, "memory fragmentation"],
    "outline": ["Define it: the **KV cache** kept in fixed-size blocks", "[Click](http://evil.example) the mechanism",
                "", "A number: about 2x more sequences fit", "y" * 400, "The cost: an extra lookup per block"],
}
POSTING = ("We are hiring an ML infrastructure engineer. You will own inference serving cost for our LLM "
           "products, run GPU capacity planning, and build batching and caching for low latency.")
POSTING_REPLY = {"questions": [
    {"question": "Tell me about a time you cut inference serving cost.", "kind": "story", "terms": []},
    {"question": "Explain how continuous batching improves GPU utilization.", "kind": "concept",
     "terms": ["continuous batching", "GPU utilization", "latency"]},
    {"question": "tell me about a time you cut inference serving cost.", "kind": "story", "terms": []},
    {"question": "", "kind": "story", "terms": []},
    {"question": "Q" * 400, "kind": "story", "terms": []},
    {"question": "How did you plan GPU capacity for a **launch**?", "kind": "story", "terms": ["ignored"]},
    {"question": "Explain the KV cache and why it limits batch size.", "kind": "concept", "terms": ["KV cache"]},
    {"question": "Describe your on-call experience for a serving system.", "kind": "story", "terms": []},
    {"question": "What would you measure first in a slow model server?", "kind": "story", "terms": []},
]}


@pytest.fixture
def fake():
    server = FakeOpenAI()
    yield server
    server.close()


def test_concept_terms_and_outline_are_cleaned_like_typed_input():
    suggestion = llm_suggest.suggest_concept(mocked(json.dumps(CONCEPT_REPLY)), QUESTION)
    assert suggestion.terms == ["paged attention", "KV cache", "block table", "memory fragmentation"]
    assert suggestion.outline == ["Define it: the KV cache kept in fixed-size blocks", "Click the mechanism",
                                  "A number: about 2x more sequences fit", "The cost: an extra lookup per block"]
    assert suggestion.info.prompt_version == llm_suggest.PROMPT_CONCEPT


def test_kept_terms_and_outline_make_the_concept_card_and_score_it():
    settings = load_settings()
    library = library_for(settings)
    suggestion = llm_suggest.suggest_concept(mocked(json.dumps(CONCEPT_REPLY)), QUESTION)
    kept_terms = [t for t in suggestion.terms if t != "block table"]  # the learner drops one
    [made] = personal.create(library, settings, "concept", [QUESTION], terms=", ".join(kept_terms),
                             outline=suggestion.outline[:3])
    card = library_for(settings).cards[made.card.id]
    assert personal.spec_of(card).terms == kept_terms and personal.spec_of(card).outline == suggestion.outline[:3]
    outline = next(a for a in card.model_answers if a.title == personal.OUTLINE_TITLE)
    assert "2x more sequences" in outline.text and "extra lookup" not in outline.text

    import scoring  # the kept terms are what the answer is scored on

    def score_text(card, text):
        return scoring.score(card, "main", text)

    strong = ("Paged attention keeps the KV cache in blocks, which removes memory fragmentation, so about 2x "
              "more sequences fit; the cost is an extra lookup, compared with contiguous allocation.")
    result = score_text(card, strong)
    assert result.criteria["key_concepts"].met
    assert not score_text(card, "It is a trick that helps.").criteria["key_concepts"].met


def test_posting_gives_at_most_five_clean_distinct_questions(fake):
    fake.script = [json.dumps(POSTING_REPLY)]
    suggested = llm_suggest.questions_from_posting(fake.settings(), POSTING)
    assert [q.question for q in suggested] == [
        "Tell me about a time you cut inference serving cost.",
        "Explain how continuous batching improves GPU utilization.",
        "How did you plan GPU capacity for a launch?",
        "Explain the KV cache and why it limits batch size.",
        "Describe your on-call experience for a serving system.",
    ]
    assert [q.rubric for q in suggested] == ["story", "concept", "story", "concept", "story"]
    assert suggested[1].terms == ["continuous batching", "GPU utilization", "latency"] and suggested[2].terms == []
    [request] = fake.requests
    user = request["messages"][-1]["content"]
    assert POSTING in user and user.index("<<<") < user.index(POSTING) < user.index(">>>")
    assert request["response_format"]["type"] == "json_schema"


def test_without_a_model_suggestions_say_an_llm_is_needed_and_import_nothing():
    code = ("import sys; from coach import llm_suggest; from tests.test_llm import make_settings;"
            "s = make_settings()\n"
            "for call in (lambda: llm_suggest.suggest_concept(s, 'What is X?'),"
            " lambda: llm_suggest.questions_from_posting(s, 'A posting')):\n"
            "    try: call()\n"
            "    except llm_suggest.SuggestionError as exc: print(exc)\n"
            "print('litellm' in sys.modules)")
    import subprocess

    from tests.conftest import REPO

    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.strip().splitlines()
    assert lines == [llm_suggest.NEEDS_LLM, llm_suggest.NEEDS_LLM, "False"]


@pytest.mark.parametrize("reply, message", [
    ("not json at all", "not valid JSON"),
    (json.dumps({"terms": "one", "outline": []}), "does not match the schema"),
    (json.dumps({"terms": ["***"], "outline": [""]}), "no usable term"),
])
def test_an_unusable_reply_is_one_message(reply, message):
    with pytest.raises(llm_suggest.SuggestionError) as caught:
        llm_suggest.suggest_concept(mocked(reply), QUESTION)
    assert message in str(caught.value) and "type your own" in str(caught.value)


def test_no_answer_and_bad_postings_are_one_message():
    settings = make_settings(llm_model="openai/absent", llm_api_base=f"http://127.0.0.1:{closed_port()}/v1")
    with pytest.raises(llm_suggest.SuggestionError, match="cannot be reached"):
        llm_suggest.questions_from_posting(settings, POSTING)
    with pytest.raises(llm_suggest.SuggestionError, match="posting is empty"):
        llm_suggest.questions_from_posting(mocked("{}"), "   ")
    with pytest.raises(llm_suggest.SuggestionError, match="20,000"):
        llm_suggest.questions_from_posting(mocked("{}"), "x" * 20_001)
    with pytest.raises(llm_suggest.SuggestionError, match="no usable question"):
        llm_suggest.questions_from_posting(mocked(json.dumps({"questions": [{"question": "", "kind": "story",
                                                                            "terms": []}]})), POSTING)


def test_app_without_a_model_says_so_and_the_buttons_are_off():
    at = app()
    at.radio(key="own-kind").set_value("concept").run()
    assert at.button(key="own-suggest").disabled and at.button(key="own-posting-go").disabled
    assert llm_suggest.NEEDS_LLM in texts(at)


@pytest.mark.slow
def test_app_suggestions_are_kept_or_dropped_before_they_become_cards(fake, monkeypatch):
    monkeypatch.setenv("COACH_LLM_MODEL", "openai/fake-model")
    monkeypatch.setenv("COACH_LLM_API_BASE", fake.api_base)
    fake.script = [json.dumps(CONCEPT_REPLY), json.dumps(POSTING_REPLY)]
    at = app()
    at.text_area(key="own-questions").input(QUESTION)
    at.radio(key="own-kind").set_value("concept").run()
    at.button(key="own-suggest").click().run()
    assert not at.exception, at.exception
    assert at.checkbox(key="own-term-0").label == "paged attention"
    at.checkbox(key="own-term-2").uncheck()  # drop "block table"
    at.checkbox(key="own-point-1").uncheck()
    at.text_input(key="own-terms").input("block table")
    at.button(key="own-go").click().run()
    assert not at.exception, at.exception

    settings = load_settings()
    [card] = personal.mine(library_for(settings))
    spec = personal.spec_of(card)
    assert spec.terms == ["block table", "paged attention", "KV cache", "memory fragmentation"]
    assert spec.outline == [p for i, p in enumerate(llm_suggest.suggest_concept(
        mocked(json.dumps(CONCEPT_REPLY)), QUESTION).outline) if i != 1]

    at.switch_page("coach/ui/pages/library.py").run()
    at.text_area(key="own-posting").input(POSTING)
    at.button(key="own-posting-go").click().run()
    assert not at.exception, at.exception
    assert len([c for c in at.checkbox if str(c.key).startswith("own-keep-")]) == 5
    at.checkbox(key="own-keep-0").check()
    at.checkbox(key="own-keep-1").check()
    at.button(key="own-keep-go").click().run()
    assert not at.exception, at.exception
    assert "2 cards made" in texts(at)
    mine = {c.turns[0].prompt: c for c in personal.mine(library_for(settings))}
    assert set(mine) == {QUESTION, POSTING_REPLY["questions"][0]["question"],
                         POSTING_REPLY["questions"][1]["question"]}
    batching = personal.spec_of(mine["Explain how continuous batching improves GPU utilization."])
    assert batching.rubric == "concept" and batching.terms == ["continuous batching", "GPU utilization", "latency"]
    assert len([c for c in at.checkbox if str(c.key).startswith("own-keep-")]) == 3  # the dropped ones wait
