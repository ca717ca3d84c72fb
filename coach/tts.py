"""Text-to-speech: a persona's line to WAV bytes, in a natural voice where one is installed
(coach.natural_voice: Piper), else with pyttsx3 over espeak-ng.

    synthesize(text, voice: Voice | None = None, settings=None, natural=True) -> bytes   # a complete WAV

- `natural=False` (the pronunciation check's reference speech) and `COACH_TTS_VOICE=espeak`
  keep espeak-ng; a natural voice that fails falls back to espeak-ng for that line.

- One pyttsx3 engine per process, used behind a module-level lock: `runAndWait` is not
  re-entrant, and espeak-ng is one global synthesiser.
- pyttsx3's espeak driver runs espeak-ng in its asynchronous mode: `runAndWait` returns as
  soon as the line is queued, and the WAV is written later from espeak-ng's own thread. Its
  `runAndWait` also queues a `stop()` that calls `espeak_Cancel()` if espeak-ng still
  reports itself busy, and that cancel then lands on the NEW line (espeak-ng drops the text
  and pyttsx3 writes a WAV with no frames). So a line is only started once espeak-ng is
  idle, and it is complete when pyttsx3 reports "finished-utterance" and espeak-ng is idle
  again; the file is then checked once.
- espeak-ng's voice calls (ListVoices, SetVoiceByName) run at once in the caller's thread
  and rewrite the tables its queue thread synthesises from: called while a line is being
  spoken they crash the process (a segfault). So the voice is only touched while espeak-ng
  is idle.
- Results are cached on disk under `settings.tts_cache_dir`, by sha256 of (text, voice,
  rate, pitch); a cached file is checked before it is used.
- If espeak-ng is missing or fails, `SpeechSynthesisError` (a CoachError) says so in one
  line; the app then shows the line as text only.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import tempfile
import threading
import time
import wave
from collections.abc import Callable
from pathlib import Path

from coach import natural_voice
from coach.content.schema import Voice
from coach.errors import SpeechSynthesisError

CACHE_VERSION = 1
ESPEAK = "pyttsx3/espeak-ng"
POLL_SECONDS = 0.01
MAX_CHARS = 5_000

INSTALL_HINT = "install espeak-ng (apt-get install espeak-ng); the line is shown as text"


_lock = threading.Lock()  # espeak-ng through pyttsx3: one line at a time
# one render per missing cache file: a lock per stripe of cache keys, so different lines (a line
# and its slower replay) are made side by side while the same line is made once
_cache_locks = tuple(threading.Lock() for _ in range(64))
_engine = None
_utterance_finished = threading.Event()


def _settings():
    from coach.config import load_settings

    return load_settings()


def cache_key(text: str, voice: Voice, engine: str = ESPEAK) -> str:
    payload = json.dumps(
        {
            "v": CACHE_VERSION,
            "engine": engine,
            "text": text,
            "voice": voice.voice,
            "rate": voice.rate,
            "pitch": voice.pitch,
        },
        sort_keys=True,
        ensure_ascii=False,
    )
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def wav_info(data: bytes) -> tuple[int, int, int] | None:
    """(channels, rate, frames) of a complete, non-empty WAV, else None."""
    try:
        with wave.open(io.BytesIO(data), "rb") as wav:
            channels, width, rate, frames = (
                wav.getnchannels(),
                wav.getsampwidth(),
                wav.getframerate(),
                wav.getnframes(),
            )
            body = wav.readframes(frames)
    except (wave.Error, EOFError, OSError):
        return None
    if frames <= 0 or rate <= 0 or len(body) != frames * channels * width:
        return None
    return channels, rate, frames


def wav_duration(data: bytes) -> float:
    info = wav_info(data)
    return info[2] / info[1] if info else 0.0


def _get_engine():
    """The process's one pyttsx3 engine (created under the lock)."""
    global _engine
    if _engine is not None:
        return _engine
    try:
        import pyttsx3

        engine = pyttsx3.init("espeak")
    except Exception as exc:  # noqa: BLE001 - OSError for a missing library, RuntimeError...
        raise SpeechSynthesisError(
            f"Text-to-speech is unavailable ({type(exc).__name__}: {exc}); {INSTALL_HINT}."
        ) from exc
    try:  # the espeak driver prints "Audio saved to ..." on stdout: keep stdout clean
        from pyttsx3.drivers import espeak as espeak_driver

        espeak_driver.print = lambda *args, **kwargs: None
    except ImportError:  # pragma: no cover - other pyttsx3 layouts
        pass
    engine.connect("finished-utterance", lambda name, completed: _utterance_finished.set())
    _engine = engine
    return engine


def _too_slow(timeout: float) -> SpeechSynthesisError:
    return SpeechSynthesisError(
        f"Text-to-speech did not finish the line within {timeout:.0f} s; the line is shown as text."
    )


def _wait_until_espeak_idle(deadline: float, timeout: float) -> None:
    """Block until espeak-ng's queue thread has nothing left to do (see the module notes)."""
    from pyttsx3.drivers import _espeak

    while _espeak.IsPlaying():
        if time.monotonic() > deadline:
            raise _too_slow(timeout)
        time.sleep(POLL_SECONDS)


def _voice_candidates(name: str) -> list[str]:
    """Names to try for a persona voice such as "en-us", "en-gb+f2" or "gmw/en+m1".
    espeak-ng's SetVoiceByName knows voice names and files ("en-us", "gmw/en") but not every
    language code ("en-gb" is the file gmw/en), so a code is also mapped to the voice file
    that speaks it, keeping the "+variant"."""
    from pyttsx3.drivers.espeak import EspeakDriver

    base, plus, variant = name.partition("+")
    suffix = f"+{variant}" if plus else ""
    candidates = [name]
    for known in EspeakDriver.getProperty("voices"):
        languages = [lang.lower() for lang in (known.languages or [])]
        if base.lower() in languages or known.id == base.lower():
            candidates.append(known.id + suffix)
    return list(dict.fromkeys(candidates))


def _apply_voice(voice: Voice) -> None:
    """Set voice, rate and pitch now (the engine's own setProperty is queued, and errors in
    its queue are swallowed, so a bad voice name would pass silently)."""
    from pyttsx3.drivers.espeak import EspeakDriver

    for candidate in _voice_candidates(voice.voice):
        try:
            EspeakDriver.setProperty("voice", candidate)
            break
        except ValueError:
            continue
    else:
        raise SpeechSynthesisError(
            f"Text-to-speech has no voice {voice.voice!r} (see `espeak-ng --voices`); the line "
            "is shown as text."
        )
    EspeakDriver.setProperty("rate", voice.rate)
    EspeakDriver.setProperty("pitch", voice.pitch)


def _render(text: str, voice: Voice, directory: Path) -> bytes:
    """Speak one line into a WAV; called with `_lock` held."""
    # espeak-ng renders far faster than real time; this bound only stops a hung synthesiser
    timeout = 10.0 + len(text) * 0.08
    deadline = time.monotonic() + timeout
    engine = _get_engine()
    _wait_until_espeak_idle(deadline, timeout)  # the voice calls are unsafe while it speaks
    _apply_voice(voice)  # rate and pitch are queued in espeak-ng: let them apply first
    _wait_until_espeak_idle(deadline, timeout)
    handle, name = tempfile.mkstemp(prefix=".tts-", suffix=".wav", dir=directory)
    os.close(handle)
    path = Path(name)
    path.unlink()  # the driver creates it when the speech is complete
    try:
        _utterance_finished.clear()
        try:
            engine.save_to_file(text, str(path))
            engine.runAndWait()
        except Exception as exc:  # noqa: BLE001
            raise SpeechSynthesisError(
                f"Text-to-speech failed ({type(exc).__name__}: {exc}); the line is shown as text."
            ) from exc
        if not _utterance_finished.wait(max(0.0, deadline - time.monotonic())):
            raise _too_slow(timeout)
        _wait_until_espeak_idle(deadline, timeout)
        data = path.read_bytes() if path.exists() else b""
        if wav_info(data) is None:
            raise SpeechSynthesisError("Text-to-speech produced no audio for this line; it is shown as text.")
        return data
    finally:
        path.unlink(missing_ok=True)


STAGE_DIRECTION = re.compile(r"\s*\[[^\[\]]*\]\s*")


def spoken_text(text: str) -> str:
    """The words a line says aloud: stage directions in square brackets ("[the audio breaks
    up]", "[static]") are for the reader, never read out; the pause around them stays."""
    return " ".join(STAGE_DIRECTION.sub(" ", text).split())


def synthesize(text: str, voice: Voice | None = None, settings=None, natural: bool = True) -> bytes:
    """The line spoken by this voice, as the bytes of a WAV file (mono, 16-bit): in the natural
    voice that speaks for it when `natural`, allowed by the settings and installed."""
    text = spoken_text(text)
    if not text:
        raise SpeechSynthesisError("There is no text to speak.")
    if len(text) > MAX_CHARS:
        raise SpeechSynthesisError(
            f"The line is {len(text):,} characters; text-to-speech takes at most {MAX_CHARS:,}."
        )
    voice = voice or Voice()
    settings = settings or _settings()
    speaker = _natural_speaker(voice, settings, natural)
    if speaker is not None:
        try:
            return _cached(text, voice, settings, _engine_name(speaker),
                           lambda: natural_voice.render(text, voice, speaker))
        except SpeechSynthesisError:
            pass  # a damaged voice package: the line is still spoken, by espeak-ng
    return _cached(text, voice, settings, ESPEAK, lambda: _render_espeak(text, voice))


def is_made(text: str, voice: Voice | None = None, settings=None, natural: bool = True) -> bool:
    """Whether `synthesize` has this line on disk already (it returns at once)."""
    voice = voice or Voice()
    settings = settings or _settings()
    engine = _engine_name(_natural_speaker(voice, settings, natural))
    return _cache_path(spoken_text(text), voice, settings, engine).exists()


def _cache_path(text: str, voice: Voice, settings, engine: str) -> Path:
    return Path(settings.tts_cache_dir) / f"{cache_key(text, voice, engine)}.wav"


def _natural_speaker(voice: Voice, settings, natural: bool):
    """The natural voice that says this line, or None for espeak-ng."""
    return natural_voice.voice_for(voice) if natural and settings.tts_voice == "natural" else None


def _engine_name(speaker) -> str:
    return f"piper/{speaker.name}" if speaker is not None else ESPEAK


def warm_up(settings=None) -> None:
    """Load the natural voice ahead of the first line, when the settings let it speak."""
    if (settings or _settings()).tts_voice == "natural":
        natural_voice.warm_up()


def _render_espeak(text: str, voice: Voice) -> bytes:
    with _lock, tempfile.TemporaryDirectory(prefix="rehearse-tts-") as scratch:
        return _render(text, voice, Path(scratch))


def _cached(text: str, voice: Voice, settings, engine: str, render: Callable[[], bytes]) -> bytes:
    """The line from the on-disk cache, or rendered once and kept there (a thread waiting for the
    same line finds the file the first one made)."""
    cached = _cache_path(text, voice, settings, engine)
    try:
        for folder in (Path(settings.data_dir), cached.parent):  # for the user only, like the rest
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError:  # a read-only data folder: speak without the cache
        return render()
    data = _read_cached(cached)
    if data is not None:
        return data
    with _cache_locks[int(cached.stem[:8], 16) % len(_cache_locks)]:
        data = _read_cached(cached)  # another thread may have made it meanwhile
        if data is not None:
            return data
        data = render()
        _write_atomic(cached, data)  # under the lock, so a waiting thread finds it
    return data


def _read_cached(path: Path) -> bytes | None:
    try:
        data = path.read_bytes()
    except OSError:
        return None
    return data if wav_info(data) is not None else None


def _write_atomic(path: Path, data: bytes) -> None:
    handle, name = tempfile.mkstemp(prefix=".cache-", suffix=".wav", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.replace(name, path)
    except OSError:
        Path(name).unlink(missing_ok=True)  # the cache is an optimisation only
