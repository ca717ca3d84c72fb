"""The hands-free conversation: a practice session spoken over one live connection, no button
between turns (the practice pages' "Talk hands-free"; `Coach.talk_hands_free` makes one).

    LiveConversation(opening, speak, hear, answer)   # step(mic) -> the persona's voice

The persona says its line (`speak(text)` -> 16 kHz samples, the app's text-to-speech in the
persona's voice); the microphone stays open. When the learner speaks, their turn is followed
with the live meeting's rules (`coach.meeting.follow_turn`: decoded at a pause, over after a
silence of `turn_patience`, longer inside an unfinished clause); then `answer(samples, heard)`
runs the turn through the same path as the turn-based voice answer (the recording kept first,
then scored, followed up and stored: `Coach.send_audio`) and returns the persona's next line
(`Reply`), which is spoken by itself, and so on until the session is done. If the learner
starts talking while the persona speaks, the persona stops (`coach.meeting.BargeIn`) and the
learner's turn starts there. A learner who goes on within `TAKE_BACK_S` of their last word (the
turn was taken as over at a pause inside a sentence: "We rolled it back … after the second
outage") was still in their answer: the persona's line is withheld (or stopped, if it began), the
answer is taken back (`Coach.talk_hands_free`: kept as a revision, its follow-up withdrawn) and
the whole recording, from its first word, answers again. A line of several sentences starts
sounding once its first sentence is synthesized; the rest is made in the worker while that plays
(a natural voice takes 0.1-0.4 s a line: benchmarks/README.md, "Text-to-speech").

No Streamlit here: the audio thread calls `step` (through `coach.meeting.FrameBridge`), the
page reads `now()`.
"""

from __future__ import annotations

import re
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace

import numpy as np

from coach.meeting import (
    LEARNER,
    NOT_A_TURN,
    ONSET_GAP_S,
    SPEECH_RMS,
    TURN_OVER,
    UNFINISHED_PAUSE_S,
    BargeIn,
    FrameBridge,
    Heard,
    _Turn,
    _word_probabilities,
    follow_turn,
    heard_ending,
)

PERSONA = "persona"
PREROLL_S = 0.3  # the turn's audio starts this much before the learner's first loud chunk
KEEP_S = 2.0  # between turns, this much of the microphone is kept (a turn starts with its lead-in)
SPEAKING, LISTENING, TURN, THINKING, OVER = "speaking", "listening", "turn", "thinking", "over"
SAY_AGAIN = "Sorry, I didn't catch that. Could you say it again?"
SENTENCE_GAP_S = 0.2  # between a line's first sentence and the rest, made apart
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"“])")
# the learner speaking again this soon after their last word was still in their answer: the
# longest the turn would have waited had it known the sentence was unfinished
TAKE_BACK_S = UNFINISHED_PAUSE_S


def first_sentence(line: str) -> tuple[str, str]:
    """The line's first sentence and the rest ("" when it is one sentence)."""
    parts = _SENTENCE_END.split(line.strip(), maxsplit=1)
    return parts[0], parts[1] if len(parts) > 1 else ""


@dataclass(frozen=True)
class Reply:
    """What a learner's turn brought: the persona's next line, and what was heard and stored."""

    line: str  # said next ("": nothing to say)
    heard: str = ""  # the learner's answer as stored (its transcript)
    done: bool = False  # the session is over once the line is said
    note: str = ""  # for the page: why the answer was not taken (it is asked again)


@dataclass(frozen=True)
class _Answered:
    """A turn taken as over, which the learner may still go on with."""

    samples: np.ndarray  # its recording, as answered
    speech_end: float  # the learner's last loud moment (stream seconds)
    clip_end: float  # where its recording ends
    continued: bool = False  # it went on with the answer before it (which it replaces)


@dataclass(frozen=True)
class Said:
    """A caption: a line the persona said, or a turn of the learner."""

    t: float
    speaker: str  # PERSONA or LEARNER
    text: str
    speaking: bool = False  # still being said
    cut: bool = False  # the persona stopped because the learner spoke


@dataclass(frozen=True)
class ConversationNow:
    """The conversation at one instant, for the page."""

    t: float
    captions: tuple[Said, ...]
    state: str  # SPEAKING, LISTENING, TURN, THINKING or OVER
    note: str  # the last answer's problem, if it was not taken
    started: bool  # audio has arrived
    over: bool
    answers: int  # turns answered so far


def hearing(model, options):
    """`LiveConversation`'s `hear`: the learner's turn so far decoded with the card's options (the
    turn-based answer's own decoding), as a `Heard` whose transcript is stored with the answer."""
    import time

    from coach import audio as audio_mod
    from coach.errors import AudioError
    from coach.stt import NOT_ENGLISH, assemble, decode_speech, speech_windows

    def hear(samples) -> Heard:
        if len(samples) == 0:
            return Heard("")
        windows = speech_windows(samples, options)
        if not windows:
            return Heard("")
        started = time.perf_counter()
        decoded = [decode_speech(model, window, samples, options) for window in windows]
        segments = [s for window_segments in decoded for s in window_segments]
        try:
            transcript = assemble(segments, len(samples) / audio_mod.SAMPLE_RATE, model,
                                  time.perf_counter() - started)
        except AudioError as exc:
            # not English: most often a short English fragment the recogniser could not place, so
            # the turn may go on ("…": the unfinished patience); a whole answer in another language
            # ends after it, and the answer path says what to do. No words: not a turn
            return Heard("(not in English) …") if str(exc) == NOT_ENGLISH else Heard("")
        heard = Heard(transcript.text, transcript)
        # how the turn ends is asked of the last window only (the decoder hears at most 30 s)
        last_text = " ".join(s.text.strip() for s in decoded[-1] if s.text.strip())
        ending = heard_ending(model, windows[-1].audio(samples), last_text, _word_probabilities(heard))
        return replace(heard, sentence_end=ending)

    return hear


class LiveConversation:
    """A practice session spoken hands-free: `step(mic)` takes the next 16 kHz mono chunk of the
    microphone and returns the persona's voice for the same stretch of time. `speak(text)` ->
    samples; `hear(samples)` -> `Heard` (the turn so far, for when it is over); `answer(samples,
    transcript or None)` -> `Reply` (runs the turn). With `background`, `hear` and `answer` run in
    a worker thread (the audio thread never waits); without, at once (tests)."""

    def __init__(self, opening: str, speak, hear, answer, *, background: bool = True, barge_in: bool = True,
                 rate: int = 16_000):
        self.rate = rate
        self.speak = speak
        self.hear = hear
        self.answer = answer
        self._lock = threading.Lock()
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="conversation") if background else None
        self._barge_in = BargeIn(rate) if barge_in else None
        self.samples_in = 0
        self._chunks: list[np.ndarray] = []
        self._base = 0  # the sample the kept microphone audio starts at
        self._voiced_at: float | None = None
        self._onset = 0.0
        self._turn: _Turn | None = None
        self._thinking: Future | tuple | None = None
        self._voice = np.zeros(0, dtype=np.float32)  # the persona's line being said, from `_voice_at`
        self._voice_at = 0.0
        self._rest: Future | np.ndarray | None = None  # the line's voice after its first sentence
        self._closing = False
        self.state = SPEAKING
        self.note = ""
        self.answers = 0
        self.captions: list[Said] = []
        # (kind, time) for the benchmarks: "persona" when a line starts sounding, "turn over",
        # "barge-in" (its time is when the persona fell silent; `barge_ins` has the onsets)
        self.events: list[tuple[str, float]] = []
        self.barge_ins: list[tuple[float, float]] = []  # (the learner's onset, the persona silent)
        # going on with an answer (TAKE_BACK_S): the turn being run, the last one answered, the
        # learner's voice heard while the turn runs, the reply withheld for it
        self._running: _Answered | None = None
        self._answered: _Answered | None = None
        self._going_on = BargeIn(rate)
        self._went_on_at: float | None = None
        self._withheld: tuple[Reply, np.ndarray | None, Future | np.ndarray | None] | None = None
        self._continues: _Answered | None = None  # the turn followed now goes on with this answer
        self._same_caption = False  # ... and its words go on in the answer's own caption
        self._prefix = ""  # that caption's words before the turn went on
        voice, rest = self._voiced(opening)
        self._say(opening, voice, 0.0, rest)

    @property
    def t(self) -> float:
        return self.samples_in / self.rate

    @property
    def over(self) -> bool:
        return self.state == OVER

    # -- the audio thread -------------------------------------------------------------------

    def step(self, mic):
        mic = np.asarray(mic, dtype=np.float32).reshape(-1)
        with self._lock:
            now, n = self.t, mic.size
            dt = n / self.rate
            self._chunks.append(mic)
            loud = bool(n) and float(np.sqrt(np.mean(np.square(mic, dtype=np.float64)))) >= SPEECH_RMS
            if loud:
                if self._voiced_at is None or now - self._voiced_at >= ONSET_GAP_S:
                    self._onset = now
                self._voiced_at = now + dt
            out = np.zeros(n, dtype=np.float32)
            if self.state == SPEAKING:
                out = self._speaking(mic, now, n)
            if self.state == LISTENING and loud:
                self._start_turn(self._onset)
            if self.state == TURN:
                self._following(now + dt, loud)
            if self.state == THINKING:
                self._hear_going_on(mic, now)
                self._waiting(now + dt)
            if self.state not in (TURN, THINKING):
                self._trim()
            self.samples_in += n
            return out

    def _speaking(self, mic, now: float, n: int):
        offset = int(round((now - self._voice_at) * self.rate))
        if self._barge_in is not None and not self._closing and self._barge_in.hear(mic, now) is not None:
            began = self._barge_in.onset if self._barge_in.onset is not None else now
            self.barge_ins.append((began, now))
            self.events.append(("barge-in", now))
            last = self.captions[-1]
            self.captions[-1] = Said(last.t, last.speaker, last.text, False, cut=True)
            self._rest = None
            answered = self._answered
            self._start_turn(began)
            if answered is not None and began - answered.speech_end <= TAKE_BACK_S:
                self._continues = answered
                self.events.append(("taken back", now))
            return np.zeros(n, dtype=np.float32)
        if offset >= len(self._voice):
            if not self._append_rest(offset):
                self._done_speaking()
            return np.zeros(n, dtype=np.float32)
        piece = self._voice[max(0, offset):offset + n]
        out = np.zeros(n, dtype=np.float32)
        out[:piece.size] = piece
        return out

    def _done_speaking(self) -> None:
        last = self.captions[-1]
        self.captions[-1] = Said(last.t, last.speaker, last.text, False, last.cut)
        self._answered = None  # its line heard whole: what the learner says next answers it
        self.state = OVER if self._closing else LISTENING
        if self._barge_in is not None:
            self._barge_in.reset()

    def _voiced(self, line: str):
        """The line's voice to start with, and the rest of it: a Future in the worker when the
        line has more than one sentence (None when there is no rest; without a worker, the
        whole line at once)."""
        first, rest = first_sentence(line)
        if not rest or self._pool is None:
            return self.speak(line), None
        return self.speak(first), self._pool.submit(self.speak, rest)

    def _append_rest(self, offset: int) -> bool:
        """At the end of the voice so far: the rest of the line appended once it is made (after
        SENTENCE_GAP_S, or later if it came late). False when nothing more is coming."""
        rest = self._rest
        if isinstance(rest, Future):
            if not rest.done():
                return True  # silence until it is ready
            try:
                rest = rest.result()
            except Exception:  # noqa: BLE001 - the rest could not be said: the line ends here
                rest = None
        self._rest = None
        if rest is None or not len(rest):
            return False
        gap = offset - len(self._voice) + int(SENTENCE_GAP_S * self.rate)
        self._voice = np.concatenate([self._voice, np.zeros(gap, dtype=np.float32),
                                      np.asarray(rest, dtype=np.float32).reshape(-1)])
        return True

    def _say(self, text: str, voice, now: float, rest: Future | np.ndarray | None = None) -> None:
        self._voice = np.asarray(voice, dtype=np.float32).reshape(-1)
        self._rest = rest
        self._voice_at = now
        self.captions.append(Said(round(now, 2), PERSONA, text, True))
        self.events.append(("persona", now))
        self.state = SPEAKING

    def _start_turn(self, start: float, *, same_caption: bool = False) -> None:
        self._turn = _Turn(f"answer-{self.answers + 1}", start, max(start, self._voiced_at or start))
        self._answered = self._continues = None
        self._same_caption = same_caption
        self._prefix = ""
        if same_caption:  # going on before the persona said anything: the same caption grows
            self._prefix = self.captions[self._learner_index()].text
        else:
            self.captions.append(Said(round(start, 2), LEARNER, "", True))
        self.state = TURN

    def _hear_going_on(self, mic, now: float) -> None:
        """While the turn just over is run: the learner speaking again within TAKE_BACK_S of
        their last word (held as long as a barge-in) goes on with it."""
        running = self._running
        if running is None or self._went_on_at is not None:
            return
        began = self._going_on.hear(mic, now)
        if began is not None and began - running.speech_end <= TAKE_BACK_S:
            self._went_on_at = began

    def _following(self, now: float, loud: bool) -> None:
        turn = self._turn
        assert turn is not None
        if loud:
            turn.speech_end = self._voiced_at or now
        outcome = follow_turn(turn, now, self.hear, self._pool, self._audio)
        self._caption_learner(self._with_prefix(turn.text), speaking=True)
        if outcome == NOT_A_TURN:  # a cough, a click: still listening
            continues = self._continues
            self._turn = self._continues = None
            withheld, self._withheld = self._withheld, None
            if self._same_caption:
                self._caption_learner(self._prefix, speaking=False)
            else:
                self.captions.pop()
            self.state = LISTENING
            if withheld is not None:  # it was not the learner going on: the line is said after all
                self._answered = continues
                reply, voice, rest = withheld
                self._say_reply(reply, voice, rest, now)
        elif outcome == TURN_OVER:
            self.events.append(("turn over", now))
            known = turn.text_for == turn.speech_end and turn.clip is not None
            # over on the longest patience while the decode of the whole turn still runs (a busy
            # machine): that decode's transcript is the answer's, not made a second time
            pending = (turn.decoding if not known and isinstance(turn.decoding, Future)
                       and turn.decoded_for == turn.speech_end and turn.clip is not None else None)
            start, end = (turn.clip if (known or pending is not None) and turn.clip
                          else (max(0.0, turn.start - PREROLL_S), turn.speech_end + 0.2))
            heard = turn.heard if known else None
            transcript = getattr(heard, "transcript", None)
            samples = self._audio(start, end)
            continues, self._continues = self._continues, None
            if continues is not None:  # the whole answer, from its first word: decoded afresh
                samples = np.concatenate([continues.samples, self._audio(continues.clip_end, end)])
                transcript = pending = None
                self._withheld = None
            self._running = _Answered(samples, turn.speech_end, end, continued=continues is not None)
            self._going_on.reset()
            self._went_on_at = None
            self._turn = None
            self.state = THINKING
            self._caption_learner(self._with_prefix(turn.text), speaking=False)
            if self._pool is not None:
                self._thinking = self._pool.submit(self._reply, samples, transcript, pending, continues is not None)
            else:
                self._thinking = self._reply(samples, transcript, None, continues is not None)

    def _reply(self, samples, transcript, pending: Future | None = None,
               continued: bool = False) -> tuple[Reply, np.ndarray | None, Future | None]:
        """In the worker: the turn run (`answer`), then the persona's next line synthesized.
        `pending`: the decode of exactly `samples`, submitted to the same one-worker pool before
        this (so done by now), whose transcript is used. `continued`: the learner went on with
        the answer before (`answer(samples, None, continued=True)` takes it back first)."""
        if pending is not None:
            try:
                transcript = getattr(pending.result(), "transcript", None)
            except Exception:  # noqa: BLE001 - a failed decode: the answer path transcribes it
                transcript = None
        try:
            reply = self.answer(samples, transcript, continued=True) if continued else self.answer(samples, transcript)
        except Exception as exc:  # noqa: BLE001 - the conversation goes on: the learner is asked again
            reply = Reply(SAY_AGAIN, note=str(exc) or type(exc).__name__)
        voice = rest = None
        if reply.line:
            try:
                voice, rest = self._voiced(reply.line)
            except Exception as exc:  # noqa: BLE001 - no voice: the line is shown, not said
                reply = Reply(reply.line, reply.heard, reply.done, reply.note or str(exc))
        return reply, voice, rest

    def _waiting(self, now: float) -> None:
        thinking = self._thinking
        if isinstance(thinking, Future):
            if not thinking.done():
                return
            thinking = thinking.result()
        assert thinking is not None
        reply, voice, rest = thinking
        self._thinking = None
        self.note = reply.note
        running, self._running = self._running, None
        continued = running is not None and running.continued
        if not reply.note and not continued:
            self.answers += 1
        if reply.heard and (self._same_caption or not continued):
            self._caption_learner(reply.heard, speaking=False)
        self._closing = reply.done
        can_go_on = not reply.note and not reply.done and running is not None
        if can_go_on and self._went_on_at is not None:  # the learner went on: the line is withheld
            self._withheld = (reply, voice, rest)
            self._start_turn(self._went_on_at, same_caption=True)
            self._continues = running
            self.events.append(("taken back", now))
            return
        self._answered = running if can_go_on else None
        self._say_reply(reply, voice, rest, now)

    def _say_reply(self, reply: Reply, voice, rest, now: float) -> None:
        if voice is not None and len(voice):
            self._say(reply.line, voice, now, rest)
        else:
            if reply.line:
                self.captions.append(Said(round(now, 2), PERSONA, reply.line))
            self.state = OVER if reply.done else LISTENING

    def _learner_index(self) -> int:
        return next(i for i in range(len(self.captions) - 1, -1, -1) if self.captions[i].speaker == LEARNER)

    def _caption_learner(self, text: str, *, speaking: bool) -> None:
        index = self._learner_index()
        old = self.captions[index]
        self.captions[index] = Said(old.t, LEARNER, text or old.text, speaking)

    def _with_prefix(self, text: str) -> str:
        """The words of the turn followed now as its caption shows them (after the answer's own,
        when it goes on in the same caption)."""
        return f"{self._prefix} {text}".strip() if self._prefix and text else (text or self._prefix)

    def _audio(self, start: float, end: float):
        samples = np.concatenate(self._chunks) if self._chunks else np.zeros(0, dtype=np.float32)
        self._chunks = [samples]
        first = max(0, int(start * self.rate) - self._base)
        return samples[first:max(first, int(end * self.rate) - self._base)]

    def _trim(self) -> None:
        kept = sum(c.size for c in self._chunks)
        keep = int(KEEP_S * self.rate)
        if kept > 2 * keep:
            samples = np.concatenate(self._chunks)
            self._base += samples.size - keep
            self._chunks = [samples[-keep:]]

    # -- the page ---------------------------------------------------------------------------

    def now(self) -> ConversationNow:
        with self._lock:
            return ConversationNow(round(self.t, 2), tuple(self.captions), self.state, self.note,
                                   self.samples_in > 0, self.over, self.answers)

    def bridge(self) -> FrameBridge:
        """The WebRTC audio callback (one per connection)."""
        return FrameBridge(self)

    def close(self) -> None:
        """The call is over: an answer being run is finished (and stored) first."""
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)


class Call:
    """A hands-free call as the page holds it before anyone talks: its WebRTC callback exists from
    the first view of the page, but the conversation (the persona's voice synthesized, the session
    read) is made only when the learner starts the call (`live` set then); until then silence goes
    out and the microphone is dropped. So a page where nobody talks hands-free does no work for it."""

    def __init__(self, rate: int = 16_000):
        self.rate = rate
        self.live: LiveConversation | None = None

    def step(self, mic):
        live = self.live
        return live.step(mic) if live is not None else np.zeros(len(mic), dtype=np.float32)

    def bridge(self) -> FrameBridge:
        """The WebRTC audio callback (one per connection)."""
        return FrameBridge(self)
