"""Rehearse: the Streamlit entry point. It only sets up navigation; pages live in coach/ui/pages."""

import streamlit as st

from coach.errors import CoachError
from coach.ui import state, widgets

st.set_page_config(page_title="Rehearse", page_icon="🎙️", layout="wide")

try:  # a bad COACH_* value is one message here, not a traceback on every page
    state.settings()
except CoachError as exc:
    widgets.error(f"Rehearse cannot start: {exc}")
    st.stop()

with st.sidebar:
    st.radio("Tips and labels", ["한국어 + English", "English"], key="lang", horizontal=True)
    st.toggle("Persona voice", value=True, key="audio_on", help="Turn the persona's spoken lines off.")

pages = [
    st.Page("coach/ui/pages/library.py", title="Library", icon="📚", default=True),
    st.Page("coach/ui/pages/practice.py", title="Practice", icon="💬", url_path="practice"),
    st.Page("coach/ui/pages/interview.py", title="Mock interview", icon="🎯", url_path="interview"),
    st.Page("coach/ui/pages/history.py", title="History", icon="📈", url_path="history"),
]
st.navigation(pages).run()
