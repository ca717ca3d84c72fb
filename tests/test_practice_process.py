"""`coach practice`: answers from stdin (in this process, as tests/coach_cli.py runs it), killed
mid-session (a real process, SIGKILL), resumed."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time

import pytest

from tests import coach_cli
from tests.conftest import COACH, REPO

ANSWERS = [
    "On the TPU pod I profiled the step and rewrote the jit boundaries to remove dynamic shapes.",
    "I think it was a good project.",
]


def run(args, env, input=None, timeout=120):
    return coach_cli.run(*args, input=input, env=env)


def test_practice_from_stdin_then_history(tmp_path):
    env = {**os.environ, "COACH_DATA_DIR": str(tmp_path)}
    result = run(["practice", "--card", "gpu-cluster-optimization"], env, input="\n".join(ANSWERS) + "\n")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    first_scorecard = next(i for i, line in enumerate(lines) if line.startswith("Scorecard"))
    follow_up = next(line for line in lines[first_scorecard:] if line.startswith("Dr. "))
    assert "number" in follow_up.lower() or "result" in follow_up.lower() or "team" in follow_up.lower()
    history = json.loads(run(["history", "--format", "json"], env).stdout)
    assert len(history) == 1
    session = history[0]
    answered = [t for t in session["turns"] if t["answer"]]
    assert [t["answer"] for t in answered] == ANSWERS
    assert all(t["scorecard"]["criteria"] for t in answered)


@pytest.mark.slow
def test_killed_process_loses_no_answer_and_resumes(tmp_path):
    env = {**os.environ, "COACH_DATA_DIR": str(tmp_path)}
    process = subprocess.Popen([COACH, "practice", "--card", "gpu-cluster-optimization"], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=REPO)
    session_line = process.stdout.readline()
    assert session_line.startswith("Session: ")
    session_id = session_line.split()[1]
    for answer in ANSWERS:
        process.stdin.write(answer + "\n")
        process.stdin.flush()
    deadline = time.time() + 60
    seen = 0
    while seen < 2 and time.time() < deadline:
        if process.stdout.readline().startswith("Scorecard"):
            seen += 1
    assert seen == 2, "the process did not accept two answers"
    process.send_signal(signal.SIGKILL)
    process.wait(10)

    session = json.loads(run(["history", "--format", "json"], env).stdout)[0]
    assert session["id"] == session_id
    assert [t["answer"] for t in session["turns"] if t["answer"]] == ANSWERS

    resumed = run(["practice", "--session", session_id], env, input="Scaling efficiency went from 78% to 91%.\n")
    assert resumed.returncode == 0, resumed.stderr
    session = json.loads(run(["history", "--format", "json"], env).stdout)[0]
    answers = [t["answer"] for t in session["turns"] if t["answer"]]
    assert answers == [*ANSWERS, "Scaling efficiency went from 78% to 91%."]
    assert session["turns"][2]["scorecard"]["criteria"]["measured_results"]["met"]


def test_report_command_prints_markdown(tmp_path):
    env = {**os.environ, "COACH_DATA_DIR": str(tmp_path)}
    run(["practice", "--card", "status-update"], env, input="I'm working on the billing migration and finished the schema.\n")
    session_id = json.loads(run(["history", "--format", "json"], env).stdout)[0]["id"]
    report = run(["report", session_id], env)
    assert report.returncode == 0 and report.stdout.startswith("# Rehearse report")
    missing = run(["report", "nope"], env)
    assert missing.returncode != 0 and "no session" in missing.stderr


COVERAGE_ANSWERS = [
    "I worked on a big cluster and it was a good project overall.",
    "I personally rewrote the jit boundaries in our JAX training loop to remove dynamic shapes.",
    "TPU utilization went from 40% to 83% after the change.",
    "I profiled a few training steps and the trace showed the root cause: recompiles from dynamic shapes.",
    "I did the profiling myself, while my teammate Jisoo handled the input pipeline and the data loader.",
    "We considered rewriting the input pipeline first, but rejected it because the profile showed the time was in the graph.",
    "If I did it again, I would add a recompilation check to CI from day one.",
    "I owned the JAX training loop on a TPU pod. I profiled the steps and found recompiles from dynamic shapes, "
    "so I rewrote the jit boundaries. We considered rewriting the input pipeline but rejected it. "
    "I did the profiling while my teammate Jisoo handled the data loader. Utilization went from 40% to 83%. "
    "If I did it again, I would add a recompilation check to CI from day one.",
]


def test_piped_interview_covers_the_whole_rubric_then_the_retell(tmp_path):
    env = {**os.environ, "COACH_DATA_DIR": str(tmp_path)}
    result = run(["practice", "--card", "gpu-cluster-optimization"], env, input="\n".join(COVERAGE_ANSWERS) + "\n")
    assert result.returncode == 0, result.stderr
    session = json.loads(run(["history", "--format", "json"], env).stdout)[0]
    assert session["status"] == "finished"
    follow_ups = [t["prompt"] for t in session["turns"] if t["kind"] == "follow-up"]
    assert len(set(follow_ups)) >= 5, follow_ups
    assert session["turns"][-1]["kind"] == "retell" and "90 seconds" in session["turns"][-1]["prompt"]
    outcome = session["result"]
    assert (outcome["met"], outcome["of"]) == (6, 6), outcome
    first_met = {cid: c["turn"] for cid, c in outcome["criteria"].items()}
    assert first_met == {"optimization_experience": 1, "measured_results": 2, "problem_solving": 3,
                         "teamwork": 4, "options_rejected": 5, "reflection": 6}
    for cid, criterion in outcome["criteria"].items():
        turn = session["turns"][criterion["turn"]]
        assert turn["scorecard"]["criteria"][cid]["met"]
        answers = [t["answer"] for t in session["turns"] if t["answer"]]
        assert criterion["evidence"] and all(any(q in a for a in answers) for q in criterion["evidence"])
