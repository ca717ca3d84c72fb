"""Hands-free talk on the practice pages: one button opens a call with the persona (one WebRTC
connection: the microphone to the server, the persona's voice back, so the browser's echo
cancellation works), and the session goes on by voice alone. The conversation runs in the core
(`coach.conversation`, through `Coach.talk_hands_free`): each turn ends by itself, is scored
and stored like a recorded answer, and the persona's next line is said by itself; talking over
the persona stops it. This module connects the call and shows the captions; on leaving, the page
shows the answered turns with their scorecards as usual. The turn-based answer box stays the
default: it is shown whenever no call runs."""

from __future__ import annotations

import time

import streamlit as st

from coach.errors import CoachError
from coach.practice import LEARNER, Call, Coach, ConversationNow, LiveConversation, PracticeView, escape_md
from coach.ui import listening, state, voice

TICK_S = 0.1
STATES = {
    "speaking": "🔊 {name} is speaking — just start talking to interrupt.",
    "listening": "🎙️ **Your turn** — speak when you are ready; when you stop, {name} answers.",
    "turn": "🎙️ *Listening …*",
    "thinking": "⏳ *{name} is thinking …*",
    "over": "The conversation is over.",
}


def _live_possible() -> bool:
    try:
        import streamlit_webrtc  # noqa: F401
    except ImportError:  # pragma: no cover - a dependency; the answer box still works
        return False
    from streamlit.runtime import Runtime

    return Runtime.exists() and hasattr(Runtime.instance(), "_session_mgr")  # not under AppTest


def _key(view: PracticeView) -> str:
    """The session's current call (a new one after each time a call is left)."""
    talk = state.page().talk
    return f"talk-{view.id}-{talk.attempts.get(view.id, 0)}"


def running(view: PracticeView) -> bool:
    """Whether a hands-free call of this session is going on (the page then draws no answer box)."""
    entry = state.page().talk.live.get(_key(view))
    live = entry["call"].live if entry is not None else None
    return live is not None and not live.now().over


def control(coach: Coach, view: PracticeView, korean: bool):
    """The hands-free box and its call; the call's entry when it is running (then the page shows
    the call, not the answer box), else None. One click opens the call: the call component's own
    "Talk hands-free" button asks for the microphone and connects (the same button then says
    "Leave the conversation"). The conversation is made when the call connects (`Call`)."""
    if not _live_possible() or view.pending is None:
        return None
    talk = state.page().talk
    key = _key(view)
    entry = talk.live.get(key)
    if entry is None:  # nothing runs until the call connects: the callback exists, the conversation not yet
        opening = Call()
        entry = talk.live[key] = {"call": opening, "bridge": opening.bridge()}
    call: Call = entry["call"]
    name = escape_md(view.persona.name)
    with st.container(key="hands-free"):
        if call.live is not None:
            st.markdown(f"**🎧 On a call with {name}**" + (" · 통화 중" if korean else ""))
            st.caption("Just talk, and pause when you are done: your turn ends by itself and each answer is scored "
                       "as usual. Leave the conversation to type or record again."
                       + (" 말하고 멈추면 차례가 끝나고, 답변은 평소처럼 채점됩니다. 나가면 다시 입력하거나 녹음할 수 "
                          "있습니다." if korean else ""))
        else:
            st.markdown("**🎧 Or talk hands-free**" + (" · 버튼 없이 대화하기" if korean else ""))
            st.caption(f"One click starts a call with {name}: just talk, and pause when you are done; the answers "
                       "are scored as usual. Headphones help."
                       + (" 한 번 누르면 통화가 시작됩니다. 말하고 멈추면 상대가 이어서 말합니다." if korean else ""))
    # the call's component is drawn on the page itself, not in the box above: a keyed element there
    # keeps its place when the answer box above it goes away as the call starts; inside a container
    # it would be drawn anew (and the call cut). Started by its own button, not by
    # `desired_playing_state`: wanted at once, streamlit-webrtc 0.79 starts a connection on each of
    # its first renders and the server may answer the wrong one (the call then connects only after
    # a 15 s ICE failure; benchmarks/README.md, "Opening a call")
    from streamlit_webrtc import WebRtcMode, webrtc_streamer

    ctx = webrtc_streamer(
        key=key, mode=WebRtcMode.SENDRECV, audio_frame_callback=entry["bridge"],
        media_stream_constraints={"audio": {"echoCancellation": True, "noiseSuppression": True,
                                            "autoGainControl": True}, "video": False},
        **voice.local_only(),
        audio_html_attrs={"autoPlay": True, "controls": False},  # the captions say who speaks
        translations={"start": "Talk hands-free", "stop": "Leave the conversation"},
    )
    if ctx.state.playing and call.live is None:
        try:
            with st.spinner(f"Calling {name} …"):
                voice.ensure_model(coach)
                call.live = coach.talk_hands_free(view.id, coach.speech_model())
        except CoachError as exc:
            st.caption(f"Hands-free talk is not available here: {escape_md(str(exc))}")
            return None
        st.rerun()  # drawn again as a call: without the answer box (`running`)
    live = call.live
    if live is None:
        return None
    if ctx.state.playing and not live.now().over:
        return entry
    if live.now().started:  # the call was left (or the session ended in it): the turns as usual
        _leave(view.id, key, live)
    return None


def _leave(session_id: str, key: str, live: LiveConversation) -> None:
    """The call is over: the turns answered in it are stored; the page draws the answer box again,
    and the next call gets a new key (its component is a new one)."""
    talk = state.page().talk
    with st.spinner("Saving your last answer …"):
        live.close()  # waits for an answer being scored
    talk.live.pop(key, None)
    talk.attempts[session_id] = talk.attempts.get(session_id, 0) + 1
    state.page().scroll = True
    st.rerun()


def captions_md(now: ConversationNow, persona: str) -> str:
    rows = []
    for said in now.captions:
        if said.speaker == LEARNER:
            rows.append(f"**You**{' 🎙️' if said.speaking else ''}: {escape_md(said.text) or '…'}")
        else:
            mark = " 🔊" if said.speaking else (" *(you talked over)*" if said.cut else "")
            rows.append(f"**{escape_md(persona)}**{mark}: {escape_md(said.text)}")
    if not now.started:
        rows.append("⏳ *Connecting …*")
    return "\n\n".join(rows)


# at most this many elements of the page's run before the call (the answer box: the recorder, the
# box, its buttons, a notice or an offer) are left after the call's own: each is replaced by an empty
# element when the call starts, or it would stay on the page, faded, while the call's run goes on
LEFT_BEHIND = 10


def follow(view: PracticeView, entry: dict, korean: bool) -> None:
    """While the call runs: the captions and whose turn it is (a container keyed
    `talk-state-<state>-<answers>--<n>` for the browser tests), until it is left or over."""
    live: LiveConversation = entry["call"].live
    name = view.persona.name
    shown, tick = st.empty(), st.empty()
    for _ in range(LEFT_BEHIND):
        st.empty()
    last = None
    renders = 0
    listening.draw_players()  # the run stays in the loop below while the call goes on
    while True:
        now = live.now()
        if now != last:
            last = now
            renders += 1
            with shown.container():
                st.markdown(captions_md(now, name))
                if now.note:
                    st.warning(escape_md(now.note))
                with st.container(key=f"talk-state-{now.state}-{now.answers}--{renders}"):
                    st.markdown(STATES[now.state].format(name=escape_md(name)))
        else:
            tick.empty()  # touching the page lets a rerun (Leave) start at once
        if now.over:
            break
        time.sleep(TICK_S)
    key = next(k for k, v in state.page().talk.live.items() if v is entry)
    _leave(view.id, key, live)
