import streamlit as st

from coach.ui import practice_view

st.title("Mock interview")
st.caption("An interviewer asks, listens and follows up on what is missing. 모의 기술 면접")
practice_view.render("interview")
