"""Process-wide resources for the app, cached across reruns and sessions."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from coach.config import Settings, load_settings
from coach.content import Library, load_library, markdown_files
from coach.practice import Coach
from coach.session import PracticeEngine
from coach.store import Store, open_store


def _content_signature(settings: Settings) -> tuple:
    """Changes when any content or persona file changes, so edits show without a restart."""
    files = []
    for folder in (*settings.content_dirs, *settings.persona_dirs, settings.cards_dir):
        for path in markdown_files(Path(folder)):
            try:
                stat = path.stat()
            except OSError:  # a broken link: the loader reports it, the rest loads
                files.append((str(path), None, None))
                continue
            files.append((str(path), stat.st_mtime_ns, stat.st_size))
    return tuple(files)


@st.cache_resource(show_spinner=False)
def _library(signature: tuple, content_dirs: tuple, persona_dirs: tuple, cards_dir: Path) -> Library:
    return load_library(content_dirs, persona_dirs, personal_paths=(cards_dir,))


def settings() -> Settings:
    return load_settings()


def library() -> Library:
    current = settings()
    return _library(_content_signature(current), current.content_dirs, current.persona_dirs, current.cards_dir)


@st.cache_resource(show_spinner="Opening the practice database …")
def _store(url: str) -> Store:
    return open_store(url)


def store() -> Store:
    return _store(settings().database_url)


def engine() -> PracticeEngine:
    return PracticeEngine(library(), store(), settings())


def coach() -> Coach:
    """The application API the pages call (coach.practice)."""
    return Coach(engine())


def korean() -> bool:
    return st.session_state.get("lang", "한국어 + English") != "English"


def timezone():
    """The learner's time zone, from the browser (None: the server's own)."""
    from coach.progress import zone

    try:
        return zone(st.context.timezone)
    except Exception:  # noqa: BLE001 - no browser context (AppTest, bare mode)
        return None


def audio_on() -> bool:
    return st.session_state.get("audio_on", True)


def autoplay() -> bool:
    """The persona's new line plays by itself (the sidebar toggle turns that off)."""
    return st.session_state.get("autoplay", True)


def hide_text() -> bool:
    """Listening practice: the persona's new line is hidden until the learner asks for it."""
    return st.session_state.get("hide_text", False)


# the page that practises each kind of card (app.py registers them)
KIND_PAGES = {"meeting": "coach/ui/pages/practice.py", "interview": "coach/ui/pages/interview.py"}

ACTIVE = "active-session-{kind}"


def remember_session(kind: str, session_id: str | None) -> None:
    """The session open on a page, so leaving the page and coming back brings it back."""
    if session_id:
        st.session_state[ACTIVE.format(kind=kind)] = session_id
    else:
        st.session_state.pop(ACTIVE.format(kind=kind), None)


def remembered_session(kind: str) -> str | None:
    return st.session_state.get(ACTIVE.format(kind=kind))
