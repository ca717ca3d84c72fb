"""Playing a meeting scene against a recording of the learner (silence where they listen).

    play(scene, personas, audio, settings) -> dict   # the `coach meeting --scene` JSON

1. The scene's timeline (`coach.scenes.timeline`): when each persona line is said and when
   each moment is open.
2. Where the learner spoke: Silero VAD (bundled with faster-whisper, as in `coach.stt`) finds
   the stretches of speech; each is transcribed on its own with the same engine.
3. Each stretch goes to the moment whose window it starts in (a little early counts:
   `EARLY_S`); a stretch that continues the learner's speech after a short pause (`PAUSE_S`)
   goes with it, so a pause inside a sentence does not lose its end.
4. Each moment is judged: `waited_s` (opening → the learner's first word), `overlap_s` (the
   learner's speech while a persona was talking), `said`, and the criteria through the card
   scorer, with evidence quoted from `said`.

Steps 1, 3 and 4 are pure functions of times and text (`assign`, `overlap_seconds`, `judge`).
`judge_samples` is steps 2-4 for a timeline as it was played: `play` gives it the scene's own,
the app's live meeting (`LiveMeeting`) the one it played, held and moved on by the learner's turns.

`LiveMeeting` plays a scene live (the app's Meeting page): microphone chunks in, the personas'
voices out, chunk by chunk. At each moment it listens; once the learner has spoken it waits for
the end of their turn (a silence of `turn_patience`: longer inside an unfinished clause than
after a complete sentence), holding the next persona line back while they talk and bringing it
forward when they are done. The scenes' personas do not stop when the learner talks over them:
some moments are about that; `barge_in=True` makes them stop (`BargeIn`), as the hands-free
conversation's persona does (coach.conversation).

`personas_audio(scene, personas)` is the other side of the call: every persona line spoken with
its persona's voice (coach.tts) from its time on, a dropout as silence where its `[ … ]` mark
stands, as one WAV. Played in headphones while the learner records, it makes a recording that
`play` can judge.
"""

from __future__ import annotations

import re
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from coach.scenes import DROPOUT_MARK, Scene, TimedLine, Window, timeline

if TYPE_CHECKING:
    from coach.content.schema import Persona

LEARNER = "learner"
EARLY_S = 0.5  # speech that starts this much before a window opens still counts for it
PAUSE_S = 2.5  # a stretch starting within this of the learner's last one continues it
VAD_MIN_SILENCE_MS = 500  # a silence this long ends a stretch of the learner's speech
DECODE_PAD_S = 0.2  # audio around a stretch given to the decoder, so its edges are not clipped


@dataclass(frozen=True)
class Stretch:
    """One stretch of the learner's speech, in seconds of the recording."""

    start: float
    end: float
    text: str = ""
    first_word: float | None = None  # when its first transcribed word starts

    @property
    def speech_start(self) -> float:
        return self.first_word if self.first_word is not None else self.start


# --- pure timing -------------------------------------------------------------------------------


def _merged(intervals: list[tuple[float, float]]) -> list[tuple[float, float]]:
    merged: list[tuple[float, float]] = []
    for start, end in sorted(intervals):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def overlap_seconds(start: float, end: float, lines: list[TimedLine]) -> float:
    """How long [start, end] overlaps any persona line (lines that overlap each other count once)."""
    total = 0.0
    for line_start, line_end in _merged([(line.start, line.end) for line in lines]):
        total += max(0.0, min(end, line_end) - max(start, line_start))
    return total


def assign(stretches: list[Stretch], windows: list[Window]) -> dict[str, list[Stretch]]:
    """The stretches each moment gets: those starting in its window (from `EARLY_S` before it
    opens to when it closes; the earliest open window wins), and those that continue one of
    them after a pause of at most `PAUSE_S`. The others belong to no moment."""
    taken: dict[str, list[Stretch]] = {w.id: [] for w in windows}
    last: tuple[str, float] | None = None  # the moment of the learner's last stretch, and its end
    for stretch in sorted(stretches, key=lambda s: s.start):
        start = stretch.speech_start
        home = next((w.id for w in sorted(windows, key=lambda w: w.opens)
                     if w.opens - EARLY_S <= start <= w.closes), None)
        if home is None and last is not None and start - last[1] <= PAUSE_S:
            home = last[0]
        if home is None:
            last = None
            continue
        taken[home].append(stretch)
        last = (home, stretch.end)
    return taken


def judge(scene: Scene, lines: list[TimedLine], windows: list[Window], stretches: list[Stretch]) -> dict:
    """The `coach meeting --scene` result for these stretches of the learner's speech."""
    import scoring

    taken = assign(stretches, windows)
    moments = []
    for window in windows:
        mine = taken[window.id]
        said = " ".join(s.text for s in mine if s.text).strip()
        waited = None if not mine else round(max(0.0, mine[0].speech_start - window.opens), 2)
        overlap = sum(overlap_seconds(s.speech_start, s.end, lines) for s in mine)
        moment = scene.moment(window.id)
        result = scoring.score(scene.card_for(moment), moment.id, said) if said else None
        criteria = {
            cid: {"met": bool(result and result.criteria[cid].met),
                  "evidence": list(result.criteria[cid].evidence) if result else []}
            for cid in moment.criteria
        }
        moments.append({"id": window.id, "t": window.opens, "waited_s": waited,
                        "overlap_s": round(overlap, 2), "said": said, "criteria": criteria})
    events = [{"t": line.start, "speaker": line.speaker, "text": line.text} for line in lines]
    events += [{"t": round(s.speech_start, 2), "speaker": LEARNER, "text": s.text} for s in stretches if s.text]
    events.sort(key=lambda e: (e["t"], e["speaker"] == LEARNER))
    return {"scene": scene.id, "events": events, "moments": moments}


def scene_summary(scene: Scene, personas: dict[str, Persona]) -> dict:
    """A scene for `coach meeting --list`: its moments with their windows and expected move."""
    _, windows = timeline(scene, personas)
    return {
        "id": scene.id,
        "title": scene.title,
        "title_ko": scene.title_ko,
        "personas": list(scene.personas),
        "moments": [
            {"id": w.id, "label": m.label, "t": w.opens, "closes": w.closes, "move": m.move,
             "criteria": list(m.criteria)}
            for w, m in zip(windows, scene.moments, strict=True)
        ],
    }


# --- audio ---------------------------------------------------------------------------------------


def speech_spans(samples) -> list[tuple[float, float]]:
    """Where the learner spoke (seconds), by Silero VAD without padding, so that the times are
    the speech's own."""
    from faster_whisper.vad import VadOptions, get_speech_timestamps

    from coach import audio as audio_mod

    rate = audio_mod.SAMPLE_RATE
    vad = VadOptions(min_silence_duration_ms=VAD_MIN_SILENCE_MS, speech_pad_ms=0, max_speech_duration_s=25.0)
    return [(s["start"] / rate, s["end"] / rate) for s in get_speech_timestamps(samples, vad, sampling_rate=rate)]


def transcribe_stretches(samples, spans: list[tuple[float, float]], model, options=None) -> list[Stretch]:
    """Each stretch decoded on its own (a little padded); a stretch with no words is dropped."""
    from coach import audio as audio_mod
    from coach.stt import DecodeOptions, SpeechWindow, decode_speech

    rate = audio_mod.SAMPLE_RATE
    options = options or DecodeOptions()
    stretches = []
    for start, end in spans:
        first = max(0, int((start - DECODE_PAD_S) * rate))
        last = min(len(samples), int((end + DECODE_PAD_S) * rate))
        segments = decode_speech(model, SpeechWindow(spans=[(first, last)]), samples, options)
        text = " ".join(s.text.strip() for s in segments if s.text.strip()).strip()
        if not any(ch.isalnum() for ch in text):
            continue
        words = [w for s in segments for w in s.words]
        first_word = max(start, words[0].start) if words else None
        stretches.append(Stretch(round(start, 2), round(end, 2), text,
                                 None if first_word is None else round(min(first_word, end), 2)))
    return stretches


def play(scene: Scene, personas: dict[str, Persona], audio: bytes | str | Path, settings=None) -> dict:
    """Play `scene` against the learner's recording: the `coach meeting --scene` result.
    AudioError when the recording cannot be read; an all-silent one meets no moment."""
    from coach import audio as audio_mod
    from coach import stt
    from coach.config import load_settings

    settings = settings or load_settings()
    decoded = audio_mod.decode(audio, settings.max_audio_seconds)
    lines, windows = timeline(scene, personas)
    return judge_samples(scene, lines, windows, decoded.samples, lambda: stt.load_model(settings))


def judge_samples(scene: Scene, lines: list[TimedLine], windows: list[Window], samples, model) -> dict:
    """The `coach meeting --scene` result for the learner's recording (16 kHz mono, from the
    scene's start) against the timeline as it was played. `model`: the speech model, or a
    function that loads it (only called when there is speech to decode)."""
    from coach import audio as audio_mod

    spans = [] if audio_mod.is_silent(samples) else speech_spans(samples)
    if spans and callable(model) and not hasattr(model, "decode_window"):
        model = model()
    stretches = transcribe_stretches(samples, spans, model) if spans else []
    return judge(scene, lines, windows, stretches)


def line_samples(scene: Scene, personas: dict[str, Persona], settings=None) -> list:
    """Each persona line spoken by its persona's voice (16 kHz mono float32), a dropout as
    `dropout` seconds of silence at its `[ … ]` mark. SpeechSynthesisError when text-to-speech
    is missing. Always espeak-ng, never the natural voice: a scene's times (each line `after`
    the one before ends, the moments' windows, `coach meeting --list`) follow these lengths, and
    espeak-ng's are the same on every machine, where a neural voice's vary from one rendering
    to the next."""
    import numpy as np

    from coach import audio as audio_mod
    from coach import tts

    rate = audio_mod.SAMPLE_RATE
    spoken = []
    for line in scene.lines:
        voice = personas[line.speaker].voice
        parts = [p.strip() for p in DROPOUT_MARK.split(line.text)] if line.dropout else [line.text]
        pieces = []
        for index, part in enumerate(parts):
            if index:
                pieces.append(np.zeros(int((line.dropout or 0.0) * rate), dtype=np.float32))
            if any(ch.isalnum() for ch in part):
                pieces.append(audio_mod.decode(tts.synthesize(part, voice, settings, natural=False)).samples
                              .astype(np.float32))
        spoken.append(np.concatenate(pieces) if pieces else np.zeros(0, dtype=np.float32))
    return spoken


def personas_audio(scene: Scene, personas: dict[str, Persona], settings=None) -> bytes:
    """The personas' side of the scene as one 16 kHz mono WAV: each line spoken by its persona's
    voice from its start on (lines said at once are mixed), a dropout as `dropout` seconds of
    silence at its `[ … ]` mark. SpeechSynthesisError when text-to-speech is missing."""
    import numpy as np

    from coach import audio as audio_mod

    rate = audio_mod.SAMPLE_RATE
    lines, _ = timeline(scene, personas)
    pieces = list(zip((line.start for line in lines), line_samples(scene, personas, settings), strict=True))
    end = max((at + len(samples) / rate for at, samples in pieces), default=0.0)
    end = max(end, max((line.end for line in lines), default=0.0))
    mixed = np.zeros(int(end * rate) + 1, dtype=np.float32)
    for at, samples in pieces:
        start = int(at * rate)
        mixed[start:start + len(samples)] += samples
    return audio_mod.wav_bytes(np.clip(mixed, -1.0, 1.0))


# --- the end of the learner's turn ---------------------------------------------------------------

COMPLETE_PAUSE_S = 0.8  # after a complete sentence, a silence this long ends the turn
OPEN_PAUSE_S = 1.5  # after words with no closing punctuation
UNFINISHED_PAUSE_S = 2.5  # inside an unfinished clause ("I think we should …"): the most it waits
# a turn that ends on one of these words is unfinished, whatever the recogniser's punctuation
_CONTINUES = frozenset("""
    a an the and but or nor so because since although though if unless when while whereas until
    than that which who whom whose where to of in on at for with from by about into onto over under
    after before between through during without like as my your our their his her its this these
    those some any every each no i we you they he she it i'm we're you're they're it's there's is are
    was were be been being am have has had do does did can could will would shall should may might
    must not let let's um uh er erm hmm mm also just really very more most quite maybe
    around approximately roughly nearly almost among per via versus vs whether both either neither such own
""".split())
_UNFINISHED_END = re.compile(r"(?:[,;:\-–—]|\.\.\.|…)\s*$")
_COMPLETE_END = re.compile(r"[.?!][\"'”’)]*\s*$")


# Whisper ends a fragment with a full stop and guesses its last word ("The checkpoint size was
# around" -> "The checkpoint side was around.", "I think the trade-off between" -> "… the tweet."):
# an ending it is unsure of is not taken as the end of a sentence. Chosen on the development half
# of tests/corpus/pauses (benchmarks/README.md, "Hands-free conversation"): the fewest cut-off
# fragments with at most one complete sentence in six waiting longer (more, and the median reply to
# a complete sentence would wait too: benchmarks/conversation.py (a)).
UNSURE_END_WORDS = 1
UNSURE_END_PROBABILITY = 0.4
# It also leaves out a last word said on the way into a pause ("I have checked the log yesterday
# and" -> "… yesterday."); asked what comes after the words, with the audio stopping where the
# learner stopped (`SpeechEngine.sentence_end_probability`), it often expects that word. Under
# this, the sentence may go on. Chosen on the same development half, as benchmarks/conversation.py
# (c) cuts its turns: the fewest cut-off fragments with at most three complete sentences in ten
# waiting longer (so that the median reply stays the quick one): 4 of 77 cut off (11 before), 10 of
# 37 complete sentences waiting (5 before); at 0.5, 12 of 37 wait.
SURE_END_PROBABILITY = 0.47


@dataclass(frozen=True)
class Heard:
    """What a live turn's `hear` returns: the text so far; when it is a transcript of exactly the
    clip that was decoded, the transcript itself (so the answer is not transcribed twice); and the
    decoder's `sentence_end_probability` of the text, when the words alone looked complete."""

    text: str
    transcript: object | None = None
    sentence_end: float | None = None


def unsure_ending(probabilities: list[float]) -> bool:
    """Whether the recogniser was unsure of the last word(s) of the turn so far (word probabilities
    in order): then the turn may go on, whatever its punctuation."""
    return bool(probabilities) and min(probabilities[-UNSURE_END_WORDS:]) < UNSURE_END_PROBABILITY


def turn_patience(text: str, probabilities: list[float] | None = None, sentence_end: float | None = None) -> float:
    """How long a silence after `text` (what the learner said so far in their turn) ends the
    turn: `COMPLETE_PAUSE_S` after a complete sentence, `UNFINISHED_PAUSE_S` inside an
    unfinished clause (a trailing comma or dash, a filler, a last word that needs more: "and",
    "to", "the", "we") or when the recogniser was unsure of the last words (`probabilities`, one
    per word, where known) or of the sentence ending there (`sentence_end`, where known),
    `OPEN_PAUSE_S` for words without closing punctuation. Nothing recognised (a cough, a breath):
    nothing to wait for."""
    text = text.strip()
    words = re.findall(r"[A-Za-z0-9']+", text.lower().replace("’", "'"))
    if not words:
        return COMPLETE_PAUSE_S
    if words[-1] in _CONTINUES or _UNFINISHED_END.search(text) or unsure_ending(probabilities or []):
        return UNFINISHED_PAUSE_S
    if _COMPLETE_END.search(text):
        unsure = sentence_end is not None and sentence_end < SURE_END_PROBABILITY
        return UNFINISHED_PAUSE_S if unsure else COMPLETE_PAUSE_S
    return OPEN_PAUSE_S


def heard_ending(model, samples, text: str, probabilities: list[float] | None) -> float | None:
    """`model.sentence_end_probability` of `text`'s words (decoded from `samples`), asked only when they
    alone would end the turn after the short pause: the one case where it changes the patience.
    A decoder error leaves the words to decide (the turn's transcript is not lost with it)."""
    if not re.search(r"[A-Za-z]", text) or turn_patience(text, probabilities) != COMPLETE_PAUSE_S:
        return None
    try:
        return model.sentence_end_probability(samples, _COMPLETE_END.sub("", text.strip()).rstrip())
    except (RuntimeError, ValueError):
        return None


def turn_over(text: str, silence_s: float, probabilities: list[float] | None = None,
              sentence_end: float | None = None) -> bool:
    """Whether the learner's turn has ended: `silence_s` of silence after `text`."""
    return silence_s >= turn_patience(text, probabilities, sentence_end)


def _word_probabilities(heard: object) -> list[float] | None:
    """The word probabilities of what `hear` returned, when it carries a transcript with words."""
    words = getattr(getattr(heard, "transcript", None), "words", None)
    return [float(w.probability) for w in words] if words else None


# --- a scene played live -------------------------------------------------------------------------

SPEECH_RMS = 0.01  # a chunk of the microphone this loud (about -40 dBFS) is the learner speaking
# after a pause this long, what the learner said so far is decoded (turn_patience): by the time the
# 0.8 s patience after a complete sentence is up, the decode (0.3-0.6 s on 2 cores) has come back
DECODE_AFTER_S = 0.2
RESUME_S = 0.3  # after the learner's turn the next persona line starts this soon after anyone stops
END_TAIL_S = 1.0  # the scene is over this long after its last line ends
ONSET_GAP_S = 0.3  # speech after a quiet stretch this long starts anew (for when a turn may start)
_EPS = 1e-6


@dataclass(frozen=True)
class Caption:
    """A line said in the live meeting: a persona's (`speaker` is its id) or the learner's."""

    t: float
    speaker: str
    text: str
    speaking: bool = False  # still being said


@dataclass(frozen=True)
class MeetingNow:
    """The live meeting at one instant, for the page: the captions so far, the open moment."""

    t: float
    captions: tuple[Caption, ...]
    moment: str | None  # the open moment's id (the learner's microphone counts there)
    learner_speaking: bool
    heard: str  # the learner's words in the open moment, as far as decoded
    started: bool  # audio has arrived
    over: bool


@dataclass
class _Turn:
    moment: str
    start: float
    speech_end: float
    decoding: Future | object | None = None  # the decode of the turn up to `decoded_for` (its future, with a pool)
    decoded_for: float | None = None
    text: str = ""
    text_for: float | None = None
    heard: object = None  # what `hear` returned for the turn up to `text_for` (a str, or anything with `.text`)
    clip: tuple[float, float] | None = None  # the stretch of the microphone that was decoded last


TURN_GOES_ON, TURN_OVER, NOT_A_TURN = "goes on", "over", "not a turn"


def follow_turn(turn: _Turn, now: float, hear, pool, audio) -> str:
    """One step of following a learner's turn (the live meeting's and the hands-free
    conversation's): once they have paused `DECODE_AFTER_S`, what they said so far is decoded
    (`hear(audio(start, end))`, in `pool` when there is one); the turn is over after a silence of
    `turn_patience` of that text (at most `UNFINISHED_PAUSE_S`, whatever the decoder does). Returns
    TURN_OVER, NOT_A_TURN (nothing with words in it: a cough, a click) or TURN_GOES_ON."""
    silence = now - turn.speech_end
    decoding = turn.decoding
    if decoding is not None and (not isinstance(decoding, Future) or decoding.done()):
        result: object = None
        try:
            result = decoding.result() if isinstance(decoding, Future) else decoding
        except Exception:  # noqa: BLE001 - a failed decode: the turn ends on the longest patience
            result = None
        if result is not None:
            turn.heard = result
            turn.text = result if isinstance(result, str) else str(getattr(result, "text", ""))
            turn.text_for = turn.decoded_for
        turn.decoding = None
    if silence >= DECODE_AFTER_S and turn.decoded_for != turn.speech_end and turn.decoding is None:
        turn.clip = (max(0.0, turn.start - 0.3), turn.speech_end + 0.2)
        samples = audio(*turn.clip)
        turn.decoded_for = turn.speech_end
        turn.decoding = pool.submit(hear, samples) if pool is not None else hear(samples)
        if pool is None:
            return follow_turn(turn, now, hear, pool, audio)
    known = turn.text_for == turn.speech_end
    if known and not any(ch.isalnum() for ch in turn.text) and silence >= COMPLETE_PAUSE_S:
        return NOT_A_TURN
    over = known and turn_over(turn.text, silence, _word_probabilities(turn.heard),
                               getattr(turn.heard, "sentence_end", None))
    if over or silence >= UNFINISHED_PAUSE_S:
        return TURN_OVER
    return TURN_GOES_ON


# --- barge-in: the learner starts talking while a persona speaks -----------------------------------

BARGE_IN_HOLD_S = 0.15  # the learner's voice held this long (with gaps up to BARGE_IN_GAP_S) stops the persona
BARGE_IN_GAP_S = 0.06  # a dip this short between syllables does not restart the count


class BargeIn:
    """Who has the floor while a persona speaks: `hear(mic, now)` with each microphone chunk
    returns the time the learner began to speak once they have kept speaking for
    `BARGE_IN_HOLD_S`, else None. The voice is the microphone's level (`SPEECH_RMS`, as for
    turns): with the browser's echo cancellation (or headphones) the persona's own voice does
    not reach it.

    Why 150 ms: a click, a tap on the desk, a plosive or the echo canceller's brief leak at the
    start of a line is shorter than that, and stopping the persona for one is worse than
    a short overlap; a word is longer. With 20 ms WebRTC frames the persona falls silent
    150-170 ms after the learner's onset on the server, which leaves more than half of the
    0.4 s budget for the way back to the ear."""

    def __init__(self, rate: int = 16_000, hold_s: float = BARGE_IN_HOLD_S, gap_s: float = BARGE_IN_GAP_S,
                 level: float | None = None):
        self.rate = rate
        self.hold_s = hold_s
        self.gap_s = gap_s
        self.level = SPEECH_RMS if level is None else level
        self.reset()

    def reset(self) -> None:
        self.onset: float | None = None  # when the voice now being counted began
        self._loud_until: float | None = None

    def hear(self, mic, now: float) -> float | None:
        import numpy as np

        mic = np.asarray(mic, dtype=np.float32).reshape(-1)
        dt = mic.size / self.rate
        loud = bool(mic.size) and float(np.sqrt(np.mean(np.square(mic, dtype=np.float64)))) >= self.level
        if loud:
            if self._loud_until is None or now - self._loud_until > self.gap_s + _EPS:
                self.onset = now
            self._loud_until = now + dt
        elif self._loud_until is not None and now + dt - self._loud_until > self.gap_s + _EPS:
            self.onset = self._loud_until = None
        held = self._loud_until - self.onset if self.onset is not None and self._loud_until is not None else 0.0
        return self.onset if held >= self.hold_s - _EPS else None


class LiveMeeting:
    """A scene played live: `step(mic)` takes the next chunk of the learner's microphone (16 kHz
    mono float32, from the scene's start) and returns the personas' voices for the same stretch
    of time. Lines start on the scene's timeline; a moment's window opens and the learner's
    speech in it starts their turn: the next persona line is held back while they talk and
    brought forward once the turn is over (`turn_patience`). `hear(samples) -> text` decodes the
    learner's turn so far (in a worker thread with `background`). Thread-safe: the audio thread
    steps it, the page reads `now()`; `played()` is the timeline as it happened, for `judge`."""

    def __init__(self, scene: Scene, personas: dict[str, Persona], voices: list, hear, *, background: bool = True,
                 barge_in: bool = False):
        import threading

        from coach import audio as audio_mod

        self.scene = scene
        self.rate = audio_mod.SAMPLE_RATE
        self.lines, self.windows = timeline(scene, personas)
        self.voices = voices  # each line's samples (line_samples)
        self.hear = hear
        self._pool = None
        if background:
            from concurrent.futures import ThreadPoolExecutor

            self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="meeting-turn")
        self._lock = threading.Lock()
        self._chunks: list = []
        self.samples_in = 0
        self.shift = 0.0  # how much later than the scene's own timeline what has not started yet comes
        self.started: dict[int, float] = {}  # line index -> when it started
        self.opened: dict[str, float] = {}
        self.closed: dict[str, float] = {}
        self.turns: dict[str, _Turn] = {}
        self._turn: _Turn | None = None
        self._voiced_at: float | None = None  # the end of the learner's last loud chunk
        self._onset = 0.0  # when the learner's current stretch of speech began
        self.over = False
        # barge-in (off for the scenes: their personas talk over the learner on purpose)
        self._barge_in = BargeIn(self.rate) if barge_in else None
        self.cut: dict[int, float] = {}  # line index -> when the learner's voice stopped it

    # -- time -------------------------------------------------------------------------------

    @property
    def t(self) -> float:
        return self.samples_in / self.rate

    def _line_seconds(self, index: int) -> float:
        line = self.lines[index]
        full = max(line.end - line.start, len(self.voices[index]) / self.rate)
        if index in self.cut:
            return min(full, self.cut[index] - self.started[index])
        return full

    def _talking_until(self, now: float) -> float:
        """When the persona lines sounding at `now` end (`now` when none is)."""
        ends = [start + self._line_seconds(i) for i, start in self.started.items()]
        return max([now, *[e for e in ends if e > now]])

    # -- the audio thread -------------------------------------------------------------------

    def step(self, mic):
        import numpy as np

        mic = np.asarray(mic, dtype=np.float32).reshape(-1)
        with self._lock:
            now = self.t
            dt = mic.size / self.rate
            self._chunks.append(mic)
            if mic.size and float(np.sqrt(np.mean(np.square(mic, dtype=np.float64)))) >= SPEECH_RMS:
                if self._voiced_at is None or now - self._voiced_at >= ONSET_GAP_S:
                    self._onset = now  # speech starts again after a pause
                self._voiced_at = now + dt
                self._heard(now)
            self._schedule(now, dt)
            sounding = [i for i, start in self.started.items()
                        if i not in self.cut and 0 <= int(round((now - start) * self.rate)) < len(self.voices[i])]
            if self._barge_in is not None:
                if not sounding:
                    self._barge_in.reset()
                elif self._barge_in.hear(mic, now) is not None:
                    for index in sounding:  # the learner talks: whoever speaks stops at once
                        self.cut[index] = now
            out = np.zeros(mic.size, dtype=np.float32)
            for index, start in self.started.items():
                if index in self.cut:
                    continue
                offset = int(round((now - start) * self.rate))
                voice = self.voices[index]
                if 0 <= offset < len(voice):
                    piece = voice[offset:offset + mic.size]
                    out[:piece.size] += piece
            self.samples_in += mic.size
            return np.clip(out, -1.0, 1.0)

    def _open_window(self, now: float) -> str | None:
        return next((w.id for w in self.windows if w.id in self.opened and w.id not in self.closed), None)

    def _heard(self, now: float) -> None:
        """A loud chunk: the learner's turn starts in an open moment, or goes on."""
        if self._turn is None:
            moment = self._open_window(now)
            # speech begun well before the moment opened is not a turn in it (`assign` agrees)
            if moment is not None and moment not in self.turns and self._onset >= self.opened[moment] - EARLY_S:
                self._turn = self.turns[moment] = _Turn(moment, now, now)
        if self._turn is not None:
            self._turn.speech_end = self._voiced_at or now

    def _schedule(self, now: float, dt: float) -> None:
        turn = self._turn
        if turn is not None:
            self._follow(turn, now)
        if self._turn is not None:
            self.shift += dt  # the learner has the floor: nothing new starts
        for window in self.windows:
            if window.id not in self.opened and window.opens + self.shift <= now + _EPS:
                self.opened[window.id] = round(window.opens + self.shift, 2)
            if (window.id in self.opened and window.id not in self.closed and self._turn is None
                    and window.closes + self.shift <= now + _EPS):
                self.closed[window.id] = round(window.closes + self.shift, 2)
        for line in self.lines:
            if line.index not in self.started and line.start + self.shift <= now + _EPS:
                self.started[line.index] = now
        last_end = max((s + self._line_seconds(i) for i, s in self.started.items()), default=0.0)
        if (len(self.started) == len(self.lines) and len(self.closed) == len(self.windows)
                and self._turn is None and now >= last_end + END_TAIL_S):
            self.over = True

    def _follow(self, turn: _Turn, now: float) -> None:
        """The learner's turn: decode it at a pause; end it after a silence of `turn_patience`."""
        outcome = follow_turn(turn, now, self.hear, self._pool, self._audio)
        if outcome == NOT_A_TURN:  # a cough or a click, not a turn: the moment stays open
            self._turn = None
            del self.turns[turn.moment]
        elif outcome == TURN_OVER:
            self._end_turn(turn, now)

    def _end_turn(self, turn: _Turn, now: float) -> None:
        self._turn = None
        self.closed[turn.moment] = round(now, 2)
        waiting = [line for line in self.lines if line.index not in self.started]
        if not waiting:
            return
        resume = self._talking_until(now) + (RESUME_S if self._talking_until(now) > now else 0.0)
        following = min(line.start for line in waiting) + self.shift
        if following > resume:  # bring the scene forward: nobody waits for the window to run out
            self.shift -= following - resume

    def _audio(self, start: float, end: float):
        import numpy as np

        samples = np.concatenate(self._chunks) if self._chunks else np.zeros(0, dtype=np.float32)
        self._chunks = [samples]
        return samples[max(0, int(start * self.rate)):max(0, int(end * self.rate))]

    # -- the page ---------------------------------------------------------------------------

    def now(self) -> MeetingNow:
        with self._lock:
            now = self.t
            captions = [Caption(round(start, 2), self.lines[i].speaker, self.lines[i].text,
                                start + self._line_seconds(i) > now and not self.over)
                        for i, start in self.started.items()]
            for turn in self.turns.values():
                if turn.text or turn is self._turn:
                    captions.append(Caption(round(turn.start, 2), LEARNER, turn.text, turn is self._turn))
            captions.sort(key=lambda c: (c.t, c.speaker == LEARNER))
            moment = self._open_window(now)
            return MeetingNow(round(now, 2), tuple(captions), moment,
                              self._turn is not None and now - self._turn.speech_end < DECODE_AFTER_S,
                              self.turns[moment].text if moment in self.turns else "",
                              self.samples_in > 0, self.over)

    def recording(self):
        import numpy as np

        with self._lock:
            return np.concatenate(self._chunks) if self._chunks else np.zeros(0, dtype=np.float32)

    def played(self) -> tuple[list[TimedLine], list[Window]]:
        """The timeline as it was played: when each line started (a line never reached: where it
        would have), when each moment opened and closed."""
        from dataclasses import replace

        with self._lock:
            lines = []
            for line in self.lines:
                start = self.started.get(line.index, line.start + self.shift)
                lines.append(replace(line, start=round(start, 2), end=round(start + line.end - line.start, 2)))
            windows = [Window(w.id, self.opened.get(w.id, round(w.opens + self.shift, 2)),
                              self.closed.get(w.id, round(w.closes + self.shift, 2))) for w in self.windows]
            return lines, windows

    def bridge(self) -> FrameBridge:
        """The WebRTC audio callback that plays this meeting (one per connection)."""
        return FrameBridge(self)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)


def hearing(model):
    """`LiveMeeting`'s `hear`: the text of the learner's turn so far, decoded with `model`
    greedily (only its last word and punctuation matter here, and the scene waits for it; the
    result is decoded again, as `coach meeting` does)."""
    from coach.stt import DecodeOptions, SpeechWindow, decode_speech

    options = DecodeOptions(beam_size=1, temperatures=(0.0,))

    def hear(samples) -> Heard:
        if len(samples) == 0:
            return Heard("")
        segments = decode_speech(model, SpeechWindow(spans=[(0, len(samples))]), samples, options)
        text = " ".join(s.text.strip() for s in segments if s.text.strip()).strip()
        return Heard(text, sentence_end=heard_ending(model, samples, text, None))

    return hear


class Stepped(Protocol):
    """A live call stepped by the microphone: `LiveMeeting`, `coach.conversation.LiveConversation`."""

    rate: int

    def step(self, mic): ...


class FrameBridge:
    """A live call (`LiveMeeting`, the hands-free conversation) on a WebRTC audio track (PyAV
    frames, e.g. 48 kHz stereo s16): each microphone frame in, a frame of the personas' voices
    out, of the same shape and time."""

    def __init__(self, meeting: Stepped):
        from coach.audio import FrameResampler

        self.meeting = meeting
        self._resample = FrameResampler()
        self._pending = None

    def __call__(self, frame):
        import av
        import numpy as np

        mic = self._resample([frame])
        pending = mic if self._pending is None else np.concatenate([self._pending, mic])
        count = max(1, round(frame.samples * self.meeting.rate / frame.sample_rate))
        if pending.size < count:
            pending = np.concatenate([np.zeros(count - pending.size, dtype=np.float32), pending])
        chunk, self._pending = pending[:count], pending[count:]
        voices = self.meeting.step(chunk)
        at = np.arange(frame.samples) * (self.meeting.rate / frame.sample_rate)
        pcm = (np.interp(at, np.arange(count), voices) * 32767).astype(np.int16)
        channels = len(frame.layout.channels)
        if frame.format.name == "s16p":
            data = np.tile(pcm, (channels, 1))
        else:
            data = np.repeat(pcm, channels).reshape(1, -1)
        out = av.AudioFrame.from_ndarray(data, format="s16p" if frame.format.name == "s16p" else "s16",
                                         layout=frame.layout.name)
        out.sample_rate = frame.sample_rate
        out.pts = frame.pts
        out.time_base = frame.time_base
        return out


# --- views for the app (coach.practice.Coach returns them) ---------------------------------------


@dataclass(frozen=True)
class MomentView:
    id: str
    label: str
    label_ko: str
    expected: str
    tip: str
    tip_ko: str


@dataclass(frozen=True)
class SceneView:
    """A scene as the Meeting page offers it."""

    id: str
    title: str
    title_ko: str
    level: str
    situation: str
    key_phrases: str
    people: tuple[tuple[str, str], ...]  # (persona id, name)
    moments: tuple[MomentView, ...]

    def name(self, speaker: str) -> str:
        if speaker == LEARNER:
            return "You"
        return dict(self.people).get(speaker, speaker)


@dataclass(frozen=True)
class CriterionResult:
    id: str
    label: str
    label_ko: str
    met: bool
    evidence: tuple[str, ...]


@dataclass(frozen=True)
class MomentResult:
    """One moment as `coach meeting --format json` reports it, with what the page says about it."""

    moment: MomentView
    t: float
    waited_s: float | None
    overlap_s: float
    said: str
    criteria: tuple[CriterionResult, ...]

    @property
    def met(self) -> bool:
        return all(c.met for c in self.criteria)


@dataclass(frozen=True)
class MeetingResult:
    """A played scene: `data` is exactly the `coach meeting --scene --format json` result."""

    scene: SceneView
    data: dict
    moments: tuple[MomentResult, ...]
    events: tuple[Caption, ...]


def scene_view(scene: Scene, personas: dict[str, Persona]) -> SceneView:
    return SceneView(
        id=scene.id, title=scene.title, title_ko=scene.title_ko, level=scene.level,
        situation=scene.sections.get("Situation", ""), key_phrases=scene.sections.get("Key phrases", ""),
        people=tuple((p, personas[p].name if p in personas else p) for p in scene.personas),
        moments=tuple(MomentView(m.id, m.label, m.label_ko, m.expected, m.tip, m.tip_ko) for m in scene.moments),
    )


def result_view(scene: Scene, personas: dict[str, Persona], data: dict) -> MeetingResult:
    """The page's view of a `judge` result."""
    view = scene_view(scene, personas)
    moments = []
    for moment, found in zip(view.moments, data["moments"], strict=True):
        card = scene.card_for(scene.moment(moment.id))
        labels = {c.id: (c.label, c.label_ko) for c in card.criteria}
        criteria = tuple(CriterionResult(cid, labels.get(cid, (cid, cid))[0], labels.get(cid, (cid, cid))[1],
                                         v["met"], tuple(v["evidence"]))
                         for cid, v in found["criteria"].items())
        moments.append(MomentResult(moment, found["t"], found["waited_s"], found["overlap_s"], found["said"],
                                    criteria))
    events = tuple(Caption(e["t"], e["speaker"], e["text"]) for e in data["events"])
    return MeetingResult(view, data, tuple(moments), events)
