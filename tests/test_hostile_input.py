"""Hostile input and faults the first bad-input round missed (issue 18): bytes that are not
UTF-8, an in-memory database, content files that would hang or exhaust memory, answer files
that never end, a deleted database. Every case is the `coach` command, in this process
(tests/coach_cli.py) or, where the locale, bytes in argv or a pipe matter, as a real process: one
line on stderr, exit 2, nothing stored lost."""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from conftest_audio import fixture, mono_wav, speech_model, wav_bytes  # noqa: E402, F401

from tests.coach_cli import run  # noqa: E402
from tests.conftest import COACH, REPO  # noqa: E402

CARD = "status-update"
INTERVIEW = "gpu-cluster-optimization"
GOOD = "Yesterday I finished the schema. Next I will migrate the data. I am blocked on access, can you help?"


def coach(*args, input=None, env=None, timeout=120) -> subprocess.CompletedProcess:
    """The command in this process; `env` adds to the environment; `input` may be bytes."""
    return run(*args, input=input, env={**os.environ, **(env or {})})


def coach_process(*args, input=None, env=None, timeout=120) -> subprocess.CompletedProcess:
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


@pytest.mark.slow
@pytest.mark.parametrize("locale", ["C.UTF-8", "C"])
def test_practice_keeps_a_non_utf8_answer_and_every_line_after_it(locale, tmp_path):
    env = {"COACH_DATA_DIR": str(tmp_path), "LC_ALL": locale, "PYTHONIOENCODING": ""}
    answer = b"Yesterday I finished the caf\xe9 schema."
    result = coach_process("practice", "--card", INTERVIEW, input=answer + b"\n" + GOOD.encode() + b"\n", env=env)
    assert result.returncode == 2
    assert one_line(result.stderr) == (
        "coach: answer 1: not UTF-8 text (byte 0xe9); it was kept with the bad bytes replaced by U+FFFD")
    assert result.stdout.count("Scorecard:") == 2
    answers = [t["answer"] for t in history(env)[0]["turns"] if t["answer"]]
    assert answers == ["Yesterday I finished the caf\ufffd schema.", GOOD]


@pytest.mark.parametrize("command", ["score", "politeness"])
def test_text_argument_that_is_not_utf8_is_one_line(command):
    args = ("score", "--card", CARD) if command == "score" else ("politeness",)
    result = coach_process(*args, "--text", b"Could you check the caf\xe9 order?")
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


# --- 7. the LLM deadline -----------------------------------------------------------------------


class TricklingServer:
    """An "OpenAI-compatible" server that reads the request, sends a 200 header promising a body,
    then one byte every 0.2 s: every read gets data in time, so a per-read timeout never fires."""

    def __init__(self):
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.requests = 0
        self.stopped = threading.Event()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        self.sock.settimeout(0.2)
        while not self.stopped.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.requests += 1
            threading.Thread(target=self._trickle, args=(conn,), daemon=True).start()

    def _trickle(self, conn):
        with conn:
            try:
                conn.recv(65536)
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n")
                while not self.stopped.wait(0.2):
                    conn.sendall(b" ")
            except OSError:
                pass

    def close(self):
        self.stopped.set()
        self.sock.close()


@pytest.fixture
def trickling():
    server = TricklingServer()
    yield server
    server.close()


def slow_llm_env(server: TricklingServer, timeout: float, retries: int) -> dict:
    return {"COACH_LLM_MODEL": "openai/slow", "COACH_LLM_API_BASE": f"http://127.0.0.1:{server.port}/v1",
            "COACH_LLM_TIMEOUT": f"{timeout:g}", "COACH_LLM_RETRIES": str(retries)}


@pytest.mark.slow
def test_llm_call_ends_by_the_deadline_against_a_trickling_server(trickling, monkeypatch):
    from coach.config import load_settings
    from coach.errors import LLMUnavailableError
    from coach.llm import _litellm, complete_text

    for name, value in slow_llm_env(trickling, 2, 2).items():
        monkeypatch.setenv(name, value)
    _litellm()  # imported once per process (seconds), before the clock starts
    started = time.monotonic()
    with pytest.raises(LLMUnavailableError) as caught:
        complete_text(load_settings(), [{"role": "user", "content": "hi"}], prompt_version="test")
    elapsed = time.monotonic() - started
    assert str(caught.value) == "the language model 'openai/slow' did not answer within 2 s"
    assert trickling.requests >= 1 and elapsed < 3.0, elapsed  # retries included


@pytest.mark.slow
def test_llm_check_and_score_fall_back_by_the_deadline(trickling, tmp_path):
    env = {**slow_llm_env(trickling, 3, 1), "COACH_DATA_DIR": str(tmp_path)}
    check = coach("llm", "check", env=env, timeout=60)
    assert check.returncode == 1
    assert check.stdout.strip() == "failed: the language model 'openai/slow' did not answer within 3 s"
    scored = coach("score", "--card", CARD, "--text", GOOD, "--llm", env=env, timeout=60)
    assert scored.returncode == 0, scored.stderr
    assert json.loads(scored.stdout)["criteria"]["progress"]["met"] is True  # the deterministic scorecard


# --- 6. content files that would hang the reader or exhaust memory -------------------------

LAUGHS = ("---\nid: laughs\n"
          + "a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
          + "".join(f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]\n" for i in range(1, 9))
          + "---\n\n## Situation\n\nx\n")


@pytest.fixture
def content(tmp_path) -> Path:
    folder = tmp_path / "content"
    shutil.copytree(REPO / "content", folder)
    return folder


def hostile_files(content: Path) -> dict[str, str]:
    """Three hostile files in a pack; the problem `coach validate` must print for each."""
    meetings = content / "meetings"
    (meetings / "laughs.md").write_text(LAUGHS)
    os.mkfifo(meetings / "pipe.md")
    (meetings / "zero.md").symlink_to("/dev/zero")
    return {
        "laughs": f"{meetings}/laughs.md:4: the front matter's YAML aliases (*name) expand to more than 20,000 "
                  "values; write the values out",
        "pipe": f"{meetings}/pipe.md:1: a named pipe (FIFO), not a regular file; content must be plain .md files",
        "zero": f"{meetings}/zero.md:1: a character device, not a regular file; content must be plain .md files",
    }


def test_validate_reports_hostile_content_files_and_checks_the_rest(content):
    expected = hostile_files(content)
    started = time.monotonic()
    result = coach("validate", env={"COACH_CONTENT_DIR": str(content)}, timeout=60)
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    assert result.stdout.splitlines() == sorted(expected.values())
    assert time.monotonic() - started < 30


def test_cards_still_lists_every_other_card(content):
    good = json.loads(coach("cards", "--format", "json").stdout)
    hostile_files(content)
    result = coach("cards", "--format", "json", env={"COACH_CONTENT_DIR": str(content)}, timeout=60)
    assert result.returncode == 0, result.stderr
    assert [c["id"] for c in json.loads(result.stdout)] == [c["id"] for c in good]


def test_oversized_content_file_is_one_problem(content):
    from coach.content.text_input import MAX_CONTENT_BYTES
    from coach.library import load_library

    big = content / "meetings" / "big.md"
    big.write_text("---\nid: big\n---\n" + "x" * MAX_CONTENT_BYTES)
    library = load_library([content], [REPO / "personas"])
    assert [str(p) for p in library.problems] == [f"{big}:1: over the 1,048,576-byte limit of a content file"]
    assert CARD in library.cards


def test_harmless_aliases_still_load(tmp_path):
    from coach.content.markdown import _parse_markdown

    problems = []
    parsed = _parse_markdown(tmp_path / "x.md", "---\nid: x\ntags: &t [a, b]\nmore: *t\n---\nbody\n", problems)
    assert problems == [] and parsed.data == {"id": "x", "tags": ["a", "b"], "more": ["a", "b"]}


# --- 8. answer files that never end ---------------------------------------------------------------


@pytest.mark.parametrize("command", ["score", "politeness"])
def test_file_dev_zero_is_read_bounded_and_refused_in_one_line(command):
    args = ("score", "--card", CARD) if command == "score" else ("politeness",)
    result = coach(*args, "--file", "/dev/zero", timeout=60)
    assert result.returncode == 2 and result.stdout == ""
    assert one_line(result.stderr) == "coach: /dev/zero:1: not UTF-8 text (byte 0x00); save the file as UTF-8"


def test_huge_answer_file_is_scored_on_its_start(tmp_path):
    path = tmp_path / "huge.txt"
    with path.open("w") as out:
        for _ in range(200_000):  # 20 MB
            out.write(GOOD + "\n")
    result = coach("score", "--card", CARD, "--file", str(path), timeout=60)
    assert result.returncode == 0, result.stderr
    card = json.loads(result.stdout)
    assert card["criteria"]["progress"]["met"] and any("20,000" in n for n in card.get("notes", [])), card


def test_jsonl_from_dev_zero_ends_with_one_line(tmp_path):
    result = coach("score", "--card", CARD, "--jsonl", "/dev/zero", timeout=120)
    assert result.returncode == 2 and result.stdout == ""
    assert one_line(result.stderr) == (
        "/dev/zero:1: the line does not end within 67,108,864 bytes; the rest of the file is not read")


# --- 3. the database file deleted while running ----------------------------------------------

DELETED = ("the database file {path} was deleted or replaced while Rehearse was running, so nothing more can "
           "be saved: put the file back, or restart Rehearse to start a new, empty one")


@pytest.mark.parametrize("how", ["deleted", "replaced"])
def test_a_store_whose_file_is_gone_refuses_to_write(how, tmp_path):
    from coach.errors import StorageError
    from coach.store import Store

    path = tmp_path / "rehearse.db"
    store = Store(f"sqlite:///{path}")
    session = store.create_session(CARD, "anya-team-lead", "v1")
    path.unlink()
    if how == "replaced":
        Store(f"sqlite:///{path}")  # a new, empty database where the old one was
    with pytest.raises(StorageError) as caught:
        store.add_turn(session.id, 0, "main", "question", "Quick update?")
    assert str(caught.value) == DELETED.format(path=path)
    with pytest.raises(StorageError):
        store.list_sessions()


@pytest.mark.slow
def test_practice_stops_when_its_database_is_deleted(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(REPO), "COACH_DATA_DIR": str(tmp_path)}
    process = subprocess.Popen([COACH, "practice", "--card", INTERVIEW], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=REPO)
    try:
        head = [process.stdout.readline() for _ in range(3)]  # session, card, "Name: the question"
        persona = head[2].split(": ", 1)[0]
        process.stdin.write(GOOD + "\n")
        process.stdin.flush()
        line = ""
        while not line.startswith(f"{persona}: "):  # the scorecard, then the follow-up
            line = process.stdout.readline()
            assert line, process.stderr.read()
        (tmp_path / "rehearse.db").unlink()
        process.stdin.write(GOOD + "\n")
        process.stdin.close()
        process.wait(120)
        rest, err = process.stdout.read(), process.stderr.read()
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 2 and "Scorecard" not in rest
    assert one_line(err) == "coach: " + DELETED.format(path=tmp_path / "rehearse.db")


# --- 9. a turn interrupted between its steps ----------------------------------------------------


def interrupted_session(tmp_path, card: str, status: str = "scored") -> str:
    """A session as kill -9 leaves it while the follow-up is being worded: the answer is scored
    (or refused), the next prompt never asked."""
    from coach.library import default_library
    from coach.session import PracticeEngine
    from coach.store import Store

    store = Store(f"sqlite:///{tmp_path / 'rehearse.db'}")
    engine = PracticeEngine(default_library(), store)
    view = engine.start(card)
    if status == "scored":
        engine.submit(view.id, GOOD)
    else:
        with pytest.raises(Exception, match="limit"):
            engine.submit(view.id, "I finished the migration. " * 1000)
    store.delete_turn(engine.load(view.id).pending.id)
    assert engine.load(view.id).pending is None and engine.load(view.id).row.status == "active"
    store.engine.dispose()
    return view.id


@pytest.mark.slow
@pytest.mark.parametrize("card, status", [(INTERVIEW, "scored"), (CARD, "scored"), (INTERVIEW, "refused")])
def test_practice_resumes_a_turn_killed_while_the_follow_up_was_worded(card, status, tmp_path):
    env = {"COACH_DATA_DIR": str(tmp_path)}
    session = interrupted_session(tmp_path, card, status)
    result = coach("practice", "--session", session, input=f"{GOOD}\n", env=env)
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
    assert "This session is finished." not in result.stdout and result.stdout.count("Scorecard:") == 1
    record = history(env)[0]
    answers = [t["answer"] for t in record["turns"] if t["answer"] and t["status"] == "scored"]
    assert answers == ([GOOD, GOOD] if status == "scored" else [GOOD])  # the resumed session took the answer
    if record["status"] == "active":  # history and practice agree: a prompt is waiting
        assert record["turns"][-1]["status"] == "asked"


# --- 10. a card changed mid-session ------------------------------------------------------------


@pytest.fixture
def renamed_criterion(tmp_path):
    """A session answered once, then its card's `teamwork` criterion renamed `team_work`."""
    content = tmp_path / "content"
    shutil.copytree(REPO / "content", content)
    env = {"COACH_DATA_DIR": str(tmp_path / "data"), "COACH_CONTENT_DIR": str(content)}
    first = coach("practice", "--card", INTERVIEW, input="I profiled the step on the TPU pod and cut it by 30 percent.\n",
                  env=env)
    assert first.returncode == 0, first.stderr
    session = first.stdout.splitlines()[0].removeprefix("Session: ")
    card = content / "interviews" / f"{INTERVIEW}.md"
    text = card.read_text()
    card.write_text(text.replace("      - teamwork\n", "      - team_work\n").replace("  - id: teamwork\n",
                                                                                      "  - id: team_work\n"))
    assert coach("validate", env=env).returncode == 0
    return session, env


def test_old_sessions_stay_readable_when_a_criterion_is_renamed(renamed_criterion):
    session, env = renamed_criterion
    report = coach("report", session, env=env)
    assert report.returncode == 0 and "Traceback" not in report.stderr, report.stderr
    resumed = coach("practice", "--session", session, input="We compared two options and chose one.\n", env=env)
    assert resumed.returncode == 0 and resumed.stderr == "", resumed.stderr
    assert resumed.stdout.count("Scorecard:") == 1 and "of 6 criteria met" in resumed.stdout
    record = history(env)[0]
    assert record["result"]["of"] == 6 and "team_work" in record["result"]["criteria"]
    assert record["turns"][0]["scorecard"]["criteria"]["teamwork"]  # what was scored then is kept


def test_the_app_opens_a_session_whose_card_changed(renamed_criterion, monkeypatch):
    from streamlit.testing.v1 import AppTest

    session, env = renamed_criterion
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=60)
    at.session_state["audio_on"] = False
    at.query_params["session"] = session
    at.run()
    at.switch_page("coach/ui/pages/interview.py")
    at.query_params["session"] = session
    at.run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]


# --- 11. what `coach validate` let through ---------------------------------------------------------

QOS = "multi-qos-fairshare"
BREAKS = {  # what to change in the card, the line it is on, and the message
    "empty-match-synonym": (("              - 'fair[- ]share'\n", "              - 'x?'\n"), 35,
                            "criterion 'key_concepts': bad detector params: concepts.0.synonyms: Value error, "
                            "pattern 'x?' can match the empty string; make it match at least one character"),
    "blank-concept-name": (("          - name: fairshare\n", "          - name: ' - '\n"), 35,
                           "criterion 'key_concepts': bad detector params: concepts.0.name: ' - ' has no letter "
                           "or digit"),
    "min-covered-too-high": (("        min_covered: 3\n", "        min_covered: 99\n"), 35,
                             "criterion 'key_concepts': bad detector params: min_covered: 99 is more than the "),
    "unknown-persona": (("persona: friendly-hiring-manager\n", "persona: nobody\n"), 8,
                        "persona 'nobody' does not exist"),
}


@pytest.mark.slow
@pytest.mark.parametrize("case", list(BREAKS))
def test_a_card_validate_rejects_is_reported_and_never_served(case, content):
    (old, new), line, message = BREAKS[case]
    card = content / "interviews" / f"{QOS}.md"
    text = card.read_text()
    assert old in text
    card.write_text(text.replace(old, new, 1))
    env = {"COACH_CONTENT_DIR": str(content)}
    result = coach("validate", env=env)
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    assert len(result.stdout.splitlines()) == 1 and result.stdout.startswith(f"{card}:{line}: {message}"), result.stdout
    assert QOS not in [c["id"] for c in json.loads(coach("cards", "--format", "json", env=env).stdout)]
    scored = coach("score", "--card", QOS, "--text", GOOD, env=env)
    assert scored.returncode == 2
    assert one_line(scored.stderr).startswith(f"coach: card '{QOS}' did not load: {card}:{line}: {message}")


def test_a_card_with_800_criteria_gets_a_true_message(content, monkeypatch, capsys):
    """No aliases in it: the message is about the criteria, and `practice --card` says why it did not load."""
    from coach.cli import main

    card = content / "meetings" / f"{CARD}.md"
    text = card.read_text()
    head, rest = text.split("\ncriteria:\n", 1)
    criterion = ("  - id: c{n}\n    label: Criterion {n}\n    label_ko: 기준 {n}\n    definition: Says thing {n}.\n"
                 "    detector:\n      type: meeting_move\n      params:\n        move: context\n"
                 "    tip: Say thing {n}.\n    tip_ko: 말하세요 {n}.\n    weight: 1\n")
    many = "".join(criterion.format(n=n) for n in range(800))
    body = rest[rest.index("\n---"):]
    head = head.replace("criteria: [context, progress, next_steps, blocker_or_ask]", "criteria: [c0]")
    card.write_text(head + "\ncriteria:\n" + many + body)
    monkeypatch.setenv("COACH_CONTENT_DIR", str(content))
    assert main(["validate"]) == 1
    out = capsys.readouterr().out.strip().splitlines()
    assert len(out) == 1 and "alias" not in out[0], out
    assert out[0].startswith(f"{card}:") and "criteria: List should have at most 40 items" in out[0], out
    assert main(["practice", "--card", CARD]) == 2
    err = one_line(capsys.readouterr().err)
    assert err == f"coach: card '{CARD}' did not load: {out[0]}"


# --- 12. nothing the browser would fetch -------------------------------------------------------

LEAK = "![x](http://evil.example/leak.png)"
UNESCAPED_IMAGE = re.compile(r"(?<!\\)!\[")


def rendered_texts(at) -> list[str]:
    """Every Markdown body and label the page sent to the browser."""
    texts = [e.value for kind in ("markdown", "caption", "info", "success", "warning", "error")
             for e in getattr(at, kind)]
    return texts + [e.label for e in at.expander] + [e.label for e in at.button]


def open_page(page: str, env: dict, monkeypatch, **query):
    from streamlit.testing.v1 import AppTest

    for name, value in env.items():
        monkeypatch.setenv(name, value)
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=60)
    at.session_state["audio_on"] = False
    at.run()
    at.switch_page(page)
    for name, value in query.items():
        at.query_params[name] = value
    at.run()
    assert not at.exception, at.exception
    return at


@pytest.mark.slow
def test_an_image_in_a_worded_follow_up_is_never_rendered(tmp_path, monkeypatch):
    """The prompt as a prompt-injected model would have worded it (stored as asked)."""
    from coach.library import default_library
    from coach.session import PracticeEngine
    from coach.store import Store

    env = {"COACH_DATA_DIR": str(tmp_path)}
    monkeypatch.setenv("COACH_DATA_DIR", str(tmp_path))
    store = Store(f"sqlite:///{tmp_path / 'rehearse.db'}")
    engine = PracticeEngine(default_library(), store)
    view = engine.start(INTERVIEW)
    engine.submit(view.id, GOOD)
    pending = engine.load(view.id).pending
    store._update_turn(pending.id, prompt=f"{LEAK} What did you measure?")
    for page in ("coach/ui/pages/interview.py", "coach/ui/pages/history.py"):
        texts = rendered_texts(open_page(page, env, monkeypatch, session=view.id))
        assert any("leak.png" in t for t in texts), page  # it is shown, as text
        assert not [t for t in texts if UNESCAPED_IMAGE.search(t)], page


def test_an_image_in_a_card_is_never_rendered(content, monkeypatch):
    card = content / "meetings" / f"{CARD}.md"
    card.write_text(card.read_text().replace("## Situation\n", f"## Situation\n\n{LEAK}\n", 1))
    at = open_page("coach/ui/pages/library.py", {"COACH_CONTENT_DIR": str(content)}, monkeypatch)
    at.session_state[f"library-{CARD}"] = True  # the learner opens the card: its preview is made
    texts = rendered_texts(at.run())
    assert any("leak.png" in t for t in texts)
    assert not [t for t in texts if UNESCAPED_IMAGE.search(t)]


def all_rendered_texts(at) -> list[str]:
    """rendered_texts plus table cells and headers, tab labels, tooltips, metric labels and options."""
    texts = rendered_texts(at)
    for table in at.table:
        frame = table.value
        texts += [str(c) for c in frame.columns] + [str(v) for v in frame.to_numpy().ravel()]
    texts += [t.label for t in at.tabs]
    for kind in ("metric", "radio", "selectbox", "multiselect", "toggle", "text_input"):
        for element in getattr(at, kind):
            texts.append(element.label)
            texts += [str(o) for o in getattr(element, "options", [])]
            texts.append(getattr(element.proto, "help", ""))
    return texts


def test_tables_tabs_tooltips_and_options_render_no_image():
    """Every Streamlit element that renders Markdown goes through the one safe renderer."""
    from streamlit.testing.v1 import AppTest

    def page():
        import pandas as pd
        import streamlit as st

        import coach.ui  # noqa: F401  (installs the safe renderer)

        leak = "![x](http://evil.example/leak.png)"
        st.table([{"label": leak, "tip": f"say it {leak}"}])
        st.table(pd.DataFrame({leak: [leak]}))
        st.tabs([f"Model {leak}", "plain"])
        st.metric(f"Words {leak}", 3, help=leak)
        st.radio("Pick", ["a", "b"], format_func=lambda o: f"{o} {leak}", help=leak)
        st.selectbox(f"Choose {leak}", [leak])
        st.toggle("Author", help=leak)
        st.write(leak)

    at = AppTest.from_function(page, default_timeout=30).run()
    assert not at.exception, at.exception
    texts = all_rendered_texts(at)
    assert sum("leak.png" in t for t in texts) >= 10, texts  # shown, as text
    assert not [t for t in texts if UNESCAPED_IMAGE.search(t)], texts
    assert at.selectbox[0].value == "![x](http://evil.example/leak.png)"  # the option itself is unchanged


def test_an_image_in_a_criterion_is_never_rendered_in_the_author_view(content, monkeypatch):
    card = content / "meetings" / f"{CARD}.md"
    text = card.read_text()
    for old, new in (("label: Context\n", f"label: '{LEAK} Context'\n"),
                     ("definition: Says what has been done or where it stands now.",
                      f"definition: '{LEAK} Says what has been done or where it stands now.'"),
                     ("tip: 'Say what is done", f"tip: '{LEAK} Say what is done")):
        assert old in text
        text = text.replace(old, new, 1)
    card.write_text(text)
    monkeypatch.setenv("COACH_CONTENT_DIR", str(content))
    at = open_page("coach/ui/pages/library.py", {}, monkeypatch)
    at.toggle(key="author_view").set_value(True).run()
    assert not at.exception, at.exception
    assert not at.table  # a card's preview is made when the card is opened
    at.session_state[f"library-{CARD}"] = True  # the learner opens the card
    at.run()
    assert at.table, "the author view shows the rubric table"
    texts = all_rendered_texts(at)
    assert sum("leak.png" in t for t in texts) >= 3
    assert not [t for t in texts if UNESCAPED_IMAGE.search(t)]


def test_a_follow_up_with_markup_is_not_asked():
    from coach.llm_followup import question_problem

    for text in (f"{LEAK} What did you measure?", "See [this](http://evil.example) - what did you measure?",
                 "What did you measure at https://evil.example?"):
        assert question_problem(text, []) == "holds a link, image or markup", text
    assert question_problem("What did you measure?", []) is None


# --- smaller ones -------------------------------------------------------------------------------


def test_history_limit_out_of_range_is_one_line():
    result = coach("history", "--limit", "99999999999999999999")
    assert result.returncode == 2 and one_line(result.stderr) == "coach: --limit must be between 1 and 1,000,000"


@pytest.mark.parametrize("raw", ["1e400", "NaN", "Infinity", "2.5", "true", '{"a": 1}', "[1]", "9007199254740993"])
@pytest.mark.parametrize("command", ["score", "politeness"])
def test_jsonl_id_that_cannot_be_echoed_is_one_line(raw, command, tmp_path):
    batch = tmp_path / "batch.jsonl"
    batch.write_text(f'{{"id": {raw}, "text": "Could you send it?"}}\n' + json.dumps({"id": 7, "text": GOOD}) + "\n")
    args = ("score", "--card", CARD) if command == "score" else ("politeness",)
    result = coach(*args, "--jsonl", str(batch))
    assert result.returncode == 2
    assert one_line(result.stderr) == f'{batch}:1: "id" must be a string, a whole number or null'
    assert [json.loads(x)["id"] for x in result.stdout.splitlines()] == [7]


@pytest.mark.parametrize("command", ["score", "politeness"])
def test_empty_jsonl_is_one_line_exit_2_for_both(command, tmp_path):
    batch = tmp_path / "empty.jsonl"
    batch.write_text("\n\n")
    args = ("score", "--card", CARD) if command == "score" else ("politeness",)
    result = coach(*args, "--jsonl", str(batch))
    what = "answers" if command == "score" else "requests"
    assert result.returncode == 2 and one_line(result.stderr) == f"coach: {batch} holds no {what}"


def unknown_codec_wav(path: Path) -> Path:
    """A WAV whose format tag (99) no decoder knows."""
    import struct

    import numpy as np

    data = bytearray(wav_bytes((np.sin(np.arange(16_000) / 5) * 8000).astype(np.int16), 16_000))
    data[20:22] = struct.pack("<H", 99)
    path.write_bytes(bytes(data))
    return path


def test_wav_with_an_unknown_format_tag_is_one_line(tmp_path):
    from coach import audio

    path = unknown_codec_wav(tmp_path / "tag99.wav")
    result = coach("transcribe", str(path), "--format", "json")
    assert result.returncode == 2 and one_line(result.stderr) == f"coach: {audio.UNKNOWN_CODEC}"
    practice = coach("practice", "--card", CARD, "--audio", str(path), env={"COACH_DATA_DIR": str(tmp_path / "d")})
    assert practice.returncode == 2 and one_line(practice.stderr) == f"coach: {path}: {audio.UNKNOWN_CODEC}"


def test_practice_audio_given_a_folder_says_it_is_a_folder(tmp_path):
    from coach import audio

    result = coach("practice", "--card", CARD, "--audio", str(tmp_path), env={"COACH_DATA_DIR": str(tmp_path / "d")})
    assert result.returncode == 2
    assert one_line(result.stderr) == f"coach: {tmp_path}: {audio.FOLDER.format(path=tmp_path)}"


@pytest.mark.slow
def test_a_linked_pack_folder_is_loaded_and_a_link_loop_ends(content, tmp_path):
    from coach.library import load_library

    elsewhere = tmp_path / "my-pack"
    shutil.move(str(content / "meetings"), elsewhere)
    (content / "meetings").symlink_to(elsewhere)
    (elsewhere / "loop").symlink_to(elsewhere)
    library = load_library([content], [REPO / "personas"])
    assert library.problems == [] and CARD in library.cards


def test_sqlite_url_with_an_argument_the_driver_ignores_is_one_line(tmp_path):
    url = f"sqlite:///{tmp_path}/x.db?foo=bar"
    result = coach("history", env={"COACH_DATABASE_URL": url})
    assert result.returncode == 2 and one_line(result.stderr) == (
        f"coach: COACH_DATABASE_URL={url!r} is not valid: 'foo' is not an argument the SQLite driver takes "
        "(SQLite URI arguments such as mode=ro need uri=true as well) (fix or unset the variable)")
    assert coach("history", env={"COACH_DATABASE_URL": f"sqlite:///{tmp_path}/x.db?timeout=5"}).stderr == ""


def test_an_interview_card_named_on_the_meeting_page_says_where_it_belongs(monkeypatch):
    at = open_page("coach/ui/pages/practice.py", {}, monkeypatch, card=INTERVIEW)
    assert [w.value for w in at.warning] == [
        f"Card `{INTERVIEW}` is a mock interview (the Mock interview page); open it there, or pick one below."]


@pytest.fixture
def read_only_mount(tmp_path):
    """A small tmpfs at tmp_path/ro, remounted read-only by the test (root only)."""
    folder = tmp_path / "ro"
    folder.mkdir()
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a file system needs root")
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m", "none", str(folder)], capture_output=True).returncode:
        pytest.skip("cannot mount a tmpfs here")
    yield folder
    subprocess.run(["umount", "-l", str(folder)], capture_output=True)


def test_an_intact_database_on_a_read_only_mount_is_readable(read_only_mount):
    import sqlite3

    env = {"COACH_DATA_DIR": str(read_only_mount)}
    assert coach("practice", "--card", CARD, input=f"{GOOD}\n", env=env).returncode == 0
    database = read_only_mount / "rehearse.db"
    connection = sqlite3.connect(database)  # closed cleanly: no -wal or -shm file is left beside it
    connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    connection.close()
    assert sorted(p.name for p in read_only_mount.iterdir()) == ["rehearse.db"]
    assert subprocess.run(["mount", "-o", "remount,ro", str(read_only_mount)]).returncode == 0
    assert [t["answer"] for t in history(env)[0]["turns"]][0] == GOOD
    result = coach("practice", "--card", CARD, input=f"{GOOD}\n", env=env)
    assert result.returncode == 2 and one_line(result.stderr) == (
        f"coach: the database {database} is on a read-only file system: past sessions can be read, but nothing "
        "can be saved; give COACH_DATA_DIR a writable folder to practise")


@pytest.mark.usefixtures("speech_model")
@pytest.mark.parametrize("kind", ["wav", "mp3"])
def test_a_recording_cut_off_early_is_called_cut_off(kind):
    """Cut to 30 % (a WAV keeps its header's length, an MP3 its Info frame count): refused
    as cut off, not transcribed into invented words or called "not English"."""
    from coach import audio, stt
    from coach.errors import AudioError

    data = mono_wav(fixture("answer.flac"), 16_000) if kind == "wav" else fixture("answer.mp3").read_bytes()
    cut = data[: int(len(data) * 0.3) // 2 * 2]
    with pytest.raises(AudioError) as caught:
        stt.transcribe(cut)
    decoded = audio.decode(cut)
    assert decoded.cut_off and str(caught.value) == decoded.cut_off_text(audio.CUT_OFF)
    assert str(caught.value).startswith("The recording is cut off: it stops at ")
    assert str(caught.value).split(" of the ")[1].startswith("4.5 s")


@pytest.mark.slow
@pytest.mark.usefixtures("speech_model")
def test_a_recording_cut_off_late_is_transcribed_with_a_warning(tmp_path):
    from coach import audio

    path = tmp_path / "cut.mp3"
    data = fixture("answer.mp3").read_bytes()
    path.write_bytes(data[: int(len(data) * 0.7)])
    result = coach("transcribe", str(path), "--format", "json")
    assert result.returncode == 0 and json.loads(result.stdout)["text"]
    warning = audio.decode(path).cut_off_text(audio.CUT_OFF_NOTE)
    assert one_line(result.stderr) == f"coach: warning: {warning}"
