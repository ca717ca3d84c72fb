"""The LLM's natural rewrite of an answer (coach/llm_rewrite.py): shown with its changes, refused
in code when it adds a number or a technical term; the LLM is mocked with litellm's mock_response."""

from __future__ import annotations

import json

import pytest

from coach import llm_rewrite
from tests.test_llm import make_settings, mocked

ANSWER = "Yesterday I fix the NCCL timeout and the job fail less, from forty failures to 3 per week."


def test_a_rewrite_that_keeps_the_facts_is_shown_with_its_changes():
    reply = "Yesterday I fixed the NCCL timeout, and the job now fails less: from 40 failures to 3 a week."
    rewrite = llm_rewrite.natural_rewrite(mocked(json.dumps({"rewrite": reply})), ANSWER)
    assert rewrite.text == reply
    assert ("fix", "fixed") in rewrite.changes


@pytest.mark.parametrize(("reply", "added"), [
    ("Yesterday I fixed the NCCL timeout and cut failures from 40 to 3 a week, a 92% drop.", "92"),
    ("Yesterday I fixed the NCCL timeout with DeepSpeed, from 40 failures to 3 a week.", "deepspeed"),
    ("Yesterday I fixed the NCCL and RDMA timeouts: from 40 failures to 3 a week.", "rdma"),
])
def test_a_rewrite_that_adds_a_number_or_a_term_is_refused(reply, added):
    with pytest.raises(llm_rewrite.RewriteError) as refused:
        llm_rewrite.natural_rewrite(mocked(json.dumps({"rewrite": reply})), ANSWER)
    assert added in str(refused.value)


def test_without_a_model_it_says_so():
    with pytest.raises(llm_rewrite.RewriteError, match="needs a language model"):
        llm_rewrite.natural_rewrite(make_settings(), ANSWER)


def test_a_reply_that_is_not_the_schema_is_one_message():
    with pytest.raises(llm_rewrite.RewriteError, match="no rewrite"):
        llm_rewrite.natural_rewrite(mocked("not json at all"), ANSWER)


def test_the_application_api_offers_it(library):
    from coach.practice import Coach
    from coach.session import PracticeEngine
    from coach.store import Store

    reply = "Yesterday I fixed the NCCL timeout, and the job now fails less: from 40 failures to 3 a week."
    coach = Coach(PracticeEngine(library, Store("sqlite://"), mocked(json.dumps({"rewrite": reply}))))
    assert coach.natural_rewrite(ANSWER).text == reply
