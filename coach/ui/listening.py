"""Listening practice: the persona's line plays by itself, can be hidden until heard, replayed
slower, and shown in Korean on demand. Speech comes from coach.tts, cached per line."""

from __future__ import annotations

import streamlit as st

from coach.errors import CoachError
from coach.practice import Coach, Persona, Voice
from coach.ui import state, widgets

SLOWER = 0.7  # the slower replay's speaking rate, relative to the persona's


@st.cache_data(show_spinner=False, max_entries=512)
def _speech(text: str, voice: str, rate: int, pitch: int, _coach: Coach) -> bytes:
    return _coach.speak(text, Voice(voice=voice, rate=rate, pitch=pitch))


def _audio(coach: Coach, text: str, persona: Persona, rate: int, autoplay: bool = False) -> bool:
    try:
        data = _speech(text, persona.voice.voice, rate, persona.voice.pitch, coach)
    except CoachError as exc:
        st.caption(f"(The voice is not available here: {exc}. Read the text instead.)")
        return False
    st.audio(data, format="audio/wav", autoplay=autoplay)
    return True


def persona_line(coach: Coach, text: str, persona: Persona, *, current: bool, korean_text: str | None, key: str,
                 literal: bool = False, in_call: bool = False) -> None:
    """One line of the persona, with its player; the current line plays by itself when asked.
    `literal`: the line quotes the learner's own text (a personal card), shown as typed. `in_call`:
    a hands-free call is open and says the line itself, so the page has no player for it (removing
    the player also stops a line still playing when the call was opened: it is heard once)."""
    voice_on = state.audio_on() and not in_call
    hide = current and voice_on and state.hide_text()
    if hide:
        # the page cannot know when the audio ends, so it never says "is speaking"
        st.markdown(f"🔊 **{persona.name}'s line** — listen first (play it again below), then answer.")
    else:
        st.markdown(f"**{persona.name}:** {widgets.line(text, literal)}")
    played = voice_on and _audio(coach, text, persona, persona.voice.rate, autoplay=current and state.autoplay())
    if in_call and state.audio_on():
        st.empty()  # the player's place: what follows it is drawn where it was, none of it left behind (faded)
    if not current:
        return
    korean_text = korean_text if state.korean() else None
    parts = [name for name, wanted in (("Show the text", hide), ("Slower replay", played), ("한국어", korean_text))
             if wanted]
    if not parts:
        return
    with st.expander(" · ".join(parts)):
        if hide:
            st.markdown(widgets.line(text, literal))
        if played:
            _audio(coach, text, persona, max(80, int(persona.voice.rate * SLOWER)))
        if korean_text:
            st.markdown(korean_text)
