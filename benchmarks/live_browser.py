"""Stop -> scorecard and follow-up on screen, in a real browser, for the live recorder.

    .venv/bin/python benchmarks/live_browser.py [--lengths 10 60 120] [--pause 1.5]
    .venv/bin/python benchmarks/live_browser.py --start-page [--runs 5] [--plain-streamlit]

Starts the app (streamlit, a temporary data dir, no LLM) and Debian's chromium with a fake
microphone that plays an espeak-ng answer of each length (the sentences of
benchmarks/live.py with pauses, after 2 s of silence); clicks Record, waits until `--pause` s
after the last word, clicks Stop and times until the scorecard ("criteria met"), the follow-up
and the page's last element are on screen. Needs chromium, espeak-ng and playwright.
`--start-page` instead times the Start page: from `goto` until its Start button is on screen, the
first visit right after the server is up (the app's first run: the library, the store) and then
`--runs` fresh browser visits (a new session each, as a learner opening the app). Asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
import wave
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.live import RATE, SENTENCE_PAUSE_SECONDS, answer_of, sentence_audio  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
LEAD_SECONDS = 2.0


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _write_wav(path: Path, samples: np.ndarray) -> None:
    pcm = (np.clip(samples, -1, 1) * 32767).astype("<i2")
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(RATE)
        out.writeframes(pcm.tobytes())


def _server(folder: Path, plain_streamlit: bool = False):
    """The app as the README serves it (`coach serve`), or with `plain_streamlit` as `streamlit run`
    (without the imports `coach serve` does while the server starts)."""
    port = _free_port()
    env = {**os.environ, "COACH_DATA_DIR": str(folder / "data")}
    env.pop("COACH_LLM_MODEL", None)
    serve = ([str(ROOT / ".venv/bin/streamlit"), "run", "app.py"] if plain_streamlit
             else [str(ROOT / ".venv/bin/coach"), "serve"])
    process = subprocess.Popen(
        [*serve, "--server.address", "127.0.0.1",
         "--server.port", str(port), "--server.headless", "true", "--browser.gatherUsageStats", "false"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    for _ in range(120):
        try:
            urllib.request.urlopen(f"{url}/_stcore/health", timeout=2)
            return process, url
        except OSError:
            time.sleep(0.5)
    process.kill()
    sys.exit("the app server did not start")


def measure(url: str, audio: Path, seconds: float, pause: float = 1.5) -> float:
    """Seconds from the Stop click, `pause` s after the answer's last word, until the
    scorecard and the follow-up are on screen."""
    from playwright.sync_api import sync_playwright

    flags = ["--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream",
             f"--use-file-for-fake-audio-capture={audio}%noloop", "--allow-loopback-in-peer-connection",
             "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=flags)
        page = browser.new_context(permissions=["microphone"]).new_page()
        page.set_default_timeout(300_000)
        page.goto(f"{url}/interview?card=gpu-cluster-optimization")
        page.get_by_role("button", name="Start").click()
        page.get_by_text("Dr. Seo-yeon Han:").first.wait_for()
        recorder = page.frame_locator('iframe[title*="webrtc"]').first
        recorder.get_by_role("button", name="Record").click()
        page.wait_for_function("() => document.body.innerText.includes('Listening')")
        # the answer ends with a sentence pause; the received audio trails by ~0.6 s
        time.sleep(LEAD_SECONDS + seconds - SENTENCE_PAUSE_SECONDS + pause)
        turns = page.locator('[data-testid="stChatMessage"]').count()
        started = time.perf_counter()
        recorder.get_by_role("button", name="Stop").click()
        page.wait_for_function(
            """(turns) => {
                const text = document.body.innerText;
                return document.querySelectorAll('[data-testid="stChatMessage"]').length >= turns + 2
                    && text.includes("criteria met") && !text.includes("Listening")
                    && text.includes("Correct the transcript and re-score");
            }""", arg=turns, polling=50)  # not every frame: the page and the server share 2 cores
        took = time.perf_counter() - started
        browser.close()
    return took


def start_page(url: str) -> float:
    """Seconds from opening the app's Start page in a new browser until its Start button shows."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True,
                                             args=["--no-sandbox", "--disable-gpu", "--no-first-run"])
        page = browser.new_page()
        page.set_default_timeout(120_000)
        started = time.perf_counter()
        page.goto(url)
        page.get_by_role("button", name="Start").first.wait_for()
        took = time.perf_counter() - started
        browser.close()
    return took


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--start-page", action="store_true", help="time the Start page instead")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--plain-streamlit", action="store_true",
                        help="serve with `streamlit run app.py` instead of `coach serve` (for comparison)")
    parser.add_argument("--lengths", type=float, nargs="+", default=[10, 60, 120])
    parser.add_argument("--pause", type=float, default=1.5,
                        help="seconds from the answer's last word to the Stop click")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        server, url = _server(folder, args.plain_streamlit)
        if args.start_page:
            try:
                first = start_page(url)
                later = sorted(start_page(url) for _ in range(args.runs))
                print(f"Start page: first visit after the server is up {first:.2f} s; "
                      f"then median {later[len(later) // 2]:.2f} s, worst {later[-1]:.2f} s of {args.runs}")
            finally:
                server.terminate()
                server.wait(30)
            return
        sentences = sentence_audio(folder)
        try:
            measure(url, *_answer(folder, sentences, 5))  # loads the model, warms the page
            print(f"Stop clicked {args.pause:g} s after the last word")
            print("| answer | Stop click -> scorecard + follow-up on screen |")
            print("|---|---|")
            for length in args.lengths:
                path, seconds = _answer(folder, sentences, length)
                took = measure(url, path, seconds, args.pause)
                print(f"| {length:g} s ({seconds:.0f} s) | **{took:.2f} s** |", flush=True)
        finally:
            server.terminate()
            server.wait(30)


def _answer(folder: Path, sentences, length: float) -> tuple[Path, float]:
    """The fake microphone's file, and how long the answer in it lasts (whole sentences:
    a little over `length`; Stop is clicked after it, not in its last sentence)."""
    path = folder / f"answer-{length:g}.wav"
    answer = answer_of(length, sentences)
    samples = np.concatenate([np.zeros(int(LEAD_SECONDS * RATE), dtype=np.float32), answer,
                              np.zeros(RATE, dtype=np.float32)])
    _write_wav(path, samples)
    return path, len(answer) / RATE


if __name__ == "__main__":
    main()
