"""The learner's own questions in the app: make a card and practise it at once, then edit,
rename or delete it from the library. The cards are made, changed and removed by the
application API (`Coach.create_cards`, …); this module only collects the input and shows the outcome.

A gesture runs in its button's callback (before the page renders), so the boxes can be
cleared once a card is made; a refused one keeps every box as typed and says why, once."""

from __future__ import annotations

import streamlit as st

from coach.errors import CoachError, DuplicateTitleError
from coach.practice import NEEDS_LLM, RUBRICS, Card, CardSummary, Coach, questions_from, rubric_of, spec_of
from coach.ui import state, widgets

KINDS = {"story": "A story from experience", "concept": "An explanation of a concept", "meeting": "A meeting move"}
KINDS_KO = {"story": "경험 이야기", "concept": "개념 설명", "meeting": "회의 표현"}
MOVES = [r.name for r in RUBRICS.values() if r.kind == "meeting"]
# a gesture's outcome, shown once by the next run (state.PageState.once), each by form key
STARTED = "own-started"  # (kind, session id) of the practice a new card just started
REFUSED = "own-refused"  # the message of the last refused gesture
DONE = "own-done"  # the outcome of the last edit or deletion
SAME = "own-same"  # the id of the card a refused question duplicates, offered once
SUGGESTION = "suggestion"  # the model's terms and outline for the question (kept while the page is open)
SUGGESTED = "suggested"  # the model's likely questions from a posting (kept while the page is open)
PAGE = 20  # the learner's cards shown at once on the Start page; the search box finds the others
SHOWN = "own-shown"  # how many are shown now (PAGE more at each "Show more"; kept while the page is open)


def new_form(coach: Coach, korean: bool, key: str = "own") -> None:
    """Type or paste questions (one per line), pick the kind of answer, practise at once."""
    once = state.page().once
    started = once.pop(STARTED, None)
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
            RUBRICS[name].label, RUBRICS[name].label_ko, korean))
        st.caption("Write the situation in your words, or the line your colleague opens with: the persona says it, "
                   "and you answer with the move.")
    st.button("Practise it now", type="primary", key=f"{key}-go", on_click=_create_and_start, args=(coach, key))
    refused = once.pop(f"{REFUSED}-{key}", None)
    if refused:
        widgets.error(refused)
    same = coach.library.cards.get(once.pop(f"{SAME}-{key}", None) or "")
    if same is not None:  # the card the learner already has for this question
        st.page_link(state.KIND_PAGES[same.kind], label=f"Practise your card “{widgets.title_md(same, False)}”",
                     icon="▶️", query_params={"card": same.id})
    with st.expander("Likely questions from a job posting", key=f"{key}-posting-box"):
        _posting_suggestions(coach, key)


def _llm_missing(coach: Coach) -> bool:
    """Without a language model the suggestion buttons are off and say why."""
    if coach.can_suggest():
        return False
    st.caption(NEEDS_LLM)
    return True


def _concept_suggestions(coach: Coach, key: str) -> None:
    """The model's key terms and outline for the (first) question, each kept or dropped."""
    missing = _llm_missing(coach)
    st.button("Suggest terms and an answer outline", key=f"{key}-suggest", disabled=missing,
              on_click=_suggest_concept, args=(coach, key))
    if refused := state.page().once.pop(f"{REFUSED}-{key}-suggest", None):
        widgets.error(refused)
    suggestion = state.page().kept.get(f"{key}-{SUGGESTION}")
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
        question = questions_from(state.widget(f"{key}-questions", ""))[0]
        suggestion = coach.suggest_concept(question)
    except CoachError as exc:
        state.page().once[f"{REFUSED}-{key}-suggest"] = str(exc)
        return
    _drop_suggestion(key)
    state.page().kept[f"{key}-{SUGGESTION}"] = suggestion


def _drop_suggestion(key: str) -> None:
    """Earlier suggestions go with their tick boxes, so new ones start fresh."""
    state.forget_widgets(f"{key}-term-", f"{key}-point-")
    state.page().kept.pop(f"{key}-{SUGGESTION}", None)


def _kept_suggestion(key: str) -> tuple[list[str], list[str]]:
    suggestion = state.page().kept.get(f"{key}-{SUGGESTION}")
    if suggestion is None:
        return [], []
    terms = [t for i, t in enumerate(suggestion.terms) if state.widget(f"{key}-term-{i}", True)]
    outline = [p for i, p in enumerate(suggestion.outline) if state.widget(f"{key}-point-{i}", True)]
    return terms, outline


def _posting_suggestions(coach: Coach, key: str) -> None:
    """Up to five likely questions from a pasted posting; the ticked ones become cards."""
    missing = _llm_missing(coach)
    st.text_area("The job posting", key=f"{key}-posting", height=120, disabled=missing,
                 placeholder="Paste the responsibilities and requirements of the posting.")
    st.button("Suggest likely questions", key=f"{key}-posting-go", disabled=missing,
              on_click=_suggest_questions, args=(coach, key))
    once = state.page().once
    if refused := once.pop(f"{REFUSED}-{key}-posting", None):
        widgets.error(refused)
    if made := once.pop(f"{DONE}-{key}-posting", None):
        st.success(widgets.escape_md(made))
    suggested = state.page().kept.get(f"{key}-{SUGGESTED}")
    if not suggested:
        return
    st.markdown("Tick the questions to keep; each becomes a card of yours")
    for index, item in enumerate(suggested):
        what = RUBRICS[item.rubric].label
        if item.terms:
            what += " — terms: " + ", ".join(item.terms)
        st.checkbox(widgets.escape_md(f"{item.question} ({what})"), value=False, key=f"{key}-keep-{index}")
    st.button("Make cards of the ticked questions", key=f"{key}-keep-go", on_click=_keep_questions,
              args=(coach, key))


def _suggest_questions(coach: Coach, key: str) -> None:
    once = state.page().once
    try:
        suggested = coach.suggest_questions(state.widget(f"{key}-posting", ""))
    except CoachError as exc:
        once[f"{REFUSED}-{key}-posting"] = str(exc)
        return
    state.forget_widgets(f"{key}-keep-")
    state.page().kept[f"{key}-{SUGGESTED}"] = suggested


def _keep_questions(coach: Coach, key: str) -> None:
    once, kept_now = state.page().once, state.page().kept
    suggested = kept_now.get(f"{key}-{SUGGESTED}") or []
    kept = [item for i, item in enumerate(suggested) if state.widget(f"{key}-keep-{i}")]
    if not kept:
        once[f"{REFUSED}-{key}-posting"] = "no question is ticked; tick the ones to keep first"
        return
    made, refused = [], []
    for item in kept:  # one by one: a question refused (one you have already) does not stop the rest
        try:
            coach.create_cards(item.rubric, [item.question], terms=", ".join(item.terms) or None)
            made.append(item)
        except CoachError as exc:
            refused.append(str(exc))
    kept_now[f"{key}-{SUGGESTED}"] = [item for item in suggested if item not in made]
    state.forget_widgets(f"{key}-keep-")
    if made:
        plural = "s" if len(made) > 1 else ""
        once[f"{DONE}-{key}-posting"] = f"{len(made)} card{plural} made: find them under Your own cards."
    if refused:
        once[f"{REFUSED}-{key}-posting"] = " · ".join(refused)


def _create_and_start(coach: Coach, key: str) -> None:
    once = state.page().once
    kind = state.widget(f"{key}-kind", "story")
    rubric = state.widget(f"{key}-move", MOVES[0]) if kind == "meeting" else kind
    terms = (state.widget(f"{key}-terms") or None) if kind == "concept" else None
    outline: list[str] = []
    if kind == "concept":  # the typed terms and the suggested ones the learner kept
        kept_terms, outline = _kept_suggestion(key)
        terms = ", ".join(t for t in (terms, *kept_terms) if t) or None
    try:
        questions = questions_from(state.widget(f"{key}-questions", ""))
        created = coach.create_cards(rubric, questions, terms=terms, outline=outline)
    except CoachError as exc:
        once[f"{REFUSED}-{key}"] = str(exc)
        if isinstance(exc, DuplicateTitleError) and exc.card_id:
            once[f"{SAME}-{key}"] = exc.card_id
        return
    card = created[0]
    for name in ("questions", "terms"):  # made: the boxes are ready for the next question
        state.set_widget(f"{key}-{name}", "")
    _drop_suggestion(key)
    try:
        view = coach.start(card.id)
    except CoachError as exc:
        once[f"{REFUSED}-{key}"] = (f"Your card {card.title!r} is saved (Your own cards, below), but "
                                    f"the practice could not start: {exc}")
        return
    state.remember_session(card.kind, view.id)
    if len(created) > 1:
        view = view.with_notes(f"{len(created) - 1} more of your questions are saved as cards: "
                               "find them under Your own cards on the Start page.")
    state.keep_view(view)
    once[STARTED] = (card.kind, view.id)


def manage_listed(coach: Coach, mine: list[CardSummary], korean: bool) -> None:
    """The first PAGE of the learner's cards that match the search, PAGE more at each "Show
    more": a learner with thousands finds one by typing (issue 29). Only the cards shown are
    built from their files; a file changed since it was listed and no longer loading is left out
    (the page's problems say why on the next run)."""
    shown = mine[:max(PAGE, state.page().kept.get(SHOWN, PAGE))]
    cards = coach.library.cards
    manage(coach, [card for listed in shown if (card := cards.get(listed.id)) is not None], korean)
    if len(mine) > len(shown):
        st.caption(f"Showing {len(shown)} of your {len(mine)} cards here: type in Search to find one.")
        st.button(f"Show {min(PAGE, len(mine) - len(shown))} more", key="own-more", on_click=_show_more,
                  args=(len(shown),))


def _show_more(shown: int) -> None:
    state.page().kept[SHOWN] = shown + PAGE


def manage(coach: Coach, cards: list[Card], korean: bool) -> None:
    """The learner's cards in the library: practise, edit, rename or delete each."""
    done = state.page().once.pop(DONE, None)
    if done:
        st.success(widgets.escape_md(done))
    for card in cards:
        rub = rubric_of(card)
        kind = rub.label if rub else card.kind
        with st.expander(f"✍️ {widgets.title_md(card, korean)}", key=f"own-card-{card.id}"):
            st.caption(f"Your own card · {kind} · {card.id}")
            st.markdown(f"**Question:** {widgets.line(card.turns[0].prompt, literal=True)}")
            st.page_link(state.KIND_PAGES[card.kind], label="Practise this card", icon="▶️",
                         query_params={"card": card.id})
            _edit_form(coach, card)


def _edit_form(coach: Coach, card: Card) -> None:
    key = f"edit-{card.id}"
    try:
        spec = spec_of(card)
    except CoachError as exc:  # a card the learner wrote by hand: edited in its file
        st.caption(widgets.escape_md(str(exc)))
        return
    st.text_area("Question", value=spec.question, key=f"{key}-question", height=80)
    st.text_input("Title", value=spec.title, key=f"{key}-title")
    if spec.rubric == "concept":
        st.text_input("Terms a good answer names", value=", ".join(spec.terms), key=f"{key}-terms")
    cols = st.columns(2)
    confirm = state.page().confirm
    cols[0].button("Save changes", key=f"{key}-save", on_click=_save, args=(coach, card.id, key))
    cols[1].button("Delete this card", key=f"{key}-delete", on_click=confirm.add, args=(key,))
    if key in confirm:
        st.warning("Delete this card? Your past sessions on it stay readable in History.")
        yes, no = st.columns(2)
        yes.button("Yes, delete it", type="primary", key=f"{key}-delete-yes", on_click=_delete,
                   args=(coach, card.id, key))
        no.button("Keep it", key=f"{key}-delete-no", on_click=confirm.discard, args=(key,))
    refused = state.page().once.pop(f"{REFUSED}-{key}", None)
    if refused:
        widgets.error(refused)


def _save(coach: Coach, card_id: str, key: str) -> None:
    once = state.page().once
    try:
        made = coach.edit_card(card_id, question=state.widget(f"{key}-question", ""),
                               title=state.widget(f"{key}-title", ""), terms=state.widget(f"{key}-terms"))
    except CoachError as exc:
        once[f"{REFUSED}-{key}"] = str(exc)
        return
    once[DONE] = f"Saved {made.title!r}; its past sessions keep their place in History."


def _delete(coach: Coach, card_id: str, key: str) -> None:
    once = state.page().once
    library = coach.library
    title = library.cards[card_id].title if card_id in library.cards else card_id
    try:
        coach.remove_card(card_id)
    except CoachError as exc:
        once[f"{REFUSED}-{key}"] = str(exc)
        return
    state.page().confirm.discard(key)
    once[DONE] = f"Deleted {title!r}; your past sessions on it stay readable in History."
