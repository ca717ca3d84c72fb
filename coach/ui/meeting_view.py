"""The Meeting page's parts: a multi-party scene played live in the browser, and its result per
moment. The scene runs in the core (`coach.meeting.LiveMeeting`, through `Coach.join_meeting`):
one WebRTC connection carries the learner's microphone to the server and the personas' voices
back; this module only connects it, shows the captions while the scene plays, and renders the
result (`Coach.meeting_result`, the same judging as `coach meeting --format json`).

Without a live connection (AppTest, a browser without WebRTC) the scene can still be done in one
piece: its audio plays in the page and one recording of the whole scene is judged.
"""

from __future__ import annotations

import hashlib
import json
import time

import streamlit as st

from coach.errors import CoachError
from coach.practice import LEARNER, Coach, LiveMeeting, MeetingNow, MeetingResult, SceneView, escape_md
from coach.ui import state, voice

TICK_S = 0.1


def _live_possible() -> bool:
    try:
        import streamlit_webrtc  # noqa: F401
    except ImportError:  # pragma: no cover - a dependency; the one-piece recording still works
        return False
    from streamlit.runtime import Runtime

    return Runtime.exists() and hasattr(Runtime.instance(), "_session_mgr")  # not under AppTest


@st.cache_resource(show_spinner="Loading the speech model (first time only) …")
def _speech_model(engine_name: str, model: str | None, device: str):
    """The speech model, once per process; the arguments only key the cache."""
    return state.coach().speech_model()


def speech_model(coach: Coach):
    settings = coach.settings
    return _speech_model(settings.stt_engine, settings.stt_model, settings.stt_device)


@st.cache_data(show_spinner=False, max_entries=16)
def _scene_audio(scene_id: str, version: str) -> bytes:
    return state.coach().meeting_audio(scene_id)


# --- the scene -----------------------------------------------------------------------------


def intro(scene: SceneView, korean: bool) -> None:
    """What the scene is and the moments the learner acts in."""
    situation = scene.situation.split("\n\n")
    english = [p for p in situation if not any("\uac00" <= ch <= "\ud7a3" for ch in p)]
    with st.container(border=True):
        people = ", ".join(name for _, name in scene.people)
        st.markdown(f"**{escape_md(scene.title)}**" + (f"  \n{escape_md(scene.title_ko)}" if korean else ""))
        st.caption(f"With {escape_md(people)} · {scene.level}")
        st.markdown("\n\n".join(escape_md(p) for p in (situation if korean else english)))
        st.markdown("**Your moments**")
        st.markdown("\n".join(f"{i}. {escape_md(m.label)}" + (f" · {escape_md(m.label_ko)}" if korean else "")
                              for i, m in enumerate(scene.moments, start=1)))
    if scene.key_phrases:
        with st.expander("Key phrases" + (" · 핵심 표현" if korean else "")):
            st.markdown(scene.key_phrases)


def captions_md(scene: SceneView, now: MeetingNow, korean: bool) -> str:
    """The captions so far, newest last, and what the learner should do now."""
    rows = []
    for caption in now.captions:
        text = escape_md(caption.text).replace("\\[", "*[").replace("\\]", "]*")
        mark = " 🔊" if caption.speaking and caption.speaker != LEARNER else ""
        if caption.speaker == LEARNER:
            text = text or "…"
            mark = " 🎙️" if caption.speaking else ""
        rows.append(f"`{caption.t:4.0f}s` **{escape_md(scene.name(caption.speaker))}**{mark}: {text}")
    if now.moment is None and not now.started:
        rows.append("⏳ *Connecting …*")
    return "\n\n".join(rows)


def cue_md(scene: SceneView, now: MeetingNow, korean: bool) -> str | None:
    """What the learner should do in the open moment (None when no moment is open)."""
    if now.moment is None:
        return None
    moment = next(m for m in scene.moments if m.id == now.moment)
    cue = "🎙️ **Your moment:** " + escape_md(moment.label)
    if korean:
        cue += f" · {escape_md(moment.label_ko)}"
    return f"> {cue}  \n> " + ("*Listening …*" if now.learner_speaking else "*Speak now.*")


def cue_key(moment_id: str, state: str, render: int) -> str:
    """The key of the container the cue is shown in: its CSS class `st-key-meeting-cue-<moment>-<state>--<n>`
    (state: `speak` or `listening`) marks the open moment for the browser tests. `render` counts
    the captions shown in this run (a key may be used once per run; the cue is shown again as
    the captions change)."""
    return f"meeting-cue-{moment_id}-{state}--{render}"


def compact_intro(scene: SceneView, korean: bool) -> None:
    """While the call runs: the moments in one line, so the captions fit a phone's screen."""
    st.caption("**Your moments:** " + " · ".join(escape_md(m.label) for m in scene.moments))


def play_live(coach: Coach, scene: SceneView, korean: bool) -> bool:
    """The scene over one WebRTC connection, under the scene's introduction (shortened while the
    call runs). Returns False when live audio is not possible here (the full introduction shown)."""
    head = st.container()
    if not _live_possible():
        with head:
            intro(scene, korean)
        return False
    try:
        model = speech_model(coach)
    except CoachError as exc:
        with head:
            intro(scene, korean)
        st.error(f"{exc} Record the scene in one piece below instead.")
        return False
    attempt = state.meeting().attempts.get(scene.id, 0)
    key = f"meeting-{scene.id}-{attempt}"
    lives = state.meeting().live
    entry = lives.get(key)
    if entry is None:
        try:
            with st.spinner("Preparing the voices …"):
                joined = coach.join_meeting(scene.id, model)
        except CoachError as exc:
            with head:
                intro(scene, korean)
            st.error(f"{exc} The scene cannot be played here.")
            return True
        entry = lives[key] = {"live": joined, "bridge": joined.bridge()}
    live: LiveMeeting = entry["live"]
    from streamlit_webrtc import WebRtcMode, webrtc_streamer

    st.caption("Use headphones. Press **Join the meeting**: the call starts and the others talk. "
               "In your moments just speak, no button: when you stop, the meeting goes on."
               + (" 헤드폰을 쓰세요. 내 차례에는 버튼 없이 말하면 됩니다." if korean else ""))
    ctx = webrtc_streamer(
        key=key, mode=WebRtcMode.SENDRECV, audio_frame_callback=entry["bridge"],
        media_stream_constraints={"audio": True, "video": False},
        **voice.local_only(),
        translations={"start": "Join the meeting", "stop": "Leave the meeting"},
    )
    with head:
        (compact_intro if ctx.state.playing else intro)(scene, korean)
    shown = st.empty()
    tick = st.empty()
    last = None
    renders = 0
    while ctx.state.playing:
        now = live.now()
        if now != last:
            last = now
            renders += 1
            with shown.container():
                st.markdown(captions_md(scene, now, korean))
                cue = cue_md(scene, now, korean)
                if cue is not None and now.moment is not None:
                    state_name = "listening" if now.learner_speaking else "speak"
                    with st.container(key=cue_key(now.moment, state_name, renders)):
                        st.markdown(cue)
        else:
            tick.empty()  # touching the page lets a rerun (Leave) start at once
        if now.over:
            break
        time.sleep(TICK_S)
    if live.now().started and (live.now().over or not ctx.state.playing):
        with st.spinner("The meeting is over: judging your moments …"):
            try:
                result = coach.meeting_result(live, model)
            except CoachError as exc:
                st.error(str(exc))
                return True
        state.meeting().results[scene.id] = result
        lives.pop(key, None)
        st.rerun()
    return True


def play_in_one_piece(coach: Coach, scene: SceneView, korean: bool, live: bool) -> None:
    """The honest fallback: the scene's audio plays in the page; one recording of the whole scene."""
    label = "No live microphone? Do the scene in one piece" if live else "Do the scene in one piece"
    with st.expander(label, expanded=not live):
        st.caption("Start the recording and the scene's audio together (headphones), speak in your "
                   "moments, and stop after the last line. The timing is measured from the recording's start.")
        try:
            st.audio(_scene_audio(scene.id, scene.title), format="audio/wav")
        except CoachError as exc:
            st.caption(f"(The voices are not available here: {exc}.)")
        recording = st.audio_input("Record the whole scene", sample_rate=16000, key=f"meeting-rec-{scene.id}")
    if recording is None:
        return
    data = recording.getvalue()
    digest = hashlib.sha256(data).hexdigest()
    done = state.meeting().recordings
    if done.get(scene.id) == digest:
        return
    done[scene.id] = digest
    try:
        with st.spinner("Judging your moments …"):
            result = coach.play_meeting(scene.id, data)
    except CoachError as exc:
        st.error(str(exc))
        return
    state.meeting().results[scene.id] = result
    st.rerun()


# --- the result ----------------------------------------------------------------------------


def result(view: MeetingResult, korean: bool) -> None:
    """Per moment: how long the learner waited, how long they talked over someone, what they said,
    and each criterion met or not with its evidence."""
    met = sum(m.met for m in view.moments)
    st.subheader("How the meeting went" + (" · 결과" if korean else ""))
    st.markdown(f"**{met} of {len(view.moments)} moments** done as the moment needed.")
    for number, moment in enumerate(view.moments, start=1):
        with st.container(border=True, key=f"moment-result-{moment.moment.id}"):
            icon = "✅" if moment.met else "❌"
            st.markdown(f"{icon} **{number}. {escape_md(moment.moment.label)}**"
                        + (f"  \n{escape_md(moment.moment.label_ko)}" if korean else ""))
            if moment.waited_s is None:
                st.markdown("You did not speak in this moment.")
            else:
                over = (f", talking over someone for {moment.overlap_s:.1f} s" if moment.overlap_s >= 0.05
                        else ", talking over no one")
                st.markdown(f"You spoke **{moment.waited_s:.1f} s** after it opened{over}.")
                st.markdown(f"You said: “{escape_md(moment.said)}”")
            lines = []
            for criterion in moment.criteria:
                mark = "✅" if criterion.met else "❌"
                name = escape_md(criterion.label) + (f" · {escape_md(criterion.label_ko)}" if korean else "")
                evidence = " ".join(f"“{escape_md(e)}”" for e in criterion.evidence)
                lines.append(f"- {mark} {name}" + (f": {evidence}" if criterion.met and evidence else ""))
            st.markdown("\n".join(lines))
            if not moment.met:
                st.caption(f"Tip: {moment.moment.tip}" + (f"  \n{moment.moment.tip_ko}" if korean else "")
                           + f"  \nFor example: “{moment.moment.expected}”")
    with st.expander("The whole call, line by line"):
        st.markdown("\n\n".join(f"`{e.t:4.0f}s` **{escape_md(view.scene.name(e.speaker))}**: {escape_md(e.text)}"
                                for e in view.events))
    st.download_button("Download the result (JSON)", json.dumps(view.data, ensure_ascii=False, indent=2),
                       file_name=f"rehearse-meeting-{view.scene.id}.json", mime="application/json")


def again(scene: SceneView) -> None:
    if st.button("Play the scene again", type="primary", key=f"again-{scene.id}"):
        meeting = state.meeting()
        meeting.results.pop(scene.id, None)
        meeting.attempts[scene.id] = meeting.attempts.get(scene.id, 0) + 1
        meeting.recordings.pop(scene.id, None)
        st.rerun()
