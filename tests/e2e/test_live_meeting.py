"""The Live meeting page in a real browser, one test per scene: Debian's chromium joins the call
with a microphone the test controls, the personas' voices come back over the same connection,
the turns end on silence alone (no click after "Join the meeting"), and the page shows the
result of each moment.

The microphone (`MICROPHONE`, an init script): `getUserMedia` returns the stream of an
AudioContext's MediaStreamDestination, silent until `__say(base64 WAV)` plays a clip into it.
The test waits for the page's own cue that a moment is open ("Your moment: … Speak now.", in a
container keyed `meeting-cue-<moment>-speak--<n>`) and only then says that moment's line
(espeak-ng, made here): the speech starts inside its moment however much of the connection's
start was lost. What the recogniser makes of espeak-ng through the call is not asserted beyond
a word of each line (scoring is tested in tests/test_meeting*.py)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from tests.e2e.conftest import CHROMIUM, MICROPHONE, launch_local, local_only, spoken_clip, wait_until_idle

pytestmark = pytest.mark.e2e

def _cue(page, moment_id: str):
    """The page's cue that `moment_id` is open and waits for the learner to speak."""
    return page.locator(f'[class*="st-key-meeting-cue-{moment_id}-speak--"]').first


@pytest.mark.parametrize("scene_id", ["standup-late-joiner", "plan-review-disagree", "talking-at-once"])
def test_a_scene_played_hands_free_shows_each_moment_result(app_url, library, tmp_path, scene_id):
    from playwright.sync_api import expect, sync_playwright

    if not shutil.which("espeak-ng"):
        pytest.fail("espeak-ng is missing; scripts/rehearse.sh test installs it")
    assert Path(CHROMIUM).exists(), "Debian chromium is missing; scripts/rehearse.sh test installs it"
    scene = library.scenes[scene_id]
    said = {m.id: spoken_clip(m.expected, tmp_path, m.id) for m in scene.moments}
    flags = [
        "--use-fake-ui-for-media-stream", "--allow-loopback-in-peer-connection",
        "--autoplay-policy=no-user-gesture-required",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--no-first-run", "--disable-quic", "--no-sandbox", "--disable-gpu",
    ]
    with sync_playwright() as playwright:
        browser = launch_local(playwright, args=flags)
        context = browser.new_context(permissions=["microphone"], viewport={"width": 1400, "height": 1000})
        context.add_init_script(MICROPHONE)
        blocked = local_only(context)
        page = context.new_page()
        page.set_default_timeout(120_000)
        page.goto(f"{app_url}/meeting?scene={scene_id}")
        expect(page.get_by_text("Your moments").first).to_be_visible()
        wait_until_idle(page)  # the call's frame as it stays, once the page's first runs are over
        page.frame_locator('iframe[title*="webrtc"]').first.get_by_role("button", name="Join the meeting").click()
        microphone = page.locator('iframe[title*="webrtc"]').first.element_handle().content_frame()
        first_speaker = dict(scene_view_people(library, scene))[scene.lines[0].speaker]
        expect(page.get_by_text(f"{first_speaker}").first).to_be_visible()
        # no other click: the learner speaks once each moment's cue shows, the scene goes on when
        # they stop, and the result comes by itself
        for moment in scene.moments:
            expect(_cue(page, moment.id)).to_be_attached(timeout=120_000)
            assert microphone.evaluate("b64 => window.__say(b64)", said[moment.id]) > 0.5
        assert microphone.evaluate("() => window.__micOpened") == 1
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
