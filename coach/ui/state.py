"""Process-wide resources for the app, cached across reruns and sessions, the learner each page
run is for, and the one owner of the page state (`st.session_state`). The caches hold only what
every visitor shares (the built-in content, the database engine): the signed-in learner's store,
folders and personal cards are made per run.

The page state is a handful of keys, all named here: the sidebar's preferences (widgets), the
widgets whose values a gesture reads (through `widget`/`set_widget`), and one `PageState` object
with everything else a browser session keeps between runs.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import streamlit as st

from coach.practice import (
    LOCAL_LEARNER,
    REMOVED_FOLDER,
    Coach,
    Learner,
    Library,
    PracticeView,
    Settings,
    Store,
    auth_configured,
    auth_problem,
    load_library,
    load_settings,
    markdown_files,
    open_store,
    signed_in,
    zone,
)

# --- the page state ----------------------------------------------------------------------------

LANG, AUDIO_ON, AUTOPLAY, HIDE_TEXT = "lang", "audio_on", "autoplay", "hide_text"  # the sidebar's widgets
PAGE = "rehearse-page"  # the PageState below


@dataclass
class VoiceState:
    """The recorders' state, by the turn they answer (coach.ui.voice)."""

    live: dict[int, dict] = field(default_factory=dict)  # the live answer streaming now
    transcripts: dict[int, dict] = field(default_factory=dict)  # recordings transcribed for the answer box
    errors: dict[int, str] = field(default_factory=dict)  # a live answer refused, said once


@dataclass
class AnswerBox:
    """The answer box of each session (coach.ui.practice_view): whose turn it holds and what it held."""

    turn: dict[str, int] = field(default_factory=dict)  # the pending turn each session's box holds now
    last_sent: dict[str, str] = field(default_factory=dict)  # the answer just sent, until the box holds another
    drafts: dict[int, str] = field(default_factory=dict)  # what was typed or transcribed, by turn
    seen: dict[int, str] = field(default_factory=dict)  # the transcript last put in the box, by turn
    offers: dict[int, str] = field(default_factory=dict)  # a transcript offered beside a typed draft, by turn
    carried: str | None = None  # a refused send's text, put back in the box of the turn asked next


@dataclass
class MeetingState:
    """The live meeting page's state (coach.ui.meeting_view), by scene."""

    results: dict[str, Any] = field(default_factory=dict)  # scene id -> its MeetingResult, until "Play it again"
    live: dict[str, dict] = field(default_factory=dict)  # connection key -> the LiveMeeting and its audio callback
    attempts: dict[str, int] = field(default_factory=dict)  # scene id -> times started (a fresh connection each)
    recordings: dict[str, str] = field(default_factory=dict)  # scene id -> the one-piece recording already judged


@dataclass
class TalkState:
    """Hands-free talk on the practice pages (coach.ui.hands_free), by session."""

    live: dict[str, dict] = field(default_factory=dict)  # connection key -> the conversation and its audio callback
    attempts: dict[str, int] = field(default_factory=dict)  # session id -> calls left (a fresh connection each)


@dataclass
class PageState:
    """Everything a browser session keeps between page runs, besides widget values."""

    active: dict[str, str] = field(default_factory=dict)  # the session open on each kind's page
    view: PracticeView | None = None  # the view the last gesture returned, for the run right after it only
    busy: threading.Event | None = None  # set once the running gesture has ended
    refused: str | None = None  # the message of a gesture the core refused, shown once
    scroll: bool = False  # bring the newest exchange into view (after a gesture)
    confirm: set[str] = field(default_factory=set)  # the "are you sure?" asked now (end a session, delete a card)
    box: AnswerBox = field(default_factory=AnswerBox)
    voice: VoiceState = field(default_factory=VoiceState)
    meeting: MeetingState = field(default_factory=MeetingState)
    talk: TalkState = field(default_factory=TalkState)
    once: dict[str, Any] = field(default_factory=dict)  # a gesture's outcome, shown by the next run (own cards)
    kept: dict[str, Any] = field(default_factory=dict)  # results kept while the page is open (suggestions, …)
    results: dict[str, Any] = field(default_factory=dict)  # recording digest → its result (say again, read aloud)
    heads_used: set[str] = field(default_factory=set)  # the browser's opening recordings already used


def page() -> PageState:
    return st.session_state.setdefault(PAGE, PageState())


def voice() -> VoiceState:
    return page().voice


def meeting() -> MeetingState:
    return page().meeting


def keep_view(view: PracticeView) -> None:
    """The view a gesture returned, rendered by the next run without loading the session again."""
    page().view = view


def take_view() -> PracticeView | None:
    current = page()
    view, current.view = current.view, None
    return view


def drop_view() -> None:
    """A gesture's view is for the run right after it; never rendered later, on another visit."""
    page().view = None


def widget(key: str, default: Any = None) -> Any:
    """A widget's value, read by a gesture (its callback runs before the widget is drawn again)."""
    return st.session_state.get(key, default)


def has_widget(key: str) -> bool:
    return key in st.session_state


def set_widget(key: str, value: Any) -> None:
    st.session_state[key] = value


def forget_widgets(*prefixes: str) -> None:
    """Drop the values of the widgets whose keys start so (they start fresh when drawn again)."""
    for name in [k for k in st.session_state if str(k).startswith(prefixes)]:
        del st.session_state[name]


def _content_signature(folders: tuple) -> tuple:
    """Changes when any content or persona file changes, so edits show without a restart."""
    files: list[tuple[str, int | None, int | None]] = []
    for folder in folders:
        for path in markdown_files(Path(folder)):
            try:
                stat = path.stat()
            except OSError:  # a broken link: the loader reports it, the rest loads
                files.append((str(path), None, None))
                continue
            files.append((str(path), stat.st_mtime_ns, stat.st_size))
    return tuple(files)


@st.cache_resource(show_spinner=False)
def _library(signature: tuple, content_dirs: tuple, persona_dirs: tuple, cards_dirs: tuple) -> Library:
    return load_library(content_dirs, persona_dirs, personal_paths=cards_dirs)


def sign_in_configured() -> bool:
    """An `[auth]` section in one of the secrets files Streamlit reads (`secrets.files`)."""
    return auth_configured(st.get_option("secrets.files") or [])


def sign_in_problem() -> str | None:
    """One line when an `[auth]` section is there but incomplete."""
    return auth_problem(st.get_option("secrets.files") or [])


def learner() -> Learner:
    """Whose data this page run reads and writes: the signed-in identity (issuer and subject),
    or the local learner when sign-in is not configured."""
    if not sign_in_configured():
        return LOCAL_LEARNER
    user = st.user
    if not user.is_logged_in:  # app.py shows the sign-in page before any page runs
        raise RuntimeError("no learner: sign-in is configured and nobody is signed in")
    email, name = user.get("email"), user.get("name")
    return signed_in(str(user.get("iss") or ""), str(user.get("sub") or ""),
                     email if isinstance(email, str) else None, name if isinstance(name, str) else None)


def settings() -> Settings:
    """The settings of this run's learner (their recordings and cards folders)."""
    current = load_settings()
    return current.for_learner(learner()) if sign_in_configured() else current


def library() -> Library:
    current = settings()
    shared = (*current.content_dirs, *current.persona_dirs)
    # the removed cards count too: their sessions still open in full (History)
    removed = current.cards_dir / REMOVED_FOLDER
    if current.learner.is_local:  # one learner: their cards are cached with the content
        cards = (current.cards_dir,)
        return _library(_content_signature((*shared, *cards, removed)), current.content_dirs, current.persona_dirs,
                        cards)
    if not markdown_files(current.cards_dir) and not markdown_files(removed):
        return _library(_content_signature(shared), current.content_dirs, current.persona_dirs, ())
    # a signed-in learner's own cards are never put in a cache that every visitor shares
    return load_library(current.content_dirs, current.persona_dirs, personal_paths=(current.cards_dir,))


@st.cache_resource(show_spinner="Opening the practice database …")
def _store(url: str) -> Store:
    return open_store(url)


def store() -> Store:
    """The store as this run's learner sees it: only their sessions."""
    current = settings()
    return _store(current.database_url).scoped(current.learner)


def coach() -> Coach:
    """The application API the pages call (coach.practice), for this run's learner."""
    return Coach.of(library(), store(), settings())


def korean() -> bool:
    return widget(LANG, "한국어 + English") != "English"


def timezone():
    """The learner's time zone, from the browser (None: the server's own)."""
    try:
        return zone(st.context.timezone)
    except Exception:  # noqa: BLE001 - no browser context (AppTest, bare mode)
        return None


def audio_on() -> bool:
    return widget(AUDIO_ON, True)


def autoplay() -> bool:
    """The persona's new line plays by itself (the sidebar toggle turns that off)."""
    return widget(AUTOPLAY, True)


def hide_text() -> bool:
    """Listening practice: the persona's new line is hidden until the learner asks for it."""
    return widget(HIDE_TEXT, False)


# the page that practises each kind of card (app.py registers them)
KIND_PAGES = {"meeting": "coach/ui/pages/practice.py", "interview": "coach/ui/pages/interview.py"}

def remember_session(kind: str, session_id: str | None) -> None:
    """The session open on a page, so leaving the page and coming back brings it back."""
    if session_id:
        page().active[kind] = session_id
    else:
        page().active.pop(kind, None)


def remembered_session(kind: str) -> str | None:
    return page().active.get(kind)
