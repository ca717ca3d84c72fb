"""Sign-in (Streamlit's OIDC: `st.login`, `st.user`, `st.logout`) and the learner's own data:
export it, or delete it all."""

from __future__ import annotations

from datetime import UTC, datetime

import streamlit as st

from coach.errors import CoachError
from coach.practice import Coach
from coach.ui import state, widgets

DELETED = "deleted-my-data"  # how many sessions "Delete all my data" deleted, said once (History)


def sign_in_page() -> None:
    """What a visitor sees before signing in: nothing of anybody's practice."""
    st.title("Rehearse")
    st.markdown("Sign in with your organisation's account to practise. Your sessions, recordings and "
                "reports are yours only: nobody else who signs in here sees them.")
    st.caption("조직 계정으로 로그인하세요. 세션·녹음·리포트는 본인만 볼 수 있습니다.")
    st.button("Sign in", type="primary", on_click=st.login, key="sign-in")


def signed_in_as() -> None:
    """The sidebar's account line and the sign-out button."""
    user = st.user
    who = user.get("email") or user.get("name") or "you"
    st.text(f"Signed in as {who}")  # as text: Markdown would make an email address a link
    st.button("Sign out", on_click=st.logout, key="sign-out")


def your_data(coach: Coach) -> None:
    """Export my data, and delete all my data behind a confirmation."""
    st.markdown("##### Your data")
    korean = state.korean()
    tz = state.timezone()  # the report's and the export's times, as the app shows them
    # made when it is clicked (on its own thread), not on every run of the page
    st.download_button("Export my data (reports, history and recordings, zip)", lambda: coach.export(korean, tz),
                       key="export-my-data", file_name=f"rehearse-my-data-{datetime.now(UTC):%Y%m%d}.zip",
                       mime="application/zip")
    with st.expander("Delete all my data"):
        st.markdown("This deletes every session of yours, with its answers, scorecards and recordings"
                    + ("" if coach.settings.learner.is_local else ", and your own cards")
                    + ". It cannot be undone; export first to keep a copy.")
        sure = st.checkbox("Yes, delete all my data", key="confirm-delete-my-data")
        if st.button("Delete all my data", type="primary", disabled=not sure, key="delete-my-data"):
            try:
                count = coach.forget_me()
            except CoachError as exc:
                widgets.error(str(exc))
                return
            for kind in state.KIND_PAGES:
                state.remember_session(kind, None)
            state.forget_widgets("confirm-delete-my-data")
            state.page().once[DELETED] = count
            st.rerun()
