"""Safe by default: without sign-in the app serves on loopback only; asked to serve on another
address it refuses with one line, unless anonymous use is allowed (COACH_ALLOW_ANONYMOUS=1)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from streamlit import config as streamlit_config
from streamlit.testing.v1 import AppTest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_bad_input import _listening_addresses  # noqa: E402

from coach.access import auth_configured, is_loopback, serving_refusal  # noqa: E402
from tests.conftest import COACH, REPO  # noqa: E402

pytestmark = pytest.mark.slow  # app servers and coach serve processes

AUTH = """[auth]
redirect_uri = "http://127.0.0.1:8501/oauth2callback"
cookie_secret = "a-long-random-string-only-the-server-knows"
client_id = "rehearse"
client_secret = "rehearse-secret"
server_metadata_url = "http://127.0.0.1:9400/.well-known/openid-configuration"
"""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.parametrize("address", ["127.0.0.1", "127.0.0.2", "localhost", "::1", "[::1]"])
def test_loopback_addresses(address):
    assert is_loopback(address) and serving_refusal(address, sign_in=False, allow_anonymous=False) is None


@pytest.mark.parametrize("address", ["0.0.0.0", "::", "", None, "10.1.2.3", "rehearse.example.com"])
def test_other_addresses_need_sign_in_or_an_explicit_allowance(address):
    refusal = serving_refusal(address, sign_in=False, allow_anonymous=False)
    assert refusal is not None and "\n" not in refusal
    assert "[auth]" in refusal and "COACH_ALLOW_ANONYMOUS=1" in refusal
    assert serving_refusal(address, sign_in=True, allow_anonymous=False) is None
    assert serving_refusal(address, sign_in=False, allow_anonymous=True) is None


def test_sign_in_is_configured_by_an_auth_section(tmp_path):
    secrets = tmp_path / "secrets.toml"
    assert not auth_configured([secrets])  # absent
    secrets.write_text('api_key = "x"\n')
    assert not auth_configured([secrets])
    broken = tmp_path / "broken.toml"
    broken.write_text("[auth\n")
    secrets.write_text(AUTH)
    assert auth_configured([broken, secrets])


def _serve(tmp_path, port: int, *flags: str, **env) -> subprocess.Popen:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("STREAMLIT_")}
    environment.update(COACH_DATA_DIR=str(tmp_path / "data"), **env)
    return subprocess.Popen([COACH, "serve", "--server.port", str(port), *flags], cwd=REPO, env=environment,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_serve_refuses_a_non_loopback_address_without_sign_in(tmp_path):
    port = free_port()
    server = _serve(tmp_path, port, "--server.address", "0.0.0.0")
    _out, err = server.communicate(timeout=60)
    assert server.returncode == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("coach: Rehearse will not serve on 0.0.0.0 without sign-in")
    assert "COACH_ALLOW_ANONYMOUS=1" in lines[0] and "--secrets.files" in lines[0]
    assert _listening_addresses(port) == []


def test_serve_on_another_address_with_anonymous_use_allowed(tmp_path):
    port = free_port()
    server = _serve(tmp_path, port, "--server.address=0.0.0.0", COACH_ALLOW_ANONYMOUS="1")
    try:
        listening: list[str] = []
        deadline = time.monotonic() + 90
        while not listening and time.monotonic() < deadline and server.poll() is None:
            time.sleep(0.5)
            listening = _listening_addresses(port)
        assert set(listening) == {"0.0.0.0"}, (listening, server.poll())
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=30) as reply:
            assert reply.status == 200
    finally:
        server.terminate()
        server.wait(30)


def test_serve_with_sign_in_configured_may_use_another_address(tmp_path):
    """The check reads the secrets file named with --secrets.files; bad options still reach Streamlit."""
    secrets = tmp_path / "secrets.toml"
    secrets.write_text(AUTH)
    server = _serve(tmp_path, free_port(), "--server.address", "0.0.0.0", "--secrets.files", str(secrets),
                    "--server.noSuchOption", "1")
    _out, err = server.communicate(timeout=60)
    assert "will not serve" not in err and "no such option" in err.lower()  # Streamlit's own refusal


@pytest.fixture
def streamlit_option():
    changed: dict[str, object] = {}

    def set_option(name: str, value) -> None:
        changed.setdefault(name, streamlit_config.get_option(name))
        streamlit_config.set_option(name, value)

    yield set_option
    for name, value in changed.items():
        streamlit_config.set_option(name, value)


def test_the_app_itself_refuses_when_started_on_another_address(streamlit_option, monkeypatch):
    """`streamlit run app.py --server.address 0.0.0.0` (not through `coach serve`): no page is served."""
    streamlit_option("server.address", "0.0.0.0")
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=60).run()
    assert not at.exception
    assert len(at.error) == 1 and "COACH\\_ALLOW\\_ANONYMOUS=1" in at.error[0].value
    assert not at.title  # no page ran
    monkeypatch.setenv("COACH_ALLOW_ANONYMOUS", "1")
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=60).run()
    assert not at.exception and not at.error and at.title[0].value


def test_with_sign_in_configured_a_visitor_sees_only_the_sign_in_page(streamlit_option, tmp_path):
    secrets = tmp_path / "secrets.toml"
    secrets.write_text(AUTH)
    streamlit_option("server.address", "0.0.0.0")
    streamlit_option("secrets.files", [str(secrets)])
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=60).run()
    assert not at.exception and not at.error
    assert [t.value for t in at.title] == ["Rehearse"]
    assert [b.label for b in at.button] == ["Sign in"]


# --- what decides, wherever it is given ---------------------------------------------------------


@pytest.fixture
def serve_in_process(monkeypatch):
    """`coach serve` called in-process; exec is replaced, and Streamlit's options are reparsed after."""
    from coach.cli import main

    execs: list = []
    monkeypatch.setattr(os, "execv", lambda *args: execs.append(args))
    for name in [k for k in os.environ if k.startswith("STREAMLIT_")]:
        monkeypatch.delenv(name)
    yield lambda *argv: (main(["serve", *argv]), execs)
    streamlit_config.get_config_options(force_reparse=True, options_from_flags={})


def test_serve_refuses_an_address_given_in_streamlits_environment(serve_in_process, monkeypatch, capsys):
    monkeypatch.setenv("STREAMLIT_SERVER_ADDRESS", "0.0.0.0")
    code, execs = serve_in_process()
    assert code == 2 and execs == []
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("coach: Rehearse will not serve on 0.0.0.0 without sign-in")
    monkeypatch.setenv("STREAMLIT_SERVER_ADDRESS", "127.0.0.1")  # loopback from the environment is fine
    code, execs = serve_in_process()
    assert code == 0 and len(execs) == 1


INCOMPLETE = '[auth]\nredirect_uri = "http://127.0.0.1:8501/oauth2callback"\n'


def test_an_incomplete_auth_section_is_not_sign_in(tmp_path):
    secrets = tmp_path / "secrets.toml"
    secrets.write_text(INCOMPLETE)
    assert not auth_configured([secrets])
    from coach.access import auth_problem

    problem = auth_problem([secrets])
    assert problem and "cookie_secret, client_id, client_secret, server_metadata_url" in problem
    provider = tmp_path / "provider.toml"  # the provider in its own [auth.default] section counts
    provider.write_text(AUTH.replace("client_id", "[auth.default]\nclient_id"))
    assert auth_configured([provider]) and auth_problem([provider]) is None


def test_serve_refuses_an_incomplete_auth_section_before_anything_listens(serve_in_process, tmp_path, capsys):
    secrets = tmp_path / "secrets.toml"
    secrets.write_text(INCOMPLETE)
    for address in ("0.0.0.0", "127.0.0.1"):
        code, execs = serve_in_process("--server.address", address, "--secrets.files", str(secrets))
        assert code == 2 and execs == []
        # (in-process, Streamlit warns on stderr that its options changed since the last parse)
        err = [line for line in capsys.readouterr().err.splitlines() if "config option section" not in line]
        assert len(err) == 1 and "lacks cookie_secret" in err[0] and "nobody could sign in" in err[0]


def test_the_app_with_an_incomplete_auth_section_says_so(streamlit_option, tmp_path):
    secrets = tmp_path / "secrets.toml"
    secrets.write_text(INCOMPLETE)
    streamlit_option("server.address", "0.0.0.0")
    streamlit_option("secrets.files", [str(secrets)])
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=60).run()
    assert not at.exception
    assert len(at.error) == 1 and "nobody could sign in" in at.error[0].value
    assert not at.button and not at.title  # no sign-in button that would fail, no page


def test_serve_runs_streamlit_with_the_first_visit_imports_started(serve_in_process, monkeypatch):
    """`coach serve` execs `python -m coach.ui.server run app.py …`, which imports what the first
    visit needs while the server starts (benchmarks/README.md, "The Start page"); every module it
    names exists (a wrong name would only print a traceback in its thread)."""
    import importlib

    from coach.ui import server

    monkeypatch.setenv("STREAMLIT_SERVER_ADDRESS", "127.0.0.1")
    code, execs = serve_in_process("--server.port", "8599")
    assert code == 0 and len(execs) == 1
    _executable, command = execs[0]
    assert command[1:4] == ["-m", "coach.ui.server", "run"] and command[4].endswith("app.py")
    assert command[5:] == ["--server.port", "8599"]
    for name in server.FIRST_VISIT_MODULES:
        importlib.import_module(name)


def test_the_first_visit_imports_print_nothing():
    """Imported outside a script run, a module that declares a component made Streamlit print
    "missing ScriptRunContext" at every `coach serve`; the import thread now prints nothing."""
    code = "from coach.ui import server; server.start_first_visit_imports().join()"
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "ScriptRunContext" not in done.stderr + done.stdout, done.stderr
