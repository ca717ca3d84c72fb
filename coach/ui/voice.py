"""Voice in the app: the user answers by voice (STT); the persona's voice is coach.ui.listening.

One gesture per turn. "Record" streams the microphone to the server (streamlit-webrtc,
SENDONLY); the core (`coach.live.LiveAnswer`) saves every chunk to the turn's recording file
and transcribes each segment as soon as the speaker pauses, so the transcript grows on the
page while they speak. "Stop" sends the answer: only the last segment is left to decode, the
engine scores it and the persona follows up. The transcript stays editable afterwards
("Correct and re-score").

This module only moves audio frames and renders: the transcriber state lives in
`st.session_state` (STOP ends the script run that was receiving), the work is in the core.
A page reload mid-answer loses nothing: the file attached to the turn is found again
(`PracticeEngine.recovered_recording`) and transcribed into the answer box.
"""

from __future__ import annotations

import hashlib
import logging
import queue
import time

import streamlit as st

from coach.errors import CoachError
from coach.practice import FrameResampler, PracticeEngine, SessionView, escape_md, format_seconds, stt
from coach.ui import recorder_head, state

log = logging.getLogger(__name__)
TRANSCRIPTS = "voice_transcripts"
LIVE = "voice_live"
HINTS = "voice_hints"
FRAME_TIMEOUT_S = 0.1  # get_frames waits this long, then the loop touches the page (Stop reruns)
DROPPED_AFTER_S = 6.0  # no audio for this long while "recording": the stream dropped
SPEAK_NOW_SECONDS = 5.0  # the "Speak now" cue shows for the first seconds of audio


@st.cache_resource(show_spinner="Loading the speech model (first time only) …")
def _speech_model(engine_name: str, model: str | None, device: str):
    """Load the speech model once per process; the arguments only key the cache."""
    loaded = stt.load_model(state.settings())
    _warm_up(loaded)
    return loaded


def _warm_up(model) -> None:
    """One decode of a second of silence, so that the first real segment is not slowed by
    lazy initialisation (measured: 0.94 s for the first sentence, 0.4-0.5 s after)."""
    import numpy as np

    try:
        model.decode_window(np.zeros(16000, dtype=np.float32))
    except Exception:  # noqa: BLE001 - warming up is only an optimisation
        pass


def ensure_model() -> None:
    settings = state.settings()
    _speech_model(settings.stt_engine, settings.stt_model, settings.stt_device)


# --- the live recorder ---------------------------------------------------------------------


def _live_possible() -> bool:
    try:
        import streamlit_webrtc  # noqa: F401
    except ImportError:  # pragma: no cover - a dependency; the one-piece recorder still works
        return False
    from streamlit.runtime import Runtime

    # no server session (AppTest): only the one-piece recorder
    return Runtime.exists() and hasattr(Runtime.instance(), "_session_mgr")


def _streamer(key: str):
    from streamlit_webrtc import WebRtcMode, webrtc_streamer

    return webrtc_streamer(
        key=key,
        mode=WebRtcMode.SENDONLY,
        audio_receiver_size=2048,  # about 40 s of 20 ms frames: nothing dropped during a rerun
        media_stream_constraints={"audio": True, "video": False},
        rtc_configuration={"iceServers": []},  # local: no STUN/TURN server is reached
        translations={"start": "Record your answer", "stop": "Stop and send"},
    )


def live_recorder(engine: PracticeEngine, view: SessionView, hold: bool = False) -> bool:
    """The live recorder of the pending turn. Returns True when it ran the turn (the page
    then reruns to show the scorecard and the follow-up), or, with `hold` (a typed draft is
    in the box), when the transcript is ready to be offered beside the draft."""
    pending = view.pending
    lives = st.session_state.setdefault(LIVE, {})
    entry = lives.get(pending.id)
    if not _live_possible():
        return False
    try:
        ensure_model()  # before Record can be pressed: no answer waits for the model to load
    except CoachError as exc:
        st.error(f"{exc} Type your answer instead.")
        return False
    head = recorder_head.watch()
    ctx = _streamer(f"live-{pending.id}")
    if entry is not None and not ctx.state.playing:
        lives.pop(pending.id, None)
        _send_live(engine, view, entry, hold)
        return True
    if ctx.state.playing:
        _receive(engine, view, ctx, lives, head)
    return False


def _receive(engine: PracticeEngine, view: SessionView, ctx, lives: dict, head: dict | None) -> None:
    pending = view.pending
    entry = lives.get(pending.id)
    if entry is None:
        try:
            entry = {"live": engine.start_live_answer(view.id, await_head=True), "resample": FrameResampler()}
        except CoachError as exc:
            st.error(f"{exc} Type your answer instead.")
            return
        lives[pending.id] = entry
    live = entry["live"]
    if head is not None:  # the opening words, recorded by the browser before the stream began
        live.add_head(head["audio"], head["connected_seconds"])
    shown = st.empty()
    tick = st.empty()
    shown_last = None
    heard_at = time.monotonic()
    if not live.seconds:
        shown.markdown("⏳ *Connecting the microphone …*")
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


def _send_live(engine: PracticeEngine, view: SessionView, entry: dict, hold: bool) -> None:
    """Stop was pressed: finish the transcript (the last segment), run the turn; with `hold`,
    keep the transcript for the answer box instead of sending it."""
    live = entry["live"]
    try:
        with st.spinner("Transcribing your answer …" if hold else "Scoring your answer …"):
            started = time.perf_counter()
            transcript = live.finish()
            finished = time.perf_counter()
            if hold:
                _keep_for_box(view, engine.transcribe_only(view.id, live.path, transcript=transcript))
                return
            result = engine.answer_with_audio(view.id, live.path, transcript=transcript, turn_pk=view.pending.id)
            log.info("live answer of %.1f s: last segment %.2f s, turn %.2f s", live.seconds,
                     finished - started, time.perf_counter() - finished)
    except CoachError as exc:
        st.session_state.setdefault("voice_errors", {})[view.pending.id] = str(exc)
        return
    _remember(view, result)


def _keep_for_box(view: SessionView, transcript) -> None:
    st.session_state.setdefault(TRANSCRIPTS, {})[view.pending.id] = {
        "digest": "held", "text": transcript.text, "transcript_json": transcript.model_dump_json(),
        "timing": transcript.to_timing(),
    }


def _remember(view: SessionView, result) -> None:
    if result.notes:
        st.session_state["notes"] = list(result.notes)
    st.session_state.setdefault(HINTS, {})[view.pending.id] = [s.message() for s in result.suggestions]


# --- the one-piece recorder, a recovered recording, the transcript box --------------------


def recorder(engine: PracticeEngine, view: SessionView, hold: bool = False) -> str | None:
    """Voice input for the pending turn. The live recorder first; under it, a recorder that
    sends the whole recording at once (for browsers without a live connection), which also
    runs the turn at once. Returns a transcript for the answer box when there is one to
    check before sending: a recording saved before a reload, or any recording while `hold`
    (the learner typed a draft, which a recording never silently replaces)."""
    pending = view.pending
    if live_recorder(engine, view, hold):
        st.rerun()
    error = st.session_state.get("voice_errors", {}).pop(pending.id, None)
    if error:
        st.error(error)
    with st.expander("No live microphone? Record in one piece"):
        recording = st.audio_input("Record your answer in one piece", sample_rate=16000,
                                   key=f"rec-{pending.id}")
    done = st.session_state.setdefault(TRANSCRIPTS, {})
    if recording is not None:
        data = recording.getvalue()
        digest = hashlib.sha256(data).hexdigest()
        if done.get(pending.id, {}).get("digest") != digest:
            done[pending.id] = {"digest": digest}
            if _send_recording(engine, view, data, done[pending.id], hold):
                st.rerun()
    else:
        _recover(engine, view, done)
    entry = done.get(pending.id) or {}
    if entry.get("error"):
        st.error(entry["error"])
    if entry.get("recovered"):
        st.info(f"Your recording from before the page reloaded was kept ({entry['recovered']}); its "
                "transcript is in the box below. Send it, correct it, or record again.")
    return entry.get("text")


def _send_recording(engine: PracticeEngine, view: SessionView, data: bytes, entry: dict, hold: bool) -> bool:
    try:
        with st.spinner("Transcribing your answer …" if hold else "Transcribing and scoring your answer …"):
            ensure_model()
            if hold:
                transcript = engine.transcribe_only(view.id, data, suffix=".wav")
                entry.update(text=transcript.text, transcript_json=transcript.model_dump_json(),
                             timing=transcript.to_timing())
                return False  # the transcript goes to the answer box, beside the draft
            result = engine.answer_with_audio(view.id, data, suffix=".wav", turn_pk=view.pending.id,
                                              pronounce_later=True)  # the scorecard does not wait for it
    except CoachError as exc:
        entry["error"] = str(exc)
        return False
    _remember(view, result)
    return True


def _recover(engine: PracticeEngine, view: SessionView, done: dict) -> None:
    """A recording attached to the pending turn but never sent (reload, dropped stream)."""
    pending = view.pending
    if pending.id in st.session_state.get(LIVE, {}):
        return
    path = engine.recovered_recording(view)
    if path is None:
        if engine.recovered_recording(view, quiet_seconds=0) is not None:
            # Just reloaded: the old connection may still be writing its last frames.
            with st.spinner("Keeping the recording made before the reload …"):
                time.sleep(1.0)
            st.rerun()
        return
    if done.get(pending.id, {}).get("digest") == str(path) or done.get(pending.id, {}).get("text"):
        return  # already transcribed (a held recording, or this one)
    entry = done[pending.id] = {"digest": str(path)}
    try:
        with st.spinner("Transcribing the recording saved before the reload …"):
            ensure_model()
            # the engine transcribes it with the card's vocabulary and keeps the transcript
            # (and its timing) with the turn, so the next reload finds it and a send keeps it
            transcript = engine.transcribe_only(view.id, path)
    except CoachError as exc:
        entry["error"] = str(exc)
        return
    entry.update(text=transcript.text, transcript_json=transcript.model_dump_json(),
                 timing=transcript.to_timing(), recovered=format_seconds(transcript.duration))


def pending_transcript(view: SessionView) -> dict:
    """The transcript and timing of the pending turn's recording, for the scorer."""
    entry = st.session_state.get(TRANSCRIPTS, {}).get(view.pending.id) or {}
    if not entry.get("text"):
        return {}
    return {"transcript_json": entry["transcript_json"], "timing": entry["timing"]}


def term_hints(engine: PracticeEngine, view: SessionView, turn) -> None:
    """"Did you mean …?" for the card's terms that the transcript probably misheard."""
    hints = st.session_state.get(HINTS, {}).get(turn.id)
    if hints is None:
        hints = engine.term_hints(view, turn)
    for hint in hints or []:
        st.warning(f"Heard {hint} If so, correct the transcript below and re-score.", icon="👂")


def correction(engine: PracticeEngine, view: SessionView, turn) -> None:
    """Correct the transcript of an answer and score it again; the earlier version is kept."""
    with st.expander("Correct the transcript and re-score"):
        with st.form(key=f"correct-{turn.id}"):
            text = st.text_area("Corrected answer", value=turn.answer_text or "", height=120)
            sent = st.form_submit_button("Re-score")
    if sent:
        try:
            result = engine.rescore(view.id, turn.id, text)
        except CoachError as exc:
            st.error(str(exc))
            return
        card = result.scorecard
        met = sum(r.met for r in card.criteria.values())
        st.session_state["notes"] = [f"Re-scored your corrected answer: on its own it meets {met} of "
                                     f"{len(card.criteria)} criteria."] + list(result.notes)
        st.session_state.get(HINTS, {}).pop(turn.id, None)
        st.rerun()


def clear() -> None:
    st.session_state.pop(TRANSCRIPTS, None)
