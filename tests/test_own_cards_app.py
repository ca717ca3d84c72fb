"""The learner's own questions in the app (issue 20) through AppTest: "Practise my own
question" on the Start screen makes a card and starts it at once; bad input is one message
and keeps the boxes; the library edits, renames and deletes the cards, and History keeps the
sessions of a deleted one readable."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.test_app import app, texts

STORY = "How did you cut inference serving cost at your last job?"
STRONG_STORY = ("On the TPU pod I profiled the serving step myself and found the real cause was dynamic shapes, "
                "so I rewrote the jit boundaries. Utilization went from 40% to 83%. I did the profiling while my "
                "teammate Jisoo handled the input pipeline. We considered rewriting the data loader but the "
                "profile ruled it out. If I did it again, I would add a recompile check to CI from day one.")


def cards_dir() -> Path:
    return Path(os.environ["COACH_DATA_DIR"]) / "cards"


def own(at, questions: str, kind: str = "story", move: str | None = None, terms: str | None = None):
    at.text_area(key="own-questions").input(questions)
    at.radio(key="own-kind").set_value(kind).run()
    if move:
        at.selectbox(key="own-move").select(move)
    if terms is not None:
        at.text_input(key="own-terms").input(terms)
    at.button(key="own-go").click().run()
    assert not at.exception, at.exception
    return at


def pending_draft(at):
    return next(t for t in at.text_area if str(t.key).startswith("answer-"))


def engine():
    from coach.config import load_settings
    from coach.library import library_for
    from coach.session import PracticeEngine
    from coach.store import open_store

    settings = load_settings()
    return PracticeEngine(library_for(settings), open_store(settings.database_url), settings)


@pytest.mark.slow
def test_own_story_starts_at_once_and_follows_up_on_what_is_missing():
    at = own(app(), STORY)
    session_id = at.query_params["session"]
    session = engine().load(session_id)
    assert session.card.personal and session.card.kind == "interview"
    assert STORY in texts(at)  # asked as typed, on the Mock interview page
    assert at.title[0].value == "Mock interview"

    pending_draft(at).input("I think it went well overall, the team was happy.")
    at.button(key="send").click().run()
    assert not at.exception, at.exception
    body = texts(at)
    assert '"How did you cut inference serving cost at your last job"' in body  # the follow-up quotes it
    assert "no criterion met yet" in body

    pending_draft(at).input(STRONG_STORY)
    at.button(key="send").click().run()
    assert "so far **6 of 6**" in texts(at)
    at.button(key="skip-retell").click().run()
    assert "Summary" in [s.value for s in at.subheader]

    at.switch_page("coach/ui/pages/history.py").run()
    assert not at.exception, at.exception
    assert "Utilization went from 40% to 83%" in texts(at)


def test_several_questions_make_one_card_each_and_the_first_is_practised():
    at = own(app(), f"{STORY}\n\n  Tell me about your hardest debugging session.  \n")
    assert len(list(cards_dir().glob("*.md"))) == 2
    assert STORY in texts(at)
    assert "1 more of your questions are saved as cards" in texts(at)
    at.switch_page("coach/ui/pages/library.py").run()
    assert "Your own cards (2)" in texts(at)


@pytest.mark.slow
def test_meeting_move_and_concept_go_to_their_pages_with_their_rubric():
    at = own(app(), "Tomorrow I have to tell the team my migration slips two weeks.", kind="meeting",
             move="status-update")
    session = engine().load(at.query_params["session"])
    assert session.card.kind == "meeting" and "status-update" in session.card.tags
    assert at.title[0].value == "Practice: meetings"
    assert "my migration slips two weeks" in texts(at)

    at = own(app(), "Explain how paged attention saves KV cache memory.", kind="concept",
             terms="paged attention, KV cache, block table")
    card = engine().load(at.query_params["session"]).card
    assert [c.id for c in card.criteria] == ["key_concepts", "quantifies", "tradeoffs"]


def test_korean_question_is_accepted_and_practised_in_english():
    question = "대규모 GPU 클러스터에서 추론 비용을 어떻게 줄였나요?"
    at = own(app(), question)
    assert question in texts(at)
    pending_draft(at).input("It went fine.")
    at.button(key="send").click().run()
    assert "your question" in texts(at)  # the follow-up does not quote a question it cannot read aloud


def test_markdown_and_html_in_the_question_are_shown_as_typed():
    question = "Explain **KV cache** <b>paging</b> [link](http://example.com) # heading"
    at = own(app(), question)
    lines = [m.value for m in at.markdown if "KV cache" in m.value]
    assert lines and all("\\*\\*KV cache\\*\\*" in v and "\\<b\\>" in v and "\\[link\\]" in v for v in lines), lines


@pytest.mark.parametrize("questions, message", [
    ("", "empty"),
    ("  \n \n", "empty"),
    ("x" * 5000, "5,000 characters"),
])
def test_bad_question_is_one_message_and_the_box_keeps_the_text(questions, message):
    at = own(app(), questions)
    assert "session" not in at.query_params
    [error] = at.error
    assert message in error.value
    assert at.text_area(key="own-questions").value == questions
    assert not cards_dir().exists() or not list(cards_dir().glob("*.md"))


@pytest.mark.slow
def test_a_duplicate_title_is_refused_and_nothing_is_lost():
    own(app(), STORY)
    at = own(app(), STORY)
    assert "session" not in at.query_params
    [error] = at.error
    assert "already have a card titled" in error.value
    assert at.text_area(key="own-questions").value == STORY
    [offer] = [link for link in at.get("page_link") if "Practise your card" in link.proto.label]
    assert offer.proto.page.endswith("interview.py") or "interview" in offer.proto.page
    assert len(list(cards_dir().glob("*.md"))) == 1


def test_unwritable_data_dir_is_one_message_and_keeps_the_text():
    cards_dir().parent.mkdir(parents=True, exist_ok=True)
    cards_dir().write_text("a file where the cards folder should be", encoding="utf-8")
    at = own(app(), STORY)
    [error] = at.error
    assert "cannot write your cards" in error.value
    assert at.text_area(key="own-questions").value == STORY


@pytest.mark.slow
def test_edit_rename_and_delete_in_the_library_keep_past_sessions_readable():
    at = own(app(), STORY)
    session_id = at.query_params["session"]
    pending_draft(at).input(STRONG_STORY)
    at.button(key="send").click().run()
    card = engine().load(session_id).card

    at.switch_page("coach/ui/pages/library.py").run()
    key = f"edit-{card.id}"
    at.text_input(key=f"{key}-title").input("Serving cost story")
    at.text_area(key=f"{key}-question").input("How did you make model serving cheaper?")
    at.button(key=f"{key}-save").click().run()
    assert not at.exception, at.exception
    assert "Saved 'Serving cost story'" in texts(at)
    renamed = engine().library.cards[card.id]
    assert renamed.title == "Serving cost story" and renamed.turns[0].prompt.startswith("How did you make")

    at.text_input(key=f"{key}-title").input("")  # a refused edit: one message, the file unchanged
    at.button(key=f"{key}-save").click().run()
    assert any("title is empty" in e.value for e in at.error)
    assert engine().library.cards[card.id].title == "Serving cost story"

    at.button(key=f"{key}-delete").click().run()
    at.button(key=f"{key}-delete-yes").click().run()
    assert not at.exception, at.exception
    assert "Deleted 'Serving cost story'" in texts(at)
    assert card.id not in engine().library.cards
    assert "#### Your own cards (0)" in [m.value for m in at.markdown], [m.value for m in at.markdown if "####" in m.value]

    at.switch_page("coach/ui/pages/history.py").run()
    assert not at.exception, at.exception
    body = texts(at)
    assert "Utilization went from 40% to 83%" in body and STORY in body  # the session as it was practised
    assert at.get("download_button")  # its report too


def _kind_of(rubric: str) -> tuple[str, str | None]:
    return (rubric, None) if rubric in ("story", "concept") else ("meeting", rubric)


@pytest.mark.slow
@pytest.mark.parametrize("rubric", ["story", "concept", "status-update", "disagreement", "clarifying", "summary",
                                    "speaking-up"])
def test_every_rubric_made_practised_seen_in_history_deleted_and_still_readable(rubric, library):
    """Each rubric kind through the app: made on the Start screen, a weak typed answer followed
    up, strong ones meeting every criterion to the summary, the session in History, the card
    deleted in the library, and the session still read in full."""
    from tests.test_personal_cards import CONCEPT_ANSWER, QUESTIONS

    question, criteria = QUESTIONS[rubric]
    kind, move = _kind_of(rubric)
    terms = "paged attention, KV cache, memory fragmentation, block table" if rubric == "concept" else None
    at = own(app(), question, kind=kind, move=move, terms=terms)
    session_id = at.query_params["session"]
    card = engine().load(session_id).card
    assert [c.id for c in card.criteria] == criteria

    asked = engine().load(session_id).pending.prompt
    # a plain "Okay, sounds good to me." is polite now (a plain line is fine): this one is not
    pending_draft(at).input("Okay, whatever, sounds good to me.")
    at.button(key="send").click().run()
    follow_up = engine().load(session_id).pending
    assert follow_up is not None and follow_up.prompt != asked and "no criterion met yet" in texts(at)

    template = personal_template(rubric)
    strong = CONCEPT_ANSWER if template is None else library.card(template).model_answers[0].text
    for _ in range(6):
        if "Summary" in [s.value for s in at.subheader]:
            break
        pending_draft(at).input(strong)
        at.button(key="send").click().run()
        assert not at.exception, at.exception
    assert "Summary" in [s.value for s in at.subheader]
    assert f"{len(criteria)} of {len(criteria)}" in texts(at)

    at.switch_page("coach/ui/pages/history.py").run()
    assert not at.exception, at.exception
    assert strong[:60] in texts(at)

    at.switch_page("coach/ui/pages/library.py").run()
    at.button(key=f"edit-{card.id}-delete").click().run()
    at.button(key=f"edit-{card.id}-delete-yes").click().run()
    assert card.id not in engine().library.cards

    at.switch_page("coach/ui/pages/history.py").run()
    assert not at.exception, at.exception
    body = texts(at)
    assert strong[:60] in body and question.split()[0] in body
    [sessions] = [box for box in at.selectbox if box.label == "Session"]
    assert any("(deleted card)" in option and f"{len(criteria)} of {len(criteria)}" in option
               for option in sessions.options), sessions.options


def personal_template(rubric: str) -> str | None:
    from coach.personal import RUBRICS

    return RUBRICS[rubric].template
