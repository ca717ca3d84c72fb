import streamlit as st

from coach.ui import state, widgets

st.title("Library")
library = state.library()
if library.problems:
    with st.expander(f"⚠️ {len(library.problems)} content problem(s) — the rest loaded", expanded=True):
        for problem in library.problems:
            st.code(str(problem), language=None)

query = st.text_input("Search", placeholder="title, id or tag")
chosen_tags = st.multiselect("Tags", sorted({tag for card in library.cards.values() for tag in card.tags}))
for kind, heading in (("meeting", "Meeting drills"), ("interview", "Interview questions")):
    cards = library.search(kind, query, chosen_tags)
    st.subheader(f"{heading} ({len(cards)})")
    for card in cards:
        with st.expander(f"{card.title} · {card.title_ko}"):
            widgets.card_preview(card, state.korean())
            page = "coach/ui/pages/practice.py" if kind == "meeting" else "coach/ui/pages/interview.py"
            st.page_link(page, label="Practise this card", icon="▶️", query_params={"card": card.id})
