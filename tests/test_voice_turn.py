"""The voice turn in the core, without a browser: a recording (a file, bytes, or a stream of
PCM chunks) is saved, transcribed with the card's vocabulary, scored and followed up by the
engine; "correct and re-score" keeps the earlier answer. Real audio, real faster-whisper."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from conftest_audio import ASSETS, COACH, REPO, decode_int16, fixture, speech_model, wav_bytes  # noqa: E402, F401

from coach.errors import AudioError  # noqa: E402
from coach.session import PracticeEngine  # noqa: E402
from coach.store import Store  # noqa: E402
from tests.coach_cli import run  # noqa: E402

pytestmark = pytest.mark.usefixtures("speech_model")
pytestmark = [pytestmark, pytest.mark.slow]  # slow: every test transcribes a recording


@pytest.fixture
def engine(library, tmp_path):
    from coach.config import load_settings

    return PracticeEngine(library, Store(f"sqlite:///{tmp_path / 'voice.db'}"), load_settings())


def test_a_recording_file_is_saved_transcribed_scored_and_followed_up(engine):
    view = engine.start("gpu-cluster-optimization")
    result = engine.answer_with_audio(view.id, fixture("answer.flac"))
    assert "91" in result.transcript.text
    assert result.scorecard.criteria["measured_results"].met
    assert result.next_prompt and not result.finished
    first = engine.load(view.id).turns[0]
    saved = Path(first.audio_path)
    # the recording was copied into the data dir, byte for byte, and kept with the answer
    assert saved.read_bytes() == fixture("answer.flac").read_bytes()
    assert Path(os.environ["COACH_DATA_DIR"]) in saved.parents
    assert first.answer_text == result.transcript.text
    assert json.loads(first.transcript_json)["words"]
    assert json.loads(first.scorecard_json)["delivery"]["words_per_minute"]


def test_bytes_are_saved_before_transcription_and_kept_when_unusable(engine):
    view = engine.start("gpu-cluster-optimization")
    with pytest.raises(AudioError):
        engine.answer_with_audio(view.id, b"not a recording at all" * 20)
    pending = engine.load(view.id).pending
    assert Path(pending.audio_path).read_bytes() == b"not a recording at all" * 20
    assert pending.answer_text is None


def test_live_answer_streams_to_disk_and_gives_the_same_turn(engine):
    view = engine.start("gpu-cluster-optimization")
    live = engine.start_live_answer(view.id)
    samples, rate = decode_int16(fixture("answer.flac"))
    assert rate == 16000
    gap = np.zeros(rate, dtype=np.int16)
    samples = np.concatenate([samples, gap, samples, gap])
    for start in range(0, len(samples), 320):  # 20 ms chunks, as a WebRTC stream sends
        live.feed(samples[start:start + 320])
    # the file is attached and a valid WAV while it is being written
    pending = engine.load(view.id).pending
    assert pending.audio_path == str(live.path)
    transcript = live.finish()
    assert transcript.text.count("91") == 2, transcript.text
    result = engine.answer_with_audio(view.id, live.path, transcript=transcript)
    assert result.scorecard.criteria["measured_results"].met
    from coach import audio

    assert audio.decode(live.path).duration == pytest.approx(len(samples) / rate, abs=0.01)
    assert engine.load(view.id).turns[0].audio_path == str(live.path)


def test_the_opening_words_the_stream_missed_come_from_the_browsers_own_recording(engine):
    """The browser opens the microphone about a second before its stream reaches the server
    (issue 17, item 8): the words said then arrive only in the browser's own recording of
    the opening, which goes in front of the stream, in the file and in the transcript."""
    from coach import audio

    view = engine.start("gpu-cluster-optimization")
    live = engine.start_live_answer(view.id, await_head=True)
    samples, rate = decode_int16(fixture("answer.flac"))  # speech from the very first instant
    samples = np.concatenate([samples, np.zeros(rate, dtype=np.int16)])
    missed = int(1.2 * rate)  # the stream begins 1.2 s in, mid "Scaling efficiency"
    stream = samples[missed:]
    for start in range(0, int(0.8 * rate), 320):  # the opening arrives 0.8 s into the stream
        live.feed(stream[start:start + 320])
    head = wav_bytes(samples[:missed + rate], rate)  # to a second past the stream's start
    live.add_head(head, connected_seconds=1.0)  # the connection time is only a fallback
    for start in range(int(0.8 * rate), len(stream), 320):
        live.feed(stream[start:start + 320])
    transcript = live.finish()
    assert transcript.text.lower().startswith("scaling efficiency"), transcript.text
    assert live.lead_seconds == pytest.approx(1.2, abs=0.02)
    saved = audio.decode(live.path).samples
    assert len(saved) == pytest.approx(len(samples), abs=rate // 50)  # nothing twice, nothing missing
    assert engine.load(view.id).pending.audio_path == str(live.path)


def test_an_answer_whose_opening_never_comes_is_transcribed_from_the_stream(engine):
    view = engine.start("gpu-cluster-optimization")
    live = engine.start_live_answer(view.id, await_head=True)
    samples, rate = decode_int16(fixture("answer.flac"))
    for start in range(0, len(samples), 320):
        live.feed(samples[start:start + 320])
    live.add_head(None)  # the browser could not record it
    assert "91" in live.finish().text


def test_the_opening_lines_up_by_its_sound_and_by_the_connection_time_in_silence():
    from coach.live import missing_lead

    rate = 16000
    rng = np.random.default_rng(7)
    bursts = np.repeat(rng.uniform(0.05, 0.5, 60), rate // 20)  # 3 s of varying loudness
    sound = (rng.standard_normal(bursts.size) * bursts).astype(np.float32)
    assert abs(missing_lead(sound[:int(2.4 * rate)], sound[int(1.3 * rate):], 0.9) - 1.3 * rate) <= rate // 100
    silence = np.zeros(3 * rate, dtype=np.float32)
    assert missing_lead(silence[:int(2.4 * rate)], silence, 0.9) == int(0.9 * rate)


def test_dropped_stream_falls_back_to_the_saved_recording(engine):
    view = engine.start("gpu-cluster-optimization")
    live = engine.start_live_answer(view.id)
    samples, _ = decode_int16(fixture("answer.flac"))
    live.feed(samples)
    live.dropped = True
    transcript = live.finish()
    assert "91" in transcript.text


def test_a_reload_mid_answer_leaves_a_recovered_recording(engine):
    view = engine.start("gpu-cluster-optimization")
    live = engine.start_live_answer(view.id)
    samples, _ = decode_int16(fixture("answer.flac"))
    live.feed(samples)  # ... and the page goes away: no finish()
    view = engine.load(view.id)
    assert engine.recovered_recording(view, quiet_seconds=0) == live.path
    result = engine.answer_with_audio(view.id, live.path)
    assert "91" in result.transcript.text


def test_correct_and_rescore_keeps_the_earlier_answer(engine):
    view = engine.start("gpu-cluster-optimization")
    result = engine.answer_with_audio(view.id, fixture("answer.flac"))
    first = engine.load(view.id).turns[0]
    corrected = result.transcript.text + " I profiled the step myself and rewrote the jit boundaries."
    again = engine.rescore(view.id, first.id, corrected)
    assert again.scorecard.criteria["optimization_experience"].met
    view = engine.load(view.id)
    assert view.turns[0].answer_text == corrected
    assert len(view.turns) == 2 and view.pending is not None  # the follow-up, chosen again
    assert view.pending.criterion != "optimization_experience"
    revisions = engine.store.revisions(first.id)
    assert [r.answer_text for r in revisions] == [result.transcript.text]
    assert json.loads(revisions[0].scorecard_json)["criteria"]["measured_results"]["met"]


def test_rescoring_an_older_answer_keeps_the_later_turns(engine):
    view = engine.start("gpu-cluster-optimization")
    engine.submit(view.id, "Scaling efficiency went from 78% to 91%.")
    engine.submit(view.id, "I worked with the network team.")
    first = engine.load(view.id).turns[0]
    engine.rescore(view.id, first.id, "I profiled the step and rewrote the jit boundaries myself. It went from 78% to 91%.")
    view = engine.load(view.id)
    assert len(view.turns) == 3 and view.turns[1].answer_text == "I worked with the network team."
    assert json.loads(view.turns[0].scorecard_json)["criteria"]["optimization_experience"]["met"]


def test_practice_with_audio_files_via_cli(tmp_path):
    env = {**os.environ, "COACH_DATA_DIR": str(tmp_path)}
    result = run("practice", "--card", "gpu-cluster-optimization", "--audio", str(fixture("answer.flac")),
                 str(ASSETS / "jfk.flac"), env=env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("Scorecard:") == 2, result.stdout
    assert "You (from answer.flac):" in result.stdout and "91" in result.stdout
    history = json.loads(run("history", "--format", "json", env=env).stdout)
    answers = [t for t in history[0]["turns"] if t["answer"]]
    assert len(answers) == 2 and "country" in answers[1]["answer"]


def test_practice_with_a_missing_audio_file_is_one_clear_line(tmp_path):
    env = {**os.environ, "COACH_DATA_DIR": str(tmp_path)}
    result = run("practice", "--card", "status-update", "--audio", str(tmp_path / "no.wav"), env=env)
    assert result.returncode != 0 and "does not exist" in result.stderr


def _background_done() -> None:
    import threading

    for thread in threading.enumerate():
        if thread.name.startswith("pronounce-"):
            thread.join(timeout=120)


def test_a_one_piece_answer_is_scored_first_and_its_pronunciation_added_after(engine):
    view = engine.start("gpu-cluster-optimization")
    result = engine.answer_with_audio(view.id, fixture("answer.flac"), pronounce_later=True)
    assert result.scorecard.criteria["measured_results"].met and result.transcript.pronunciation is None
    _background_done()
    stored = json.loads(engine.load(view.id).turns[0].transcript_json)
    assert not stored["pronunciation_pending"]
    assert stored["pronunciation"]["words"] and stored["text"] == result.transcript.text


def test_a_correction_made_meanwhile_still_gets_the_recordings_pronunciation(engine, monkeypatch):
    """The result describes the recording, which a typed correction does not change (as when it
    is made before the answer is scored); a new recording for the turn would."""
    import threading

    from coach import pronunciation

    release = threading.Event()
    real = pronunciation.pronunciation_of
    monkeypatch.setattr(pronunciation, "pronunciation_of", lambda *a: release.wait(60) and real(*a))
    view = engine.start("gpu-cluster-optimization")
    result = engine.answer_with_audio(view.id, fixture("answer.flac"), pronounce_later=True)
    first = engine.load(view.id).turns[0]
    assert json.loads(first.transcript_json)["pronunciation_pending"]
    engine.rescore(view.id, first.id, result.transcript.text + " I rewrote the jit boundaries myself.")
    release.set()
    _background_done()
    turn = engine.load(view.id).turns[0]
    assert turn.answer_text.endswith("myself.")
    stored = json.loads(turn.transcript_json)
    assert stored["pronunciation"]["words"] and not stored["pronunciation_pending"]
    assert not engine.store.replace_transcript(turn.id, "an older transcript", "{}")  # compare, then set
