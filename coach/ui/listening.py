"""Listening practice: the persona's line plays by itself, can be hidden until heard, replayed
slower, and shown in Korean on demand. Speech comes from coach.tts, cached per line.

A line not made before (0.1-0.4 s in the natural voice) has its player drawn last
(`draw_players`, at the end of the page's run, into the place kept for it where the line is), so
the feedback, the transcript correction and Record below it do not wait for it."""

from __future__ import annotations

import threading
from collections.abc import Callable

import streamlit as st

from coach.errors import CoachError
from coach.practice import Coach, Persona, Voice
from coach.ui import state, widgets

SLOWER = 0.7  # the slower replay's speaking rate, relative to the persona's


@st.cache_data(show_spinner=False, max_entries=512)
def _speech(text: str, voice: str, rate: int, pitch: int, _coach: Coach) -> bytes:
    return _coach.speak(text, Voice(voice=voice, rate=rate, pitch=pitch))


_run = threading.local()  # the players this script run still has to draw (a run is one thread)


def _waiting() -> list[Callable[[], None]]:
    if not hasattr(_run, "players"):
        _run.players = []
    return _run.players


def begin() -> None:
    """A page run starts: no players are waiting."""
    _run.players = []


def draw_players() -> None:
    """Draw the players kept for this run, in page order (the end of the page's run)."""
    players = _waiting()
    _run.players = []
    for draw in players:
        draw()


def when_made(ready: bool, draw: Callable[[object], None]) -> None:
    """`draw(place)` here and now when the line is `ready` (made already; `place` is `st`), else
    into a place kept for it here, at `draw_players`. Once: on the next run the line is made, and
    what is drawn here directly is the same element as before (a playing line is not started again)."""
    if ready:
        draw(st)
        return
    slot = st.empty()
    _waiting().append(lambda: draw(slot))


def _audio(coach: Coach, text: str, persona: Persona, rate: int, autoplay: bool = False) -> None:
    """The line's player, drawn as soon as the line is made (`when_made`)."""

    def draw(place) -> None:
        try:
            data = _speech(text, persona.voice.voice, rate, persona.voice.pitch, coach)
        except CoachError as exc:
            place.caption(f"(The voice is not available here: {exc}. Read the text instead.)")
            return
        place.audio(data, format="audio/wav", autoplay=autoplay)

    when_made(coach.line_ready(text, persona.voice.model_copy(update={"rate": rate})), draw)


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
    slower = max(80, int(persona.voice.rate * SLOWER))
    slower_voice = persona.voice.model_copy(update={"rate": slower})
    if voice_on and current and not coach.line_ready(text, slower_voice):  # made beside the line itself
        coach.speak_ahead(text, slower_voice)
    if voice_on:
        _audio(coach, text, persona, persona.voice.rate, autoplay=current and state.autoplay())
    if in_call and state.audio_on():
        st.empty()  # the player's place: what follows it is drawn where it was, none of it left behind (faded)
    if not current:
        return
    korean_text = korean_text if state.korean() else None
    parts = [name for name, wanted in (("Show the text", hide), ("Slower replay", voice_on), ("한국어", korean_text))
             if wanted]
    if not parts:
        return
    with st.expander(" · ".join(parts)):
        if hide:
            st.markdown(widgets.line(text, literal))
        if voice_on:
            _audio(coach, text, persona, slower)
        if korean_text:
            st.markdown(korean_text)
