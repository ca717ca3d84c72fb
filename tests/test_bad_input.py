"""Bad input and faults: each gets one clear message of its own typed error, exit code 2 from
`coach` (never a traceback), a message in place in the app, and nothing is lost.

Real parts throughout: real files (links, folders, bytes that are not UTF-8), real SQLite
files, the real `coach` command (its `main()` in this process with stdin, stdout and the
environment of a process: tests/coach_cli.py), real audio made with tests/conftest_audio.py, a real closed
port as the LLM that does not answer."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import socket
import sqlite3
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from conftest_audio import fixture, mono_wav, speech_model, wav_bytes  # noqa: E402, F401

from coach import audio, stt  # noqa: E402
from coach.cli import main as coach_main  # noqa: E402
from coach.config import Environment, load_settings  # noqa: E402
from coach.errors import (  # noqa: E402
    AnswerTooLongError,
    AudioError,
    DatabaseDamagedError,
    EmptyAnswerError,
    FileAccessError,
    LLMUnavailableError,
    SessionFinishedError,
    SessionNotFoundError,
    SettingsError,
    StorageError,
    UnknownCardError,
)
from coach.library import load_library  # noqa: E402
from coach.session import PracticeEngine  # noqa: E402
from coach.store import Store, save_audio_file  # noqa: E402
from tests.coach_cli import run  # noqa: E402
from tests.conftest import REPO  # noqa: E402

CARD = "status-update"
INTERVIEW = "gpu-cluster-optimization"
GOOD = "Yesterday I finished the schema. Next I will migrate the data. I am blocked on access, can you help?"
HUGE = "I finished the migration. " * 1000  # 26,000 characters: over the 20,000 limit


def coach(*args, input=None, env=None):
    """The command in this process (tests/coach_cli.py), `env` added to the environment."""
    return run(*args, input=input, env={**os.environ, **(env or {})})


def run_main(capsys, *args) -> tuple[int, str, str]:
    """The command's main() in-process: an unexpected exception fails the test."""
    code = coach_main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def one_line(stderr: str) -> str:
    assert "Traceback" not in stderr, stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    return lines[0]


def app(**query) -> AppTest:
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=60)
    at.session_state["audio_on"] = False
    for key, value in query.items():
        at.query_params[key] = value
    return at


def run_page(page: str, **query) -> AppTest:
    at = app(**query).run()
    at.switch_page(page)
    for key, value in query.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, at.exception
    return at


# --- settings ------------------------------------------------------------------------------

BAD_SETTINGS = {
    "audio-seconds-word": ("COACH_MAX_AUDIO_SECONDS", "abc", "valid number"),
    "audio-seconds-negative": ("COACH_MAX_AUDIO_SECONDS", "-5", "greater than 0"),
    "timeout-word": ("COACH_LLM_TIMEOUT", "soon", "valid number"),
    "timeout-zero": ("COACH_LLM_TIMEOUT", "0", "greater than 0"),
    "retries-word": ("COACH_LLM_RETRIES", "many", "valid integer"),
    "retries-negative": ("COACH_LLM_RETRIES", "-1", "greater than or equal to 0"),
    "answer-chars-fraction": ("COACH_MAX_ANSWER_CHARS", "1.5", "valid integer"),
    "audio-seconds-inf": ("COACH_MAX_AUDIO_SECONDS", "inf", "finite number"),
    "audio-seconds-huge": ("COACH_MAX_AUDIO_SECONDS", "1e308", "less than or equal to 3600"),
    "audio-seconds-nan": ("COACH_MAX_AUDIO_SECONDS", "nan", "finite number"),
    "answer-chars-huge": ("COACH_MAX_ANSWER_CHARS", "99999999999999999999", "less than or equal to 1000000"),
    "timeout-inf": ("COACH_LLM_TIMEOUT", "inf", "finite number"),
    "content-dir-missing": ("COACH_CONTENT_DIR", "/nonexistent/rehearse-content", "no such folder"),
    "content-dir-file": ("COACH_CONTENT_DIR", str(REPO / "README.md"), "not a folder"),
    "persona-dir-file": ("COACH_PERSONA_DIR", str(REPO / "README.md"), "not a folder"),
    "device": ("COACH_STT_DEVICE", "tpu", "'auto', 'cuda' or 'cpu'"),
    "engine": ("COACH_STT_ENGINE", "whisperx", "'faster-whisper' or 'openai-whisper'"),
    "database-url": ("COACH_DATABASE_URL", "not a url", "sqlite:///"),
}


@pytest.mark.parametrize("case", list(BAD_SETTINGS))
def test_bad_setting_names_the_variable_and_what_is_allowed(case, monkeypatch):
    name, value, allowed = BAD_SETTINGS[case]
    monkeypatch.setenv(name, value)
    with pytest.raises(SettingsError) as caught:
        load_settings()
    message = str(caught.value)
    assert message.startswith(f"{name}={value!r} is not valid: ") and allowed in message
    assert "\n" not in message


@pytest.mark.parametrize("name, value", [("COACH_MAX_AUDIO_SECONDS", "abc"), ("COACH_LLM_TIMEOUT", "soon")])
def test_bad_setting_exits_2_with_one_line(name, value):
    result = coach("cards", env={name: value})
    assert result.returncode == 2 and result.stdout == ""
    assert one_line(result.stderr).startswith(f"coach: {name}={value!r} is not valid")


@pytest.mark.parametrize("name", ["COACH_CONTENT_DIR", "COACH_PERSONA_DIR"])
def test_an_empty_content_or_persona_folder_names_the_variable(name, monkeypatch, tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    monkeypatch.setenv(name, str(tmp_path / "empty"))
    code, out, err = run_main(capsys, "practice", "--card", CARD)
    assert code == 2 and out == ""
    assert one_line(err) == (f"coach: {name}={str(tmp_path / 'empty')!r} is not valid: holds no .md files "
                             "(fix or unset the variable)")


@pytest.mark.parametrize("command", [["cards"], ["transcribe", "x.wav"], ["pronounce", "x.wav"],
                                     ["practice", "--card", CARD, "--audio", "x.wav"]])
@pytest.mark.parametrize("name, value", [("COACH_MAX_AUDIO_SECONDS", "inf"), ("COACH_MAX_AUDIO_SECONDS", "1e308"),
                                         ("COACH_CONTENT_DIR", "/nonexistent/rehearse-content")])
def test_unbounded_or_missing_setting_exits_2_before_anything_starts(command, name, value, monkeypatch, capsys,
                                                                      tmp_path):
    monkeypatch.setenv("COACH_DATA_DIR", str(tmp_path))
    monkeypatch.setenv(name, value)
    code, out, err = run_main(capsys, *command)
    assert code == 2 and out == ""
    assert one_line(err).startswith(f"coach: {name}={value!r} is not valid")
    assert not (tmp_path / "rehearse.db").exists()  # no session was started


def test_database_driver_not_installed_is_one_line(tmp_path):
    result = coach("history", env={"COACH_DATABASE_URL": "mysql://user@localhost/rehearse"})
    assert result.returncode == 2
    line = one_line(result.stderr)
    assert "COACH_DATABASE_URL uses 'mysql'" in line and "sqlite:///" in line
    with pytest.raises(StorageError, match="driver is not installed"):
        Store("mysql://user@localhost/rehearse")


def test_blank_settings_count_as_unset(monkeypatch):
    monkeypatch.setenv("COACH_LLM_RETRIES", "  ")
    monkeypatch.setenv("COACH_MAX_AUDIO_SECONDS", "")
    settings = load_settings()
    assert settings.llm_retries == Environment.model_fields["llm_retries"].default == 0
    assert settings.max_audio_seconds == 300


def test_app_with_a_bad_setting_shows_one_message_in_place(monkeypatch):
    monkeypatch.setenv("COACH_LLM_TIMEOUT", "soon")
    at = app().run()
    assert not at.exception
    assert [e.value for e in at.error] == [
        "Rehearse cannot start: COACH\\_LLM\\_TIMEOUT='soon' is not valid: Input should be a valid number, "
        "unable to parse string as a number (fix or unset the variable)"]


@pytest.mark.slow
def test_the_app_listens_on_loopback_only(tmp_path):
    """`streamlit run app.py` with no flags: .streamlit/config.toml binds it to 127.0.0.1."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if not k.startswith("STREAMLIT_")}
    env.update(STREAMLIT_SERVER_PORT=str(port), PYTHONPATH=str(REPO), COACH_DATA_DIR=str(tmp_path))
    server = subprocess.Popen([str(REPO / ".venv/bin/streamlit"), "run", "app.py"], cwd=REPO, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        listening: list[str] = []
        deadline = time.monotonic() + 90
        while not listening and time.monotonic() < deadline and server.poll() is None:
            time.sleep(0.5)
            listening = _listening_addresses(port)
        assert listening, "streamlit did not start listening"
        assert set(listening) == {"127.0.0.1"}, listening
    finally:
        server.terminate()
        server.wait(30)


def _listening_addresses(port: int) -> list[str]:
    found = []
    for table, width in (("/proc/net/tcp", 8), ("/proc/net/tcp6", 32)):
        for row in Path(table).read_text().splitlines()[1:]:
            local, state = row.split()[1], row.split()[3]
            address, hex_port = local.split(":")
            if state == "0A" and int(hex_port, 16) == port:
                if width == 8:
                    found.append(socket.inet_ntop(socket.AF_INET, bytes.fromhex(address)[::-1]))
                else:
                    found.append("::" if int(address, 16) == 0 else address)
    return found


# --- URLs ----------------------------------------------------------------------------------

HOSTILE = {
    "link": "[Click](https://evil.example/login)",
    "image": "![x](https://evil.example/pixel.png)",
    "html": "<img src=https://evil.example/x.png>",
    "autolink": "https://evil.example/steal",
}


@pytest.mark.slow
@pytest.mark.parametrize("case", list(HOSTILE))
def test_session_in_the_url_is_never_rendered_as_markdown(case):
    at = run_page("coach/ui/pages/interview.py", session=HOSTILE[case])
    errors = [e.value for e in at.error]
    assert errors == ["Cannot open session named in the link: it does not exist. Start a new one below."]


@pytest.mark.parametrize("case", ["link", "image"])
def test_card_in_the_url_is_never_rendered_as_markdown(case):
    at = run_page("coach/ui/pages/practice.py", card=HOSTILE[case])
    assert [e.value for e in at.error] == ["Unknown card named in the link; pick one below."]


def test_a_plain_unknown_id_in_the_url_is_quoted():
    at = run_page("coach/ui/pages/practice.py", session="0123abcd")
    assert [e.value for e in at.error] == [
        "Cannot open session `0123abcd`: it does not exist. Start a new one below."]


# --- content packs -------------------------------------------------------------------------


@pytest.fixture
def content(tmp_path) -> Path:
    """A copy of the project's content to break."""
    folder = tmp_path / "content"
    shutil.copytree(REPO / "content", folder)
    return folder


def cards_in(folder: Path) -> set[str]:
    return set(load_library([folder], [REPO / "personas"]).cards)


def test_dangling_link_is_one_problem_and_the_rest_loads(content):
    expected = cards_in(content)
    (content / "meetings" / "gone.md").symlink_to(content / "nowhere.md")
    library = load_library([content], [REPO / "personas"])
    assert set(library.cards) == expected
    assert [str(p) for p in library.problems] == [
        f"{content}/meetings/gone.md:1: a broken link (to {content}/nowhere.md); remove it or fix the link"]


def test_editor_lock_file_is_not_content(content):
    expected = cards_in(content)
    (content / "meetings" / ".#status-update.md").symlink_to("user@host.1:1")
    library = load_library([content], [REPO / "personas"])
    assert set(library.cards) == expected and library.problems == []


def test_non_utf8_card_is_one_problem_with_its_line(content):
    (content / "meetings" / "latin1.md").write_bytes(b"---\nid: latin1\ntitle: caf\xe9\n---\n")
    library = load_library([content], [REPO / "personas"])
    assert [str(p) for p in library.problems] == [
        f"{content}/meetings/latin1.md:3: not UTF-8 text (byte 0xe9); save the file as UTF-8"]


def test_folder_named_like_a_card_is_one_problem(content):
    (content / "meetings" / "drafts.md").mkdir()
    problems = load_library([content], [REPO / "personas"]).problems
    assert [str(p) for p in problems] == [f"{content}/meetings/drafts.md:1: a folder, not a text file"]


@pytest.mark.slow
def test_deeply_nested_front_matter_is_one_problem(content):
    (content / "meetings" / "deep.md").write_text("---\nid: " + "[" * 50_000 + "]" * 50_000 + "\n---\n")
    library = load_library([content], [REPO / "personas"])
    assert [p.message for p in library.problems] == ["the front matter is nested too deeply"]
    assert CARD in library.cards


def test_byte_order_mark_is_not_a_problem(content):
    card = content / "meetings" / "status-update.md"
    card.write_bytes(b"\xef\xbb\xbf" + card.read_bytes())
    library = load_library([content], [REPO / "personas"])
    assert library.problems == [] and CARD in library.cards


def test_missing_content_folder_is_named(tmp_path):
    library = load_library([tmp_path / "absent"], [REPO / "personas"])
    assert [str(p) for p in library.problems] == [f"{tmp_path}/absent:1: no such file or folder"]


@pytest.mark.slow
def test_validate_lists_each_broken_file_once(content):
    (content / "meetings" / "gone.md").symlink_to("nowhere.md")
    (content / "meetings" / "latin1.md").write_bytes(b"---\nid: x\n\xff\n---\n")
    result = coach("validate", env={"COACH_CONTENT_DIR": str(content)})
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert result.stdout.splitlines() == [
        f"{content}/meetings/gone.md:1: a broken link (to nowhere.md); remove it or fix the link",
        f"{content}/meetings/latin1.md:3: not UTF-8 text (byte 0xff); save the file as UTF-8",
    ]


def test_app_renders_every_other_card_and_lists_both_problems(content, monkeypatch):
    titles = {c.title for c in load_library([content], [REPO / "personas"]).cards.values()}
    (content / "meetings" / "gone.md").symlink_to("user@host.1:1")
    (content / "interviews" / "latin1.md").write_bytes(b"---\nid: x\ntitle: caf\xe9\n---\n")
    monkeypatch.setenv("COACH_CONTENT_DIR", str(content))
    at = app().run()
    assert not at.exception, at.exception
    assert {e.label.split(" · ")[0] for e in at.expander} >= titles
    assert [c.value for c in at.code] == [
        f"{content}/interviews/latin1.md:3: not UTF-8 text (byte 0xe9); save the file as UTF-8",
        f"{content}/meetings/gone.md:1: a broken link (to user@host.1:1); remove it or fix the link",
    ]


# --- text answers: coach score ---------------------------------------------------------------


def test_jsonl_bad_utf8_and_nested_lines_are_named_and_the_rest_scored(tmp_path):
    batch = tmp_path / "batch.jsonl"
    batch.write_bytes(
        json.dumps({"id": "a", "text": GOOD}).encode() + b"\n"
        + b'{"id": "b", "text": "caf\xe9"}\n'
        + b"[" * 100_000 + b"]" * 100_000 + b"\n"
        + json.dumps({"id": "d", "text": "Next I will write the tests."}).encode() + b"\n"
    )
    result = coach("score", "--card", CARD, "--jsonl", str(batch), "--format", "json")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert [json.loads(line)["id"] for line in result.stdout.splitlines()] == ["a", "d"]
    assert result.stderr.splitlines() == [
        f"{batch}:2: not UTF-8 text (byte 0xe9); save the file as UTF-8",
        f"{batch}:3: the JSON is nested too deeply; give one flat object per line",
    ]


BAD_LINES = {
    "not-json": (b"not json", "not valid JSON"),
    "array": (b"[1, 2]", "not a JSON object"),
    "text-number": (b'{"id": 1, "text": 5}', '"text" and "turn" must be strings'),
    "turn-list": (b'{"id": 1, "text": "hi", "turn": ["main"]}', '"text" and "turn" must be strings'),
    "no-text": (b'{"id": 1}', "the answer is empty"),
    "unknown-turn": (b'{"id": 1, "text": "hello", "turn": "nope"}', "has no turn 'nope'"),
    "deep-object": (b'{"a":' * 50_000 + b"1" + b"}" * 50_000, "nested too deeply"),
}


@pytest.mark.parametrize("case", list(BAD_LINES))
def test_jsonl_bad_line_is_named_and_the_next_one_scored(case, tmp_path, capsys):
    line, message = BAD_LINES[case]
    batch = tmp_path / "batch.jsonl"
    batch.write_bytes(line + b"\n" + json.dumps({"id": "ok", "text": GOOD}).encode() + b"\n")
    code, out, err = run_main(capsys, "score", "--card", CARD, "--jsonl", str(batch))
    assert code == 2
    assert one_line(err).startswith(f"{batch}:1: ") and message in err
    assert [json.loads(x)["id"] for x in out.splitlines()] == ["ok"]


def test_jsonl_with_byte_order_mark_and_crlf_is_scored(tmp_path, capsys):
    batch = tmp_path / "batch.jsonl"
    batch.write_bytes(b"\xef\xbb\xbf" + json.dumps({"id": 1, "text": GOOD}).encode() + b"\r\n\r\n"
                      + json.dumps({"id": 2, "text": GOOD}).encode() + b"\r\n")
    code, out, err = run_main(capsys, "score", "--card", CARD, "--jsonl", str(batch))
    assert (code, err) == (0, "")
    assert [json.loads(x)["id"] for x in out.splitlines()] == [1, 2]


@pytest.mark.parametrize("flag, kind", [
    ("--file", "missing"), ("--file", "folder"), ("--file", "not-utf8"), ("--jsonl", "missing"), ("--jsonl", "folder"),
])  # a JSONL file that is not UTF-8 is reported line by line (above)
def test_unreadable_answer_file_is_one_line(flag, kind, tmp_path, capsys):
    path = tmp_path / "answers.txt"
    if kind == "folder":
        path.mkdir()
    elif kind == "not-utf8":
        path.write_bytes(b"I finished it.\nthe caf\xe9 is open\n")
    code, out, err = run_main(capsys, "score", "--card", CARD, flag, str(path))
    assert code == 2 and out == ""
    expected = {
        "missing": f"{path}: no such file or folder",
        "folder": f"{path}: a folder, not a text file",
        "not-utf8": f"{path}:2: not UTF-8 text (byte 0xe9); save the file as UTF-8",
    }[kind]
    assert one_line(err) == f"coach: {expected}"


def test_unreadable_answer_file_is_a_file_access_error(tmp_path):
    from coach.content.text_input import read_utf8

    with pytest.raises(FileAccessError) as caught:
        read_utf8(tmp_path)
    assert caught.value.reason == "a folder, not a text file" and caught.value.line is None


@pytest.mark.parametrize("text", ["", "   ", "\n\t"])
def test_empty_text_answer_is_one_line(text, capsys):
    code, out, err = run_main(capsys, "score", "--card", CARD, "--text", text)
    assert code == 2 and out == "" and one_line(err) == "coach: the answer is empty"


def test_unknown_card_is_one_line(capsys):
    code, _, err = run_main(capsys, "score", "--card", "nope", "--text", "hello")
    assert code == 2 and one_line(err) == "coach: unknown card 'nope'; see `coach cards`"


# --- sessions --------------------------------------------------------------------------------


def history(env) -> list[dict]:
    result = coach("history", "--format", "json", env=env)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_practice_over_long_answer_keeps_reading_and_keeps_it(tmp_path):
    env = {"COACH_DATA_DIR": str(tmp_path)}
    result = coach("practice", "--card", INTERVIEW, input=f"{HUGE}\n{GOOD}\n", env=env)
    assert result.returncode == 2
    assert one_line(result.stderr) == (
        "coach: the answer is 26,000 characters; the limit is 20,000. It is saved; please send a shorter one")
    assert result.stdout.count("Scorecard:") == 1  # the next line was still answered
    turns = history(env)[0]["turns"]
    assert [t["answer"] for t in turns[:2]] == [HUGE, GOOD]
    assert turns[0]["status"] == "refused" and turns[0]["scorecard"] is None
    assert turns[1]["prompt"] == turns[0]["prompt"] and turns[1]["scorecard"]


def test_resume_never_scores_a_refused_answer(tmp_path):
    env = {"COACH_DATA_DIR": str(tmp_path)}
    first = coach("practice", "--card", CARD, input=f"{HUGE}\n", env=env)
    assert first.returncode == 2
    session = history(env)[0]
    resumed = coach("practice", "--session", session["id"], input="", env=env)
    assert resumed.returncode == 0 and "Traceback" not in resumed.stderr
    assert "Scoring the answer saved" not in resumed.stdout and "Scorecard" not in resumed.stdout
    turns = history(env)[0]["turns"]
    assert turns[0]["answer"] == HUGE and turns[0]["status"] == "refused" and turns[0]["scorecard"] is None
    assert turns[1]["status"] == "asked"


@pytest.mark.parametrize("args, message", [
    (("--session", "0123abcd"), "coach: no session '0123abcd'"),
    (("--card", "nope"), "coach: unknown card 'nope'; see `coach cards`"),
    (("--card", CARD, "--persona", "nobody"), "coach: unknown persona 'nobody'"),
    ((), "coach: give --card ID to start a session or --session ID to resume one"),
], ids=["unknown-session", "unknown-card", "unknown-persona", "nothing"])
def test_practice_bad_arguments_are_one_line(args, message, capsys):
    code, _, err = run_main(capsys, "practice", *args)
    assert code == 2 and one_line(err) == message


def test_blank_lines_are_skipped_and_the_answers_kept(tmp_path):
    env = {"COACH_DATA_DIR": str(tmp_path)}
    result = coach("practice", "--card", INTERVIEW, input=f"\n   \n{GOOD}\n", env=env)
    assert result.returncode == 0
    assert result.stderr.splitlines() == ["coach: the answer is empty: type or say something first"] * 2
    assert [t["answer"] for t in history(env)[0]["turns"] if t["answer"]] == [GOOD]


@pytest.fixture
def engine(library, tmp_path):
    return PracticeEngine(library, Store(f"sqlite:///{tmp_path / 'engine.db'}"))


def test_refusal_does_not_use_up_a_follow_up(engine):
    view = engine.start(INTERVIEW)
    engine.submit(view.id, "I profiled the step on the TPU pod.")
    follow_up = engine.load(view.id).pending
    with pytest.raises(AnswerTooLongError):
        engine.submit(view.id, HUGE)
    again = engine.load(view.id).pending
    assert (again.kind, again.prompt, again.criterion) == (follow_up.kind, follow_up.prompt, follow_up.criterion)


def test_finished_session_refuses_answers_and_keeps_them(engine):
    view = engine.start(CARD)
    engine.finish(view.id)
    with pytest.raises(SessionFinishedError):
        engine.submit(view.id, GOOD)
    with pytest.raises(EmptyAnswerError):
        engine.submit(engine.start(CARD).id, " ")
    with pytest.raises(SessionNotFoundError):
        engine.load("0123abcd")
    with pytest.raises(UnknownCardError):
        engine.start("nope")


# --- storage ---------------------------------------------------------------------------------


def garbage_db(path: Path) -> bytes:
    data = b"this is not a database, just bytes " * 200
    path.write_bytes(data)
    return data


def corrupt_db(path: Path) -> bytes:
    connection = sqlite3.connect(path)
    connection.execute("CREATE TABLE t (x)")
    connection.executemany("INSERT INTO t VALUES (?)", [("a" * 500,)] * 200)
    connection.commit()
    connection.close()
    data = bytearray(path.read_bytes())
    for index in range(4096, len(data), 7):
        data[index] = 0xAB
    path.write_bytes(bytes(data))
    return bytes(data)


@pytest.mark.parametrize("make", [garbage_db, corrupt_db], ids=["not-a-database", "corrupt-pages"])
def test_damaged_database_is_left_untouched_with_advice(make, tmp_path):
    path = tmp_path / "rehearse.db"
    before = make(path)
    with pytest.raises(DatabaseDamagedError) as caught:
        Store(f"sqlite:///{path}")
    message = str(caught.value)
    assert message.startswith(f"the database file {path} is damaged (")
    assert f"mv '{path}' '{path}.damaged'" in message and "a fresh, empty one will be made" in message
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rehearse.db"]  # no -wal, no -shm


def test_practice_with_a_damaged_database_writes_nothing(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    before = garbage_db(data / "rehearse.db")
    result = coach("practice", "--card", CARD, input=f"{GOOD}\n", env={"COACH_DATA_DIR": str(data)})
    assert result.returncode == 2
    assert "is damaged (file is not a database)" in one_line(result.stderr)
    assert (data / "rehearse.db").read_bytes() == before
    assert sorted(p.name for p in data.iterdir()) == ["rehearse.db"]
    (data / "rehearse.db").rename(data / "rehearse.db.damaged")  # the advice works
    assert coach("practice", "--card", CARD, input=f"{GOOD}\n", env={"COACH_DATA_DIR": str(data)}).returncode == 0


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_database_and_its_folder_are_private(tmp_path):
    data = tmp_path / "data"
    store = Store(f"sqlite:///{data / 'rehearse.db'}")
    store.create_session(CARD, "anya-team-lead", "v1")
    assert mode(data) == 0o700
    for path in data.iterdir():  # the database, and the -wal and -shm files beside it
        assert mode(path) == 0o600, path


def test_recordings_are_private_and_kept(tmp_path):
    data = tmp_path / "data"
    recording = mono_wav(fixture("answer.flac"), 16_000)
    path = save_audio_file(data, "session1", recording)
    assert path.read_bytes() == recording
    assert mode(path) == 0o600
    assert [mode(p) for p in (data, data / "audio", data / "audio" / "session1")] == [0o700] * 3


def test_unwritable_data_folder_is_one_storage_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(StorageError, match=f"cannot create the data folder {blocker}/data"):
        Store(f"sqlite:///{blocker / 'data' / 'rehearse.db'}")
    with pytest.raises(StorageError, match="cannot save the recording"):
        save_audio_file(blocker / "data", "s", b"RIFF")


needs_espeak = pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng is not installed")


@needs_espeak
def test_speak_with_an_unwritable_data_folder_still_speaks(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    out = tmp_path / "line.wav"
    result = coach("speak", "Hello there", "--out", str(out), env={"COACH_DATA_DIR": str(blocker / "data")})
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
    assert audio.decode(out).duration > 0.3


@needs_espeak
def test_speak_into_an_unwritable_place_is_one_line(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    result = coach("speak", "Hello there", "--out", str(blocker / "line.wav"))
    assert result.returncode == 2
    assert one_line(result.stderr) == (
        f"coach: {blocker}/line.wav: cannot be written (Not a directory); give --out a writable path")


@needs_espeak
def test_voice_cache_is_private(tmp_path):
    from coach import tts

    settings = load_settings()
    tts.synthesize("A private line.", settings=settings)
    assert mode(settings.data_dir) == mode(settings.tts_cache_dir) == 0o700
    assert [mode(p) for p in settings.tts_cache_dir.iterdir()] == [0o600]


# --- audio -----------------------------------------------------------------------------------


def no_model():
    """Settings whose model cannot load: an AudioError proves the model was never reached."""
    import dataclasses

    return dataclasses.replace(load_settings(), stt_engine="no-such-engine")


def test_folder_is_not_reported_as_missing(tmp_path, capsys):
    with pytest.raises(AudioError) as caught:
        stt.transcribe(tmp_path, no_model())
    assert str(caught.value) == audio.FOLDER.format(path=tmp_path)
    code, _, err = run_main(capsys, "transcribe", str(tmp_path))
    assert code == 2 and one_line(err) == f"coach: {audio.FOLDER.format(path=tmp_path)}"


def test_missing_recording_is_one_line(tmp_path, capsys):
    code, _, err = run_main(capsys, "transcribe", str(tmp_path / "nope.wav"))
    assert code == 2 and one_line(err) == f"coach: {audio.MISSING_FILE.format(path=tmp_path / 'nope.wav')}"


# The peak is read from VmHWM, the high-water mark of this process's own memory map: a
# forked child's ru_maxrss starts at its parent's size (Linux keeps it across exec), so it
# measured the test runner, not the decoder.
HUGE_FILE_PROBE = """
import sys
from coach import audio
from coach.errors import AudioError
try:
    audio.decode(sys.argv[1], 300)
except AudioError as exc:
    print(exc)
status = open("/proc/self/status").read()
print(int(next(line.split()[1] for line in status.splitlines() if line.startswith("VmHWM:"))) // 1024)
"""


@pytest.mark.parametrize("header", [True, False], ids=["wav-header", "no-header"])
def test_a_1_gb_file_is_refused_without_reading_it_whole(header, tmp_path):
    path = tmp_path / "huge.wav"
    size = 1 << 30
    with path.open("wb") as out:
        if header:
            out.write(wav_bytes(np.zeros(0, dtype=np.int16), 16_000)[:40] + (size - 44).to_bytes(4, "little"))
            out.seek(4)
            out.write((size - 8).to_bytes(4, "little"))
        out.truncate(size)  # sparse: no disk used
    result = subprocess.run([sys.executable, "-c", HUGE_FILE_PROBE, str(path)], capture_output=True, text=True,
                            env={**os.environ, "PYTHONPATH": str(REPO)}, timeout=300)
    assert result.returncode == 0, result.stderr
    message, peak_mib = result.stdout.strip().splitlines()
    assert message == (audio._too_long(33_554.4, 300).args[0] if header else audio.NOT_AUDIO)
    assert int(peak_mib) < 500, f"peak memory {peak_mib} MiB"


@pytest.mark.slow
@pytest.mark.usefixtures("speech_model")
def test_8_khz_english_is_transcribed():
    transcript = stt.transcribe(mono_wav(fixture("answer.flac"), 8000))
    assert "efficiency" in transcript.text and "91" in transcript.text


@pytest.mark.slow
@pytest.mark.usefixtures("speech_model")
@pytest.mark.parametrize("name", ["german.ogg", "korean.ogg"])
def test_8_khz_other_languages_are_still_refused(name):
    with pytest.raises(AudioError) as caught:
        stt.transcribe(mono_wav(fixture(name), 8000))
    assert str(caught.value) == stt.NOT_ENGLISH


# --- the LLM edge ----------------------------------------------------------------------------


@pytest.mark.slow
def test_llm_retries_work_without_a_missing_library(monkeypatch, caplog):
    """COACH_LLM_RETRIES > 0 makes litellm retry with tenacity, a dependency now."""
    from coach.llm import complete_text

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # closed when the block ends: nobody answers
    monkeypatch.setenv("COACH_LLM_MODEL", "openai/absent")
    monkeypatch.setenv("COACH_LLM_API_BASE", f"http://127.0.0.1:{port}/v1")
    monkeypatch.setenv("COACH_LLM_RETRIES", "1")
    monkeypatch.setenv("COACH_LLM_TIMEOUT", "5")
    with pytest.raises(LLMUnavailableError) as caught:
        complete_text(load_settings(), [{"role": "user", "content": "hi"}], prompt_version="test")
    assert str(caught.value) == f"the language model 'openai/absent' cannot be reached at http://127.0.0.1:{port}/v1"
    assert "tenacity" not in caplog.text


@pytest.mark.slow
@pytest.mark.parametrize("page", ["coach/ui/pages/practice.py", "coach/ui/pages/interview.py",
                                  "coach/ui/pages/history.py", "coach/ui/pages/library.py",
                                  "coach/ui/pages/read_aloud.py"])
def test_app_with_a_damaged_database_says_so_on_every_page(page, tmp_path, monkeypatch):
    data = tmp_path / "appdata"
    data.mkdir()
    before = garbage_db(data / "rehearse.db")
    monkeypatch.setenv("COACH_DATA_DIR", str(data))
    at = run_page(page)
    path = str(data / "rehearse.db").replace("_", "\\_")
    assert len(at.error) == 1 and at.error[0].value.startswith(f"the database file {path} is damaged")
    assert (data / "rehearse.db").read_bytes() == before


# --- storage that fails under the app ------------------------------------------------------------


def test_app_with_its_database_deleted_says_so_on_every_later_visit(tmp_path, monkeypatch):
    data = tmp_path / "appdata"
    monkeypatch.setenv("COACH_DATA_DIR", str(data))
    at = run_page("coach/ui/pages/practice.py")  # opens (and makes) the database
    (data / "rehearse.db").unlink()
    for page in ("coach/ui/pages/practice.py", "coach/ui/pages/library.py", "coach/ui/pages/interview.py",
                 "coach/ui/pages/history.py", "coach/ui/pages/practice.py"):
        at.switch_page(page)
        at.run()
        assert not at.exception, (page, at.exception)
        assert any("was deleted or replaced while Rehearse was running" in e.value for e in at.error), page


class FakePostgres:
    """127.0.0.1: a server that accepts and never answers (`silent`), or one that refuses the
    password the way PostgreSQL does (an ErrorResponse, SQLSTATE 28P01)."""

    def __init__(self, silent: bool):
        self.silent = silent
        self.socket = socket.socket()
        self.socket.bind(("127.0.0.1", 0))
        self.socket.listen(16)
        self.port = self.socket.getsockname()[1]
        self.held: list = []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while True:
            try:
                connection, _ = self.socket.accept()
            except OSError:
                return
            self.held.append(connection)
            if not self.silent:
                threading.Thread(target=self._refuse, args=(connection,), daemon=True).start()

    @staticmethod
    def _refuse(connection):
        try:
            while True:
                head = connection.recv(4)
                if len(head) < 4:
                    return
                body = connection.recv(int.from_bytes(head, "big") - 4)
                if body[:4] in ((80877103).to_bytes(4, "big"), (80877104).to_bytes(4, "big")):
                    connection.sendall(b"N")  # no SSL, no GSS encryption
                    continue
                fields = b"".join(k + v.encode() + b"\0" for k, v in (
                    (b"S", "FATAL"), (b"V", "FATAL"), (b"C", "28P01"),
                    (b"M", 'password authentication failed for user "rehearse"')))
                payload = fields + b"\0"
                connection.sendall(b"E" + (len(payload) + 4).to_bytes(4, "big") + payload)
                return
        except OSError:
            return

    @property
    def url(self) -> str:
        return f"postgresql://rehearse:wrong@127.0.0.1:{self.port}/rehearse"

    def close(self):
        self.socket.close()
        for connection in self.held:
            connection.close()


@pytest.mark.parametrize("silent, message", [
    (True, "the database server did not answer within 2 s; check COACH_DATABASE_URL"),
    (False, "the database refused the user name or password in COACH_DATABASE_URL"),
], ids=["never-answers", "wrong-password"])
def test_a_database_server_that_fails_is_one_line_everywhere(silent, message, monkeypatch, capsys, tmp_path):
    import coach.store

    monkeypatch.setattr(coach.store, "CONNECT_TIMEOUT_S", 2)
    server = FakePostgres(silent)
    try:
        monkeypatch.setenv("COACH_DATABASE_URL", server.url)
        monkeypatch.setenv("COACH_DATA_DIR", str(tmp_path))
        started = time.monotonic()
        code, out, err = run_main(capsys, "history")
        assert code == 2 and one_line(err).startswith(f"coach: {message}")
        assert time.monotonic() - started < 15
        for page in ("coach/ui/pages/library.py", "coach/ui/pages/practice.py", "coach/ui/pages/history.py"):
            at = run_page(page)
            assert [e.value for e in at.error] and all(message.replace("_", "\\_") in e.value or message in e.value
                                                       for e in at.error[-1:]), (page, [e.value for e in at.error])
        assert time.monotonic() - started < 90
    finally:
        server.close()


# --- files given as recordings ------------------------------------------------------------------


def _sparse(path: Path, size: int, head: bytes = b"") -> Path:
    with open(path, "wb") as handle:
        handle.write(head)
        handle.truncate(size)
    return path


def _one_wav_second_header() -> bytes:
    return wav_bytes(np.zeros(16_000, dtype=np.float32), 16_000)[:44]


@pytest.mark.parametrize("command", [["transcribe"], ["pronounce"], ["practice", "--card", CARD, "--audio"]])
def test_a_link_to_a_device_is_named_as_a_device(command, tmp_path, monkeypatch, capsys):
    link = tmp_path / "answer.wav"
    link.symlink_to("/dev/urandom")
    monkeypatch.setenv("COACH_DATA_DIR", str(tmp_path / "data"))
    code, out, err = run_main(capsys, *command, str(link))
    assert code == 2
    line = one_line(err)
    assert f"{link} is a character device, not a recording" in line and "does not exist" not in line
    assert not (tmp_path / "data" / "audio").exists()


@pytest.mark.parametrize("head, message", [
    (b"", "This file is not a recording that can be read"),
    (None, "more than any recording of at most 5 min can be"),  # a WAV header, then 10 GB of zeros
], ids=["zeros", "wav-header"])
def test_a_huge_sparse_file_is_refused_from_its_header_and_size(head, message, tmp_path, monkeypatch, capsys):
    """10 GB that cost no disk: refused at once, nothing copied, no session started."""
    import resource

    path = _sparse(tmp_path / "huge.wav", 10 << 30, _one_wav_second_header() if head is None else head)
    data = tmp_path / "data"
    monkeypatch.setenv("COACH_DATA_DIR", str(data))
    started, peak = time.monotonic(), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    code, out, err = run_main(capsys, "practice", "--card", CARD, "--audio", str(path))
    assert code == 2 and message in one_line(err)
    assert time.monotonic() - started < 10
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - peak < 200_000  # KB: never read whole
    assert not (data / "audio").exists()
    assert json.loads(run_main(capsys, "history", "--format", "json")[1]) == []  # no session started


def test_the_engine_copies_a_recording_in_pieces_after_checking_it(tmp_path):
    from coach.library import default_library
    from coach.session import PracticeEngine

    settings = dataclasses.replace(load_settings(), data_dir=tmp_path / "data",
                                   database_url=f"sqlite:///{tmp_path / 'data' / 'rehearse.db'}")
    engine = PracticeEngine(default_library(), Store(settings.database_url), settings)
    view = engine.start(CARD)
    huge = _sparse(tmp_path / "huge.wav", 10 << 30, _one_wav_second_header())
    with pytest.raises(AudioError, match="more than any recording"):
        engine.answer_with_audio(view.id, huge)
    assert not (tmp_path / "data" / "audio").exists()
    assert engine.load(view.id).pending.audio_path is None


@pytest.mark.parametrize("text, message", [
    ("저는 데이터 파이프라인을 최적화했습니다", "The line to read has no English words to check (it is Korean)"),
    (" ".join(["We profiled the training step and found the input pipeline slow."] * 20),
     "The line to read is 220 words long; a reading is scored on at most 30 s of audio"),
], ids=["korean", "200-words"])
def test_pronounce_refuses_a_line_that_cannot_have_been_read(text, message, monkeypatch, capsys):
    from coach import stt

    monkeypatch.setattr(stt, "load_model", lambda *a, **k: pytest.fail("checked before the model loads"))
    code, out, err = run_main(capsys, "pronounce", str(fixture("answer.flac")), "--text", text)
    assert code == 2 and out == "" and one_line(err).startswith(f"coach: {message}")


def test_a_full_disk_as_a_session_starts_leaves_no_half_started_session(tmp_path):
    """The first question cannot be written (the disk filled up after the session row): neither is kept."""
    from sqlalchemy import event
    from sqlalchemy.exc import OperationalError

    from coach.library import default_library
    from coach.session import PracticeEngine
    from coach.store import Turn

    store = Store(f"sqlite:///{tmp_path / 'rehearse.db'}")
    engine = PracticeEngine(default_library(), store)

    def disk_full(*_args):
        raise OperationalError("INSERT INTO turn", {}, sqlite3.OperationalError("database or disk is full"))

    event.listen(Turn, "before_insert", disk_full)
    try:
        with pytest.raises(StorageError, match="disk is full"):
            engine.start(CARD)
    finally:
        event.remove(Turn, "before_insert", disk_full)
    assert store.list_sessions() == []
    view = engine.start(CARD)  # with room again, a session starts with its question
    assert [t.position for t in view.turns] == [0] and view.pending is not None


def test_pronounce_with_no_content_word_checked_claims_no_score(monkeypatch, capsys):
    from coach import pronunciation

    checked = pronunciation.Pronunciation(text="Yes, it is.", score=1.0, words=[])
    monkeypatch.setattr(pronunciation, "pronounce", lambda *a, **k: checked)
    code, out, _err = run_main(capsys, "pronounce", str(fixture("answer.flac")))
    assert code == 0 and "Came through: 100%" not in out and "No content words to check" in out
