"""The practice conversation, shared by the Practice (meeting) and Mock interview pages.

The session id lives in the URL (?session=…), so a refresh or a server restart resumes it."""

from __future__ import annotations

import streamlit as st

from coach.errors import CoachError
from coach.report import markdown_report
from coach.session import PracticeEngine, SessionView
from coach.summary import summarise
from coach.ui import state, voice, widgets
from scoring.models import Scorecard


def render(kind: str) -> None:
    engine = state.engine()
    view = _current_session(engine, kind)
    if view is None:
        _start_form(engine, kind)
        return
    _conversation(engine, view)


def _current_session(engine: PracticeEngine, kind: str) -> SessionView | None:
    session_id = st.query_params.get("session")
    if not session_id:
        return None
    try:
        view = engine.load(session_id)
    except CoachError as exc:
        st.error(f"Cannot open session {session_id!r}: {exc}. Start a new one below.")
        del st.query_params["session"]
        return None
    if view.card.kind != kind:
        return None
    return view


def _start_form(engine: PracticeEngine, kind: str) -> None:
    library = engine.library
    cards = library.cards_of_kind(kind)
    if not cards:
        st.warning("No cards of this kind could be loaded; see the Library page for problems.")
        return
    requested = st.query_params.get("card")
    if requested and requested not in library.cards:
        st.error(f"Unknown card {requested!r}; pick one below.")
    ids = [c.id for c in cards]
    index = ids.index(requested) if requested in ids else 0
    card_id = st.selectbox(
        "Card", ids, index=index, key=f"{kind}-card",
        format_func=lambda cid: f"{library.cards[cid].title} · {library.cards[cid].title_ko}",
    )
    card = library.cards[card_id]
    persona_ids = sorted(library.personas)
    persona_id = st.selectbox(
        "Persona", persona_ids, index=persona_ids.index(card.persona) if card.persona in persona_ids else 0,
        key=f"{kind}-persona",
        format_func=lambda pid: f"{library.personas[pid].name} — {library.personas[pid].role}",
    )
    st.caption(card.sections.get("Situation", "").split("\n\n")[0])
    if st.button("Start", type="primary", key=f"{kind}-start"):
        try:
            view = engine.start(card_id, persona_id, mode="text")
        except CoachError as exc:
            st.error(str(exc))
            return
        st.query_params["session"] = view.id
        st.rerun()


def _conversation(engine: PracticeEngine, view: SessionView) -> None:
    korean = state.korean()
    card, persona = view.card, view.persona
    st.markdown(f"**{card.title}** · {card.title_ko} — with {persona.name}, {persona.role}")
    last_scored = _last_scored(view)
    for turn in view.turns:
        with st.chat_message("assistant"):
            st.markdown(f"**{persona.name}:** {turn.prompt}")
            if turn is view.pending and state.audio_on():
                voice.speak(turn.prompt, persona)
        if turn.answer_text:
            with st.chat_message("user"):
                st.text(turn.answer_text)
                if turn.scorecard_json:
                    with st.expander("Scorecard", expanded=turn is last_scored):
                        widgets.scorecard(card, Scorecard.model_validate_json(turn.scorecard_json),
                                          turn.answer_text, korean)
                    if turn is last_scored:
                        voice.term_hints(engine, view, turn)
                elif turn.error:
                    st.warning(turn.error)
    for note in st.session_state.pop("notes", []):
        st.caption(note)
    if view.finished or view.pending is None:
        _finished(view, korean)
        return
    _answer_box(engine, view)
    if last_scored is not None:
        voice.correction(engine, view, last_scored)


def _last_scored(view: SessionView):
    scored = [t for t in view.turns if t.scorecard_json]
    return scored[-1] if scored else None


def _answer_box(engine: PracticeEngine, view: SessionView) -> None:
    pending = view.pending
    if pending.answer_text and pending.status in ("answered", "failed"):
        st.info("Your last answer is saved but was not scored.")
        if st.button("Score it again", key="retry-scoring"):
            _run(lambda: engine.retry_scoring(view.id))
    transcript = voice.recorder(engine, view)
    with st.form(key=f"answer-{pending.id}", clear_on_submit=True):
        text = st.text_area("Your answer", value=transcript or "", height=150,
                            help="Type, or record above and correct the transcript before sending.")
        sent = st.form_submit_button("Send answer", type="primary")
    if sent:
        _run(lambda: engine.submit(view.id, text, **voice.pending_transcript(view)))
    cols = st.columns(2)
    if pending.kind == "retry" and cols[0].button("Skip to the next situation", key="skip"):
        _run(lambda: engine.skip_retry(view.id))
    if cols[1].button("End session", key="end"):
        _run(lambda: engine.finish(view.id))


def _run(action) -> None:
    try:
        result = action()
    except CoachError as exc:
        st.error(str(exc))
        return
    notes = getattr(result, "notes", None)
    if notes:
        st.session_state["notes"] = notes
    voice.clear()
    st.rerun()


def _finished(view: SessionView, korean: bool) -> None:
    st.success(view.persona.closing)
    result = summarise(view)
    widgets.summary(result, korean)
    st.download_button(
        "Download the report (Markdown)",
        markdown_report(view, result, korean),
        file_name=f"rehearse-{view.card.id}-{view.id[:8]}.md",
        mime="text/markdown",
    )
    if st.button("Practise again", key="again"):
        del st.query_params["session"]
        st.rerun()
