"""The voice turn in a real browser with the one-piece recorder (the fallback under the live
one, tests/e2e/test_live_voice.py): Debian's chromium with a fake microphone fed from a WAV
that espeak-ng speaks, against the real app server (Whisper, scoring, follow-up)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
import urllib.request
import wave
from pathlib import Path

import pytest

from tests.conftest import REPO

pytestmark = pytest.mark.e2e

CHROMIUM = "/usr/bin/chromium"
ANSWER = ("I profiled the training job and rewrote the jit boundaries myself. "
          "Utilization went from forty percent to eighty three percent.")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def spoken_answer(tmp_path_factory) -> Path:
    if not shutil.which("espeak-ng"):
        pytest.fail("espeak-ng is missing; scripts/rehearse.sh test installs it")
    path = tmp_path_factory.mktemp("audio") / "answer.wav"
    subprocess.run(["espeak-ng", "-v", "en-us", "-s", "150", "-w", str(path), ANSWER], check=True)
    with wave.open(str(path)) as wav:
        assert wav.getnframes() / wav.getframerate() > 3
    return path


@pytest.fixture(scope="module")
def app_url(tmp_path_factory):
    port = _free_port()
    env = {**os.environ, "COACH_DATA_DIR": str(tmp_path_factory.mktemp("data"))}
    env.pop("COACH_LLM_MODEL", None)
    server = subprocess.Popen(
        [str(REPO / ".venv/bin/streamlit"), "run", "app.py", "--server.address", "127.0.0.1",
         "--server.port", str(port), "--server.headless", "true", "--browser.gatherUsageStats", "false"],
        cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            urllib.request.urlopen(f"{url}/_stcore/health", timeout=2)
            break
        except OSError:
            time.sleep(0.5)
    else:
        server.kill()
        pytest.fail("the app server did not start: " + (server.stdout.read() if server.stdout else ""))
    yield url
    server.terminate()
    server.wait(20)


def test_one_piece_recording_is_transcribed_scored_and_followed_up(app_url, spoken_answer):
    from playwright.sync_api import expect, sync_playwright

    assert Path(CHROMIUM).exists(), "Debian chromium is missing; scripts/rehearse.sh test installs it"
    flags = [
        "--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream",
        f"--use-file-for-fake-audio-capture={spoken_answer}%noloop",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--no-first-run", "--disable-quic", "--no-sandbox", "--disable-gpu",
    ]
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=flags)
        context = browser.new_context(permissions=["microphone"])
        page = context.new_page()
        page.set_default_timeout(120_000)
        page.goto(f"{app_url}/interview?card=gpu-cluster-optimization")
        page.get_by_role("button", name="Start").click()
        expect(page.get_by_text("Dr. Seo-yeon Han:").first).to_be_visible()

        page.get_by_text("No live microphone? Record in one piece").click()
        page.locator('[data-testid="stAudioInputActionButton"][aria-label="Record"]').click()
        page.wait_for_timeout(12_000)  # the spoken answer is about ten seconds long
        page.locator('[data-testid="stAudioInputActionButton"]').first.click()
        # no other click: the recording is transcribed, scored and followed up at once
        follow_ups = ["How did you work with your team", "What was your part", "What other options",
                      "Why did you choose this approach", "If you did this project again", "What did you learn"]
        # Streamlit streams a rerun: wait until its last elements (the next prompt's answer box
        # and its buttons under the follow-up; the transcript correction sits under the answer)
        # are on the page before reading it
        page.wait_for_function(
            """(questions) => {
                const text = document.body.innerText;
                return questions.some(q => text.includes(q)) && text.includes("so far")
                    && text.includes("Correct the transcript and re-score") && text.trim().endsWith("End session");
            }""",
            arg=follow_ups,
            timeout=120_000,
        )
        body = page.locator("body").inner_text()
        assert "criteria met" in body
        assert "The number that proves it" in body
        assert "went from" in body  # the evidence quoted from the transcript
        browser.close()
