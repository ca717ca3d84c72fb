"""The Live meeting page in a real browser, one test per scene: Debian's chromium joins the call
with a fake microphone that plays the learner's side (espeak-ng speech made here, silence where
they listen); the personas' voices come back over the same connection, the turns end on silence
alone (no click after "Join the meeting"), and the page shows the result of each moment.

The learner's side is made by playing the scene offline with the same core (LiveMeeting, each
persona line spoken by espeak-ng as in the app): the learner speaks `LEAD_S` after each of their
moments opens. Offline, each turn ends on the longest patience (`UNFINISHED_PAUSE_S`); in the
browser it ends sooner or as late (a complete sentence, once decoded), so a later moment opens
there no later than offline (up to 1.7 s sooner), while the connection loses 0.3-3.5 s of the
microphone's start (a cold server on a loaded machine): the speech lands in each moment's window
either way. What the recogniser makes of espeak-ng through
the call is not asserted beyond a word of each line (scoring is tested in tests/test_meeting*.py)."""

from __future__ import annotations

import re
import shutil
import subprocess
import wave
from pathlib import Path

import numpy as np
import pytest

from coach.meeting import LiveMeeting, line_samples
from tests.conftest_audio import decode_int16, resample_int16
from tests.e2e.conftest import CHROMIUM, launch_local, local_only

pytestmark = pytest.mark.e2e

RATE = 16_000
CHUNK = 320
LEAD_S = 3.5  # the learner starts speaking this long after a moment opens


def _speech(text: str, folder: Path) -> np.ndarray:
    out = folder / f"{abs(hash(text))}.wav"
    subprocess.run(["espeak-ng", "-v", "en-us", "-s", "160", "-w", str(out), text], check=True)
    samples, rate = decode_int16(out)
    return resample_int16(samples, rate, RATE).astype(np.float32) / 32768.0


def learner_side(scene, personas, folder: Path) -> Path:
    """The learner's microphone for `scene`: each moment's expected line, `LEAD_S` after the moment
    opens in the scene as LiveMeeting plays it; silence elsewhere; a WAV in `folder`."""
    said = {m.id: _speech(m.expected, folder) for m in scene.moments}
    # every turn heard as unfinished: it ends as late as a live turn can (UNFINISHED_PAUSE_S)
    live = LiveMeeting(scene, personas, line_samples(scene, personas), lambda _: "and", background=False)
    starts: dict[str, int] = {}
    mic = []
    while not live.over and live.t < 180:
        for moment_id, opened in live.opened.items():
            starts.setdefault(moment_id, int((opened + LEAD_S) * RATE))
        at = live.samples_in
        chunk = np.zeros(CHUNK, dtype=np.float32)
        for moment_id, start in starts.items():
            speech = said[moment_id]
            if start < at + CHUNK and at < start + len(speech):
                lo, hi = max(start, at), min(start + len(speech), at + CHUNK)
                chunk[lo - at:hi - at] += speech[lo - start:hi - start]
        live.step(chunk)
        mic.append(chunk)
    assert live.over and set(starts) == {m.id for m in scene.moments}
    samples = np.concatenate([*mic, np.zeros(5 * RATE, dtype=np.float32)])
    path = folder / f"{scene.id}.wav"
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(RATE)
        out.writeframes((np.clip(samples, -1, 1) * 32767).astype("<i2").tobytes())
    return path


@pytest.mark.parametrize("scene_id", ["standup-late-joiner", "plan-review-disagree", "talking-at-once"])
def test_a_scene_played_hands_free_shows_each_moment_result(app_url, library, tmp_path, scene_id):
    from playwright.sync_api import expect, sync_playwright

    if not shutil.which("espeak-ng"):
        pytest.fail("espeak-ng is missing; scripts/rehearse.sh test installs it")
    assert Path(CHROMIUM).exists(), "Debian chromium is missing; scripts/rehearse.sh test installs it"
    scene = library.scenes[scene_id]
    audio = learner_side(scene, library.personas, tmp_path)
    flags = [
        "--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream",
        f"--use-file-for-fake-audio-capture={audio}%noloop", "--allow-loopback-in-peer-connection",
        "--autoplay-policy=no-user-gesture-required",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--no-first-run", "--disable-quic", "--no-sandbox", "--disable-gpu",
    ]
    with sync_playwright() as playwright:
        browser = launch_local(playwright, args=flags)
        context = browser.new_context(permissions=["microphone"], viewport={"width": 1400, "height": 1000})
        blocked = local_only(context)
        page = context.new_page()
        page.set_default_timeout(120_000)
        page.goto(f"{app_url}/meeting?scene={scene_id}")
        expect(page.get_by_text("Your moments").first).to_be_visible()
        page.frame_locator('iframe[title*="webrtc"]').first.get_by_role("button", name="Join the meeting").click()
        first_speaker = dict(scene_view_people(library, scene))[scene.lines[0].speaker]
        expect(page.get_by_text(f"{first_speaker}").first).to_be_visible()
        # no other click: the scene plays, each turn ends on silence, and the result comes by itself
        page.wait_for_function(
            "(n) => document.body.innerText.includes('How the meeting went') "
            "&& document.body.innerText.includes('Play the scene again')"
            "&& (document.body.innerText.match(/You said:|You did not speak/g) || []).length >= n",
            arg=len(scene.moments), timeout=150_000)
        page.get_by_text("The whole call, line by line").click()
        expect(page.get_by_text(f"{first_speaker}").last).to_be_visible()
        body = page.locator("body").inner_text()
        browser.close()
    assert not blocked, blocked
    assert "You did not speak" not in body, body
    heard = re.findall(r"You said: “(.*)”", body)
    assert len(heard) == len(scene.moments), body
    for moment, text in zip(scene.moments, heard, strict=True):
        words = {w for w in re.findall(r"[a-z]{4,}", moment.expected.lower())}
        assert words & set(re.findall(r"[a-z]{4,}", text.lower())), (moment.expected, text)
    assert re.search(r"You spoke \d+\.\d s after it opened", body), body
    assert body.count("A phrase that fits the moment") == len(scene.moments), body


def scene_view_people(library, scene):
    return [(p, library.personas[p].name) for p in scene.personas]
