"""Rehearse: the Streamlit entry point. It only sets up navigation; pages live in coach/ui/pages."""

import streamlit as st

from coach.access import serving_refusal
from coach.errors import CoachError
from coach.ui import account, state, widgets

st.set_page_config(page_title="Rehearse", page_icon="🎙️", layout="wide")
# less empty space above the page, so the newest exchange fits on a phone's screen
st.html("<style>.block-container, [data-testid='stMainBlockContainer'] {padding-top: 3.5rem;"
        " padding-bottom: 2rem;} h1 {font-size: 1.9rem !important; padding-top: 0 !important;}"
        " .st-key-newest-exchange {scroll-margin-top: 3.75rem;}</style>")

try:  # a bad COACH_* value is one message here, not a traceback on every page
    configured = state.load_settings()
except CoachError as exc:
    widgets.error(f"Rehearse cannot start: {exc}")
    st.stop()

if problem := state.sign_in_problem():  # an incomplete [auth] section: sign-in would fail at the first click
    widgets.error(problem)
    st.stop()
SIGN_IN = state.sign_in_configured()
# served beyond this machine, every visitor would see every session: refuse without sign-in
if refusal := serving_refusal(st.get_option("server.address"), SIGN_IN, configured.allow_anonymous):
    widgets.error(refusal)
    st.stop()
if SIGN_IN and not st.user.is_logged_in:
    account.sign_in_page()
    st.stop()

# the sidebar's choices live in the URL too, so a reload keeps them: (state key, URL name,
# the value in the URL, the default)
PREFERENCES = [(state.LANG, "lang", "English", "한국어 + English"), (state.AUDIO_ON, "voice", False, True),
               (state.AUTOPLAY, "autoplay", False, True), (state.HIDE_TEXT, "hide", True, False)]
for key, name, value, default in PREFERENCES:
    if not state.has_widget(key):
        state.set_widget(key, value if st.query_params.get(name) == str(value).lower() else default)

with st.sidebar:
    st.radio("Tips and labels", ["한국어 + English", "English"], key=state.LANG, horizontal=True)
    st.toggle("Persona voice", key=state.AUDIO_ON, help="Turn the persona's spoken lines off.")
    st.toggle("Play each new line by itself", key=state.AUTOPLAY)
    st.toggle("Hide the text until I have listened", key=state.HIDE_TEXT,
              help="Listening practice: the persona's new line is hidden until you open it.")
    if SIGN_IN:
        account.signed_in_as()

for key, name, value, _default in PREFERENCES:
    if state.widget(key) == value and st.query_params.get(name) != str(value).lower():
        st.query_params[name] = str(value).lower()
    elif state.widget(key) != value and name in st.query_params:
        del st.query_params[name]

pages = [
    st.Page("coach/ui/pages/library.py", title="Start", icon="🏠", default=True),
    st.Page("coach/ui/pages/interview.py", title="Mock interview", icon="🎯", url_path="interview"),
    st.Page("coach/ui/pages/practice.py", title="Meeting practice", icon="💬", url_path="practice"),
    st.Page("coach/ui/pages/meeting.py", title="Live meeting", icon="👥", url_path="meeting"),
    st.Page("coach/ui/pages/read_aloud.py", title="Read aloud", icon="🗣️", url_path="read-aloud"),
    st.Page("coach/ui/pages/history.py", title="History", icon="📈", url_path="history"),
]
navigation = st.navigation(pages)
try:  # storage (a deleted or damaged file, a server that refuses or never answers): one line on every page
    state.coach().check_storage()
    navigation.run()
except CoachError as exc:
    widgets.error(str(exc))
state.drop_view()  # a gesture's view is for the run right after it; never rendered later, on another visit
