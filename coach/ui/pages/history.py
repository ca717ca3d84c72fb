import altair as alt
import pandas as pd
import streamlit as st

from coach.errors import CoachError
from coach.progress import criterion_progress
from coach.report import history, markdown_report
from coach.summary import summarise
from coach.ui import state, widgets
from scoring.models import Scorecard

st.title("History")
try:
    records = history(state.store())
except CoachError as exc:
    widgets.error(str(exc))
    st.stop()
if not records:
    st.info("No sessions yet. Start one on the Practice or Mock interview page.")
    st.stop()

library = state.library()
practised = sorted({r["card"] for r in records})
card_id = st.selectbox("Progress for card", practised,
                       format_func=lambda cid: library.cards[cid].title if cid in library.cards else cid)
rows = criterion_progress(records, library, card_id)
if rows:
    chart = (
        alt.Chart(pd.DataFrame(rows))
        .mark_rect()
        .encode(
            x=alt.X("started_at:T", title="Session"),
            y=alt.Y("label:N", title="Criterion"),
            color=alt.Color("met:O", scale=alt.Scale(domain=[0, 1], range=["#f4c7c3", "#8bc34a"]),
                            legend=alt.Legend(title="Met")),
            tooltip=["session", "started_at", "criterion", "met"],
        )
    )
    st.altair_chart(chart, width="stretch")

labels = {r["id"]: f"{r['started_at'][:16]} · {r['card']} · {r['status']}" for r in records}
session_id = st.selectbox("Session", list(labels), format_func=labels.get)
record = next(r for r in records if r["id"] == session_id)
for turn in record["turns"]:
    with st.chat_message("assistant"):
        st.markdown(turn["prompt"])
    if turn["answer"]:
        with st.chat_message("user"):
            st.text(turn["answer"])
            if turn["scorecard"] and record["card"] in library.cards:
                with st.expander("Scorecard"):
                    widgets.scorecard(library.cards[record["card"]], Scorecard.model_validate(turn["scorecard"]),
                                      turn["answer"], state.korean())
if record["card"] in library.cards:
    try:
        view = state.engine().load(session_id)
        st.download_button("Download the report (Markdown)", markdown_report(view, summarise(view), state.korean()),
                           file_name=f"rehearse-{record['card']}-{session_id[:8]}.md", mime="text/markdown")
    except CoachError as exc:
        st.warning(str(exc))
