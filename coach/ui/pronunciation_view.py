"""Under a spoken answer: the words a listener probably did not understand (coach.pronunciation),
each with what was heard, one tip in English and Korean, the learner's own recording of the
word next to the reference voice saying it slowly, and "say it again"."""

from __future__ import annotations

import hashlib

import streamlit as st

from coach.errors import CoachError
from coach.practice import Coach, Feedback, Turn, WordScore, escape_md, line_around, word_clip
from coach.ui import listening, state

MAX_SHOWN = 5  # the words worth working on first; more would bury the feedback


@st.fragment(run_every=1.0)
def _awaited(coach: Coach, turn_pk: int, korean: bool) -> None:
    """Polls the stored turn until its pronunciation result is there (or is not coming), then
    reruns the page, which shows it in its place (the coach of the page's run, not a new one each time).
    Only its own timed runs poll: a run of the whole page may carry a click further down (Re-score)
    that a rerun from here would drop, and it read the turn when it began anyway."""
    if _fragment_run():
        status = coach.pronunciation(turn_pk)
        if status.result is not None or not status.pending:
            st.rerun()
    st.caption("🗣️ Checking which words came through …" + (" 발음 확인 중 …" if korean else ""))


def _fragment_run() -> bool:
    """Whether this run is a fragment's own, not the whole page's."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    return bool(ctx is not None and ctx.fragment_ids_this_run)


def feedback(coach: Coach, answer: Feedback, korean: bool) -> None:
    """The answer's pronunciation feedback (nothing for a typed answer); while it is still being
    made, a line that is replaced by it once it is stored."""
    turn, status = answer.turn, answer.pronunciation
    if turn is None or turn.id is None:
        return
    if status.result is None and status.pending:
        _awaited(coach, turn.id, korean)
        return
    result = status.result
    if result is None:
        return
    flagged = sorted((i for i, w in enumerate(result.words) if w.flag), key=lambda i: result.words[i].score)
    flagged = sorted(flagged[:MAX_SHOWN])
    with st.container(key=f"pronunciation-{turn.id}"):
        share = f"{result.score:.0%} of your words came through"
        if not flagged:
            st.caption(f"🗣️ Heard as you meant it: {share}." + (" 모든 단어가 잘 전달되었어요." if korean else ""))
            return
        st.markdown(f"**🗣️ Heard as you meant it:** {share}. "
                    f"{'These' if len(flagged) > 1 else 'This'} may not have come through:"
                    + (" 잘 전달되지 않았을 수 있는 단어:" if korean else ""))
        for index in flagged:
            _word(coach, turn, index, result.words[index], line_around(result, index), korean)


def _word(coach: Coach, turn: Turn, index: int, word: WordScore, line: str, korean: bool) -> None:
    said = bare(word.word)
    heard = f" — heard “{escape_md(word.heard)}”" if word.heard else ""
    if word.sound_name:
        heard += f" — the sound: {escape_md(word.sound_name)}"
    with st.container(border=True, key=f"pron-word-{turn.id}-{index}"):
        st.markdown(f"**“{escape_md(said)}”**{heard}")
        st.markdown(escape_md(word.tip or ""))
        if korean and word.tip_ko:
            st.caption(word.tip_ko)
        mine, model = st.columns(2)
        with mine:
            if turn.audio_path:
                try:
                    st.caption("You said")
                    st.audio(word_clip(turn.audio_path, word.start, word.end), format="audio/wav")
                except (CoachError, OSError):
                    st.caption("(your recording is not available)")
        with model:
            st.caption("Slowly")
            # a word not said before (0.1-0.2 s each) is made at the end of the page's run: the
            # scorecard, the follow-up and Record do not wait for it
            listening.when_made(coach.line_audio_ready(said, slow=True), lambda place: _slow_player(place, said, coach))
        _again(coach, turn, index, word, line)


def _slow_player(place, said: str, coach: Coach) -> None:
    try:
        place.audio(_slow(said, coach), format="audio/wav")
    except CoachError:
        place.caption("(text-to-speech is not available)")


@st.cache_data(show_spinner=False, max_entries=256)
def _slow(text: str, _coach: Coach) -> bytes:
    return _coach.line_audio(text, slow=True)


def bare(word: str) -> str:
    return word.strip(" ,.;:!?\"“”")


def _again(coach: Coach, turn: Turn, index: int, word: WordScore, line: str) -> None:
    said = bare(word.word)
    st.markdown(f"Say it again: “{escape_md(line)}”")
    recording = st.audio_input(f"Say it again: {line}", sample_rate=16000, key=f"again-{turn.id}-{index}",
                               label_visibility="collapsed")
    if recording is None:
        return
    data = recording.getvalue()
    digest = hashlib.sha256(data).hexdigest()
    results = state.page().results
    if digest not in results:
        try:
            with st.spinner("Listening …"):
                results[digest] = coach.say_again(data, line, word.word) or "nothing"
        except CoachError as exc:
            results[digest] = str(exc)
    outcome = results[digest]
    if isinstance(outcome, WordScore) and not outcome.flag:
        st.success(f"“{said}” came through this time.", icon="✅")
    elif isinstance(outcome, WordScore):
        st.warning(f"Not yet: “{said}” still did not come through"
                   + (f" (heard “{outcome.heard}”)" if outcome.heard else "") + ". Try once more.", icon="🔁")
    else:
        st.warning(outcome if outcome != "nothing" else f"“{said}” was not heard. Try once more.")
