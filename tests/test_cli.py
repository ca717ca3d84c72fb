"""The command-line contracts of DESIGN.md, run as a user or another tool would run them: in this
process (tests/coach_cli.py), and as a real process where only a process can show it."""

from __future__ import annotations

import json

import pytest

from tests.coach_cli import run, run_process

SEED_CRITERIA = {
    "gpu-cluster-optimization": ["optimization_experience", "problem_solving", "measured_results", "teamwork",
                                 "options_rejected", "reflection"],
    "status-update": ["context", "progress", "next_steps", "blocker_or_ask"],
    "polite-disagreement": ["acknowledge", "softened_disagreement", "reason", "alternative", "invites_input"],
    "video-call-essentials": ["appropriate", "polite"],
}


def coach(*args, input=None, env=None):
    return run(*args, input=input, env=env)


def test_cards_json_lists_seed_cards_with_exact_criteria():
    result = coach("cards", "--format", "json")
    assert result.returncode == 0, result.stderr
    cards = {c["id"]: c for c in json.loads(result.stdout)}
    for card_id, criteria in SEED_CRITERIA.items():
        assert sorted(cards[card_id]["criteria"]) == sorted(criteria)
    assert [t["id"] for t in cards["video-call-essentials"]["turns"]] == [
        "check-connection", "ask-repeat", "take-floor", "yield-floor", "share-screen"]
    assert "speaking-up-first" in cards
    for card in cards.values():
        assert set(card) >= {"id", "kind", "title", "title_ko", "tags", "persona", "turns", "criteria",
                             "follow_ups", "model_answers"}


def test_score_text_contract():
    text = "I rewrote the jit boundaries and utilization went from 40% to 83%."
    result = coach("score", "--card", "gpu-cluster-optimization", "--text", text, "--format", "json")
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["card"] == "gpu-cluster-optimization" and out["turn"] == "main"
    assert set(out["criteria"]) == set(SEED_CRITERIA["gpu-cluster-optimization"])
    for value in out["criteria"].values():
        assert set(value) >= {"met", "score", "evidence"} and 0 <= value["score"] <= 1
        assert all(q in text for q in value["evidence"])
    assert out["criteria"]["measured_results"]["met"] is True
    assert 0 <= out["overall"] <= 1 and "delivery" in out and isinstance(out["feedback"], list)
    assert "llm" not in out


def test_score_is_deterministic(tmp_path):
    answer = tmp_path / "a.txt"
    answer.write_text("Can everyone hear me? Sorry, my connection is bad.", encoding="utf-8")
    args = ("score", "--card", "video-call-essentials", "--turn", "check-connection", "--file", str(answer), "--format", "json")
    assert coach(*args).stdout == coach(*args).stdout


def test_score_jsonl_echoes_ids_one_line_each(tmp_path):
    batch = tmp_path / "batch.jsonl"
    lines = [
        {"id": "a1", "text": "Could you repeat that, please?", "turn": "ask-repeat"},
        {"id": "a2", "text": "Let me share my screen.", "turn": "share-screen"},
        {"id": 3, "text": "fine"},
    ]
    batch.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    result = coach("score", "--card", "video-call-essentials", "--jsonl", str(batch), "--format", "json")
    assert result.returncode == 0, result.stderr
    outputs = [json.loads(line) for line in result.stdout.splitlines()]
    assert [o["id"] for o in outputs] == ["a1", "a2", 3]
    assert [o["turn"] for o in outputs] == ["ask-repeat", "share-screen", "check-connection"]
    assert outputs[0]["criteria"]["appropriate"]["met"] and not outputs[2]["criteria"]["polite"]["met"]


@pytest.mark.slow
def test_a_long_jsonl_batch_keeps_its_order_and_its_bad_lines_across_worker_processes(tmp_path):
    """Five chunks of lines: the first is scored in the process, the rest in forked workers
    (one per core); results still come in input order and each bad line is named."""
    from coach.cli.jsonl import CHUNK_LINES

    texts = ["Could you repeat that, please?", "Sorry, my video froze. Can you hear me now?", "fine"]
    count = CHUNK_LINES * 4 + 40
    bad = {CHUNK_LINES * 2 + 5, count - 1}  # 0-based positions of lines that are not JSON
    lines = ["{not json" if i in bad else json.dumps({"id": i, "text": texts[i % 3], "turn": "ask-repeat"})
             for i in range(count)]
    batch = tmp_path / "batch.jsonl"
    batch.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = run_process("score", "--card", "video-call-essentials", "--jsonl", str(batch))  # forks workers
    assert result.returncode == 2
    outputs = [json.loads(line) for line in result.stdout.splitlines()]
    assert [o["id"] for o in outputs] == [i for i in range(count) if i not in bad]
    assert [line.split(": ")[0] for line in result.stderr.splitlines()] == [f"{batch}:{i + 1}" for i in sorted(bad)]
    by_text = {}
    for output in outputs:
        verdicts = {name: c["met"] for name, c in output["criteria"].items()}
        assert by_text.setdefault(texts[output["id"] % 3], verdicts) == verdicts
    assert by_text[texts[0]] != by_text[texts[2]]


@pytest.mark.parametrize(
    "args, message",
    [
        (["--card", "no-such-card", "--text", "hi"], "unknown card"),
        (["--card", "status-update", "--turn", "nope", "--text", "hi"], "has no turn"),
        (["--card", "status-update", "--text", "   "], "empty"),
    ],
)
def test_score_errors_are_one_clear_line(args, message):
    result = coach("score", *args, "--format", "json")
    assert result.returncode != 0
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0]


def test_score_llm_against_a_closed_port_is_deterministic_and_says_so():
    import os
    import time

    env = {**os.environ, "COACH_LLM_MODEL": "openai/absent", "COACH_LLM_API_BASE": "http://127.0.0.1:9/v1",
           "COACH_LLM_TIMEOUT": "3"}
    text = "I finished the schema changes. Next week I'll migrate the jobs."
    args = ["score", "--card", "status-update", "--text", text, "--format", "json"]
    plain = json.loads(coach(*args, env=env).stdout)
    start = time.monotonic()
    result = coach(*args, "--llm", env=env)
    assert result.returncode == 0
    assert time.monotonic() - start < 30
    with_llm = json.loads(result.stdout)
    assert with_llm["llm"]["status"] == "unavailable"
    assert with_llm["criteria"] == plain["criteria"] and with_llm["overall"] == plain["overall"]


def test_each_command_is_mapped_to_the_module_that_registers_it():
    """`coach X` imports only X's module (start-up time): COMMANDS must name the right one."""
    import argparse
    import importlib

    from coach.cli import COMMAND_MODULES, COMMANDS

    registered = {}
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError:
            continue
        sub = argparse.ArgumentParser().add_subparsers()
        module.register(sub)
        registered.update(dict.fromkeys(sub.choices, name))
    assert {c: COMMANDS.get(c) for c in registered} == registered
