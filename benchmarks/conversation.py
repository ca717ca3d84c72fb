"""Hands-free conversation timing, through the core path (coach.conversation via
`Coach.talk_hands_free`, the bundled tiny.en, the app's text-to-speech: `COACH_TTS_VOICE` picks
it; a fresh voice cache per process, and with `--uncached` per run). Prints figures, asserts
nothing.

    .venv/bin/python benchmarks/conversation.py [--runs 12] [--uncached]   # (a) and (b)
    .venv/bin/python benchmarks/conversation.py --pauses dev        # (c) on the dev half
    .venv/bin/python benchmarks/conversation.py --pauses test       # (c) on the test half (once)
    .venv/bin/python benchmarks/conversation.py --pauses fresh      # (c) a second writer's set, held out

(a) and (b) in the real page (chromium, WebRTC): benchmarks/conversation_browser.py.

(a) The learner's last word -> the persona's first outgoing sound, for complete sentences: a
    practice session (status-update), the persona's opening line played out, then an espeak-ng
    answer fed as 20 ms microphone chunks at real-time pace (a thread sleeps to the clock); the
    turn ends by itself, is transcribed, stored, scored and followed up, and the next line is
    synthesized; the time is counted on the microphone's clock (what the browser's frames see).
(b) Barge-in: one second into the persona's next line the learner starts talking (espeak-ng);
    the time from the learner's first loud chunk to the persona's audio falling silent for good.
(c) Pauses (tests/corpus/pauses/): for each unfinished item, `before`, a pause of 1.0, 1.5 and
    2.0 s, then `after`: cut off when the turn ended during the pause. For complete items: the
    time from the end of speech to the end of the turn. Decoded at once (no worker thread), so the
    turn ends as early as the rules allow: a conservative count of cut-offs (a real decode only
    ends a turn later). Each turn cut off is played again with the persona saying a 3 s line
    after it: taken back when the learner going on (`after`) made it one whole answer
    (coach.conversation TAKE_BACK_S), and how long the line sounded before it stopped. The ids of
    the items cut off at the longest pause are printed last (read them for the dev half only).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

RATE = 16_000
CHUNK = 320  # 20 ms
SENTENCES = [
    "Yesterday I finished the login page.",
    "Today I am writing the tests for the new scheduler.",
    "I need a review from the design team by Friday.",
    "The migration is done and the old cluster is switched off.",
    "We cut the training time from ten hours to six.",
    "Next week I will move the last two teams.",
    "The blocker is the missing access to the storage bucket.",
    "I fixed the memory leak in the data loader.",
    "Our error rate went down to half a percent.",
    "I will share the dashboard after this meeting.",
    "The load test starts tonight at nine.",
    "I am waiting for the vendor to send the new nodes.",
]
TALK_OVER = ["Sorry, can I ask one thing?", "Wait, one moment please.", "Sorry to cut in here.",
             "Can I add something?"]


def spoken(text: str) -> np.ndarray:
    from tests.speech_frames import spoken as espeak

    return espeak(text)


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


class Clock:
    """Feeds a conversation 20 ms chunks, at real-time pace when `real_time`; keeps what went out."""

    def __init__(self, talk, real_time: bool):
        self.talk = talk
        self.real_time = real_time
        self.started = time.perf_counter()
        self.out: list[np.ndarray] = []

    def feed(self, mic: np.ndarray) -> None:
        for index in range(mic.size // CHUNK):
            if self.real_time:
                due = self.started + self.talk.t
                delay = due - time.perf_counter()
                if delay > 0:
                    time.sleep(delay)
                else:
                    self.started -= delay  # fell behind (a busy machine): the clock moves with it
            self.out.append(self.talk.step(mic[index * CHUNK:(index + 1) * CHUNK]))

    def silence(self, seconds: float) -> None:
        self.feed(np.zeros(int(seconds * RATE), dtype=np.float32))

    def until(self, test, limit_s: float = 30.0) -> bool:
        for _ in range(int(limit_s / 0.02)):
            if test():
                return True
            self.silence(0.02)
        return False

    def first_sound_after(self, t: float) -> float | None:
        first = int(t * RATE) // CHUNK
        for index in range(first, len(self.out)):
            if np.abs(self.out[index]).max() > 1e-4:
                return index * CHUNK / RATE
        return None

    def silent_for_good_after(self, t: float) -> float:
        first = int(t * RATE) // CHUNK
        last = first
        for index in range(first, len(self.out)):
            if np.abs(self.out[index]).max() > 1e-4:
                last = index + 1
        return last * CHUNK / RATE


def coach_for(folder: Path):
    os.environ["COACH_DATA_DIR"] = str(folder)
    os.environ.pop("COACH_LLM_MODEL", None)
    from coach.config import load_settings
    from coach.library import load_library
    from coach.practice import Coach
    from coach.store import Store

    settings = dataclasses.replace(load_settings(), data_dir=folder)  # its own voice cache too
    library = load_library(settings.content_dirs, settings.persona_dirs)
    return Coach.of(library, Store(f"sqlite:///{folder / 'bench.db'}"), settings)


def latency_and_barge_in(runs: int, uncached: bool) -> None:
    from tests.speech_frames import onset

    with tempfile.TemporaryDirectory() as folder:
        coach = coach_for(Path(folder))
        model = coach.speech_model()
        coach.prepare_speech()
        latencies, turn_ends, barges = [], [], []
        for run in range(runs):
            view = coach.start("status-update")
            talk = coach.talk_hands_free(view.id, model)
            clock = Clock(talk, real_time=False)
            clock.until(lambda t=talk: t.state == "listening")  # the opening, played out at once
            clock.real_time = True
            clock.started = time.perf_counter() - talk.t
            clock.silence(0.5)
            if uncached:  # the persona's next line is synthesized afresh, as the first time it is said
                shutil.rmtree(coach.settings.tts_cache_dir, ignore_errors=True)
            answer = spoken(SENTENCES[run % len(SENTENCES)])
            clock.feed(answer)
            last_word = talk.t
            if not clock.until(lambda t=talk: t.state == "speaking" and len(t.captions) >= 3, 30.0):
                print(f"run {run}: no reply ({talk.state}, note {talk.note!r})")
                talk.close()
                continue
            clock.silence(0.1)
            first = clock.first_sound_after(last_word)
            ended = next(t for kind, t in talk.events if kind == "turn over")
            if first is not None:
                latencies.append(first - last_word)
                turn_ends.append(ended - last_word)
            # (b) one second into the reply, the learner talks over it
            clock.silence(1.0)
            if talk.state == "speaking":
                over = spoken(TALK_OVER[run % len(TALK_OVER)])
                began = talk.t + onset(over)
                clock.feed(over)
                barges.append(clock.silent_for_good_after(began) - began)
            talk.close()
            print(f"run {run}: last word -> first sound {latencies[-1] if latencies else float('nan'):.2f} s "
                  f"(turn over after {ended - last_word:.2f} s)"
                  + (f", barge-in silent after {barges[-1]:.2f} s" if barges else ""), flush=True)
    print()
    if latencies:
        print(f"(a) last word -> persona's first sound, complete sentences, n={len(latencies)}: "
              f"median {statistics.median(latencies):.2f} s, p90 {pct(latencies, 0.9):.2f} s, "
              f"max {max(latencies):.2f} s")
        print(f"    of which waiting for the end of the turn: median {statistics.median(turn_ends):.2f} s")
    if barges:
        print(f"(b) learner's onset -> persona silent, n={len(barges)}: median {statistics.median(barges):.2f} s, "
              f"max {max(barges):.2f} s")


def pauses(half: str) -> None:
    from coach.config import load_settings
    from coach.conversation import LiveConversation, Reply, hearing
    from coach.stt import DecodeOptions, load_model

    path = ROOT / "tests" / "corpus" / "pauses" / f"pauses.{half}.jsonl"
    items = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    model = load_model(load_settings())
    hear = hearing(model, DecodeOptions())

    def turn_end(parts: list[np.ndarray]) -> tuple[list[float], float]:
        """When the turn ended (stream seconds), and where each part ended."""
        talk = LiveConversation("", lambda _t: np.zeros(0, dtype=np.float32), hear,
                                lambda _s, _t: Reply("", done=True), background=False, barge_in=False)
        talk.state = "listening"
        clock = Clock(talk, real_time=False)
        ends = []
        for part in parts:
            clock.feed(part)
            ends.append(talk.t)
        clock.until(lambda: talk.state != "listening" and talk.state != "turn", 6.0)
        over = [t for kind, t in talk.events if kind == "turn over"]
        return ends, (over[0] if over else float("inf"))

    line = np.full(int(3 * RATE), 0.05, dtype=np.float32)  # the persona's next line: 3 s of sound

    def going_on(parts: list[np.ndarray]) -> tuple[bool, float]:
        """A turn cut off, with the persona saying a line after it: whether the learner going on
        took the answer back (one whole answer), and how long the line sounded before it stopped."""
        calls: list[bool] = []

        def answer(_samples, _transcript, continued: bool = False) -> Reply:
            calls.append(continued)
            return Reply("What happened next?")

        talk = LiveConversation("", lambda text: line if text else np.zeros(0, dtype=np.float32), hear, answer,
                                background=False)
        talk.state = "listening"
        clock = Clock(talk, real_time=False)
        for part in parts:
            clock.feed(part)
        clock.until(lambda: len(calls) >= 2, 6.0)
        over = next(t for kind, t in talk.events if kind == "turn over")
        sounded = clock.first_sound_after(over)
        heard_for = clock.silent_for_good_after(over) - sounded if sounded is not None else 0.0
        return any(calls[1:]), heard_for

    cut = {1.0: 0, 1.5: 0, 2.0: 0}
    taken_back = {pause: 0 for pause in cut}
    talked_over: list[float] = []
    cut_at_longest: list[str] = []
    unfinished = [i for i in items if not i["complete"]]
    for item in unfinished:
        before, after = spoken(item["before"]), spoken(item["after"])
        for pause in cut:
            parts = [np.zeros(int(0.3 * RATE), dtype=np.float32), before,
                     np.zeros(int(pause * RATE), dtype=np.float32), after]
            ends, over = turn_end(parts)
            if over < ends[2] - 0.01:  # ended before the rest of the sentence began
                cut[pause] += 1
                whole, heard_for = going_on(parts)
                taken_back[pause] += whole
                talked_over.append(heard_for)
                if pause == max(cut):
                    cut_at_longest.append(item["id"])
    waits = []
    for item in (i for i in items if i["complete"]):
        ends, over = turn_end([np.zeros(int(0.3 * RATE), dtype=np.float32), spoken(item["before"])])
        waits.append(over - ends[1])
    print(f"(c) pauses, {half} half: {len(unfinished)} unfinished, {len(waits)} complete")
    for pause, count in cut.items():
        print(f"    pause {pause:.1f} s inside an unfinished sentence: cut off {count}/{len(unfinished)} "
              f"({100 * count / max(1, len(unfinished)):.1f} %); of those, taken back by going on "
              f"{taken_back[pause]}/{count}")
    if talked_over:
        print(f"    a cut-off turn's persona line sounded before it stopped: median "
              f"{statistics.median(talked_over):.2f} s, max {max(talked_over):.2f} s (n={len(talked_over)})")
    if waits:
        print(f"    complete sentence, end of speech -> end of turn: median {statistics.median(waits):.2f} s, "
              f"p90 {pct(waits, 0.9):.2f} s (decode time not included)")
        longer = sum(1 for wait in waits if wait > 1.0)
        print(f"    complete sentences waiting longer than the short patience: {longer}/{len(waits)} "
              f"({100 * longer / len(waits):.0f} %)")
    print(f"    cut off at a {max(cut):.1f} s pause: {' '.join(cut_at_longest) or 'none'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=12)
    parser.add_argument("--pauses", choices=["dev", "test", "fresh"])
    parser.add_argument("--uncached", action="store_true",
                        help="(a) with the persona's next line never said before (its voice made after the turn)")
    args = parser.parse_args()
    if args.pauses:
        pauses(args.pauses)
    else:
        latency_and_barge_in(args.runs, args.uncached)


if __name__ == "__main__":
    threading.current_thread().name = "benchmark"
    main()
