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

`personas_audio(scene, personas)` is the other side of the call: every persona line spoken with
its persona's voice (coach.tts) from its time on, a dropout as silence where its `[ … ]` mark
stands, as one WAV. Played in headphones while the learner records, it makes a recording that
`play` can judge.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

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
    spans = [] if audio_mod.is_silent(decoded.samples) else speech_spans(decoded.samples)
    stretches = transcribe_stretches(decoded.samples, spans, stt.load_model(settings)) if spans else []
    return judge(scene, lines, windows, stretches)


def personas_audio(scene: Scene, personas: dict[str, Persona], settings=None) -> bytes:
    """The personas' side of the scene as one 16 kHz mono WAV: each line spoken by its persona's
    voice from its start on (lines said at once are mixed), a dropout as `dropout` seconds of
    silence at its `[ … ]` mark. SpeechSynthesisError when text-to-speech is missing."""
    import numpy as np

    from coach import audio as audio_mod
    from coach import tts

    rate = audio_mod.SAMPLE_RATE
    lines, _ = timeline(scene, personas)
    pieces: list[tuple[float, np.ndarray]] = []
    for line in lines:
        voice = personas[line.speaker].voice
        at = line.start
        parts = [p.strip() for p in DROPOUT_MARK.split(line.text)] if line.dropout else [line.text]
        for index, part in enumerate(parts):
            if index:
                at += line.dropout or 0.0
            if not any(ch.isalnum() for ch in part):
                continue
            samples = audio_mod.decode(tts.synthesize(part, voice, settings)).samples
            pieces.append((at, samples))
            at += len(samples) / rate
    end = max((at + len(samples) / rate for at, samples in pieces), default=0.0)
    end = max(end, max((line.end for line in lines), default=0.0))
    mixed = np.zeros(int(end * rate) + 1, dtype=np.float32)
    for at, samples in pieces:
        start = int(at * rate)
        mixed[start:start + len(samples)] += samples
    return audio_mod.wav_bytes(np.clip(mixed, -1.0, 1.0))
