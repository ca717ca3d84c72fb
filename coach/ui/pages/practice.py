import streamlit as st

from coach.ui import practice_view, state

st.title("Practice: meetings")
st.caption("Short role-plays from everyday meetings." + (" 회의 상황 롤플레이" if state.korean() else ""))
practice_view.render("meeting")
