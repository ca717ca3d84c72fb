"""Hands-free talk on the Practice page in a real browser: Debian's chromium opens the call with
one click ("Talk hands-free"), a microphone the test controls answers the persona (espeak-ng),
the turn ends by itself, the persona's next line comes back over the same connection and is
heard in the page, talking over it stops it (barge-in), and after "Leave" the page shows the
answer stored and scored as a turn. Waits on the page's own state (a container keyed
`talk-state-<state>-<answers>--<n>`) and on the sound the page receives; no fixed sleeps.

The microphone is tests/e2e/conftest.py's `MICROPHONE`; `HEARING` measures the audio the page
receives on the call: every 20 ms, whether its level is above a whisper (`window.__loud`, times
in `performance.now()` milliseconds), and how many connections the call's frame made
(`window.__connections`: one per click; streamlit-webrtc 0.79 made several when told to start by
itself, and the server could answer the wrong one)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.e2e.conftest import CHROMIUM, MICROPHONE, launch_local, local_only, spoken_clip, wait_until_idle

pytestmark = pytest.mark.e2e

HEARING = """
(() => {
  const Original = window.RTCPeerConnection;
  if (!Original) return;
  window.__loud = [];
  window.__connections = 0;
  window.RTCPeerConnection = function (...args) {
    const pc = new Original(...args);
    window.__connections += 1;
    pc.addEventListener("track", (event) => {
      if (event.track.kind !== "audio") return;
      const ctx = new AudioContext();
      ctx.resume();
      const source = ctx.createMediaStreamSource(event.streams[0] || new MediaStream([event.track]));
      const analyser = ctx.createAnalyser();
      analyser.fftSize = 1024;
      source.connect(analyser);
      const data = new Float32Array(analyser.fftSize);
      setInterval(() => {
        analyser.getFloatTimeDomainData(data);
        let sum = 0;
        for (const v of data) sum += v * v;
        if (Math.sqrt(sum / data.length) > 0.01) window.__loud.push(performance.now());
      }, 20);
    });
    return pc;
  };
  window.RTCPeerConnection.prototype = Original.prototype;
})();
"""

CALL = '[class*="st-key-talk-"] iframe[title*="webrtc"]'  # the call component's frame (key `talk-…`)

ANSWER = ("Yesterday I finished the login page. Today I am writing the tests for it, "
          "and I need a review from the design team by Friday.")
TALK_OVER = "Sorry, can I ask one thing first?"


def _state(page, state: str, answers: int):
    return page.locator(f'[class*="st-key-talk-state-{state}-{answers}--"]').first


def test_a_hands_free_answer_is_scored_and_the_persona_answers_by_itself(app_url, tmp_path):
    from playwright.sync_api import expect, sync_playwright

    if not shutil.which("espeak-ng"):
        pytest.fail("espeak-ng is missing; scripts/rehearse.sh test installs it")
    assert Path(CHROMIUM).exists(), "Debian chromium is missing; scripts/rehearse.sh test installs it"
    answer, talk_over = spoken_clip(ANSWER, tmp_path, "answer"), spoken_clip(TALK_OVER, tmp_path, "talk-over")
    flags = ["--use-fake-ui-for-media-stream", "--allow-loopback-in-peer-connection",
             "--autoplay-policy=no-user-gesture-required", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic",
             "--no-sandbox", "--disable-gpu"]
    with sync_playwright() as playwright:
        browser = launch_local(playwright, args=flags)
        context = browser.new_context(permissions=["microphone"], viewport={"width": 1400, "height": 1000})
        context.add_init_script(MICROPHONE)
        context.add_init_script(HEARING)
        blocked = local_only(context)
        page = context.new_page()
        page.set_default_timeout(120_000)
        page.goto(f"{app_url}/practice?card=status-update")
        page.get_by_role("button", name="Start").click()
        line_player = page.locator('.st-key-newest-exchange [data-testid="stAudio"]')
        expect(line_player.first).to_be_attached()  # the question's player (autoplay) before the call
        wait_until_idle(page)  # the call's frame as it stays, once the reruns after Start are over
        call = page.locator(CALL).first
        call.wait_for()
        frame = call.element_handle().content_frame()
        controls = page.frame_locator(CALL).first
        controls.get_by_role("button", name="Talk hands-free").click()  # the one click
        # the persona's opening line is heard, then it is the learner's turn
        frame.wait_for_function("() => window.__loud && window.__loud.length > 10", timeout=120_000)
        expect(line_player).to_have_count(0)  # the call says the question: it is heard once, not twice
        expect(_state(page, "listening", 0)).to_be_attached(timeout=120_000)
        assert frame.evaluate("() => window.__connections") == 1
        assert frame.evaluate("b64 => window.__say(b64)", answer) > 3.0
        said_at = frame.evaluate("() => performance.now()")
        # no click: the turn ends, is scored, and the persona's next line is heard
        expect(_state(page, "speaking", 1)).to_be_attached(timeout=120_000)
        frame.wait_for_function("(t) => window.__loud.some((x) => x > t)", arg=said_at, timeout=60_000)
        expect(page.get_by_text("login", exact=False).first).to_be_attached()  # the caption of what was heard
        # talking over the persona stops it: the page marks its line and listens
        frame.evaluate("b64 => window.__say(b64)", talk_over)
        expect(page.get_by_text("(you talked over)").first).to_be_attached(timeout=60_000)
        controls.get_by_role("button", name="Leave the conversation").click()
        # the usual page: the hands-free answer with its scorecard, and the answer box again
        expect(page.get_by_text("Full scorecard and tips").first).to_be_visible(timeout=120_000)
        expect(page.get_by_role("button", name="Send answer")).to_be_visible()
        page.get_by_text("The conversation so far").first.click()
        body = page.locator("body").inner_text()
        browser.close()
    assert not blocked, blocked
    assert "login page" in body.lower(), body
