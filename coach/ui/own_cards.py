"""The learner's own questions in the app: make a card and practise it at once, then edit,
rename or delete it from the library. The cards are made, changed and removed by
coach.personal; this module only collects the input and shows the outcome.

A gesture runs in its button's callback (before the page renders), so the boxes can be
cleared once a card is made; a refused one keeps every box as typed and says why, once."""

from __future__ import annotations

import dataclasses

import streamlit as st

from coach.errors import CoachError, DuplicateTitleError
from coach.practice import Card, Coach, Library, PracticeEngine, llm_suggest, personal
from coach.ui import practice_view, state, widgets

KINDS = {"story": "A story from experience", "concept": "An explanation of a concept", "meeting": "A meeting move"}
KINDS_KO = {"story": "경험 이야기", "concept": "개념 설명", "meeting": "회의 표현"}
MOVES = [r.name for r in personal.RUBRICS.values() if r.kind == "meeting"]
STARTED = "own-started"  # (kind, session id) of the practice a new card just started
REFUSED = "own-refused"  # the message of the last refused gesture, by form key
DONE = "own-done"  # the outcome of the last edit or deletion, shown once
SAME = "own-same"  # the id of the card a refused question duplicates, offered once


def _private(library: Library) -> Library:
    """A copy of the library for one gesture: `coach.personal` adds, changes and removes cards in
    the library it is given, and the app's libraries are cached (shared by every visitor); the
    next run reads the changed files afresh."""
    return dataclasses.replace(library, cards=dict(library.cards), removed=dict(library.removed))


def _private_coach(coach: Coach) -> Coach:
    return Coach(PracticeEngine(_private(coach.library), coach.engine.store, coach.settings))


def new_form(coach: Coach, korean: bool, key: str = "own") -> None:
    """Type or paste questions (one per line), pick the kind of answer, practise at once."""
    started = st.session_state.pop(STARTED, None)
    if started:
        kind, session_id = started
        st.switch_page(state.KIND_PAGES[kind], query_params={"session": session_id})
    st.text_area("Your question, or several, one per line", key=f"{key}-questions", height=110,
                 placeholder="How did you reduce inference serving cost at your last job?\n"
                             "Tomorrow I have to tell the team my migration slips two weeks.")
    kind = st.radio("What kind of answer does it call for?", list(KINDS), key=f"{key}-kind", horizontal=True,
                    format_func=lambda k: widgets.label(KINDS[k], KINDS_KO[k], korean))
    if kind == "story":
        st.caption("One real project of yours: what you did yourself, how you found the problem, the number that "
                   "proves it, your part in the team, the option you rejected, what you would do differently.")
    elif kind == "concept":
        st.text_input("Terms a good answer names (optional, separated by commas)", key=f"{key}-terms",
                      placeholder="paged attention, KV cache, block table")
        st.caption("The mechanism with the right terms, a number on it, and what it costs.")
        _concept_suggestions(coach, key)
    else:
        st.selectbox("Which move?", MOVES, key=f"{key}-move", format_func=lambda name: widgets.label(
            personal.RUBRICS[name].label, personal.RUBRICS[name].label_ko, korean))
        st.caption("Write the situation in your words, or the line your colleague opens with: the persona says it, "
                   "and you answer with the move.")
    st.button("Practise it now", type="primary", key=f"{key}-go", on_click=_create_and_start, args=(coach, key))
    refused = st.session_state.pop(f"{REFUSED}-{key}", None)
    if refused:
        widgets.error(refused)
    same = coach.library.cards.get(st.session_state.pop(f"{SAME}-{key}", None) or "")
    if same is not None:  # the card the learner already has for this question
        st.page_link(state.KIND_PAGES[same.kind], label=f"Practise your card “{widgets.title_md(same, False)}”",
                     icon="▶️", query_params={"card": same.id})
    with st.expander("Likely questions from a job posting", key=f"{key}-posting-box"):
        _posting_suggestions(coach, key)


def _llm_missing(coach: Coach) -> bool:
    """Without a language model the suggestion buttons are off and say why."""
    if llm_suggest.available(coach.settings):
        return False
    st.caption(llm_suggest.NEEDS_LLM)
    return True


def _concept_suggestions(coach: Coach, key: str) -> None:
    """The model's key terms and outline for the (first) question, each kept or dropped."""
    missing = _llm_missing(coach)
    st.button("Suggest terms and an answer outline", key=f"{key}-suggest", disabled=missing,
              on_click=_suggest_concept, args=(coach, key))
    if refused := st.session_state.pop(f"{REFUSED}-{key}-suggest", None):
        widgets.error(refused)
    suggestion = st.session_state.get(f"{key}-suggestion")
    if suggestion is None:
        return
    st.markdown("Suggested terms: tick the ones to keep")
    cols = st.columns(min(4, max(1, len(suggestion.terms))))
    for index, term in enumerate(suggestion.terms):
        cols[index % len(cols)].checkbox(widgets.escape_md(term), value=True, key=f"{key}-term-{index}")
    if suggestion.outline:
        st.markdown("Suggested outline of a strong answer: tick the points to keep (they become the card's "
                    "model answer)")
        for index, point in enumerate(suggestion.outline):
            st.checkbox(widgets.escape_md(point), value=True, key=f"{key}-point-{index}")


def _suggest_concept(coach: Coach, key: str) -> None:
    try:
        question = personal.questions_from(st.session_state.get(f"{key}-questions", ""))[0]
        suggestion = llm_suggest.suggest_concept(coach.settings, question)
    except CoachError as exc:
        st.session_state[f"{REFUSED}-{key}-suggest"] = str(exc)
        return
    _drop_suggestion(key)
    st.session_state[f"{key}-suggestion"] = suggestion


def _forget(*prefixes: str) -> None:
    """Drop the widget state of earlier suggestions (their tick boxes), so new ones start fresh."""
    for name in [k for k in st.session_state if str(k).startswith(prefixes)]:
        del st.session_state[name]


def _drop_suggestion(key: str) -> None:
    _forget(f"{key}-term-", f"{key}-point-")
    st.session_state.pop(f"{key}-suggestion", None)


def _kept_suggestion(key: str) -> tuple[list[str], list[str]]:
    suggestion = st.session_state.get(f"{key}-suggestion")
    if suggestion is None:
        return [], []
    terms = [t for i, t in enumerate(suggestion.terms) if st.session_state.get(f"{key}-term-{i}", True)]
    outline = [p for i, p in enumerate(suggestion.outline) if st.session_state.get(f"{key}-point-{i}", True)]
    return terms, outline


def _posting_suggestions(coach: Coach, key: str) -> None:
    """Up to five likely questions from a pasted posting; the ticked ones become cards."""
    missing = _llm_missing(coach)
    st.text_area("The job posting", key=f"{key}-posting", height=120, disabled=missing,
                 placeholder="Paste the responsibilities and requirements of the posting.")
    st.button("Suggest likely questions", key=f"{key}-posting-go", disabled=missing,
              on_click=_suggest_questions, args=(coach, key))
    if refused := st.session_state.pop(f"{REFUSED}-{key}-posting", None):
        widgets.error(refused)
    if made := st.session_state.pop(f"{DONE}-{key}-posting", None):
        st.success(widgets.escape_md(made))
    suggested = st.session_state.get(f"{key}-suggested")
    if not suggested:
        return
    st.markdown("Tick the questions to keep; each becomes a card of yours")
    for index, item in enumerate(suggested):
        what = personal.RUBRICS[item.rubric].label
        if item.terms:
            what += " — terms: " + ", ".join(item.terms)
        st.checkbox(widgets.escape_md(f"{item.question} ({what})"), value=False, key=f"{key}-keep-{index}")
    st.button("Make cards of the ticked questions", key=f"{key}-keep-go", on_click=_keep_questions,
              args=(coach, key))


def _suggest_questions(coach: Coach, key: str) -> None:
    try:
        suggested = llm_suggest.questions_from_posting(coach.settings, st.session_state.get(f"{key}-posting", ""))
    except CoachError as exc:
        st.session_state[f"{REFUSED}-{key}-posting"] = str(exc)
        return
    _forget(f"{key}-keep-")
    st.session_state[f"{key}-suggested"] = suggested




def _keep_questions(coach: Coach, key: str) -> None:
    library = _private(coach.library)
    suggested = st.session_state.get(f"{key}-suggested") or []
    kept = [item for i, item in enumerate(suggested) if st.session_state.get(f"{key}-keep-{i}")]
    if not kept:
        st.session_state[f"{REFUSED}-{key}-posting"] = "no question is ticked; tick the ones to keep first"
        return
    made, refused = [], []
    for item in kept:  # one by one: a question refused (one you have already) does not stop the rest
        try:
            personal.create(library, coach.settings, item.rubric, [item.question],
                            terms=", ".join(item.terms) or None, unique_titles=True)
            made.append(item)
        except CoachError as exc:
            refused.append(str(exc))
    st.session_state[f"{key}-suggested"] = [item for item in suggested if item not in made]
    _forget(f"{key}-keep-")
    if made:
        plural = "s" if len(made) > 1 else ""
        st.session_state[f"{DONE}-{key}-posting"] = f"{len(made)} card{plural} made: find them under Your own cards."
    if refused:
        st.session_state[f"{REFUSED}-{key}-posting"] = " · ".join(refused)


def _create_and_start(coach: Coach, key: str) -> None:
    coach = _private_coach(coach)
    kind = st.session_state.get(f"{key}-kind", "story")
    rubric = st.session_state.get(f"{key}-move", MOVES[0]) if kind == "meeting" else kind
    terms = (st.session_state.get(f"{key}-terms") or None) if kind == "concept" else None
    outline: list[str] = []
    if kind == "concept":  # the typed terms and the suggested ones the learner kept
        kept_terms, outline = _kept_suggestion(key)
        terms = ", ".join(t for t in (terms, *kept_terms) if t) or None
    try:
        questions = personal.questions_from(st.session_state.get(f"{key}-questions", ""))
        created = personal.create(coach.library, coach.settings, rubric, questions, terms=terms,
                                  unique_titles=True, outline=outline)
    except CoachError as exc:
        st.session_state[f"{REFUSED}-{key}"] = str(exc)
        if isinstance(exc, DuplicateTitleError) and exc.card_id:
            st.session_state[f"{SAME}-{key}"] = exc.card_id
        return
    card = created[0].card
    for name in ("questions", "terms"):  # made: the boxes are ready for the next question
        st.session_state[f"{key}-{name}"] = ""
    _drop_suggestion(key)
    try:
        view = coach.start(card.id)
    except CoachError as exc:
        st.session_state[f"{REFUSED}-{key}"] = (f"Your card {card.title!r} is saved (Your own cards, below), but "
                                                f"the practice could not start: {exc}")
        return
    state.remember_session(card.kind, view.id)
    st.session_state[practice_view.LAST_VIEW] = view
    if len(created) > 1:
        st.session_state["notes"] = [f"{len(created) - 1} more of your questions are saved as cards: "
                                     "find them under Your own cards on the Start page."]
    st.session_state[STARTED] = (card.kind, view.id)


def manage(cards: list[Card], korean: bool) -> None:
    """The learner's cards in the library: practise, edit, rename or delete each."""
    done = st.session_state.pop(DONE, None)
    if done:
        st.success(widgets.escape_md(done))
    for card in cards:
        rub = personal.rubric_of(card)
        kind = rub.label if rub else card.kind
        with st.expander(f"✍️ {widgets.title_md(card, korean)}", key=f"own-card-{card.id}"):
            st.caption(f"Your own card · {kind} · {card.id}")
            st.markdown(f"**Question:** {widgets.line(card.turns[0].prompt, literal=True)}")
            st.page_link(state.KIND_PAGES[card.kind], label="Practise this card", icon="▶️",
                         query_params={"card": card.id})
            _edit_form(card)


def _edit_form(card: Card) -> None:
    key = f"edit-{card.id}"
    try:
        spec = personal.spec_of(card)
    except CoachError as exc:  # a card the learner wrote by hand: edited in its file
        st.caption(widgets.escape_md(str(exc)))
        return
    st.text_area("Question", value=spec.question, key=f"{key}-question", height=80)
    st.text_input("Title", value=spec.title, key=f"{key}-title")
    if spec.rubric == "concept":
        st.text_input("Terms a good answer names", value=", ".join(spec.terms), key=f"{key}-terms")
    cols = st.columns(2)
    cols[0].button("Save changes", key=f"{key}-save", on_click=_save, args=(card.id, key))
    cols[1].button("Delete this card", key=f"{key}-delete", on_click=st.session_state.__setitem__,
                   args=(f"{key}-confirm", True))
    if st.session_state.get(f"{key}-confirm"):
        st.warning("Delete this card? Your past sessions on it stay readable in History.")
        yes, no = st.columns(2)
        yes.button("Yes, delete it", type="primary", key=f"{key}-delete-yes", on_click=_delete, args=(card.id, key))
        no.button("Keep it", key=f"{key}-delete-no", on_click=st.session_state.pop, args=(f"{key}-confirm", None))
    refused = st.session_state.pop(f"{REFUSED}-{key}", None)
    if refused:
        widgets.error(refused)


def _save(card_id: str, key: str) -> None:
    library, settings = _private(state.library()), state.settings()
    terms = st.session_state.get(f"{key}-terms")
    try:
        made = personal.edit(library, settings, card_id, question=st.session_state.get(f"{key}-question", ""),
                             title=st.session_state.get(f"{key}-title", ""), terms=terms, unique_titles=True)
    except CoachError as exc:
        st.session_state[f"{REFUSED}-{key}"] = str(exc)
        return
    st.session_state[DONE] = f"Saved {made.card.title!r}; its past sessions keep their place in History."


def _delete(card_id: str, key: str) -> None:
    library, settings = _private(state.library()), state.settings()
    title = library.cards[card_id].title if card_id in library.cards else card_id
    try:
        personal.remove(library, settings, card_id)
    except CoachError as exc:
        st.session_state[f"{REFUSED}-{key}"] = str(exc)
        return
    st.session_state.pop(f"{key}-confirm", None)
    st.session_state[DONE] = f"Deleted {title!r}; your past sessions on it stay readable in History."
