"""The voice turn in a real browser with the one-piece recorder (the fallback under the live
one, tests/e2e/test_live_voice.py): Debian's chromium with a fake microphone fed from a WAV
that espeak-ng speaks, against the real app server (Whisper, scoring, follow-up)."""

from __future__ import annotations

import shutil
import subprocess
import wave
from pathlib import Path

import pytest

from tests.e2e.conftest import CHROMIUM, PAGE_DRAWN_JS, answer_in_one_piece, launch_local
from tests.e2e.conftest import free_port as _free_port  # noqa: F401 - for modules that import it from here

pytestmark = pytest.mark.e2e

ANSWER = ("I profiled the training job and rewrote the jit boundaries myself. "
          "Utilization went from forty percent to eighty three percent.")


@pytest.fixture(scope="module")
def spoken_answer(tmp_path_factory) -> Path:
    if not shutil.which("espeak-ng"):
        pytest.fail("espeak-ng is missing; scripts/rehearse.sh test installs it")
    path = tmp_path_factory.mktemp("audio") / "answer.wav"
    subprocess.run(["espeak-ng", "-v", "en-us", "-s", "150", "-w", str(path), ANSWER], check=True)
    with wave.open(str(path)) as wav:
        assert wav.getnframes() / wav.getframerate() > 3
    return path


# The server fixture is tests/e2e/conftest.py's `app_url` (one per module). This name is kept for
# modules that import it from here (a plain value: pytest then finds the conftest fixture).
app_url = None


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
        browser = launch_local(playwright, args=flags)
        context = browser.new_context(permissions=["microphone"])
        page = context.new_page()
        page.set_default_timeout(120_000)
        page.goto(f"{app_url}/interview?card=gpu-cluster-optimization")
        page.get_by_role("button", name="Start").click()
        expect(page.get_by_text("Dr. Seo-yeon Han:").first).to_be_visible()

        answer_in_one_piece(page, spoken_answer)  # the whole answer, as long as it lasts
        # no other click: the recording is transcribed, scored and followed up at once
        follow_ups = ["How did you work with your team", "What was your part", "What other options",
                      "Why did you choose this approach", "If you did this project again", "What did you learn"]
        # Streamlit streams a rerun: wait until its last elements (the next prompt's answer box
        # and its buttons under the follow-up; the transcript correction sits under the answer)
        # are on the page before reading it
        page.wait_for_function(
            f"""(questions) => {{
                const text = document.body.innerText;
                return questions.some(q => text.includes(q)) && text.includes("so far")
                    && text.includes("Correct the transcript and re-score") && ({PAGE_DRAWN_JS})(text);
            }}""",
            arg=follow_ups,
            timeout=120_000,
        )
        body = page.locator("body").inner_text()
        assert "criteria met" in body
        assert "The number that proves it" in body
        assert "went from" in body  # the evidence quoted from the transcript
        browser.close()
