"""Process-wide resources for the app, cached across reruns and sessions, and the learner each
page run is for. The caches hold only what every visitor shares (the built-in content, the
database engine): the signed-in learner's store, folders and personal cards are made per run.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from coach.practice import (
    REMOVED_FOLDER,
    Coach,
    Learner,
    Library,
    PracticeEngine,
    Settings,
    Store,
    access,
    load_library,
    load_settings,
    markdown_files,
    open_store,
    zone,
)


def _content_signature(folders: tuple) -> tuple:
    """Changes when any content or persona file changes, so edits show without a restart."""
    files = []
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
    return access.auth_configured(st.get_option("secrets.files") or [])


def sign_in_problem() -> str | None:
    """One line when an `[auth]` section is there but incomplete."""
    return access.auth_problem(st.get_option("secrets.files") or [])


def learner() -> Learner:
    """Whose data this page run reads and writes: the signed-in identity (issuer and subject),
    or the local learner when sign-in is not configured."""
    if not sign_in_configured():
        return access.LOCAL
    user = st.user
    if not user.is_logged_in:  # app.py shows the sign-in page before any page runs
        raise RuntimeError("no learner: sign-in is configured and nobody is signed in")
    return access.signed_in(str(user.get("iss") or ""), str(user.get("sub") or ""),
                            user.get("email"), user.get("name"))


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


def engine() -> PracticeEngine:
    return PracticeEngine(library(), store(), settings())


def coach() -> Coach:
    """The application API the pages call (coach.practice)."""
    return Coach(engine())


def korean() -> bool:
    return st.session_state.get("lang", "한국어 + English") != "English"


def timezone():
    """The learner's time zone, from the browser (None: the server's own)."""
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
