""""Did you mean …?" decided by the recording (coach.hints): a candidate hint is put to a
PocketSphinx forced choice between the transcribed words and the card's term, on the audio of
those words. Real speech made here by espeak-ng: the same transcript gets the hint when the audio
says the term, and none when the audio says the transcribed words."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from coach import audio as audio_mod
from coach import hints, phones
from coach.stt import Transcript
from coach.vocabulary import misheard_terms

needs_espeak = pytest.mark.skipif(not shutil.which("espeak-ng"), reason="espeak-ng is missing")

VOCABULARY = ["NCCL", "NVLink", "InfiniBand", "AllReduce", "utilization", "Micro-batches", "OOM", "GPU"]


def speech(text: str, tmp_path: Path, voice: str, rate: int):
    path = tmp_path / f"{abs(hash((text, voice, rate)))}.wav"
    subprocess.run(["espeak-ng", "-v", voice, "-s", str(rate), "-w", str(path), text], check=True)
    return audio_mod.load(path).samples


def timed_transcript(samples, text: str) -> Transcript:
    """`text` as a transcript of `samples`, each word with its time: the words force-aligned to
    the audio (as Whisper's word timestamps place the words it wrote, right or wrong)."""
    words = text.split()
    with phones._lock:
        dec = phones._get_decoder()
        slots = [[((dec.name(p),), 1.0) for p in phones.said_as(w)] for w in words]
        dec.flush()
        path = dec.decode(phones.to_raw(samples), slots)
    said = [(first, last) for name, first, last in path if not name.startswith(("<", "["))]
    assert len(said) == len(words), path
    timed = [{"word": f" {w}", "start": a / 100, "end": (b + 1) / 100, "probability": 0.9}
             for w, (a, b) in zip(words, said, strict=True)]
    return Transcript(text=text, duration=samples.size / 16_000, words=timed)


def test_a_term_misheard_as_other_words_is_a_candidate_by_its_sound():
    found = hints.candidates("We upgraded them CCL on every node".split(), VOCABULARY)
    assert [(c.term, c.start, c.size) for c in found] == [("NCCL", 2, 2)]
    found = hints.candidates("We used sixteen Micro matches per step".split(), VOCABULARY)
    assert [(c.term, c.start, c.size) for c in found] == [("Micro-batches", 3, 2)]


@pytest.mark.parametrize("text", ["We upgraded NCCL on every node and the GPU stayed busy.",
                                  "GPU utilizations were low.",  # an inflection of the term
                                  "The links between racks were slow."])  # only a part of NVLink
def test_no_candidate_for_terms_heard_right_or_ordinary_words(text):
    assert hints.candidates(text.split(), VOCABULARY, text=text) == []


def test_an_acronym_may_also_be_spelled_out():
    assert "OW OW EH M" in phones.said_as("OOM")  # O-O-M beside the dictionary's "oom"
    assert not any(p.endswith("EH S") for p in phones.said_as("GPUs"))  # a plural, not G-P-U-S


def test_without_the_recording_the_hints_are_the_spelling_rule():
    transcript = Transcript(text="We tuned MCCL for the cluster.", duration=2.0)
    assert hints.term_hints(transcript, None, VOCABULARY) == misheard_terms(transcript.text, VOCABULARY)


@needs_espeak
@pytest.mark.parametrize("voice, rate", [("en-us", 150), ("en-gb", 170)])
@pytest.mark.parametrize("term, said, heard", [
    ("NCCL", "We upgraded NCCL on every node.", "We upgraded them CCL on every node."),
    ("utilization", "Our average utilization was low last month.", "Our average illumination was low last month."),
])
def test_the_recording_keeps_a_right_hint_and_drops_a_wrong_one(tmp_path, voice, rate, term, said, heard):
    """One transcript ("them CCL"), two recordings: the term said (the hint is right and kept)
    and the transcribed words said (the hint would be wrong: dropped)."""
    words = heard.rstrip(".").split()
    assert any(c.term == term for c in hints.candidates(words, VOCABULARY)), "a candidate to decide"
    right = speech(said, tmp_path, voice, rate)
    wrong = speech(heard, tmp_path, voice, rate)
    kept = hints.term_hints(timed_transcript(right, heard), right, VOCABULARY)
    dropped = hints.term_hints(timed_transcript(wrong, heard), wrong, VOCABULARY)
    assert [s.term for s in kept] == [term], kept
    assert " ".join(kept[0].heard.split()) in heard
    assert dropped == [], dropped


@needs_espeak
def test_the_recording_can_be_given_as_a_file(tmp_path):
    path = tmp_path / "nccl.wav"
    subprocess.run(["espeak-ng", "-v", "en-us", "-s", "150", "-w", str(path), "We upgraded NCCL on every node."],
                   check=True)
    transcript = timed_transcript(audio_mod.load(path).samples, "We upgraded them CCL on every node.")
    assert [s.term for s in hints.term_hints(transcript, path, VOCABULARY)] == ["NCCL"]
    assert hints.term_hints(transcript, tmp_path / "missing.wav", VOCABULARY) == misheard_terms(
        transcript.text, VOCABULARY)


@needs_espeak
def test_a_stored_spoken_answers_hints_are_decided_by_its_recording(library, tmp_path):
    """A session loaded again shows the hints of its newest spoken answer as after "stop": read
    from the turn's recording and timed words; once the transcript is corrected, the times no
    longer fit and the spelling rule decides."""
    from types import SimpleNamespace

    from coach.hints import stored_turn_hints
    from coach.vocabulary import card_vocabulary

    vocabulary = card_vocabulary(library.card("nccl-communication-tuning"))
    heard = "We upgraded them CCL on every node."

    def hints(turn) -> list[str]:
        return [s.message() for s in stored_turn_hints(turn, vocabulary)]

    for said, expected in (("We upgraded NCCL on every node.", ['"them CCL": did you mean NCCL?']),
                           (heard, [])):
        path = tmp_path / f"{len(said)}.wav"
        subprocess.run(["espeak-ng", "-v", "en-us", "-s", "150", "-w", str(path), said], check=True)
        transcript = timed_transcript(audio_mod.load(path).samples, heard)
        turn = SimpleNamespace(transcript_json=transcript.model_dump_json(), answer_text=heard, audio_path=str(path))
        assert hints(turn) == expected
    corrected = SimpleNamespace(transcript_json=transcript.model_dump_json(), answer_text="We upgraded MCCL.",
                                audio_path=str(path))
    assert hints(corrected) == ['"MCCL": did you mean NCCL?']
