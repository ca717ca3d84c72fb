"""Browser tests share one setting: Playwright's `expect` waits as long as the pages' own
timeouts (its default, 5 s, is shorter than a cold app start on a loaded 2-core machine), the
app server fixture (`app_url`: one per module, with its own fresh data dir and no LLM; modules
that need another configuration start their own), and waits on what the page shows rather than
fixed sleeps.

One server for the whole run was tried (issue 30) and not kept: the modules then share a data
dir and a server, so a module's result may depend on what earlier modules left there
(test_voice_turn's wait for the page's last element timed out when it ran after test_live_voice
and test_practice_layout had practised the same card; first, on a fresh server, it passed)."""

from __future__ import annotations

import base64
import contextlib
import math
import os
import re
import socket
import subprocess
import time
import urllib.request
import wave
from pathlib import Path

import pytest

from tests.conftest import REPO

EXPECT_TIMEOUT_MS = 60_000
CHROMIUM = "/usr/bin/chromium"


@pytest.fixture(autouse=True)
def _patient_expect():
    from playwright.sync_api import expect

    expect.set_options(timeout=EXPECT_TIMEOUT_MS)
    yield


LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "[::1]", "::1"})


# Chromium resolves no name but this machine's: a page that asks the network for anything
# (a font, a stylesheet, an image in author text) fails at once instead of leaving the machine
LOCAL_ONLY_ARGS = ["--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost"]


def launch_local(playwright, **kwargs):
    """Debian's chromium, headless, resolving no name beyond this machine (every browser test
    launches through here); `args` are added to the local-only rule."""
    args = [*LOCAL_ONLY_ARGS, *kwargs.pop("args", [])]
    return playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=args, **kwargs)


def local_only(context) -> list[str]:
    """Every request of a browser context that does not go to this machine is aborted (the
    oidc-provider-mock sign-in page asks a CDN for a stylesheet): no browser test depends on the
    network. Returns the list the blocked URLs are added to."""
    from urllib.parse import urlsplit

    blocked: list[str] = []

    def beyond(url: str) -> bool:  # only these are routed: the app's own requests go untouched
        parts = urlsplit(url)
        return parts.scheme not in ("data", "blob") and parts.hostname not in LOOPBACK_HOSTS

    def abort(route):
        blocked.append(route.request.url)
        route.abort()

    context.route(beyond, abort)
    return blocked


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def served_app(folder: Path, **env_changes: str | None):
    """The app served on a free loopback port with its data dir in `folder`, until the block ends;
    `env_changes` set (or, with None, remove) environment variables. Its output goes to a log file
    in `folder` (a pipe nobody reads would fill and stall the server), quoted if it does not start."""
    port = free_port()
    env = {**os.environ, "COACH_DATA_DIR": str(folder / "data")}
    for name, value in env_changes.items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    log_path = folder / "streamlit.log"
    with open(log_path, "w") as log:
        server = subprocess.Popen(
            [str(REPO / ".venv/bin/streamlit"), "run", "app.py", "--server.address", "127.0.0.1",
             "--server.port", str(port), "--server.headless", "true", "--browser.gatherUsageStats", "false"],
            cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT, text=True,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 60
        while time.time() < deadline and server.poll() is None:
            try:
                urllib.request.urlopen(f"{url}/_stcore/health", timeout=2)
                break
            except OSError:
                time.sleep(0.2)
        else:
            pytest.fail("the app server did not start: " + log_path.read_text())
        yield url
    finally:
        server.terminate()
        try:
            server.wait(20)
        except subprocess.TimeoutExpired:
            server.kill()


@pytest.fixture(scope="module")
def app_url(tmp_path_factory):
    """The app served for one module's browser tests, on a fresh data dir."""
    with served_app(tmp_path_factory.mktemp("app"), COACH_LLM_MODEL=None) as url:
        yield url


def wav_seconds(path: Path) -> float:
    with wave.open(str(path)) as wav:
        return wav.getnframes() / wav.getframerate()


def wait_until_idle(page, steady_s: float = 0.5, timeout_s: float = 120) -> None:
    """Until Streamlit has had no script run going for `steady_s`: after Start the page runs a few
    times as its components mount, with gaps of up to about 0.2 s between the runs. What a learner
    sees before they reach for a button."""
    deadline = time.monotonic() + timeout_s
    idle_since = None
    while time.monotonic() < deadline:
        state = page.locator('[data-testid="stApp"]').get_attribute("data-test-script-state")
        if state != "notRunning":
            idle_since = None
        elif idle_since is None:
            idle_since = time.monotonic()
        elif time.monotonic() - idle_since >= steady_s:
            return
        time.sleep(0.05)
    pytest.fail(f"the page was still running after {timeout_s:.0f} s")


def wait_until_recorded(scope, seconds: float, timeout_s: float = 120) -> None:
    """Until the audio recorder in `scope` (a page or a locator holding one st.audio_input) has
    recorded `seconds`, by its own time code ("mm:ss"): chromium's fake microphone plays its file
    in real time from when recording starts, so this is when the whole file has been heard. The
    time code is found afresh on every look: while Streamlit redraws, a stale copy of an element
    can stand beside the live one, and a handle to it would never change."""
    codes = scope.locator('[data-testid="stAudioInputWaveformTimeCode"]')
    needed = math.ceil(seconds)
    deadline = time.monotonic() + timeout_s
    texts: list[str] = []
    while time.monotonic() < deadline:
        texts = codes.all_inner_texts()
        for text in texts:
            minutes_seconds = re.search(r"(\d+):(\d+)$", text.strip())
            if minutes_seconds and int(minutes_seconds[1]) * 60 + int(minutes_seconds[2]) >= needed:
                return
        time.sleep(0.25)
    buttons = scope.locator('[data-testid="stAudioInputActionButton"]')
    labels = [buttons.nth(i).get_attribute("aria-label") for i in range(buttons.count())]
    pytest.fail(f"the recorder never reached {needed} s: its time codes say {texts}, its buttons {labels}")


def start_recording(scope, timeout_s: float = 60) -> None:
    """Press Record on the st.audio_input in `scope` (a page or a locator) until it records.
    Streamlit draws the Record button before the recorder behind it is set up (its code loads on
    first show, as when an expander opens), and a press before that does nothing and says nothing
    (AudioInput: `await recorder.current?.start()`): nothing was opened, so it is pressed again."""
    record = scope.locator('[data-testid="stAudioInputActionButton"][aria-label="Record"]').first
    stop = scope.locator('[data-testid="stAudioInputActionButton"][aria-label="Stop recording"]').first
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if stop.is_visible():
            return
        if record.is_visible():
            record.click()
        with contextlib.suppress(Exception):  # playwright's TimeoutError: not recording yet
            stop.wait_for(state="visible", timeout=3000)
    pytest.fail(f"the recorder did not start recording in {timeout_s:.0f} s of pressing Record")


def answer_in_one_piece(page, recording: Path) -> None:
    """Answer with the one-piece recorder under the answer box, as a learner would: once the page's
    reruns after Start are over, open it, record until chromium's fake microphone has played all of
    `recording`, and stop (the recording is sent at once)."""
    wait_until_idle(page)
    page.get_by_text("No live microphone? Record in one piece").click()
    start_recording(page)
    wait_until_recorded(page, wav_seconds(recording))
    page.locator('[data-testid="stAudioInputActionButton"]').first.click()


# Every frame's microphone: an AudioContext's MediaStreamDestination (silence while nothing
# plays); `__say(b64)` decodes a WAV and plays it into it, resolving once it has been played
# (`__sayStarted`: when it started, in performance.now() ms, for benchmarks/conversation_browser.py).
# Each getUserMedia gets clones of its track: a recorder stops its stream's tracks when it stops,
# and the next recording (the Read aloud test's second reading) must still hear the destination.
MICROPHONE = """
(() => {
  if (!window.MediaDevices || !window.AudioContext) return;
  let mic = null;
  const open = () => {
    if (mic === null) {
      const ctx = new AudioContext();
      mic = {ctx, destination: ctx.createMediaStreamDestination()};
      // silence, always playing: a destination with nothing playing into it sends no audio
      const silence = ctx.createConstantSource();
      silence.offset.value = 0;
      silence.connect(mic.destination);
      silence.start();
    }
    return mic;
  };
  window.__say = async (b64) => {
    const {ctx, destination} = open();
    await ctx.resume();
    const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    const source = ctx.createBufferSource();
    source.buffer = await ctx.decodeAudioData(bytes.buffer);
    source.connect(destination);
    // when the clip starts playing, in performance.now() ms (the benchmarks time from it)
    await new Promise((done) => { source.onended = done; window.__sayStarted = performance.now(); source.start(); });
    return source.buffer.duration;
  };
  MediaDevices.prototype.getUserMedia = async function (constraints) {
    if (constraints && constraints.video) throw new DOMException("no camera here", "NotFoundError");
    const {ctx, destination} = open();
    await ctx.resume();
    window.__micOpened = (window.__micOpened || 0) + 1;
    return new MediaStream(destination.stream.getAudioTracks().map((track) => track.clone()));
  };
})();
"""


def spoken_clip(text: str, folder: Path, name: str) -> str:
    """`text` said by espeak-ng, as a base64 WAV for `__say`."""
    out = folder / f"{name}.wav"
    subprocess.run(["espeak-ng", "-v", "en-us", "-s", "160", "-w", str(out), text], check=True)
    return base64.b64encode(out.read_bytes()).decode("ascii")


# The page drawn to its end: its last text is "End session", or the hands-free box after it (for a
# `wait_for_function` that reads `document.body.innerText` once a rerun has streamed in whole).
PAGE_DRAWN_JS = r"""(text) => {
    const end = text.lastIndexOf("End session");
    return end >= 0 && !text.slice(end + 11).replace(/🎧 Or talk hands-free[\s\S]*/u, "").trim();
}"""


def send_answer(page) -> None:
    """Click "Send answer" once the page has settled, as a learner would: a run still going draws
    the persona's players last (`listening.draw_players`, once their voice is made), which moves
    the button down under a click aimed before (a typed answer after a Korean one was never sent
    once in a full suite run); and while Streamlit redraws after a rerun, the stale button can
    stand beside the new one for a moment (two matches: a strict-mode error)."""
    from playwright.sync_api import expect

    wait_until_idle(page, steady_s=0.3)
    send = page.get_by_role("button", name="Send answer")
    expect(send).to_have_count(1)
    send.click()
