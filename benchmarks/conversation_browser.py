"""Hands-free conversation timing in the real page (issue 32): Debian's chromium, the app served
as `coach serve` (a temporary data dir, no LLM), the call over WebRTC on 127.0.0.1. Prints
figures, asserts nothing.

    .venv/bin/python benchmarks/conversation_browser.py [--runs 8] [--warm-up 1]
    .venv/bin/python benchmarks/conversation_browser.py --going-on [--pause 1.0] [--runs 6]

Each run opens a fresh browser context on the Practice page of a meeting card (status-update),
clicks Start and "Talk hands-free", and waits for the persona's opening line to be heard and to
fall quiet. The microphone and the ear are the browser test's (tests/e2e/test_hands_free.py):
`MICROPHONE` plays espeak-ng clips into the fake getUserMedia track (`__sayStarted`: when a clip
started, in the page's performance.now() ms) and `HEARING` marks every 20 ms tick at which the
audio received on the call is above a whisper (`__loud`, RMS over 0.01 in a 1024-sample window).
(0) is wall time on the test's side; every other time below is in page time, from the microphone
to the analyser on the received track:

(0) The click on the call's "Talk hands-free" -> the call running on the page (its first
    talk-state container attached: connected, the conversation made, the answer box gone).
(1) The learner's last word -> the persona's first sound heard in the page, for a complete
    sentence (benchmarks/conversation.py's SENTENCES, a different one each run): from when the
    clip's last loud sample was played into the microphone to the first loud tick after it.
(3) Barge-in: one second into the reply, a talk-over sentence (conversation.py's TALK_OVER) is
    played; from its onset (its first 20 ms at speech level) to the persona's last loud tick
    (up to 300 ms after the talk-over's last word: the persona's next line cannot start before
    the talk-over's turn is over). Counted only when the page marks the line "(you talked over)".

For (1) it also prints when the top page showed the turn over and the reply (its talk-state
containers, seen on the page's 0.1 s tick): where the time went, roughly. Since the learner going
on within 2.5 s of their last word takes the answer back (coach.conversation TAKE_BACK_S), the
talk-over of (3) is often taken as going on with the answer; the persona stops the same way.

(4) `--going-on`: a sentence that reads as finished (GOING_ON's first part, so the turn is taken
    as over after the short patience), a pause of `--pause` s, then the rest of it. Cut off when
    the persona was heard before the rest's onset plus 0.5 s, or the page showed the turn over
    before the rest began; taken back when the page's reply after the rest still counts one
    answer (its talk-state containers); and how long the persona was heard from the first part's
    last word to the rest's onset plus 0.5 s (0 when its line was withheld).

Every request that does not go to 127.0.0.1 is aborted (tests/e2e/conftest.py `local_only`).
Needs chromium, espeak-ng and playwright. The first `--warm-up` runs are not counted.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
import wave
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.conversation import SENTENCES, TALK_OVER, pct  # noqa: E402
from benchmarks.live_browser import _server  # noqa: E402
from tests.e2e.conftest import MICROPHONE, launch_local, local_only, spoken_clip, wait_until_idle  # noqa: E402
from tests.e2e.test_hands_free import CALL, HEARING, _state  # noqa: E402
from tests.speech_frames import onset  # noqa: E402

FLAGS = ["--use-fake-ui-for-media-stream", "--allow-loopback-in-peer-connection",
         "--autoplay-policy=no-user-gesture-required", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic",
         "--no-sandbox", "--disable-gpu"]
QUIET_MS = 300  # the received audio is quiet "for good" after this long without a loud tick
BARGE_IN_AFTER_MS = 1000  # into the persona's reply (as benchmarks/conversation.py does)
TIMEOUT_MS = 120_000

# The top page's talk states as it shows them (`talk-state-<state>-<answers>--<n>`, the key the
# browser test waits on): [state, answers, epoch ms] when each first appears, for the breakdown.
SHOWN = """
(() => {
  if (window !== window.top) return;
  window.__shown = [];
  const seen = new Set();
  new MutationObserver(() => {
    for (const el of document.querySelectorAll('[class*="st-key-talk-state-"]')) {
      const m = el.className.match(/st-key-talk-state-([a-z]+)-(\\d+)--/);
      if (m && !seen.has(m[1] + m[2])) {
        seen.add(m[1] + m[2]);
        window.__shown.push([m[1], Number(m[2]), performance.timeOrigin + performance.now()]);
      }
    }
  }).observe(document, {subtree: true, childList: true, attributes: true, attributeFilter: ["class"]});
})();
"""
# every change of the top page's talk state, [state, answers, epoch ms] (SHOWN keeps each first one only)
TRANSITIONS = """
(() => {
  if (window !== window.top) return;
  window.__transitions = [];
  let last = "";
  new MutationObserver(() => {
    const el = document.querySelector('[class*="st-key-talk-state-"]');
    const m = el && el.className.match(/st-key-talk-state-([a-z]+)-(\\d+)--/);
    if (m && m[1] + m[2] !== last) {
      last = m[1] + m[2];
      window.__transitions.push([m[1], Number(m[2]), performance.timeOrigin + performance.now()]);
    }
  }).observe(document, {subtree: true, childList: true, attributes: true, attributeFilter: ["class"]});
})();
"""
LEVEL = 0.01  # HEARING's threshold, and speech_frames.onset's
# (4): a first part the recogniser surely ends ("." expected: 0.74, tests/test_conversation.py), and its rest
GOING_ON = [("We moved the training job to the new cluster.", "after the second outage on Friday."),
            ("We fixed the issue.", "on most of the nodes yesterday."),
            ("The job failed last night.", "because the storage bucket was full.")]

class Clip:
    """An espeak-ng line for `__say`, and where in it the speech starts and ends (seconds)."""

    def __init__(self, text: str, folder: Path, name: str):
        self.text = text
        self.b64 = spoken_clip(text, folder, name)
        with wave.open(str(folder / f"{name}.wav")) as wav:
            rate = wav.getframerate()
            samples = np.frombuffer(wav.readframes(wav.getnframes()), dtype="<i2").astype(np.float32) / 32768
        loud = np.flatnonzero(np.abs(samples) > LEVEL)
        # speech_frames.onset in 20 ms chunks of this rate (it divides by 16 kHz: scaled back)
        self.onset = onset(samples, LEVEL, chunk=rate // 50) * 16_000 / rate
        self.end = (loud[-1] + 1) / rate  # the last word's last loud sample


def _wait_quiet(frame, quiet_ms: float = QUIET_MS) -> None:
    """Until the received audio has had no loud tick for `quiet_ms`."""
    frame.wait_for_function("(q) => performance.now() - (window.__loud.at(-1) ?? 0) >= q", arg=quiet_ms,
                            timeout=TIMEOUT_MS, polling=50)


def _context(browser, watch: str):
    """A browser context with the test's microphone and ear, `watch` (SHOWN or TRANSITIONS) on the
    top page, and every request beyond 127.0.0.1 aborted: (context, the blocked requests)."""
    context = browser.new_context(permissions=["microphone"], viewport={"width": 1400, "height": 1000})
    context.add_init_script(MICROPHONE)
    context.add_init_script(HEARING)
    context.add_init_script(watch)
    return context, local_only(context)


def _practice_page(context, url: str):
    """The status-update Practice page started, its reruns over: (page, the call's frame locator)."""
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(f"{url}/practice?card=status-update")
    page.get_by_role("button", name="Start").click()
    wait_until_idle(page)  # the call's frame as it stays, once the reruns after Start are over
    call = page.locator(CALL).first
    call.wait_for()
    return page, call


def run_once(browser, url: str, answer: Clip, talk_over: Clip) -> dict:
    """One call: the latency of the reply to `answer` and of the barge-in by `talk_over` (ms)."""
    from playwright.sync_api import expect

    context, blocked = _context(browser, SHOWN)
    result: dict = {}
    try:
        page, call = _practice_page(context, url)
        frame = call.element_handle().content_frame()
        clicked = time.perf_counter()
        page.frame_locator(CALL).first.get_by_role("button", name="Talk hands-free").click()
        # (0) the click -> the call running on the page (its first state shown, the answer box gone)
        page.locator('[class*="st-key-talk-state-"]').first.wait_for(state="attached", timeout=TIMEOUT_MS)
        result["open_ms"] = 1000 * (time.perf_counter() - clicked)
        # the opening line heard, the learner's turn, and the received audio quiet again
        frame.wait_for_function("() => window.__loud && window.__loud.length > 10", timeout=TIMEOUT_MS)
        expect(_state(page, "listening", 0)).to_be_attached(timeout=TIMEOUT_MS)
        _wait_quiet(frame)
        # (1) a complete sentence; its last word, in page time
        frame.evaluate("b64 => window.__say(b64)", answer.b64)
        last_word = frame.evaluate("() => window.__sayStarted") + 1000 * answer.end
        first = frame.wait_for_function("(t) => window.__loud.find((x) => x > t) ?? null", arg=last_word,
                                        timeout=TIMEOUT_MS, polling=50).json_value()
        result["reply_ms"] = first - last_word
        try:
            expect(_state(page, "speaking", 1)).to_be_attached(timeout=30_000)
            result["replied"] = True
        except AssertionError:
            result["note"] = "the first sound after the answer was not its reply"
            return result
        # when the top page showed the turn over ("thinking") and the reply ("speaking"), in the
        # frame's page time (each frame's time origin is an epoch time)
        since = frame.evaluate("() => performance.timeOrigin") + last_word
        shown = {(state, answers): at - since for state, answers, at in page.evaluate("() => window.__shown")}
        result["thinking_ms"] = shown.get(("thinking", 0))
        result["speaking_ms"] = shown.get(("speaking", 1))
        # (3) one second into the reply, the learner talks over it
        frame.wait_for_function("(t) => performance.now() >= t", arg=first + BARGE_IN_AFTER_MS,
                                timeout=TIMEOUT_MS, polling=10)
        frame.evaluate("b64 => window.__say(b64)", talk_over.b64)
        said_at = frame.evaluate("() => window.__sayStarted")
        began, ended = said_at + 1000 * talk_over.onset, said_at + 1000 * talk_over.end
        # the persona's next line cannot start before the talk-over's turn is over (its patience
        # after the last word): the last loud tick up to QUIET_MS after the talk-over is the last
        # of the line it cut (pauses inside that line do not count as its end)
        frame.wait_for_function("(t) => performance.now() >= t", arg=ended + QUIET_MS,
                                timeout=TIMEOUT_MS, polling=50)
        loud = frame.evaluate("([a, b]) => window.__loud.filter((x) => x >= a && x <= b)", [began, ended + QUIET_MS])
        silent = max(loud, default=began)
        if silent > ended:
            result["note"] = "the persona was still heard at the end of the talk-over"
            return result
        try:
            expect(page.get_by_text("(you talked over)").first).to_be_attached(timeout=30_000)
            result["barge_in_ms"] = silent - began
        except AssertionError:
            result["note"] = "the reply ended before the talk-over (no barge-in)"
    finally:
        context.close()
    if blocked:
        result["note"] = f"requests beyond 127.0.0.1 were blocked: {blocked}"
    return result


def going_on_once(browser, url: str, first: Clip, rest: Clip, pause_s: float) -> dict:
    """(4): `first`, a pause, then `rest`: taken back or not, and the persona heard meanwhile (ms)."""
    from playwright.sync_api import expect

    context, blocked = _context(browser, TRANSITIONS)
    result: dict = {}
    try:
        page, call = _practice_page(context, url)
        frame = call.element_handle().content_frame()
        page.frame_locator(CALL).first.get_by_role("button", name="Talk hands-free").click()
        frame.wait_for_function("() => window.__loud && window.__loud.length > 10", timeout=TIMEOUT_MS)
        expect(_state(page, "listening", 0)).to_be_attached(timeout=TIMEOUT_MS)
        _wait_quiet(frame)
        frame.evaluate("b64 => window.__say(b64)", first.b64)  # resolves once played
        last_word = frame.evaluate("() => window.__sayStarted") + 1000 * first.end
        frame.wait_for_function("(t) => performance.now() >= t", arg=last_word + 1000 * pause_s,
                                timeout=TIMEOUT_MS, polling=10)
        frame.evaluate("b64 => window.__say(b64)", rest.b64)
        said_at = frame.evaluate("() => window.__sayStarted")
        began, ended = said_at + 1000 * rest.onset, said_at + 1000 * rest.end
        # the turn with the rest is run, then the persona replies: to the whole answer (the page
        # still counts one answer) or to the rest alone (two)
        origin = frame.evaluate("() => performance.timeOrigin")
        reply = page.wait_for_function(  # the first reply after the rest's last word
            "(t) => window.__transitions.find((x) => x[0] === 'speaking' && x[2] > t) ?? null",
            arg=origin + ended, timeout=TIMEOUT_MS, polling=50).json_value()
        transitions = page.evaluate("() => window.__transitions")
        loud = frame.evaluate("([a, b]) => window.__loud.filter((x) => x > a && x <= b)", [last_word, began + 500])
        result["heard_ms"] = (max(loud) - min(loud) + 20) if loud else 0.0
        # cut off: the persona was heard, or the page showed the turn over before the rest began
        # (it shows states on a 0.1 s tick: a short "thinking" may show only as the reply)
        result["cut"] = result["heard_ms"] > 0 or any(
            state in ("thinking", "speaking") and last_word + origin < at < began + origin
            for state, _, at in transitions)
        result["answers"] = reply[1]
        result["taken_back"] = result["cut"] and reply[1] == 1
    finally:
        context.close()
    if blocked:
        result["note"] = f"requests beyond 127.0.0.1 were blocked: {blocked}"
    return result


def going_on(runs: int, pause_s: float) -> None:
    from playwright.sync_api import sync_playwright

    taken: list[bool] = []
    heard: list[float] = []  # the persona heard meanwhile, in the turns cut off
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        pairs = [(Clip(a, folder, f"first-{i}"), Clip(b, folder, f"rest-{i}")) for i, (a, b) in enumerate(GOING_ON)]
        server, url = _server(folder)
        try:
            with sync_playwright() as playwright:
                browser = launch_local(playwright, args=FLAGS)
                for run in range(runs):
                    first, rest = pairs[run % len(pairs)]
                    try:
                        got = going_on_once(browser, url, first, rest, pause_s)
                    except Exception as exc:  # a run that timed out: said, and the others go on
                        print(f"run {run}: failed: {type(exc).__name__}: {str(exc).splitlines()[0]}", flush=True)
                        continue
                    note = f" ({got['note']})" if "note" in got else ""
                    print(f"run {run}: “{first.text}” + {pause_s:.1f} s + “{rest.text}”: cut off {got['cut']}, "
                          f"answers counted {got['answers']}, taken back {got['taken_back']}, the persona heard "
                          f"{got['heard_ms'] / 1000:.2f} s{note}", flush=True)
                    if got["cut"]:
                        taken.append(got["taken_back"])
                        heard.append(got["heard_ms"])
                browser.close()
        finally:
            server.terminate()
            server.wait(30)
    if taken:
        print(f"\n(4) going on after a {pause_s:.1f} s pause, the turns cut off: taken back "
              f"{sum(taken)}/{len(taken)}; the persona heard meanwhile median "
              f"{statistics.median(heard) / 1000:.2f} s, max {max(heard) / 1000:.2f} s; "
              f"not heard at all in {sum(1 for h in heard if h == 0)}")


def _s(got: dict, key: str) -> str:
    return "–" if got.get(key) is None else f"{got[key] / 1000:.2f} s"


def _row(label: str, values: list[float]) -> str:
    if not values:
        return f"| {label} | 0 | – | – | – |"
    return (f"| {label} | {len(values)} | **{statistics.median(values) / 1000:.2f} s** | "
            f"{pct(values, 0.9) / 1000:.2f} s | {max(values) / 1000:.2f} s |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=8)
    parser.add_argument("--warm-up", type=int, default=1, help="runs first, not counted (the model's first decodes)")
    parser.add_argument("--going-on", action="store_true", help="(4) instead: a pause after a finished-sounding part")
    parser.add_argument("--pause", type=float, default=1.0, help="(4): the pause before the rest, seconds")
    args = parser.parse_args()
    if args.going_on:
        going_on(args.runs, args.pause)
        return
    from playwright.sync_api import sync_playwright

    opens: list[float] = []
    replies: list[float] = []
    barges: list[float] = []
    shown: list[tuple[float, float]] = []  # (the reply shown on the page, then heard after that)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        answers = [Clip(text, folder, f"answer-{i}") for i, text in enumerate(SENTENCES)]
        talk_overs = [Clip(text, folder, f"talk-over-{i}") for i, text in enumerate(TALK_OVER)]
        server, url = _server(folder)
        try:
            with sync_playwright() as playwright:
                browser = launch_local(playwright, args=FLAGS)
                for run in range(-args.warm_up, args.runs):
                    answer, talk_over = answers[run % len(answers)], talk_overs[run % len(talk_overs)]
                    try:
                        got = run_once(browser, url, answer, talk_over)
                    except Exception as exc:  # a run that timed out: said, and the others go on
                        print(f"run {run}: failed: {type(exc).__name__}: {str(exc).splitlines()[0]}", flush=True)
                        continue
                    label = "warm-up" if run < 0 else f"run {run}"
                    print(f"{label}: opened in {_s(got, 'open_ms')}; “{answer.text}” last word -> first sound "
                          f"{_s(got, 'reply_ms')} "
                          f"(shown: turn over {_s(got, 'thinking_ms')}, reply {_s(got, 'speaking_ms')}); "
                          f"“{talk_over.text}” onset -> silent {_s(got, 'barge_in_ms')}"
                          + (f" ({got['note']})" if "note" in got else ""), flush=True)
                    if run >= 0:
                        if "open_ms" in got:
                            opens.append(got["open_ms"])
                        if got.get("replied"):
                            replies.append(got["reply_ms"])
                            if got.get("speaking_ms") is not None:
                                shown.append((got["speaking_ms"], got["reply_ms"] - got["speaking_ms"]))
                        if "barge_in_ms" in got:
                            barges.append(got["barge_in_ms"])
                browser.close()
        finally:
            server.terminate()
            server.wait(30)
    print()
    print("| in the page (chromium, WebRTC on 127.0.0.1) | n | median | p90 | max |")
    print("|---|---|---|---|---|")
    print(_row("(0) the click on Talk hands-free -> the call running on the page", opens))
    print(_row("(1) last word -> the persona's first sound heard", replies))
    print(_row("(3) talk-over onset -> the persona silent", barges))
    if shown:
        print(f"\n(1) the reply on the page (its 'speaking' state, shown on the page's 0.1 s tick): median "
              f"{statistics.median(a for a, _ in shown) / 1000:.2f} s after the last word; first heard a median "
              f"{statistics.median(b for _, b in shown) / 1000:.2f} s after that")


if __name__ == "__main__":
    main()
