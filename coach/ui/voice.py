"""Voice in the app: the user answers by voice (STT); the persona's voice is coach.ui.listening.

One gesture per turn. "Record" streams the microphone to the server (streamlit-webrtc,
SENDONLY); the core (`coach.live.LiveAnswer`) saves every chunk to the turn's recording file
and transcribes each segment as soon as the speaker pauses, so the transcript grows on the
page while they speak. "Stop" sends the answer: only the last segment is left to decode, the
engine scores it and the persona follows up. The transcript stays editable afterwards
("Correct and re-score").

This module only moves audio frames and renders: the transcriber state lives in the page state
(`coach.ui.state`; STOP ends the script run that was receiving), the work is in the core, one
`Coach` call per gesture. A sent answer's view is rendered by the run after it, without loading
the session again. A page reload mid-answer loses nothing: the file attached to the turn is found
again (`Coach.recovered_recording`) and transcribed into the answer box.
"""

from __future__ import annotations

import hashlib
import queue
import time

import streamlit as st

from coach.errors import CoachError
from coach.practice import Coach, Feedback, FrameResampler, PracticeView, Transcribed, escape_md, format_seconds
from coach.ui import listening, recorder_head, state, widgets

FRAME_TIMEOUT_S = 0.1  # get_frames waits this long, then the loop touches the page (Stop reruns)
DROPPED_AFTER_S = 6.0  # no audio for this long while "recording": the stream dropped
SPEAK_NOW_SECONDS = 5.0  # the "Speak now" cue shows for the first seconds of audio


@st.cache_resource(show_spinner="Loading the speech model (first time only) …")
def _speech_model(_coach: Coach, engine_name: str, model: str | None, device: str) -> bool:
    """Load and warm up the speech model once per process; the named arguments only key the cache."""
    _coach.prepare_speech()
    return True


def ensure_model(coach: Coach) -> None:
    settings = coach.settings
    _speech_model(coach, settings.stt_engine, settings.stt_model, settings.stt_device)


# --- the live recorder ---------------------------------------------------------------------


def _live_possible() -> bool:
    try:
        import streamlit_webrtc  # noqa: F401
    except ImportError:  # pragma: no cover - a dependency; the one-piece recorder still works
        return False
    from streamlit.runtime import Runtime

    # no server session (AppTest): only the one-piece recorder
    return Runtime.exists() and hasattr(Runtime.instance(), "_session_mgr")


def local_only() -> dict:
    """Every call component's ICE configuration: no STUN or TURN server, in the browser or on the
    server (where streamlit-webrtc would otherwise ask Google's STUN server), so nothing leaves the
    machine. New dicts each time: the component fills in a configuration it is given."""
    return {"rtc_configuration": {"iceServers": []}, "server_rtc_configuration": {"iceServers": []}}


def _streamer(key: str):
    from streamlit_webrtc import WebRtcMode, webrtc_streamer

    return webrtc_streamer(
        key=key,
        mode=WebRtcMode.SENDONLY,
        audio_receiver_size=2048,  # about 40 s of 20 ms frames: nothing dropped during a rerun
        media_stream_constraints={"audio": True, "video": False},
        **local_only(),
        translations={"start": "Record your answer", "stop": "Stop and send"},
    )


def live_recorder(coach: Coach, view: PracticeView, hold: bool = False) -> bool:
    """The live recorder of the pending turn. Returns True when it ran the turn (the page
    then reruns to show the scorecard and the follow-up), or, with `hold` (a typed draft is
    in the box), when the transcript is ready to be offered beside the draft."""
    pending = _pending(view)
    lives = state.voice().live
    entry = lives.get(pending)
    if not _live_possible():
        return False
    try:
        ensure_model(coach)  # before Record can be pressed: no answer waits for the model to load
    except CoachError as exc:
        st.error(f"{exc} Type your answer instead.")
        return False
    head = recorder_head.watch()
    ctx = _streamer(f"live-{pending}")
    if entry is not None and not ctx.state.playing:
        lives.pop(pending, None)
        _send_live(coach, view, entry, hold)
        return True
    if ctx.state.playing:
        _receive(coach, view, ctx, lives, head)
    return False


def _pending(view: PracticeView) -> int:
    """The id of the turn the recorder answers (the page shows a recorder only while one is open)."""
    assert view.pending is not None and view.pending.id is not None
    return view.pending.id


def _receive(coach: Coach, view: PracticeView, ctx, lives: dict, head: dict | None) -> None:
    pending = _pending(view)
    entry = lives.get(pending)
    if entry is None:
        try:
            entry = {"live": coach.start_live(view.id), "resample": FrameResampler()}
        except CoachError as exc:
            st.error(f"{exc} Type your answer instead.")
            return
        lives[pending] = entry
    live = entry["live"]
    if head is not None:  # the opening words, recorded by the browser before the stream began
        live.add_head(head["audio"], head["connected_seconds"])
    shown = st.empty()
    tick = st.empty()
    shown_last = None
    heard_at = time.monotonic()
    if not live.seconds:
        shown.markdown("⏳ *Connecting the microphone …*")
    listening.draw_players()  # the run stays in the loop below while the learner speaks
    while ctx.state.playing:
        receiver = ctx.audio_receiver
        if receiver is None:
            break
        try:
            frames = receiver.get_frames(timeout=FRAME_TIMEOUT_S)
        except queue.Empty:
            frames = []
        except Exception:  # noqa: BLE001 - the receiver went away (connection closed)
            break
        if frames:
            heard_at = time.monotonic()
            live.feed(entry["resample"](frames))
        elif time.monotonic() - heard_at > DROPPED_AFTER_S:
            live.dropped = True  # finish() transcribes the saved file instead
            break
        # Touching the page on every pass lets a rerun (the Stop click) start at once; the
        # element is re-sent only when what it shows changed (less work for the browser).
        text = live.text()
        view_now = (int(live.seconds), len(text))
        if live.seconds and view_now != shown_last:
            shown_last = view_now
            # the cue comes once audio arrives; what was said before it is kept all the same
            cue = "🎙️ **Speak now** · Listening" if live.seconds < SPEAK_NOW_SECONDS else "🎙️ Listening"
            line = f"{cue} … {live.seconds:.0f} s"
            shown.markdown(f"{line}  \n{escape_md(text)}" if text else line)
        else:
            tick.empty()


def _send_live(coach: Coach, view: PracticeView, entry: dict, hold: bool) -> None:
    """Stop was pressed: finish the transcript (the last segment), run the turn; with `hold`,
    keep the transcript for the answer box instead of sending it."""
    live = entry["live"]
    pending = _pending(view)
    try:
        with st.spinner("Transcribing your answer …" if hold else "Scoring your answer …"):
            if hold:
                _keep(state.voice().transcripts, pending, "held", coach.hold_live(view.id, live))
                return
            sent = coach.send_live(view.id, live, turn_pk=pending)
    except CoachError as exc:
        state.voice().errors[pending] = str(exc)
        return
    state.keep_view(sent)


def _keep(done: dict, turn_pk: int, digest: str, transcribed: Transcribed, **more) -> None:
    """A transcript for the answer box (not sent), by the turn it answers."""
    done[turn_pk] = {"digest": digest, "text": transcribed.text, "transcript_json": transcribed.transcript_json,
                     **more}


# --- the one-piece recorder, a recovered recording, the transcript box --------------------


def recorder(coach: Coach, view: PracticeView, hold: bool = False) -> str | None:
    """Voice input for the pending turn. The live recorder first; under it, a recorder that
    sends the whole recording at once (for browsers without a live connection), which also
    runs the turn at once. Returns a transcript for the answer box when there is one to
    check before sending: a recording saved before a reload, or any recording while `hold`
    (the learner typed a draft, which a recording never silently replaces)."""
    pending = _pending(view)
    if live_recorder(coach, view, hold):
        st.rerun()
    error = state.voice().errors.pop(pending, None)
    if error:
        st.error(widgets.message_lines(error))  # a refusal may carry English frames, line by line
    with st.expander("No live microphone? Record in one piece"):
        recording = st.audio_input("Record your answer in one piece", sample_rate=16000,
                                   key=f"rec-{pending}")
    done = state.voice().transcripts
    if recording is not None:
        data = recording.getvalue()
        digest = hashlib.sha256(data).hexdigest()
        if done.get(pending, {}).get("digest") != digest:
            done[pending] = {"digest": digest}
            if _send_recording(coach, view, data, done, hold):
                st.rerun()
    else:
        _recover(coach, view, done)
    entry = done.get(pending) or {}
    if entry.get("error"):
        st.error(widgets.message_lines(entry["error"]))
    if entry.get("recovered"):
        st.info(f"Your recording from before the page reloaded was kept ({entry['recovered']}); its "
                "transcript is in the box below. Send it, correct it, or record again.")
    return entry.get("text")


def _send_recording(coach: Coach, view: PracticeView, data: bytes, done: dict, hold: bool) -> bool:
    pending = _pending(view)
    try:
        with st.spinner("Transcribing your answer …" if hold else "Transcribing and scoring your answer …"):
            ensure_model(coach)
            if hold:
                _keep(done, pending, done[pending]["digest"], coach.transcribe(view.id, data, suffix=".wav"))
                return False  # the transcript goes to the answer box, beside the draft
            sent = coach.send_audio(view.id, data, suffix=".wav", turn_pk=pending,
                                    pronounce_later=True)  # the scorecard does not wait for it
    except CoachError as exc:
        done[pending]["error"] = str(exc)
        return False
    state.keep_view(sent)
    return True


def _recover(coach: Coach, view: PracticeView, done: dict) -> None:
    """A recording attached to the pending turn but never sent (reload, dropped stream)."""
    pending = _pending(view)
    if pending in state.voice().live:
        return
    path = coach.recovered_recording(view)
    if path is None:
        if coach.recovered_recording(view, quiet_seconds=0) is not None:
            # Just reloaded: the old connection may still be writing its last frames.
            with st.spinner("Keeping the recording made before the reload …"):
                time.sleep(1.0)
            st.rerun()
        return
    if done.get(pending, {}).get("digest") == path or done.get(pending, {}).get("text"):
        return  # already transcribed (a held recording, or this one)
    done[pending] = {"digest": path}
    try:
        with st.spinner("Transcribing the recording saved before the reload …"):
            ensure_model(coach)
            # the core transcribes it with the card's vocabulary and keeps the transcript
            # (and its timing) with the turn, so the next reload finds it and a send keeps it
            transcribed = coach.transcribe(view.id, path)
    except CoachError as exc:
        done[pending]["error"] = str(exc)
        return
    _keep(done, pending, path, transcribed, recovered=format_seconds(transcribed.duration))


def pending_transcript(view: PracticeView) -> str | None:
    """The transcript (JSON) of the pending turn's recording held for the answer box, if any."""
    entry = state.voice().transcripts.get(_pending(view)) or {}
    return entry["transcript_json"] if entry.get("text") else None


def term_hints(view: PracticeView) -> None:
    """"Did you mean …?" for the card's terms that the transcript of the newest answer probably misheard."""
    for hint in view.hints:
        st.warning(f"Heard {hint} If so, correct the transcript below and re-score.", icon="👂")


def correction(coach: Coach, view: PracticeView, answer: Feedback) -> None:
    """Correct the transcript of an answer and score it again; the earlier version is kept."""
    turn = answer.turn
    assert turn is not None and turn.id is not None
    with st.expander("Correct the transcript and re-score"):
        with st.form(key=f"correct-{turn.id}"):
            text = st.text_area("Corrected answer", value=turn.answer_text or "", height=120)
            sent = st.form_submit_button("Re-score")
    if sent:
        try:
            corrected = coach.correct(view.id, turn.id, text)
        except CoachError as exc:
            st.error(str(exc))
            return
        state.keep_view(corrected)
        st.rerun()


def clear() -> None:
    """A gesture ran: the transcripts held for the answer box are done with."""
    state.voice().transcripts.clear()
