"""Rehearse: the Streamlit entry point. It only sets up navigation; pages live in coach/ui/pages."""

import streamlit as st

from coach.errors import CoachError
from coach.ui import state, widgets

st.set_page_config(page_title="Rehearse", page_icon="🎙️", layout="wide")
# less empty space above the page, so the newest exchange fits on a phone's screen
st.html("<style>.block-container, [data-testid='stMainBlockContainer'] {padding-top: 3.5rem;"
        " padding-bottom: 2rem;} h1 {font-size: 1.9rem !important; padding-top: 0 !important;}"
        " .st-key-newest-exchange {scroll-margin-top: 3.75rem;}</style>")

try:  # a bad COACH_* value is one message here, not a traceback on every page
    state.settings()
except CoachError as exc:
    widgets.error(f"Rehearse cannot start: {exc}")
    st.stop()

with st.sidebar:
    st.radio("Tips and labels", ["한국어 + English", "English"], key="lang", horizontal=True)
    st.toggle("Persona voice", value=True, key="audio_on", help="Turn the persona's spoken lines off.")
    st.toggle("Play each new line by itself", value=True, key="autoplay")
    st.toggle("Hide the text until I have listened", value=False, key="hide_text",
              help="Listening practice: the persona's new line is hidden until you open it.")

pages = [
    st.Page("coach/ui/pages/library.py", title="Start", icon="🏠", default=True),
    st.Page("coach/ui/pages/interview.py", title="Mock interview", icon="🎯", url_path="interview"),
    st.Page("coach/ui/pages/practice.py", title="Meeting practice", icon="💬", url_path="practice"),
    st.Page("coach/ui/pages/history.py", title="History", icon="📈", url_path="history"),
]
st.navigation(pages).run()
