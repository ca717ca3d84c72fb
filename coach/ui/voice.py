"""Voice in the app: the persona speaks (TTS) and the user records an answer (STT).

The raw recording is saved and attached to the turn before it is transcribed; the
transcript is then shown in the answer box, where the user can correct it before sending."""

from __future__ import annotations

import hashlib

import streamlit as st

from coach.content import Persona
from coach.errors import CoachError
from coach.session import PracticeEngine, SessionView
from coach.store import save_audio_file
from coach.ui import state

TRANSCRIPTS = "voice_transcripts"


@st.cache_resource(show_spinner="Loading the speech model (first time only) …")
def _speech_model(engine_name: str, model: str | None, device: str):
    """Load the speech model once per process; the arguments only key the cache."""
    from coach import stt

    return stt.load_model(state.settings())


@st.cache_data(show_spinner=False, max_entries=256)
def _tts(text: str, voice: str, rate: int, pitch: int) -> bytes:
    from coach import tts
    from coach.content import Voice

    return tts.synthesize(text, Voice(voice=voice, rate=rate, pitch=pitch), state.settings())


def speak(text: str, persona: Persona) -> None:
    try:
        audio = _tts(text, persona.voice.voice, persona.voice.rate, persona.voice.pitch)
    except CoachError as exc:
        st.caption(f"(voice unavailable: {exc})")
        return
    st.audio(audio, format="audio/wav")


def recorder(engine: PracticeEngine, view: SessionView) -> str | None:
    """Record, save, transcribe; returns the transcript text for the answer box."""
    pending = view.pending
    recording = st.audio_input("Record your answer", sample_rate=16000, key=f"rec-{pending.id}")
    done = st.session_state.setdefault(TRANSCRIPTS, {})
    if recording is not None:
        data = recording.getvalue()
        digest = hashlib.sha256(data).hexdigest()
        if done.get(pending.id, {}).get("digest") != digest:
            done[pending.id] = {"digest": digest, **_transcribe(engine, view, data)}
    entry = done.get(pending.id) or {}
    if entry.get("error"):
        st.error(entry["error"])
    return entry.get("text")


def _transcribe(engine: PracticeEngine, view: SessionView, data: bytes) -> dict:
    settings = state.settings()
    try:
        path = save_audio_file(settings.data_dir, view.id, data, ".wav")
        engine.attach_recording(view.id, str(path))
    except CoachError as exc:
        return {"error": f"{exc} Type your answer instead."}
    from coach import stt

    try:
        with st.spinner("Transcribing your answer …"):
            _speech_model(settings.stt_engine, settings.stt_model, settings.stt_device)
            transcript = stt.transcribe(data, settings)
    except CoachError as exc:
        return {"error": str(exc)}
    return {
        "text": transcript.text,
        "transcript_json": transcript.model_dump_json(),
        "timing": transcript.to_timing(),
    }


def pending_transcript(view: SessionView) -> dict:
    """The transcript and timing of the pending turn's recording, for the scorer."""
    entry = st.session_state.get(TRANSCRIPTS, {}).get(view.pending.id) or {}
    if not entry.get("text"):
        return {}
    return {"transcript_json": entry["transcript_json"], "timing": entry["timing"]}


def clear() -> None:
    st.session_state.pop(TRANSCRIPTS, None)
