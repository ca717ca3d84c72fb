"""Read aloud: a card's lines (key phrases, model-answer sentences with its technical terms) to
listen to and say; each reading shows which words came through and a tip for those that did not."""

import hashlib

import streamlit as st

from coach.errors import CoachError
from coach.practice import escape_md
from coach.ui import listening, state, widgets

korean = state.korean()
coach = state.coach()
library = coach.library

st.title("Read aloud")
st.caption("Listen to a line, say it, and see which words came through: the technical terms first. "
           "Scored on this computer with the bundled speech model."
           + (" 문장을 듣고 따라 말해 보세요. 전달되지 않은 단어와 발음 팁을 보여 줍니다." if korean else ""))

cards = [c for c in library.summaries() if not c.personal]  # the own cards' files are not read for this
ids = [c.id for c in cards]
wanted = st.query_params.get("card")
card_id = st.selectbox("Card", ids, index=ids.index(wanted) if wanted in ids else 0,
                       format_func=lambda cid: widgets.title(library.card(cid), korean), key="read-aloud-card")
if card_id != wanted:
    st.query_params["card"] = card_id


@st.cache_data(show_spinner=False, max_entries=256)
def _audio(line: str, slow: bool) -> bytes | None:
    try:
        return coach.line_audio(line, slow)
    except CoachError:
        return None


def _player(line: str, slow: bool, label: str):
    def draw(place) -> None:
        spoken = _audio(line, slow)
        if spoken is not None:
            with place.container():
                st.caption(label)
                st.audio(spoken, format="audio/wav")

    return draw


# a line not made yet (0.3-0.5 s each in the natural voice, two per line) has its player drawn
# after the whole page, in the place kept for it: the lines and their recorders come at once
listening.begin()


def _words_md(result) -> str:
    """The line as read: words that did not come through in red and struck, the rest as said
    (punctuation, which Whisper gives as words of its own, stays on the word before it)."""
    shown = ""
    for word in result.words:
        text = escape_md(word.word)
        if not any(ch.isalnum() for ch in word.word):
            shown += text
            continue
        shown += (" " if shown else "") + (f":red[**~~{text}~~**]" if word.flag else text)
    return shown


def _result(line: str, recording) -> None:
    data = recording.getvalue()
    results = state.page().results  # recording digest → its result (or the message why not)
    digest = hashlib.sha256(data + line.encode()).hexdigest()
    if digest not in results:
        try:
            with st.spinner("Listening …"):
                results[digest] = coach.read_aloud(data, line)
        except CoachError as exc:
            results[digest] = str(exc)
    outcome = results[digest]
    if isinstance(outcome, str):
        widgets.error(outcome)
        return
    flagged = [w for w in outcome.words if w.flag]
    if not flagged:
        st.success(f"Every word came through ({outcome.score:.0%})."
                   + (" 모든 단어가 잘 전달되었어요." if korean else ""), icon="✅")
        return
    st.markdown(f"**{outcome.score:.0%} came through.** " + _words_md(outcome))
    by_sound: dict[str, list] = {}
    for word in flagged:  # one tip per sound, with the words it is for
        by_sound.setdefault(word.sound or "", []).append(word)
    for words in by_sound.values():
        said = ", ".join(f"**{escape_md(w.word.strip(' ,.;:!?'))}**" + (f" (heard “{escape_md(w.heard)}”)"
                                                                          if w.heard else "") for w in words)
        if words[0].sound_name:
            said += f" — {escape_md(words[0].sound_name)}"
        st.markdown(f"🔁 {said}: {escape_md(words[0].tip or '')}")
        if korean and words[0].tip_ko:
            st.caption(words[0].tip_ko)


lines = coach.drill_lines(card_id)
if not lines:
    st.info("This card has no lines to read aloud yet.")
terms = list(dict.fromkeys(term for line in lines for term in line.terms))
if terms:
    st.markdown("**Terms to get right:** " + ", ".join(escape_md(t) for t in terms)
                + (" · 정확히 발음해야 할 용어" if korean else ""))
for index, line in enumerate(lines):
    with st.container(border=True, key=f"read-line-{index}"):
        st.markdown(f"**{index + 1}.** {escape_md(line.text)}")
        st.caption(line.source + (" · terms: " + ", ".join(line.terms[:4]) if line.terms else ""))
        listen, slowly = st.columns(2)
        for column, slow, label in ((listen, False, "Listen"), (slowly, True, "Slowly")):
            with column:
                listening.when_made(coach.line_audio_ready(line.text, slow), _player(line.text, slow, label))
        recording = st.audio_input(f"Say line {index + 1}", sample_rate=16000, key=f"read-{card_id}-{index}")
        if recording is not None:
            _result(line.text, recording)
listening.draw_players()
