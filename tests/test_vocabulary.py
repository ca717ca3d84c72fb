"""A card's vocabulary: biasing recognition towards its terms, and "did you mean …?" for the
terms that were probably misheard."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from coach.vocabulary import TermSuggestion, card_vocabulary, misheard_terms

VOCABULARY = ["NCCL", "Nsight", "utilization", "A100", "NVLink", "AllReduce", "scaling efficiency", "ring"]


def test_card_vocabulary_comes_from_the_card(library):
    terms = card_vocabulary(library.card("nccl-communication-tuning"))
    for term in ("NCCL", "NVLink", "InfiniBand", "AllReduce", "NCCL_DEBUG", "H100"):
        assert term in terms, terms
    assert len({t.lower() for t in terms}) == len(terms)
    flagship = card_vocabulary(library.card("gpu-cluster-optimization"))
    assert "Utilization" in flagship and "A100" in flagship and "scaling efficiency" in flagship


@pytest.mark.parametrize(
    "heard, term",
    [("We tuned MCCL for the cluster.", "NCCL"),
     ("I opened the trace in M-site systems.", "Nsight"),
     ("GPU illumination went from 40% to 83%.", "utilization"),
     ("We moved the traffic onto envy link.", "NVLink")],
)
def test_misheard_terms_are_suggested(heard, term):
    suggestions = misheard_terms(heard, VOCABULARY)
    assert suggestions and suggestions[0].term == term, suggestions
    assert suggestions[0].heard.lower() in heard.lower()
    assert f"did you mean {term}?" in suggestions[0].message()


@pytest.mark.parametrize(
    "text",
    ["NCCL and Nsight showed utilization at 83% on the A100 nodes.",
     "We had a meeting with the team and I brought the latency numbers.",
     "Our scaling efficiency improved after the ring changes.",
     "GPU utilizations were low.",  # an inflection, not a mishearing
     # an ordinary word that is only a part of a term ("NVLink" = NV + Link) was said as meant
     "We have faster links between racks and the all-reduce is slow.",
     "The link between the two racks was the bottleneck.",
     ""],
)
def test_no_suggestion_for_right_or_ordinary_words(text):
    assert misheard_terms(text, VOCABULARY) == []


def test_at_most_limit_suggestions_best_first():
    text = "MCCL, M-site, illumination and envy link all at once."
    suggestions = misheard_terms(text, VOCABULARY, limit=2)
    assert len(suggestions) == 2 and all(isinstance(s, TermSuggestion) for s in suggestions)
    assert suggestions[0].score >= suggestions[1].score


@pytest.mark.slow
@pytest.mark.skipif(not shutil.which("espeak-ng"), reason="espeak-ng is missing")
def test_the_card_vocabulary_makes_the_decoder_hear_the_terms(tmp_path, library):
    """Real speech, real tiny.en: a sentence full of the card's terms. Without the vocabulary
    tiny.en misses terms (measured: benchmarks/README.md); with it, they are spelled right."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from coach import stt

    sentence = ("NCCL builds rings over NVLink inside a node and uses InfiniBand between nodes. "
                "When AllReduce was slow, I ran nccl-tests and set NCCL_DEBUG to INFO.")
    wav = tmp_path / "terms.wav"
    subprocess.run(["espeak-ng", "-v", "en-us", "-s", "150", "-w", str(wav), sentence], check=True)
    terms = card_vocabulary(library.card("nccl-communication-tuning"))
    plain = stt.transcribe(wav).text
    biased = stt.transcribe(wav, vocabulary=terms).text
    spoken = ["NCCL", "NVLink", "InfiniBand", "AllReduce", "nccl-tests", "NCCL_DEBUG"]

    def heard(text):
        squashed = "".join(ch for ch in text.lower() if ch.isalnum())
        return {t for t in spoken if "".join(ch for ch in t.lower() if ch.isalnum()) in squashed}

    print(f"without: {plain!r}\nwith:    {biased!r}")
    assert "NCCL" in biased and len(heard(biased)) > len(heard(plain)), (plain, biased)
    assert "Glossary" not in biased  # the prompt is not transcribed


def test_the_view_gives_the_hints_of_a_spoken_answer_only(library, tmp_path):
    """The page shows the view's hints; it does not compute them (coach.ui imports no vocabulary)."""
    from coach.practice import Coach
    from coach.session import PracticeEngine
    from coach.store import Store

    engine = PracticeEngine(library, Store(f"sqlite:///{tmp_path / 'hints.db'}"))
    coach = Coach(engine)
    said = "We tuned MCCL so the all-reduce used both rails."
    typed = coach.start("nccl-communication-tuning")
    assert coach.send_text(typed.id, said).hints == ()
    spoken = coach.start("nccl-communication-tuning")
    engine.save_transcript(spoken.id, json.dumps({"text": said, "duration": 4.0}))  # a recording kept beside the box
    sent = coach.send_text(spoken.id, said)
    assert sent.turns[0].transcript_json and sent.hints == ('"MCCL": did you mean NCCL?',)
    assert coach.resume(spoken.id).hints == sent.hints  # the page loaded again shows the same
