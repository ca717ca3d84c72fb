"""The practice conversation, shared by the Practice (meeting) and Mock interview pages.

The session id lives in the URL (?session=…) and in the browser session, so a refresh, a
server restart or a visit to another page comes back to it. The newest exchange and the
next question come first on screen; earlier turns and the full rubric are one click away."""

from __future__ import annotations

import threading

import streamlit as st

from coach.errors import CoachError, SessionNotFoundError
from coach.practice import Coach, PracticeView, SessionResult, Turn, TurnKind, TurnStatus
from coach.ui import hands_free, listening, pronunciation_view, state, voice, widgets

PREVIEW_CHARS = 280  # the newest answer is shown this long; the full text is in its scorecard


def render(kind: str) -> None:
    listening.begin()
    _wait_for_gesture()
    try:
        coach = state.coach()
    except CoachError as exc:  # the database cannot be opened: say why, and what to do
        widgets.error(str(exc))
        return
    view = _current_session(coach, kind)
    if view is None:
        _start_form(coach, kind)
        return
    state.remember_session(kind, view.id)
    _conversation(coach, view, kind)
    listening.draw_players()  # last: making a new line's voice holds up nothing above


def start(coach: Coach, kind: str, card_id: str, persona_id: str | None = None) -> str | None:
    """Start a session and remember it for its page; None (with a message) when it cannot start."""
    try:
        view = coach.start(card_id, persona_id)
    except CoachError as exc:
        widgets.error(str(exc))
        return None
    state.remember_session(kind, view.id)
    state.keep_view(view)
    return view.id


def _current_session(coach: Coach, kind: str) -> PracticeView | None:
    session_id = st.query_params.get("session") or state.remembered_session(kind)
    if not session_id:
        return None
    last = state.take_view()
    try:
        view = last if last is not None and last.id == session_id else coach.resume(session_id)
    except SessionNotFoundError:
        st.error(f"Cannot open session {widgets.url_value(session_id)}: it does not exist. Start a new one below.")
        _forget(kind)
        return None
    except CoachError as exc:
        widgets.error(f"Cannot open the session: {exc}. Start a new one below.")
        _forget(kind)
        return None
    if view.card.kind != kind:
        if st.query_params.get("session") == session_id:  # named in the link: say where it belongs
            st.warning(f"Session {widgets.url_value(session_id)} is {_PAGE_OF[view.card.kind]}; open it there, "
                       "or start a new one below.")
        return None
    if st.query_params.get("session") != view.id:
        st.query_params["session"] = view.id
    return view


_PAGE_OF = {"interview": "a mock interview (the Mock interview page)",
            "meeting": "a meeting drill (the Meeting practice page)"}


def _forget(kind: str) -> None:
    """The page no longer points at a session (it could not be opened)."""
    if "session" in st.query_params:
        del st.query_params["session"]
    state.remember_session(kind, None)


def _start_form(coach: Coach, kind: str) -> None:
    library = coach.library
    korean = state.korean()
    cards = library.summaries(kind)  # own cards from their folder's index: only the chosen one is built
    if not cards:
        st.warning("No cards of this kind could be loaded; see the Library page for problems.")
        return
    unfinished = coach.latest_active(kind)
    if unfinished is not None and unfinished.answered:
        label = unfinished.label(state.timezone())
        st.info(f"You have an unfinished session: {widgets.escape_md(label)}")
        if st.button("Resume it", type="primary", key=f"{kind}-resume"):
            _open(kind, unfinished.id)
    requested = st.query_params.get("card")
    if requested and requested not in library.cards:
        st.error(f"Unknown card {widgets.url_value(requested)}; pick one below.")
    elif requested and library.cards[requested].kind != kind:
        st.warning(f"Card {widgets.url_value(requested)} is {_PAGE_OF[library.cards[requested].kind]}; "
                   "open it there, or pick one below.")
    listed = {c.id: c for c in cards}
    ids = list(listed)
    index = ids.index(requested) if requested in listed else 0
    card_id = st.selectbox(
        "Card", ids, index=index, key=f"{kind}-card",
        format_func=lambda cid: widgets.title(listed[cid], korean) if cid in listed else cid,
    )
    card = library.cards[card_id]
    persona_id = _persona_choice(library, card, kind)
    st.caption(widgets.situation(card, korean))
    if st.button("Start", type="primary", key=f"{kind}-start"):
        session_id = start(coach, kind, card_id, persona_id)
        if session_id:
            _open(kind, session_id)


def _persona_choice(library, card, kind: str) -> str | None:
    """The card's own persona unless the learner picks another for this card (the choice is
    kept per card, so changing the card never carries a persona over); None means the card's."""
    def name(pid: str | None) -> str:
        persona = library.personas.get(pid or card.persona)
        who = f"{persona.name} — {persona.role}" if persona else (pid or card.persona)
        return f"{who} (this card's persona)" if pid is None else who

    others = sorted(pid for pid in library.personas if pid != card.persona)
    return st.selectbox("Persona", [None, *others], key=f"{kind}-persona-{card.id}", format_func=name)


def _open(kind: str, session_id: str) -> None:
    state.remember_session(kind, session_id)
    st.query_params["session"] = session_id
    st.rerun()


def _conversation(coach: Coach, view: PracticeView, kind: str) -> None:
    korean = state.korean()
    card, persona = view.card, view.persona
    result = view.result
    st.markdown(f"**{widgets.title_md(card, korean)}** — with {persona.name}, {persona.role}")
    _so_far(result, view, korean)
    last = view.newest
    # the newest exchange (the last answer with its feedback, then the prompt after it) comes
    # first; every earlier line, the question just answered included, is one click away
    newest_from = last if last is not None else len(view.turns) - 1
    if view.finished:
        newest_from = len(view.turns)  # finished: the summary comes first, the whole conversation above it
    if newest_from > 0 or last is not None:
        count = newest_from + (last is not None)
        with st.expander(f"The conversation so far ({count} question{'s' if count > 1 else ''})"):
            for index, turn in enumerate(view.turns[:newest_from]):
                _exchange(coach, view, index, turn, result, korean, newest=False)
            if last is not None:
                _prompt(coach, view, view.turns[last])
    with st.container(key="newest-exchange"):
        for index, turn in enumerate(view.turns[newest_from:], start=newest_from):
            _exchange(coach, view, index, turn, result, korean, newest=True, show_prompt=index != last)
        if last is not None:
            newest = view.feedback[last]
            voice.term_hints(view)
            pronunciation_view.feedback(coach, newest, korean)
            if newest.spoken:  # its transcript can be corrected
                voice.correction(coach, view, newest)
    if state.page().scroll:
        # rendered again on every rerun, unchanged until the next answer: a rerun the page
        # makes by itself (a component reporting its state) would otherwise remove it and
        # end the hold while the page is still shifting
        widgets.scroll_into_view("newest-exchange", nonce=f"{view.id}-{len(view.turns)}")
    for note in view.notes:
        st.caption(note)
    if view.finished:
        _finished(coach, view, korean, kind)
        return
    if not hands_free.running(view):  # the answer box (the default) first; hands-free talk under it
        _answer_box(coach, view, kind)
    call = hands_free.control(coach, view, korean)
    if call is not None:  # a call is running: the conversation goes on by voice, no answer box
        hands_free.follow(view, call, korean)


def _so_far(result: SessionResult, view: PracticeView, korean: bool) -> None:
    """The session's running result, one line; each criterion with the answer that met it."""
    with st.expander(f"Your answer so far: **{result.met} of {result.of}** criteria met"):
        for state_ in result.current():
            label = widgets.label(state_.label, state_.label_ko, korean)
            if view.card.several_moments:
                label += f" ({view.card.turn_label(state_.card_turn)})"
            if state_.met:
                quote = widgets.escape_md(state_.evidence[0]) if state_.evidence else ""
                st.markdown(f"✅ **{label}** — answer {view.answer_number(state_.turn) or '?'}: “{quote}”")
            else:
                st.markdown(f"⬜ **{label}** — not yet")


def _prompt(coach: Coach, view: PracticeView, turn: Turn) -> None:
    card = view.card
    current = turn is view.pending
    with st.chat_message("assistant"):
        hint = view.korean_hint(turn)
        if current and card.several_moments and turn.kind == TurnKind.QUESTION:
            number = [t.id for t in card.turns].index(turn.turn_id) + 1
            st.caption(f"Moment {number} of {len(card.turns)}: {card.turn_label(turn.turn_id, state.korean())}")
        listening.persona_line(coach, turn.prompt, view.persona, current=current, korean_text=hint,
                               key=f"line-{turn.id}", literal=card.personal,
                               in_call=current and hands_free.running(view))
        if current and turn.kind == TurnKind.QUESTION and card.kind == "interview" and card.estimated_seconds:
            st.caption(f"Aim for about {card.estimated_seconds} seconds: one real project, in your own words.")
        if current and turn.kind == TurnKind.RETELL:
            seconds = card.estimated_seconds or 90
            st.caption(f"Your final take: about {seconds} seconds. It is scored and compared with your first answer.")


def _exchange(coach: Coach, view: PracticeView, index: int, turn: Turn, result: SessionResult, korean: bool,
              newest: bool, show_prompt: bool = True) -> None:
    card = view.card
    current = turn is view.pending
    if show_prompt:
        _prompt(coach, view, turn)
    if not turn.answer_text:
        return
    with st.chat_message("user"):
        text = turn.answer_text
        if newest and len(text) > PREVIEW_CHARS:
            text = text[:PREVIEW_CHARS].rsplit(" ", 1)[0] + " …"
        st.text(text)
        if index in view.feedback:
            scorecard, headline = view.feedback[index].scorecard, view.feedback[index].headline
            if turn.kind == TurnKind.RETELL and (retell := view.retell) is not None:
                st.markdown(f"Your retell: **{retell.retell_met} of {retell.of}** in one answer "
                            f"(your first answer: {retell.first_met} of {retell.of})")
            elif headline is not None:
                widgets.turn_feedback(headline, korean, turn.answer_text)
            widgets.your_english(view.feedback[index].english, korean)
            if newest:
                _natural_rewrite(coach, turn, korean)
                widgets.next_steps(view.next_steps, korean)
            # keyed by the turn: an earlier answer's open scorecard does not open the next one by itself
            with st.expander("Full scorecard and tips", key=f"scorecard-{turn.id}"):
                widgets.scorecard(card, scorecard, turn.answer_text, korean, headline=headline)
        elif turn.error and not current and turn.error != state.page().refused:
            # (a refusal just made is said once, under the answer box)
            st.warning(widgets.message_lines(turn.error) if "\n" in turn.error else turn.error)
        if (refused := view.newest_refused) is not None and refused.id == turn.id:
            _natural_rewrite(coach, turn, korean)  # an answer in Korean: the same thing said in English


def _natural_rewrite(coach: Coach, turn: Turn, korean: bool) -> None:
    """With a language model configured: the answer as a fluent colleague would say it (checked in
    the core to keep the learner's facts), on request; nothing without a model."""
    if not coach.can_suggest() or not turn.answer_text:
        return
    kept = state.page().kept
    key = f"rewrite-{turn.id}"
    if key not in kept:
        if st.button("Say it more naturally" + (" · 자연스럽게" if korean else ""), key=key):
            try:
                with st.spinner("Asking the language model …"):
                    kept[key] = coach.natural_rewrite(turn.answer_text)
            except CoachError as exc:
                kept[key] = str(exc)
        if key not in kept:
            return
    found = kept[key]
    if isinstance(found, str):
        widgets.error(found)
        return
    st.markdown(f"**More naturally:** “{widgets.escape_md(found.text)}”")
    if found.changes:
        st.caption(" · ".join(f"{widgets.escape_md(a) or '—'} → {widgets.escape_md(b) or '—'}"
                              for a, b in found.changes[:8]))


def _draft_key(view: PracticeView) -> str:
    """The answer box's key: one box per session, not per turn. A box keyed by its turn is
    a new widget after each Send, and the browser drops what was typed into the old one
    while the Send was being processed (issue 18, item 2); one widget keeps it."""
    return f"answer-{view.id}"


def _restore_draft(view: PracticeView) -> None:
    """When the pending turn changes (a Send, another page, a reload), put its text in the
    box: a refused send's text, text typed since the Send, what was typed or transcribed for
    the turn before, or nothing. The box is the same widget across turns and the browser
    keeps text it has not yet sent over a value set here, so typing on while a Send is
    processed loses nothing."""
    pending = _pending(view)
    key = _draft_key(view)
    box = state.page().box
    carried, box.carried = box.carried, None
    if box.turn.get(view.id) == pending.id and state.has_widget(key):
        return
    box.turn[view.id] = pending.id
    sent = box.last_sent.get(view.id)
    current = _without_sent(view.id, key)
    if carried:
        state.set_widget(key, carried)
    elif sent is not None and current.strip() and current != sent:
        box.drafts[pending.id] = current  # typed after the Send, for this turn: kept as it is
    elif box.drafts.get(pending.id):
        state.set_widget(key, box.drafts[pending.id])
    elif pending.answer_text:
        state.set_widget(key, pending.answer_text)
    elif pending.draft:  # typed before a reload, kept with the turn
        state.set_widget(key, pending.draft)
    elif view.spoken:
        state.set_widget(key, view.spoken)
        box.seen[pending.id] = view.spoken
    else:
        state.set_widget(key, "")


def _pending(view: PracticeView):
    """The turn the answer box answers (the box is shown only while one is open)."""
    assert view.pending is not None
    return view.pending


def _without_sent(session_id: str, key: str) -> str:
    """The box's text, less the answer just sent when the next one was typed after it before
    the box had emptied (the browser keeps the whole text). The sent answer is forgotten once
    the box holds anything else."""
    text = state.widget(key, "")
    last_sent = state.page().box.last_sent
    sent = last_sent.get(session_id)
    if not sent or text == sent:
        return text
    if text.startswith(sent):
        text = text[len(sent):].lstrip()
        state.set_widget(key, text)
    else:
        last_sent.pop(session_id, None)
    return text


def _take_transcript(coach: Coach, view: PracticeView, transcript: str | None) -> None:
    """A new transcript fills an empty box; a typed draft is kept and the choice offered."""
    pending = _pending(view)
    box = state.page().box
    if not transcript or box.seen.get(pending.id) == transcript:
        return
    box.seen[pending.id] = transcript
    transcript_json = voice.pending_transcript(view)
    if transcript_json:
        try:
            coach.keep_transcript(view.id, transcript_json)
        except CoachError as exc:
            st.warning(str(exc))
    draft = state.widget(_draft_key(view), "")
    if not draft.strip() or draft.strip() == transcript.strip():
        state.set_widget(_draft_key(view), transcript)
        box.drafts[pending.id] = transcript
    else:
        box.offers[pending.id] = transcript


def _keep_draft(coach: Coach, session_id: str, turn_pk: int, key: str) -> None:
    text = _without_sent(session_id, key)
    state.page().box.drafts[turn_pk] = text
    try:
        coach.save_draft(turn_pk, text)
    except CoachError:  # the store is unavailable: the draft stays in this browser session
        pass


def _use_transcript(coach: Coach, session_id: str, turn_id: int, key: str, how: str) -> None:
    offer = state.page().box.offers.pop(turn_id, "")
    if how == "replace":
        state.set_widget(key, offer)
    elif how == "append":
        state.set_widget(key, f"{state.widget(key, '').rstrip()} {offer}".strip())
    _keep_draft(coach, session_id, turn_id, key)


def _answer_box(coach: Coach, view: PracticeView, kind: str) -> None:
    pending = _pending(view)
    limit = coach.settings.max_answer_chars
    _restore_draft(view)
    if pending.answer_text and TurnStatus(pending.status) in {TurnStatus.ANSWERED, TurnStatus.FAILED}:
        if len(pending.answer_text) > limit:
            st.warning(f"Your last answer is saved but it is {len(pending.answer_text):,} characters, over the "
                       f"{limit:,} limit. It is still in the box below: shorten it and send it again.")
        else:
            st.info("Your last answer is saved but was not scored.")
            st.button("Score it again", key="retry-scoring", on_click=_gesture,
                      args=(lambda: coach.score_again(view.id),))
    key = _draft_key(view)
    typed = state.widget(key, "")
    transcript = voice.recorder(coach, view, hold=bool(typed.strip()))
    _take_transcript(coach, view, transcript)
    box = state.page().box
    offer = box.offers.get(pending.id)
    if offer:
        st.info("Your recording is transcribed. Your typed answer is kept; choose what to do with the transcript:  \n"
                f"“{widgets.escape_md(offer)}”")
        cols = st.columns(3)
        cols[0].button("Replace my text with it", key=f"replace-{pending.id}", on_click=_use_transcript,
                       args=(coach, view.id, pending.id, key, "replace"))
        cols[1].button("Add it after my text", key=f"append-{pending.id}", on_click=_use_transcript,
                       args=(coach, view.id, pending.id, key, "append"))
        cols[2].button("Keep my text only", key=f"keep-{pending.id}", on_click=_use_transcript,
                       args=(coach, view.id, pending.id, key, "keep"))
    text = st.text_area("Your answer", key=key, height=120, on_change=_keep_draft,
                        args=(coach, view.id, pending.id, key),
                        placeholder="Type your answer here, or record above: Stop sends what you said.")
    box.drafts[pending.id] = text
    page = state.page()
    refused, page.refused = page.refused, None
    if refused and "\n" in refused:  # the coach's help (an answer in Korean: English frames, asked again)
        st.info(widgets.message_lines(refused))
    elif refused:  # the last gesture's refusal, in place of the length warning
        st.error(widgets.escape_md(refused))
    elif len(text) > limit:
        st.warning(f"This answer is {len(text):,} characters; the limit is {limit:,}. Shorten it before sending.")
    actions = st.columns([1, 1, 1])

    def send() -> PracticeView:
        typed = _without_sent(view.id, key)
        sent_texts = state.page().box.last_sent  # a plain dict: written even if this run is stopped
        # the turn this page showed: when another tab or process answered it meanwhile, the
        # engine refuses this answer with one message and keeps its text
        sent = coach.send_text(view.id, typed, turn_pk=pending.id)  # the recording's transcript goes with it if sent
        sent_texts[view.id] = typed
        return sent

    actions[0].button("Send answer", type="primary", key="send", on_click=_gesture, args=(send, key))
    if pending.kind == TurnKind.RETRY:
        actions[1].button("Skip to the next situation", key="skip", on_click=_gesture,
                          args=(lambda: coach.skip(view.id),))
    if pending.kind == TurnKind.RETELL:
        actions[1].button("Skip the retell", key="skip-retell", on_click=_gesture, args=(lambda: coach.end(view.id),))
    _end_button(coach, view, actions[2])


def _end_button(coach: Coach, view: PracticeView, column) -> None:
    key = f"end-{view.id}"
    confirm = state.page().confirm
    if column.button("End session", key="end"):
        confirm.add(key)
    if key not in confirm:
        return
    if view.answered:
        st.warning("End this session now? You will see the summary; questions not answered yet stay open gaps.")
    else:
        st.warning("End this session? Nothing is answered yet, so it will not count in your progress.")
    cols = st.columns(2)
    cols[0].button("Yes, end it", type="primary", key="end-confirm", on_click=_gesture,
                   args=(lambda: coach.end(view.id),))
    if cols[1].button("Keep practising", key="end-cancel"):
        confirm.discard(key)
        st.rerun()


GESTURE_WAIT_S = 120.0


def _wait_for_gesture() -> None:
    """A rerun that starts while a gesture is still running (the browser sent a typed text
    meanwhile: Streamlit stops the old run and starts this one at once) waits for it, so the
    page shows the gesture's outcome, not an answer saved and not yet scored. (A stopped run
    can no longer write the session state, so the gesture signals through an Event.)"""
    done = state.page().busy
    if done is None or done.is_set():
        return
    with st.spinner("Still scoring your answer …"):
        done.wait(GESTURE_WAIT_S)


def _gesture(action, draft_key: str | None = None) -> None:
    """A button's gesture, run before the page renders (on_click): one engine call whose
    view the page then renders without loading the session again. A refused send keeps its
    text in the box, with the engine's message."""
    page = state.page()
    done = page.busy = threading.Event()
    try:
        try:
            view = action()
        except CoachError as exc:
            page.refused = str(exc)
            if draft_key:
                page.box.carried = state.widget(draft_key, "")
            return
        state.keep_view(view)
        page.scroll = True
        page.confirm.discard(f"end-{view.id}")
        voice.clear()
    finally:
        done.set()


def _finished(coach: Coach, view: PracticeView, korean: bool, kind: str) -> None:
    with st.chat_message("assistant"):  # the closing line is spoken like every other line
        listening.persona_line(coach, view.persona.closing, view.persona, current=True, korean_text=None,
                               key=f"closing-{view.id}")
    if view.summary is not None:  # a finished session's view always has it
        widgets.summary(view.summary, korean)
    st.download_button(
        "Download the report (Markdown)",
        view.report(korean, state.timezone()),
        file_name=f"rehearse-{view.card.id}-{view.id[:8]}.md",
        mime="text/markdown",
    )
    if st.button("Practise again", key="again"):
        state.remember_session(kind, None)
        del st.query_params["session"]
        st.rerun()
