"""The Meeting page through AppTest: a scene to pick, its moments, the one-piece fallback (AppTest
has no live connection), and the result per moment as `coach meeting --format json` gives it."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from coach.meeting import Stretch, judge, result_view
from coach.scenes import timeline
from tests.conftest import REPO
from tests.test_app import texts

PAGE = "coach/ui/pages/meeting.py"


def _page(scene: str | None = None, **state) -> AppTest:
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=60)
    at.session_state["audio_on"] = False
    for key, value in state.items():
        at.session_state[key] = value
    if scene:
        at.query_params["scene"] = scene
    at.switch_page(PAGE)
    return at.run()


def test_the_page_offers_each_scene_with_its_moments():
    at = _page()
    assert not at.exception, at.exception
    assert at.title[0].value == "Live meeting"
    picker = at.selectbox(key="meeting-scene")
    assert set(picker.options) == {"Plan review: disagree before it is decided",
                                   "Release call: people talk at once, take the floor and give way",
                                   "Stand-up: speak up first, then a late joiner's audio breaks up"}
    picker.select("Stand-up: speak up first, then a late joiner's audio breaks up").run()
    body = texts(at)
    assert "Anya asks who starts: speak up first" in body and "ask him to repeat" in body
    assert at.query_params["scene"] in ("standup-late-joiner", ["standup-late-joiner"])
    # no live connection here: the scene can be done in one piece, its audio played in the page
    assert any(e.label == "Do the scene in one piece" for e in at.expander)


def test_the_scene_in_the_url_is_the_one_shown():
    at = _page("talking-at-once")
    assert "take the floor before the topic closes" in texts(at)


def test_the_result_shows_each_moment_with_timing_words_and_evidence(library):
    scene = library.scenes["standup-late-joiner"]
    lines, windows = timeline(scene, library.personas)
    first = windows[0]
    said = "I can go first, if that's okay."
    data = judge(scene, lines, windows, [Stretch(first.opens + 1.0, first.opens + 3.0, said, first.opens + 1.2)])
    from coach.ui.state import PAGE, MeetingState, PageState

    kept = PageState(meeting=MeetingState(results={scene.id: result_view(scene, library.personas, data)}))
    at = _page("standup-late-joiner", **{PAGE: kept})
    assert not at.exception, at.exception
    body = texts(at)
    assert "1 of 2 moments" in body
    assert "You spoke **1.2 s** after it opened, talking over no one." in body
    assert f"You said: “{said}”" in body.replace("\\", "")
    assert "✅ A phrase that fits the moment · 상황에 맞는 표현: “I can go first, if that's okay.”" in body.replace("\\", "")
    assert "You did not speak in this moment." in body  # the dropout: nothing said
    assert "For example: “Sorry Ravi, you broke up for a second. Could you repeat the date?”" in body
    at.button(key="again-standup-late-joiner").click().run()
    assert "You did not speak in this moment." not in texts(at)
    assert any(e.label == "Do the scene in one piece" for e in at.expander)
