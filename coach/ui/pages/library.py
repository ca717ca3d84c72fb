import streamlit as st

from coach.ui import own_cards, practice_view, state, widgets

korean = state.korean()
coach = state.coach()
library = coach.library

st.title("Rehearse")
st.markdown("Practise English for meetings and technical interviews: a persona asks, you answer, "
            "and you see what your answer showed and what to add next."
            + (" 회의와 기술 면접 영어를 연습하세요." if korean else ""))

st.markdown("##### Start here")
left, right = st.columns(2)
for column, kind, heading in ((left, "interview", "Mock interview"), (right, "meeting", "Meeting drill")):
    card = library.starter(kind)
    with column.container(border=True):
        if card is None:
            st.caption(f"No {heading.lower()} cards could be loaded.")
            continue
        st.markdown(f"**{heading}** · about {card.estimated_seconds or 60} s an answer")
        st.markdown(widgets.title_md(card, korean))
        if st.button(f"Start the {heading.lower()}", type="primary", key=f"first-{kind}", width="stretch"):
            session_id = practice_view.start(coach, kind, card.id)
            if session_id:
                st.switch_page(state.KIND_PAGES[kind], query_params={"session": session_id})
with st.expander("✍️ **Practise my own question**" + (" · 나의 질문으로 연습" if korean else "")
                 + " — a question you expect, or a meeting you have coming up", key="own-question"):
    own_cards.new_form(coach, korean)
st.caption("Answer by typing, or record with the microphone: what you say is transcribed on this computer "
           "while you speak, and Stop sends it (you can correct the transcript and re-score). Turn the "
           "persona's voice off in the sidebar.")

if library.problems:
    with st.expander(f"⚠️ {len(library.problems)} content problem(s) — the rest loaded", expanded=True):
        for problem in library.problems:
            st.code(str(problem), language=None)

st.subheader("Library")
query = st.text_input("Search", placeholder="title, id or tag")
listed = library.summaries()  # own cards from their folder's index: none is built to list them
chosen_tags = st.multiselect("Tags", sorted({tag for card in listed for tag in card.tags}))
author = st.toggle("Author view (rubric details)", key="author_view",
                   help="Shows each card's detectors, weights, variants and model answers, for content authors.")
found = library.find(None, query, chosen_tags)
mine = [card for card in found if card.personal]
st.markdown(f"#### Your own cards ({len(mine)})")
if not mine:
    st.caption("None match this search." if coach.own_cards()
               else "None yet: type one under “Practise my own question” above.")
own_cards.manage_listed(coach, mine, korean)
for kind, heading in (("interview", "Interview questions"), ("meeting", "Meeting drills")):
    cards = [library.cards[card.id] for card in found if card.kind == kind and not card.personal]
    st.markdown(f"#### {heading} ({len(cards)})")
    for card in cards:
        # a card's preview is made when it is opened: the page first shows about 90 elements
        # instead of 340, which the browser took about 0.8 s more to draw
        preview = st.expander(widgets.title_md(card, korean), key=f"library-{card.id}", on_change="rerun")
        if preview.open:
            with preview:
                st.page_link(state.KIND_PAGES[kind], label="Practise this card", icon="▶️",
                             query_params={"card": card.id})
                widgets.card_preview(card, korean, author=author)
