"""Recordings that cannot be transcribed: each gets its own clear AudioError sentence that
says what to do (record again, or type the answer), and the CLI prints it on one line.

The checks that need no model are proved to run before the model: the settings name an
engine that does not exist, so reaching the model would raise SpeechModelError instead."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from conftest_audio import fixture, mono_wav, wav_bytes  # noqa: E402

from coach import audio, stt  # noqa: E402
from coach.config import load_settings  # noqa: E402
from coach.errors import AudioError, CoachError  # noqa: E402
from tests.coach_cli import run  # noqa: E402


def no_model(**changes):
    """Settings whose model cannot load: an AudioError proves the model was never reached."""
    return dataclasses.replace(load_settings(), stt_engine="no-such-engine", **changes)


def quiet_noise() -> bytes:
    rng = np.random.default_rng(7)
    return wav_bytes((rng.normal(0, 8, 3 * 16000)).astype(np.int16), 16000)  # about -72 dBFS


def loud_noise() -> bytes:
    rng = np.random.default_rng(7)
    return wav_bytes((rng.normal(0, 2000, 3 * 16000)).astype(np.int16), 16000)  # hiss, no words


def tone() -> bytes:
    t = np.arange(3 * 16000) / 16000
    return wav_bytes((8000 * np.sin(2 * np.pi * 440 * t)).astype(np.int16), 16000)


def truncated_wav() -> bytes:
    return mono_wav(fixture("answer.flac"), 16000)[:20]


CASES = {
    "empty": (lambda: b"", audio.EMPTY),
    "text": (lambda: b"This is not audio at all, just some text.\n" * 20, audio.NOT_AUDIO),
    "truncated-wav": (truncated_wav, audio.DAMAGED.format(kind="WAV")),
    "header-only-wav": (lambda: mono_wav(fixture("answer.flac"), 16000)[:44], audio.NO_SOUND),
    "digital-silence": (lambda: fixture("silence.flac").read_bytes(), audio.SILENT),
    "very-quiet": (quiet_noise, audio.SILENT),
    "noise-no-speech": (loud_noise, stt.NO_SPEECH),
    "tone-no-speech": (tone, stt.NO_SPEECH),
}


@pytest.mark.parametrize("case", list(CASES))
def test_bad_audio_is_refused_before_the_model(case):
    make, message = CASES[case]
    with pytest.raises(AudioError) as caught:
        stt.transcribe(make(), no_model())
    assert str(caught.value) == message


def test_each_message_is_distinct_and_says_what_to_do():
    messages = list(dict.fromkeys(m for _, m in CASES.values())) + [
        stt.NOT_ENGLISH,
        audio.TOO_LONG,
        audio.MISSING_FILE,
        audio.NO_AUDIO_TRACK,
    ]
    assert len(set(messages)) == len(messages)
    for message in messages:
        assert "\n" not in message and message.endswith(".")
        assert "type" in message and ("record" in message.lower() or "path" in message)


def test_zero_byte_file(tmp_path):
    empty = tmp_path / "answer.wav"
    empty.write_bytes(b"")
    with pytest.raises(AudioError, match=r"empty \(0 bytes\)"):
        stt.transcribe(empty, no_model())


def test_too_long_is_refused_from_the_header_before_decoding():
    with pytest.raises(AudioError) as caught:
        stt.transcribe(fixture("answer.flac"), no_model(max_audio_seconds=2))
    assert str(caught.value) == (
        "The recording is 5 s long; answers can be at most 2 s. Record a shorter answer "
        "(or split it in two), or type it instead."
    )


def test_too_long_uses_the_default_limit_of_five_minutes():
    assert load_settings().max_audio_seconds == 300
    rate = 8000
    long = wav_bytes(np.zeros(301 * rate, dtype=np.int16), rate)
    with pytest.raises(AudioError, match=r"5 min 1 s long; answers can be at most 5 min \(300 s\)"):
        stt.transcribe(long, no_model())


def test_missing_file():
    with pytest.raises(AudioError, match="does not exist"):
        stt.transcribe("/no/such/recording.wav", no_model())


def test_a_file_with_no_audio_track():
    png = b"\x89PNG\r\n\x1a\n" + bytes(200)
    with pytest.raises(AudioError):
        stt.transcribe(png, no_model())


@pytest.mark.slow
@pytest.mark.parametrize("name", ["korean.ogg", "german.ogg"])
def test_non_english_speech_is_refused(name):
    """tiny.en cannot detect a language; its own low confidence (or repetition loops) on
    other languages is the signal. espeak-ng Korean and German."""
    with pytest.raises(AudioError) as caught:
        stt.transcribe(fixture(name))
    assert str(caught.value) == stt.NOT_ENGLISH


@pytest.mark.slow
def test_english_read_by_a_korean_voice_is_still_english(tmp_path):
    """Accented English must not be refused: espeak-ng's Korean voice reading English."""
    wav = tmp_path / "accent.wav"
    subprocess.run(
        ["espeak-ng", "-v", "ko", "-w", str(wav),
         "In my last project, scaling efficiency went from seventy eight to ninety one percent."],
        check=True,
    )
    transcript = stt.transcribe(wav)
    assert "91" in transcript.text or "ninety" in transcript.text.lower(), transcript.text


@pytest.mark.slow
@pytest.mark.parametrize("sentence", ["Most of our batch jobs run at night.",
                                      "We arrived to the data center at nine.",
                                      "Let me to check the logs first."])
def test_one_short_english_sentence_is_not_refused(tmp_path, sentence):
    """A two-second English answer decodes with word probabilities as low as another language's;
    it is refused only when its log-probability agrees (each of these was refused before)."""
    wav = tmp_path / "short.wav"
    subprocess.run(["espeak-ng", "-v", "en-us", "-s", "150", "-w", str(wav), sentence], check=True)
    assert stt.transcribe(wav).text.strip()


@pytest.mark.slow
def test_a_short_stretch_of_korean_is_still_refused(tmp_path):
    """The first 2.5 s of the Korean fixture, as short as the English sentences above."""
    decoded = audio.load(fixture("korean.ogg"), 600)
    clip = (decoded.samples[: int(2.5 * audio.SAMPLE_RATE)] * 32767).astype(np.int16)
    with pytest.raises(AudioError) as caught:
        stt.transcribe(wav_bytes(clip, audio.SAMPLE_RATE))
    assert str(caught.value) == stt.NOT_ENGLISH


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda p: p.write_bytes(b""), "empty"),
        (lambda p: p.write_text("hello, this is text"), "not a recording"),
        (lambda p: p.write_bytes(truncated_wav()), "damaged or cut off"),
    ],
    ids=["empty", "text", "truncated"],
)
def test_cli_prints_one_line_and_fails(tmp_path, make, message):
    path = tmp_path / "bad.wav"
    make(path)
    result = run("transcribe", str(path), "--format", "json")
    assert result.returncode != 0
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], result.stderr


def test_audio_error_is_a_coach_error():
    assert issubclass(AudioError, CoachError)


def test_speech_the_model_writes_down_as_nothing_is_not_english_rather_than_no_speech(monkeypatch):
    """The voice detector hears speech, the model gives no words (spoken Korean decodes so at
    times, when its fallback samples): that is speech it cannot read as English, not silence."""
    from coach.stt import batch
    from coach.stt.engines import SpeechModel

    class _NoWords(SpeechModel):
        def decode_window(self, samples, options=None):
            return []

    model = _NoWords(engine="faster-whisper", name="fake", device="cpu", compute_type="int8", model=None,
                     load_seconds=0.0)
    monkeypatch.setattr(batch, "load_model", lambda settings: model)
    with pytest.raises(AudioError) as caught:
        stt.transcribe(fixture("answer.flac"), load_settings())
    assert str(caught.value) == stt.NOT_ENGLISH
