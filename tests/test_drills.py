"""Read-aloud drills (issue 19, item 3): every card gives lines to say, its technical terms
first; a reading scored with the real tiny.en model on espeak-ng speech shows the respelled
words and none of a line said right; the page lists a card's lines with their audio."""

from __future__ import annotations

import re
import shutil

import pytest

from coach.drills import MAX_LINE_WORDS, MIN_LINE_WORDS, lines_for
from coach.library import default_library
from tests.test_app import app, texts
from tests.test_pronunciation import settings, speak  # noqa: F401 - the settings fixture

needs_espeak = pytest.mark.skipif(not shutil.which("espeak-ng"), reason="espeak-ng is missing")
LIBRARY = default_library()


@pytest.mark.parametrize("card_id", sorted(LIBRARY.cards))
def test_every_card_has_whole_lines_to_read(card_id):
    card = LIBRARY.card(card_id)
    lines = lines_for(card)
    assert len(lines) >= 5, [line.text for line in lines]
    for line in lines:
        assert MIN_LINE_WORDS <= len(line.text.split()) <= MAX_LINE_WORDS and "..." not in line.text
    assert len({line.text for line in lines}) == len(lines)
    if card.kind == "interview":  # the card's terms first: the first line holds at least one
        assert lines[0].terms and all(re.search(re.escape(t), lines[0].text, re.I) for t in lines[0].terms)
    elif "Key phrases" in card.sections:
        assert lines[0].source == "Key phrase"


@pytest.mark.slow
@needs_espeak
def test_a_reading_shows_the_words_that_did_not_come_through(tmp_path, settings):  # noqa: F811
    from coach.drills import read_aloud

    line = "Sorry, you broke up for a moment. Could you repeat the last part?"
    right = read_aloud(speak(line, tmp_path / "right.wav"), line, settings)
    assert [w.word for w in right.words if w.flag] == [] and right.score == 1.0
    wrong = read_aloud(speak("Sorry, you bloke up for a moment. Could you lepeat the rast part?",
                             tmp_path / "wrong.wav"), line, settings)
    flagged = {w.word.strip(",.?").lower() for w in wrong.words if w.flag}
    assert flagged and flagged <= {"broke", "repeat", "last"}, flagged
    assert wrong.score < right.score


@pytest.mark.slow
def test_the_page_lists_a_cards_lines_with_their_audio():
    at = app()
    at.switch_page("coach/ui/pages/read_aloud.py").run()
    at.selectbox(key="read-aloud-card").select("video-call-essentials").run()
    assert not at.exception, at.exception
    assert at.query_params["card"] == "video-call-essentials"  # a reload keeps the card
    shown = texts(at)
    for line in lines_for(LIBRARY.card("video-call-essentials")):
        assert line.text in shown
    assert len(at.get("audio")) >= 2 * 5  # each line at normal pace and slowly
    assert len(at.get("audio_input")) == len(lines_for(LIBRARY.card("video-call-essentials")))
