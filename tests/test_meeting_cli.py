"""`coach meeting` in-process: the scene list, and scenes played against espeak-ng speech placed
between silences made here (tests/conftest_audio.py decodes and writes the audio)."""

from __future__ import annotations

import json
import shutil
import subprocess

import numpy as np
import pytest

from coach.cli import main
from coach.scenes import timeline
from tests.conftest_audio import decode_int16, resample_int16, wav_bytes

needs_espeak = pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng is not installed")


def _speech(text: str, tmp_path) -> np.ndarray:
    out = tmp_path / f"{abs(hash(text))}.wav"
    subprocess.run(["espeak-ng", "-v", "en-us", "-s", "160", "-w", str(out), text], check=True)
    samples, rate = decode_int16(out)
    return resample_int16(samples, rate, 16_000)


def _recording(tmp_path, parts: list[tuple[float, str]], seconds: float):
    """The learner's side of the call: silence, with each line spoken from its time on."""
    samples = np.zeros(int(seconds * 16_000), dtype=np.int16)
    for at, text in parts:
        speech = _speech(text, tmp_path)
        start = int(at * 16_000)
        samples[start:start + len(speech)] = speech[: len(samples) - start]
    path = tmp_path / "learner.wav"
    path.write_bytes(wav_bytes(samples, 16_000))
    return path


def _meeting(capsys, *argv):
    code = main(["meeting", *argv, "--format", "json"])
    captured = capsys.readouterr()
    return code, (json.loads(captured.out) if code == 0 else None), captured.err


def test_meeting_list_names_each_scene_and_its_moments(capsys):
    code, scenes, _ = _meeting(capsys, "--list")
    assert code == 0
    by_id = {s["id"]: s for s in scenes}
    assert [m["id"] for m in by_id["standup-late-joiner"]["moments"]] == ["speak-first", "ask-repeat"]
    moment = by_id["plan-review-disagree"]["moments"][0]
    assert moment["move"] == "softened_disagreement" and moment["closes"] > moment["t"] > 0
    assert all(s["title"] for s in scenes)


@needs_espeak
def test_a_learner_who_speaks_up_in_the_window_is_judged_on_timing_and_words(tmp_path, capsys, library):
    _, windows = timeline(library.scenes["standup-late-joiner"], library.personas)
    speak_at = windows[0].opens + 1.0
    ask_at = windows[1].opens + 1.5
    audio = _recording(tmp_path, [(speak_at, "I can go first, if that's okay."),
                                  (ask_at, "Sorry, you broke up for a second. Could you repeat the date?")], 40.0)
    code, result, err = _meeting(capsys, "--scene", "standup-late-joiner", "--audio", str(audio))
    assert code == 0, err
    speak_first, ask_repeat = result["moments"]
    assert speak_first["waited_s"] == pytest.approx(1.0, abs=0.35)
    assert ask_repeat["waited_s"] == pytest.approx(1.5, abs=0.35)
    assert "go first" in speak_first["said"].lower() and "repeat" in ask_repeat["said"].lower()
    for moment in (speak_first, ask_repeat):
        assert moment["overlap_s"] == 0.0
        assert {cid: v["met"] for cid, v in moment["criteria"].items()} == {"appropriate": True, "polite": True}
        assert all(span in moment["said"] for v in moment["criteria"].values() for span in v["evidence"])
    assert sum(e["speaker"] == "learner" for e in result["events"]) == 2


@needs_espeak
def test_a_learner_who_talks_over_a_persona_line_gets_overlap(tmp_path, capsys, library):
    lines, windows = timeline(library.scenes["talking-at-once"], library.personas)
    sofia = next(line for line in lines if line.id == "sofia-long")
    audio = _recording(tmp_path, [(sofia.start + 2.0, "Sorry, can I jump in for a second?")], 30.0)
    code, result, err = _meeting(capsys, "--scene", "talking-at-once", "--audio", str(audio))
    assert code == 0, err
    take_floor, give_way = result["moments"]
    assert take_floor["overlap_s"] > 1.0  # all of it was said while Sofia was talking
    assert take_floor["waited_s"] == pytest.approx(2.0, abs=0.35)
    assert take_floor["criteria"]["appropriate"]["met"] is True
    assert give_way["said"] == "" and give_way["waited_s"] is None


def test_an_unknown_scene_or_unreadable_audio_is_one_line_on_stderr(tmp_path, capsys):
    code, _, err = _meeting(capsys, "--scene", "no-such-scene", "--audio", str(tmp_path / "x.wav"))
    assert code != 0 and err.count("\n") == 1 and "unknown scene 'no-such-scene'" in err
    bad = tmp_path / "notes.wav"
    bad.write_text("this is not audio", encoding="utf-8")
    code, _, err = _meeting(capsys, "--scene", "standup-late-joiner", "--audio", str(bad))
    assert code != 0 and err.count("\n") == 1 and err.startswith("coach: ")
    code, _, err = _meeting(capsys, "--scene", "standup-late-joiner", "--audio", str(tmp_path / "missing.wav"))
    assert code != 0 and err.count("\n") == 1 and "missing.wav" in err


@needs_espeak
@pytest.mark.parametrize("scene_id", ["standup-late-joiner", "plan-review-disagree", "talking-at-once"])
def test_each_scene_played_with_its_expected_lines_meets_every_moment(tmp_path, capsys, library, scene_id):
    scene = library.scenes[scene_id]
    lines, windows = timeline(scene, library.personas)
    parts = [(w.opens + 0.8, scene.moment(w.id).expected) for w in windows]
    audio = _recording(tmp_path, parts, max(line.end for line in lines) + 2.0)
    code, result, err = _meeting(capsys, "--scene", scene_id, "--audio", str(audio))
    assert code == 0, err
    for moment in result["moments"]:
        assert moment["waited_s"] == pytest.approx(0.8, abs=0.35), moment
        assert all(v["met"] for v in moment["criteria"].values()), moment


def test_a_silent_recording_meets_no_moment(tmp_path, capsys):
    path = tmp_path / "silence.wav"
    path.write_bytes(wav_bytes(np.zeros(16_000 * 20, dtype=np.int16), 16_000))
    code, result, err = _meeting(capsys, "--scene", "plan-review-disagree", "--audio", str(path))
    assert code == 0, err
    assert [(m["waited_s"], m["said"], m["overlap_s"]) for m in result["moments"]] == [(None, "", 0.0)]
    assert not [e for e in result["events"] if e["speaker"] == "learner"]


def test_the_text_format_lists_the_lines_and_each_moment(tmp_path, capsys):
    path = tmp_path / "silence.wav"
    path.write_bytes(wav_bytes(np.zeros(16_000 * 5, dtype=np.int16), 16_000))
    assert main(["meeting", "--scene", "standup-late-joiner", "--audio", str(path)]) == 0
    out = capsys.readouterr().out
    assert "anya-team-lead: Morning, everyone." in out
    assert "- ask-repeat: silent, over someone 0.0 s; appropriate not met, polite not met; said: ''" in out
    assert main(["meeting", "--list"]) == 0
    assert "standup-late-joiner  Stand-up" in capsys.readouterr().out
    assert main(["meeting", "--scene", "standup-late-joiner"]) == 2
    assert capsys.readouterr().err == "coach: give --audio FILE, the learner's recording of the scene\n"


@needs_espeak
def test_the_personas_side_is_spoken_on_the_timeline_with_the_dropout_silent(tmp_path, capsys, library):
    from coach import audio as audio_mod

    out = tmp_path / "personas.wav"
    assert main(["meeting", "--scene", "standup-late-joiner", "--personas-out", str(out)]) == 0
    assert "the personas' side of standup-late-joiner" in capsys.readouterr().err
    samples = audio_mod.decode(out).samples
    lines, windows = timeline(library.scenes["standup-late-joiner"], library.personas)

    def loud(start, end):
        return float(np.abs(samples[int(start * 16_000):int(end * 16_000)]).max(initial=0.0)) > 0.05

    assert len(samples) / 16_000 == pytest.approx(max(line.end for line in lines), abs=1.0)
    assert loud(lines[0].start, lines[0].start + 1.0) and loud(lines[1].start, lines[1].start + 1.0)
    first = windows[0]
    assert not loud(first.opens + 0.5, first.closes)  # the silence where the learner speaks up
    dropout = next(line for line in lines if line.dropout)
    spoken = [(s, e) for s, e in _spans_of(samples) if dropout.start <= s < dropout.end]
    gaps = [b[0] - a[1] for a, b in zip(spoken, spoken[1:], strict=False)]
    assert max(gaps) >= dropout.dropout - 0.1  # the audio breaks up for the dropout's seconds


def _spans_of(samples, frame=320, threshold=0.02):
    """(start, end) seconds of the stretches above `threshold`, 20 ms frames."""
    loud = np.abs(samples[: len(samples) // frame * frame].reshape(-1, frame)).max(axis=1) > threshold
    spans, start = [], None
    for index, on in enumerate(loud):
        if on and start is None:
            start = index
        elif not on and start is not None:
            spans.append((start * frame / 16_000, index * frame / 16_000))
            start = None
    return spans
