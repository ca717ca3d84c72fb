import pandas as pd
import streamlit as st

from coach.errors import CoachError
from coach.practice import counted, first_try_skills, session_label, words_to_practise
from coach.ui import account, progress_views, state, widgets

st.title("History")
coach = state.coach()
library = coach.library
try:
    records = coach.history()
except CoachError as exc:
    widgets.error(str(exc))
    st.stop()
tz = state.timezone()
if (deleted := state.page().once.pop(account.DELETED, None)) is not None:
    st.success(f"All your data was deleted ({deleted} session(s) and their recordings).")
if not records:
    st.info("No sessions yet. Start one on the Start page.")
    st.stop()

active = [r for r in records if r["status"] == "active" and r["card"] in library.cards]
if active:
    st.markdown("##### Unfinished sessions")
    for record in active[:5]:
        cols = st.columns([4, 1])
        cols[0].markdown(widgets.escape_md(session_label(record, library, tz)))
        if cols[1].button("Resume", key=f"resume-{record['id']}"):
            kind = library.cards[record["card"]].kind
            state.remember_session(kind, record["id"])
            st.switch_page(state.KIND_PAGES[kind], query_params={"session": record["id"]})

done = [r for r in records if counted(r)]  # finished sessions with a scored answer
korean = state.korean()
data = None  # the `coach progress` data, once there is a finished session
if done:
    data = coach.progress(tz=tz)  # first try per criterion, and how each session sounded
    progress_views.skills_chart(first_try_skills(data, library), korean)

    def card_title(cid: str) -> str:
        return library.cards[cid].title if cid in library.cards else cid

    practised = list(dict.fromkeys(r["card"] for r in done))  # the most recently practised first
    card_id = st.selectbox("Progress for card", practised, format_func=card_title)
    progress_views.card_progress(data, card_id, korean)

practise = words_to_practise(records)
if practise:
    st.markdown("##### Your words to practise")
    st.caption("Words that did not come through in two or more spoken answers, most often first; "
               "✅ came through, ❌ did not, oldest answer first."
               + (" 두 번 이상 잘 전달되지 않은 단어들입니다." if state.korean() else ""))
    st.dataframe(
        pd.DataFrame([{"word": r["word"], "missed": f"{r['flagged']} of {r['said']}",
                       "over time": "".join("✅" if ok else "❌" for ok in r["history"][-12:]),
                       "tip": (r["tip"] or "") + (f"\n{r['tip_ko']}" if state.korean() and r["tip_ko"] else "")}
                      for r in practise]),
        hide_index=True, width="stretch",
    )

st.markdown("##### Sessions")
labels = {r["id"]: session_label(r, library, tz) for r in records}
session_id: str = st.selectbox("Session", list(labels), format_func=lambda sid: labels[sid]) or next(iter(labels))
record = next(r for r in records if r["id"] == session_id)
try:  # the session as every front end shows it (its card may have been removed since)
    # a card the learner deleted is kept aside (library.removed), so its sessions still read in full
    known = record["card"] in library.cards or record["card"] in library.removed
    view = coach.open(session_id) if known else None
except CoachError as exc:
    st.warning(str(exc))
    view = None
if view is None:
    for turn in record["turns"]:
        st.chat_message("assistant").markdown(widgets.escape_md(turn["prompt"]))
        if turn["answer"]:
            st.chat_message("user").text(turn["answer"])
    account.your_data(coach)
    st.stop()
progress_views.session_compared(view, korean)
progress_views.session_sound(data, session_id, korean)
for index, turn in enumerate(view.turns):
    with st.chat_message("assistant"):
        st.markdown(f"**{view.persona.name}:** {widgets.line(turn.prompt, view.card.personal)}")
    if turn.answer_text:
        with st.chat_message("user"):
            st.text(turn.answer_text)
            if index in view.feedback:
                with st.expander("Scorecard"):
                    widgets.scorecard(view.card, view.feedback[index].scorecard, turn.answer_text, korean,
                                      headline=view.feedback[index].headline)
st.download_button("Download the report (Markdown)", view.report(korean, tz),
                   file_name=f"rehearse-{view.card.id}-{session_id[:8]}.md", mime="text/markdown")
account.your_data(coach)
