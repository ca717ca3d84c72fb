"""The live transcriber (coach.stt.incremental) on real audio with the real bundled tiny.en:
PCM chunks in, finished segments out while "speaking", the last one at flush. No Streamlit."""

from __future__ import annotations

import sys
from pathlib import Path

import jiwer
import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from conftest_audio import ASSETS, decode_int16, fixture, normalise, speech_model  # noqa: E402, F401

from coach import stt  # noqa: E402
from coach.errors import AudioError  # noqa: E402
from coach.stt.incremental import BackgroundTranscriber, IncrementalTranscriber  # noqa: E402

pytestmark = pytest.mark.slow  # every test decodes speech as it streams

RATE = 16000
CHUNK = 960  # 60 ms


def pcm(name: str) -> np.ndarray:
    samples, rate = decode_int16(ASSETS / name if name == "jfk.flac" else fixture(name))
    if rate != RATE:
        from conftest_audio import resample_int16

        samples = resample_int16(samples, rate, RATE)
    return samples


def silence(seconds: float) -> np.ndarray:
    return np.zeros(int(seconds * RATE), dtype=np.int16)


@pytest.fixture(scope="module")
def answer() -> np.ndarray:
    """About 23 s: the espeak answer, a pause, 11 s of human speech, a pause, the answer."""
    return np.concatenate([pcm("answer.flac"), silence(1.2), pcm("jfk.flac"), silence(1.2),
                           pcm("answer.flac"), silence(0.3)])


def feed_all(live, samples) -> list:
    finished_while_speaking = []
    for start in range(0, len(samples), CHUNK):
        finished_while_speaking += live.feed(samples[start:start + CHUNK])
    return finished_while_speaking


@pytest.fixture(scope="module")
def streamed(speech_model, answer):  # noqa: F811
    """The answer fed in chunks once (the slowest step of this module), for the tests that read it:
    (the transcriber, segments finished while speaking, segments left for the flush)."""
    live = IncrementalTranscriber(speech_model)
    early = feed_all(live, answer)
    return live, early, live.flush()


def test_segments_finish_while_speaking_and_flush_leaves_only_the_last(streamed, answer):
    live, early, last = streamed
    assert len(early) >= 2, [s.text for s in early]  # decoded before the end
    assert "91" in early[0].text
    assert last and "91" in last[-1].text
    # what is left at the end is only the last stretch of speech, not the whole answer
    assert sum(s.end - s.start for s in last) < 8
    transcript = live.transcript()
    assert transcript.text.count("91") == 2, transcript.text
    assert "country" in transcript.text
    assert transcript.duration == pytest.approx(len(answer) / RATE, abs=0.01)
    words = transcript.words
    assert all(a.start <= b.start for a, b in zip(words, words[1:], strict=False))
    assert all(0 <= w.start <= w.end <= transcript.duration + 0.05 for w in words)
    # the human part keeps its quality when decoded in live segments
    reference = normalise((ASSETS / "jfk.txt").read_text(encoding="utf-8"))
    human = normalise(" ".join(s.text for s in live.segments if 5.0 < s.start < 17.5))
    assert jiwer.wer(reference, human) <= 0.1, human


def test_word_times_are_times_in_the_recording(streamed):
    live, _early, _last = streamed
    words = live.transcript().words
    country = [w for w in words if "country" in w.word.lower()]
    assert country and all(5.7 < w.start < 17.5 for w in country)  # inside the human clip
    last_91 = [w for w in words if "91" in w.word][-1]
    assert last_91.start > 17.5


def test_same_text_as_the_whole_file_path(speech_model):  # noqa: F811
    samples = np.concatenate([pcm("answer.flac"), silence(0.6)])
    live = IncrementalTranscriber(speech_model)
    feed_all(live, samples)
    live.flush()
    from conftest_audio import wav_bytes

    assert live.transcript().text == stt.transcribe(wav_bytes(samples, RATE)).text


def test_speech_before_a_short_pause_is_decoded_ahead_so_stop_has_nothing_left(speech_model):  # noqa: F811
    """A learner who stops talking and presses Stop a moment later: the pause is too short to
    cut a segment, but the speech was decoded during it, so the flush decodes nothing."""
    live = IncrementalTranscriber(speech_model, vad_every_seconds=0.06)
    assert feed_all(live, np.concatenate([pcm("answer.flac"), silence(0.25)])) == []
    assert live.ahead_decodes == 1
    decoded_before_stop = live.decode_seconds
    last = live.flush()
    assert live.decode_seconds == decoded_before_stop  # nothing was decoded at the flush
    assert [s.decoded_ahead for s in last] == [True]
    assert "91" in last[0].text
    assert live.transcript().text.count("91") == 1


def test_speech_that_goes_on_after_a_short_pause_drops_the_decode_ahead(speech_model):  # noqa: F811
    samples = np.concatenate([pcm("answer.flac"), pcm("jfk.flac"), silence(1.2)])
    live = IncrementalTranscriber(speech_model, vad_every_seconds=0.06)
    feed_all(live, samples)
    live.flush()
    used = sum(s.decoded_ahead for s in live.segments)
    assert live.ahead_decodes > used >= 1  # some were used, some dropped when speech went on
    transcript = live.transcript()
    assert transcript.text.count("91") == 1, transcript.text  # nothing decoded twice
    words = transcript.words
    assert all(a.start <= b.start for a, b in zip(words, words[1:], strict=False))
    reference = normalise((ASSETS / "jfk.txt").read_text(encoding="utf-8"))
    human = normalise(" ".join(s.text for s in live.segments if s.start > 4.0))
    assert jiwer.wer(reference, human) <= 0.1, human


def test_speech_without_pauses_is_cut_at_the_limit(speech_model):  # noqa: F811
    samples = np.concatenate([pcm("answer.flac")] * 3)  # 13.6 s, barely a pause
    live = IncrementalTranscriber(speech_model, max_segment_seconds=5.0)
    early = feed_all(live, samples)
    live.flush()
    assert early, "nothing was cut before the end"
    assert all(s.end - s.start <= 5.0 + 0.5 for s in live.segments), [(s.start, s.end) for s in live.segments]
    assert live.transcript().text.count("91") >= 2


def test_silence_is_dropped_as_it_comes_and_is_no_speech(speech_model):  # noqa: F811
    live = IncrementalTranscriber(speech_model)
    noise = (np.random.default_rng(0).normal(0, 30, 20 * RATE)).astype(np.int16)
    assert feed_all(live, noise) == []
    assert len(live._pending) <= 2 * RATE  # the pending buffer does not grow with silence
    live.flush()
    with pytest.raises(AudioError, match="No speech"):
        live.transcript()


def test_not_english_is_refused(speech_model):  # noqa: F811
    live = IncrementalTranscriber(speech_model)
    feed_all(live, np.concatenate([pcm("german.ogg"), silence(0.8), pcm("german.ogg"), silence(0.8)]))
    live.flush()
    with pytest.raises(AudioError) as caught:
        live.transcript()
    assert str(caught.value) == stt.NOT_ENGLISH


def test_background_worker_gives_the_same_transcript(speech_model, answer):  # noqa: F811
    worker = BackgroundTranscriber(speech_model)
    for start in range(0, len(answer), CHUNK):
        worker.push(answer[start:start + CHUNK])
    transcript = worker.finish(timeout=120)
    sync = IncrementalTranscriber(speech_model)
    feed_all(sync, answer)
    sync.flush()
    assert transcript.text.count("91") == 2 and "country" in transcript.text
    assert worker.text() == transcript.text or worker.text() in transcript.text
    assert abs(len(transcript.words) - len(sync.transcript().words)) <= 3


def test_background_worker_failure_is_raised_at_finish(speech_model):  # noqa: F811
    worker = BackgroundTranscriber(speech_model)
    worker.push(np.array(["not audio"]))
    with pytest.raises(Exception):  # noqa: B017 - any failure; LiveAnswer falls back to the file
        worker.finish(timeout=30)
