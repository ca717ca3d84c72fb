"""Text-to-speech with the real pyttsx3 + espeak-ng (apt-get install espeak-ng): `natural=False`
keeps a line on espeak-ng where a natural voice is installed (tests/test_natural_voice.py)."""

from __future__ import annotations

import dataclasses
import io
import os
import shutil
import subprocess
import sys
import wave
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from conftest_audio import COACH, REPO, results_from_threads  # noqa: E402

from coach import natural_voice, tts  # noqa: E402
from coach.config import load_settings  # noqa: E402
from coach.content.schema import Voice  # noqa: E402
from coach.errors import CoachError  # noqa: E402

pytestmark = pytest.mark.skipif(
    shutil.which("espeak-ng") is None, reason="espeak-ng is not installed (apt-get install espeak-ng)"
)


def read_wav(data: bytes) -> tuple[int, int, float]:
    with wave.open(io.BytesIO(data), "rb") as wav:
        return wav.getnchannels(), wav.getframerate(), wav.getnframes() / wav.getframerate()


def test_a_line_becomes_a_complete_wav():
    data = tts.synthesize("Could you share your screen, please?", natural=False)
    channels, rate, seconds = read_wav(data)
    assert (channels, rate) == (1, 22050)
    assert 1.0 < seconds < 6.0
    # the header agrees with the data: the file was complete when it was returned
    assert len(data) == 44 + int(round(seconds * rate)) * 2


def test_the_second_call_comes_from_the_disk_cache():
    settings = load_settings()
    voice = Voice(voice="en-gb", rate=170, pitch=40)
    line = "Let's move on to the next item."
    first = tts.synthesize(line, voice, settings, natural=False)
    cached = settings.tts_cache_dir / f"{tts.cache_key(line, voice)}.wav"
    assert cached.read_bytes() == first
    # prove the cache is read: replace the cached file with another valid WAV
    other = tts.synthesize("Something else entirely.", voice, settings, natural=False)
    cached.write_bytes(other)
    assert tts.synthesize(line, voice, settings, natural=False) == other
    # a damaged cache entry is made again, not returned (espeak-ng carries state from one
    # utterance to the next, so a new rendering need not be byte-identical or as long)
    cached.write_bytes(b"RIFF....")
    again = tts.synthesize(line, voice, settings, natural=False)
    assert read_wav(again)[2] > 0.5
    assert cached.read_bytes() == again


def test_the_cache_key_covers_text_voice_rate_and_pitch():
    base = Voice(voice="en-us", rate=160, pitch=50)
    keys = {
        tts.cache_key("Hello.", base),
        tts.cache_key("Hello!", base),
        tts.cache_key("Hello.", Voice(voice="en-gb", rate=160, pitch=50)),
        tts.cache_key("Hello.", Voice(voice="en-us", rate=161, pitch=50)),
        tts.cache_key("Hello.", Voice(voice="en-us", rate=160, pitch=51)),
    }
    assert len(keys) == 5


def test_concurrent_calls_from_threads_all_succeed():
    settings = load_settings()

    def speak(i: int) -> bytes:
        text = f"This is speaker number {i}." if i % 2 else "The same line for everyone."
        return tts.synthesize(text, Voice(rate=150 + (i % 2) * i), settings, natural=False)

    results = results_from_threads(8, speak)
    assert len(results) == 8
    for data in results.values():
        assert isinstance(data, bytes), data
        assert read_wav(data)[2] > 0.5
    same = {results[i] for i in range(0, 8, 2)}
    assert len(same) == 1
    assert len({results[i] for i in range(1, 8, 2)}) == 4


def test_a_line_started_while_espeak_is_still_busy_is_spoken_whole():
    """The cause of the old flake: pyttsx3's runAndWait cancels espeak-ng when it is still
    busy, and that cancel hit the new line (an empty WAV, then a timeout). Keep espeak-ng
    busy on purpose with earlier work and ask for a line at once."""
    from pyttsx3.drivers import _espeak

    settings = load_settings()
    tts.synthesize("Warm up the engine.", None, settings, natural=False)
    for attempt in range(3):
        _espeak.Synth("This earlier line keeps the synthesiser busy for a while. " * 30)
        assert _espeak.IsPlaying(), "espeak-ng finished before the test could overlap it"
        data = tts.synthesize(f"The next question, take {attempt}.", Voice(rate=160 + attempt), settings, natural=False)
        assert read_wav(data)[2] > 0.8


@pytest.mark.slow
def test_the_voice_is_never_changed_while_espeak_is_speaking(monkeypatch):
    """espeak-ng's ListVoices and SetVoiceByName rewrite the tables its queue thread speaks
    from: called mid-line they crashed the test run with a segfault. Record, for every such
    call, whether espeak-ng was busy at that moment."""
    from pyttsx3.drivers import _espeak

    settings = load_settings()
    tts.synthesize("Warm up the engine.", None, settings, natural=False)
    busy_during: list[str] = []
    for name in ("SetVoiceByName", "ListVoices"):
        real = getattr(_espeak, name)

        def watched(*args, _real=real, _name=name):
            if _espeak.IsPlaying():
                busy_during.append(_name)
            return _real(*args)

        monkeypatch.setattr(_espeak, name, watched)
    for attempt, voice in enumerate(("en-gb", "en-gb+f2", "en-us")):
        _espeak.Synth("This earlier line keeps the synthesiser busy for a while. " * 30)
        assert _espeak.IsPlaying(), "espeak-ng finished before the test could overlap it"
        data = tts.synthesize(f"Another question, take {attempt}.", Voice(voice=voice), settings, natural=False)
        assert read_wav(data)[2] > 0.8
    assert busy_during == []


def test_every_persona_voice_speaks(library):
    settings = load_settings()
    for persona in library.personas.values():
        data = tts.synthesize("Thanks, that's helpful.", persona.voice, settings)
        assert read_wav(data)[2] > 0.3, persona.id


def test_persona_voices_differ():
    settings = load_settings()
    lines = {
        v: tts.synthesize("Tell me about the cluster.", Voice(voice=v), settings, natural=False)
        for v in ("en-us", "en-gb", "en-gb+f2", "en-gb+m1")
    }
    assert len(set(lines.values())) == 4


def test_unknown_voice_is_a_clear_error():
    with pytest.raises(tts.SpeechSynthesisError, match="no voice 'zz-nope'"):
        tts.synthesize("Hello.", Voice(voice="zz-nope"), natural=False)
    assert issubclass(tts.SpeechSynthesisError, CoachError)


def test_empty_text_is_refused():
    with pytest.raises(tts.SpeechSynthesisError, match="no text"):
        tts.synthesize("   ")


@pytest.mark.slow
def test_spoken_line_round_trips_through_speech_to_text():
    from coach import stt

    data = tts.synthesize("Can you see my screen now?", Voice(voice="en-us", rate=150))
    transcript = stt.transcribe(data)
    assert "screen" in transcript.text.lower(), transcript.text


@pytest.mark.slow
def test_cli_speak_keeps_stdout_clean(tmp_path):
    out = tmp_path / "line.wav"
    result = subprocess.run(
        [COACH, "speak", "Let's get started.", "--voice", "en-gb+f2", "--out", str(out)],
        capture_output=True, text=True, cwd=REPO, timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""  # pyttsx3's espeak driver prints "Audio saved to ..."
    assert read_wav(out.read_bytes())[2] > 0.5


def test_settings_cache_dir_is_used(tmp_path):
    settings = dataclasses.replace(load_settings(), data_dir=tmp_path / "elsewhere")
    tts.synthesize("Cache me here.", None, settings)
    assert list((tmp_path / "elsewhere" / "tts-cache").glob("*.wav"))


@pytest.mark.slow
def test_missing_espeak_library_is_one_clear_line(tmp_path):
    """A real machine without libespeak-ng: a private mount namespace hides the library
    (needs root and unshare; skipped where they are not available)."""
    libraries = sorted({str(p) for p in Path("/usr/lib").glob("*/libespeak-ng.so.1*")})
    unshare = shutil.which("unshare")
    if not libraries or unshare is None:
        pytest.skip("libespeak-ng not found under /usr/lib, or no unshare")
    hide = " && ".join(f"mount --bind /dev/null {lib}" for lib in libraries)
    probe = subprocess.run([unshare, "--mount", "sh", "-c", hide], capture_output=True)
    if probe.returncode != 0:
        pytest.skip("cannot make a mount namespace here: " + probe.stderr.decode()[-200:])
    def speak(out: Path, tts_voice: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [unshare, "--mount", "sh", "-c",
             f'{hide} && exec "$0" speak "Hello there." --out "$1"', COACH, str(out)],
            capture_output=True, text=True, cwd=REPO, timeout=60,
            env={**os.environ, "COACH_TTS_VOICE": tts_voice, "COACH_DATA_DIR": str(tmp_path / "data")},
        )

    result = speak(tmp_path / "x.wav", "espeak")
    assert result.returncode != 0
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "install espeak-ng" in lines[0], result.stderr
    assert not (tmp_path / "x.wav").exists()
    if natural_voice.installed():  # Piper carries its own espeak-ng phonemizer: the line is spoken
        result = speak(tmp_path / "y.wav", "natural")
        assert result.returncode == 0, result.stderr
        assert read_wav((tmp_path / "y.wav").read_bytes())[2] > 0.3
