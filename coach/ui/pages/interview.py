import streamlit as st

from coach.ui import practice_view, state

st.title("Mock interview")
st.caption("An interviewer asks, listens and follows up on what is missing."
           + (" 모의 기술 면접" if state.korean() else ""))
practice_view.render("interview")
