"""Sign-in in a real browser (Debian chromium) against a local mock OIDC provider
(`oidc-provider-mock`, started here): two learners in two browser contexts each see only their
own History, neither can open the other's session by its link, delete-my-data removes only
that learner's rows and files, and signing out returns to the sign-in page. On PostgreSQL the
two learners use two app processes (two replicas) on one database.

With REHEARSE_SCREENS=<folder>, it also saves screenshots of the sign-in and History pages."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

from coach.access import signed_in
from coach.store import Store
from tests.conftest import COACH, REPO
from tests.e2e.conftest import CHROMIUM, launch_local, local_only
from tests.e2e.conftest import free_port as _free_port
from tests.e2e.test_practice_layout import _settled, _shot

pytestmark = pytest.mark.e2e

PROVIDER = str(REPO / ".venv" / "bin" / "oidc-provider-mock")
PEOPLE = {"ann": "ann@example.com", "bo": "bo@example.com"}


def _wait_for(url: str, process: subprocess.Popen, what: str, seconds: float = 90) -> None:
    deadline = time.time() + seconds
    while time.time() < deadline and process.poll() is None:
        try:
            urllib.request.urlopen(url, timeout=2)
            return
        except OSError:
            time.sleep(0.5)
    process.kill()
    pytest.fail(f"{what} did not start: " + (process.stdout.read() if process.stdout else ""))


@pytest.fixture
def provider():
    """The identity provider: any client id and secret; its authorize page asks for a subject."""
    port = _free_port()
    claims = [arg for sub, email in PEOPLE.items()
              for arg in ("--user-claims", json.dumps({"sub": sub, "email": email, "name": sub.title()}))]
    process = subprocess.Popen([PROVIDER, "--port", str(port), *claims], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
    issuer = f"http://127.0.0.1:{port}"
    _wait_for(f"{issuer}/.well-known/openid-configuration", process, "oidc-provider-mock")
    yield issuer
    process.terminate()
    process.wait(20)


def _start_app(tmp_path: Path, issuer: str, database_url: str, data_dir: Path) -> tuple[str, subprocess.Popen]:
    port = _free_port()
    secrets = tmp_path / f"secrets-{port}.toml"
    secrets.write_text(
        "[auth]\n"
        f'redirect_uri = "http://127.0.0.1:{port}/oauth2callback"\n'
        'cookie_secret = "the-same-long-random-secret-on-every-replica"\n'
        'client_id = "rehearse"\nclient_secret = "rehearse-secret"\n'
        f'server_metadata_url = "{issuer}/.well-known/openid-configuration"\n')
    env = {k: v for k, v in os.environ.items() if not k.startswith(("STREAMLIT_", "COACH_"))}
    env.update(COACH_DATA_DIR=str(data_dir), COACH_DATABASE_URL=database_url)
    process = subprocess.Popen(
        [COACH, "serve", "--server.port", str(port), "--secrets.files", str(secrets),
         "--server.headless", "true", "--browser.gatherUsageStats", "false"],
        cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    url = f"http://127.0.0.1:{port}"
    _wait_for(f"{url}/_stcore/health", process, "the app")
    return url, process


def _sign_in(page, app: str, sub: str) -> None:
    from playwright.sync_api import expect

    page.goto(app)
    expect(page.get_by_role("button", name="Sign in")).to_be_visible()
    _settled(page)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url("**/oauth2/authorize**")
    page.locator("input[name=sub]").fill(sub)
    page.get_by_role("button", name="Authorize").click()
    page.wait_for_url(f"{app}/**")
    expect(page.get_by_text(f"Signed in as {PEOPLE[sub]}")).to_be_visible()
    _settled(page)


def _start_session(page) -> str:
    from playwright.sync_api import expect

    page.get_by_role("button", name="Start the mock interview").click()
    expect(page.get_by_text("Dr. Seo-yeon Han:").first).to_be_visible()
    _settled(page)
    page.wait_for_url("**session=*")
    return page.url.split("session=", 1)[1].split("&", 1)[0]


def _phone_shot(page, name: str) -> None:
    if os.environ.get("REHEARSE_SCREENS"):
        page.set_viewport_size({"width": 390, "height": 844})
        _shot(page, name)
        page.set_viewport_size({"width": 1400, "height": 1000})


def _history_sessions(page, app: str) -> int:
    from playwright.sync_api import expect

    page.goto(f"{app}/history")
    expect(page.get_by_role("heading", name="History")).to_be_visible()
    expect(page.get_by_text("Your data")).to_be_visible()
    _settled(page)
    return page.get_by_role("button", name="Resume").count()


def test_two_learners_each_see_only_their_own(tmp_path, provider, database_url):
    from playwright.sync_api import expect, sync_playwright

    assert Path(CHROMIUM).exists(), "Debian chromium is missing; scripts/rehearse.sh test installs it"
    assert shutil.which(PROVIDER), "oidc-provider-mock is missing: pip install -e . --group dev"
    data_dir = tmp_path / "data"
    replicas = 2 if database_url.startswith("postgres") else 1  # two app processes on one PostgreSQL
    apps = [_start_app(tmp_path, provider, database_url, data_dir) for _ in range(replicas)]
    ann_app, bo_app = apps[0][0], apps[-1][0]
    store = Store(database_url)
    ann, bo = signed_in(provider, "ann"), signed_in(provider, "bo")
    try:
        with sync_playwright() as playwright:
            browser = launch_local(playwright, args=["--no-sandbox", "--disable-gpu"])
            contexts = [browser.new_context(viewport={"width": 1400, "height": 1000}) for _ in range(2)]
            for context in contexts:
                local_only(context)  # nothing beyond 127.0.0.1 (the provider's page asks a CDN for CSS)
            ann_page, bo_page = (context.new_page() for context in contexts)
            for page in (ann_page, bo_page):
                page.set_default_timeout(90_000)

            ann_page.goto(ann_app)
            expect(ann_page.get_by_role("button", name="Sign in")).to_be_visible()
            _settled(ann_page)
            _shot(ann_page, "sign-in-desktop")
            _phone_shot(ann_page, "sign-in-phone")
            _sign_in(ann_page, ann_app, "ann")
            ann_session = _start_session(ann_page)
            _sign_in(bo_page, bo_app, "bo")
            bo_session = _start_session(bo_page)

            # the identity is issuer + subject, and every session is its learner's
            assert [s.id for s in store.scoped(ann).list_sessions()] == [ann_session]
            assert [s.id for s in store.scoped(bo).list_sessions()] == [bo_session]
            assert _history_sessions(ann_page, ann_app) == 1
            assert _history_sessions(bo_page, bo_app) == 1
            assert ann_session[:8] not in bo_page.content() and bo_session[:8] not in ann_page.content()
            _shot(ann_page, "history-desktop")
            _phone_shot(bo_page, "history-phone")

            # Ann's session by its link, in Bo's browser: as if it did not exist
            bo_page.goto(f"{bo_app}/interview?session={ann_session}")
            expect(bo_page.get_by_text(f"Cannot open session {ann_session}: it does not exist")).to_be_visible()
            _settled(bo_page)
            assert len(store.scoped(ann).get_session(ann_session)[1]) == 1  # nothing of Ann's changed

            # recordings on disk: each learner's folder
            keep = {who: data_dir / "learners" / who.key / "audio" / "s" / "kept.wav" for who in (ann, bo)}
            for path in keep.values():
                path.parent.mkdir(parents=True)
                path.write_bytes(b"RIFF")

            # delete my data: Ann's rows and files only, on the other replica (if there is one): each
            # origin signs in on its own (Streamlit's identity cookie is for its redirect_uri's origin),
            # and the same identity finds the same sessions there
            if replicas > 1:
                _sign_in(ann_page, bo_app, "ann")
            assert _history_sessions(ann_page, bo_app) == 1
            ann_page.get_by_text("Delete all my data").first.click()
            delete = ann_page.get_by_role("button", name="Delete all my data")
            expect(delete).to_be_disabled()  # until the learner confirms
            ann_page.get_by_text("Yes, delete all my data").click()
            _settled(ann_page)
            _shot(ann_page, "delete-confirm-desktop")
            _phone_shot(ann_page, "delete-confirm-phone")
            delete.click()
            expect(ann_page.get_by_text("All your data was deleted (1 session(s)")).to_be_visible()
            assert store.scoped(ann).list_sessions() == [] and not keep[ann].exists()
            assert [s.id for s in store.scoped(bo).list_sessions()] == [bo_session] and keep[bo].exists()
            assert _history_sessions(bo_page, bo_app) == 1

            # sign out: back to the sign-in page, and History is no longer reachable
            bo_page.get_by_role("button", name="Sign out").click()
            bo_page.wait_for_url("**/oauth2/end_session**")  # Streamlit ends the provider's session too
            bo_page.get_by_role("button", name="End session").click()
            bo_page.wait_for_url(f"{bo_app}/**")
            expect(bo_page.get_by_role("button", name="Sign in")).to_be_visible()
            bo_page.goto(f"{bo_app}/history")
            expect(bo_page.get_by_role("button", name="Sign in")).to_be_visible()
            _settled(bo_page)
            assert bo_page.get_by_role("heading", name="History").count() == 0
            browser.close()
    finally:
        for _url, process in apps:
            process.terminate()
            process.wait(30)
