"""Hostile input and faults the first bad-input round missed (issue 18): bytes that are not
UTF-8, an in-memory database, content files that would hang or exhaust memory, answer files
that never end, a deleted database. Every case is the real `coach` command in a process: one
line on stderr, exit 2, nothing stored lost."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from tests.conftest import COACH, REPO

CARD = "status-update"
INTERVIEW = "gpu-cluster-optimization"
GOOD = "Yesterday I finished the schema. Next I will migrate the data. I am blocked on access, can you help?"


def coach(*args, input=None, env=None, timeout=120) -> subprocess.CompletedProcess:
    """The real command; `args` and `input` may be bytes (bytes that are not UTF-8 included)."""
    environment = {**os.environ, "PYTHONPATH": str(REPO), **(env or {})}
    binary = isinstance(input, bytes) or any(isinstance(a, bytes) for a in args)
    result = subprocess.run([COACH, *args], capture_output=True, input=input, env=environment, cwd=REPO,
                            timeout=timeout, text=not binary)
    if binary:
        result.stdout, result.stderr = result.stdout.decode(), result.stderr.decode()
    return result


def one_line(stderr: str) -> str:
    assert "Traceback" not in stderr, stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    return lines[0]


def history(env) -> list[dict]:
    result = coach("history", "--format", "json", env=env)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


# --- 4. bytes that are not UTF-8 -------------------------------------------------------------


@pytest.mark.parametrize("locale", ["C.UTF-8", "C"])
def test_practice_keeps_a_non_utf8_answer_and_every_line_after_it(locale, tmp_path):
    env = {"COACH_DATA_DIR": str(tmp_path), "LC_ALL": locale, "PYTHONIOENCODING": ""}
    answer = b"Yesterday I finished the caf\xe9 schema."
    result = coach("practice", "--card", INTERVIEW, input=answer + b"\n" + GOOD.encode() + b"\n", env=env)
    assert result.returncode == 2
    assert one_line(result.stderr) == (
        "coach: answer 1: not UTF-8 text (byte 0xe9); it was kept with the bad bytes replaced by U+FFFD")
    assert result.stdout.count("Scorecard:") == 2
    answers = [t["answer"] for t in history(env)[0]["turns"] if t["answer"]]
    assert answers == ["Yesterday I finished the caf\ufffd schema.", GOOD]


@pytest.mark.parametrize("command", ["score", "politeness"])
def test_text_argument_that_is_not_utf8_is_one_line(command):
    args = ("score", "--card", CARD) if command == "score" else ("politeness",)
    result = coach(*args, "--text", b"Could you check the caf\xe9 order?")
    assert result.returncode == 2 and result.stdout == ""
    assert one_line(result.stderr) == "coach: --text: not UTF-8 text (byte 0xe9); give it as UTF-8"


@pytest.mark.parametrize("command", ["score", "politeness"])
def test_jsonl_unpaired_surrogate_escape_is_named_and_the_rest_scored(command, tmp_path):
    batch = tmp_path / "batch.jsonl"
    batch.write_text('{"id": "bad", "text": "caf\\udce9 is open"}\n' + json.dumps({"id": "ok", "text": GOOD}) + "\n")
    args = ("score", "--card", CARD) if command == "score" else ("politeness",)
    result = coach(*args, "--jsonl", str(batch))
    assert result.returncode != 0
    assert one_line(result.stderr) == (
        f'{batch}:1: "text" holds an unpaired surrogate escape (\\udce9), which is not text')
    assert [json.loads(x)["id"] for x in result.stdout.splitlines()] == ["ok"]


# --- 5. a database that keeps nothing --------------------------------------------------------


@pytest.mark.parametrize("url", ["sqlite:///:memory:", "sqlite://", "sqlite:///file::memory:?uri=true",
                                 "sqlite:///file:x?mode=memory&uri=true"])
def test_in_memory_database_is_refused_before_anything_is_answered(url, tmp_path):
    result = coach("practice", "--card", CARD, input=f"{GOOD}\n",
                   env={"COACH_DATABASE_URL": url, "COACH_DATA_DIR": str(tmp_path)})
    assert result.returncode == 2 and result.stdout == ""
    assert one_line(result.stderr) == (
        f"coach: COACH_DATABASE_URL={url!r} is not valid: an in-memory SQLite database keeps nothing (every "
        "session would be gone when the program ends); give a file such as sqlite:///path/to/rehearse.db "
        "(fix or unset the variable)")
