"""Typing the next answer while the last one is being scored (issue 18, item 2), in a real
browser (Debian chromium) against the real app server. The machine is made slow where it
is slow in practice: every LLM call (the app's judge and follow-up) answers after a delay,
from a scripted server at the network edge."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.e2e.conftest import CHROMIUM, launch_local, send_answer, served_app

pytestmark = pytest.mark.e2e

LLM_DELAY_S = 2.0
FIRST = "On the TPU pod I profiled the training step and rewrote the jit boundaries."
FOLLOW_UP = "What exactly did you measure, and how?"
SECOND = "Utilization went from forty to eighty three percent after the change."


class _SlowLLM(BaseHTTPRequestHandler):
    """An OpenAI-style server whose every reply takes LLM_DELAY_S: a loaded machine."""

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        time.sleep(LLM_DELAY_S)
        reply = {"id": "slow", "object": "chat.completion", "created": int(time.time()), "model": "slow",
                 "choices": [{"index": 0, "finish_reason": "stop",
                              "message": {"role": "assistant", "content": FOLLOW_UP}}],
                 "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}
        payload = json.dumps(reply).encode()
        try:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def slow_app_url(tmp_path_factory):
    llm = ThreadingHTTPServer(("127.0.0.1", 0), _SlowLLM)
    llm.daemon_threads = True
    threading.Thread(target=llm.serve_forever, daemon=True).start()
    try:
        with served_app(tmp_path_factory.mktemp("app"), COACH_LLM_MODEL="openai/slow-model",
                        COACH_LLM_API_BASE=f"http://127.0.0.1:{llm.server_address[1]}/v1",
                        COACH_LLM_TIMEOUT="30") as url:
            yield url
    finally:
        llm.shutdown()
        llm.server_close()


@pytest.mark.parametrize("hand_over", ["after the rerun", "during the rerun"])
def test_an_answer_typed_right_after_send_is_kept_and_sent(slow_app_url, hand_over):
    """The learner types the next answer at once after Send, into the box that still shows
    the answer sent; the browser hands it over (Tab) once the next question is there, or
    while the Send is still being processed. Either way it is kept, less the answer already
    sent, and it is what the next Send sends."""
    from playwright.sync_api import expect, sync_playwright

    assert Path(CHROMIUM).exists(), "Debian chromium is missing; scripts/rehearse.sh test installs it"
    with sync_playwright() as playwright:
        browser = launch_local(playwright, args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.set_default_timeout(120_000)
        page.goto(f"{slow_app_url}/interview?card=gpu-cluster-optimization")
        page.get_by_role("button", name="Start").click()
        expect(page.get_by_text("Dr. Seo-yeon Han:").first).to_be_visible()
        box = page.get_by_role("textbox", name="Your answer")
        box.fill(FIRST)
        box.press("Tab")
        page.wait_for_timeout(1_000)
        send_answer(page)
        # at once, while the first answer is being scored (seconds): the learner types on
        box.click()
        page.keyboard.press("End")
        page.keyboard.type(SECOND, delay=10)
        if hand_over == "during the rerun":
            box.press("Tab")
        assert FOLLOW_UP not in page.locator("body").inner_text(), "the first answer was scored before the typing ended"
        expect(page.get_by_text(FOLLOW_UP).first).to_be_visible()  # the first answer's turn is done
        if hand_over == "after the rerun":
            box.press("Tab")
        expect(box).to_have_value(SECOND)  # kept, without the answer already sent
        # the Tab's own rerun may still show the stale Send button beside the new one for a moment
        send = page.get_by_role("button", name="Send answer")
        expect(send).to_have_count(1)
        send.click()
        # the second answer shown as sent (the conversation already counts 2 questions before it)
        expect(page.locator('[data-testid="stChatMessage"]').filter(has_text="after the change").first).to_be_visible()
        body = page.locator("body").inner_text()
        browser.close()
    assert "empty" not in body.lower(), body
    assert "after the change" in body  # the second answer, shown as sent
