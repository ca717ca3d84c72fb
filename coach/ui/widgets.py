"""Rendering helpers shared by the pages: cards, scorecards with highlighted evidence, summaries.

All author and user text is rendered as Markdown without HTML; user text is escaped."""

from __future__ import annotations

import re

import streamlit as st

from coach.practice import (
    LLM_REASON_PREFIX,
    Card,
    CardSummary,
    Scorecard,
    Summary,
    TurnHeadline,
    english_markdown,
    escape_md,
    habits_markdown,
    lacked_markdown,
    model_markdown,
    practise_markdown,
    result_markdown,
    retell_markdown,
    since_last_markdown,
    yours_markdown,
)


def scroll_into_view(container_key: str, nonce: str) -> None:
    """Bring a keyed container to the top of the screen (after an answer: the newest exchange
    and the next question), on desktop and on a phone. Elements above it that render late
    (audio players, iframes) shift the page, so it is held at the top for up to 20 s, until
    the learner scrolls, touches, clicks or types. The script runs once per `nonce`: an
    unchanged call on a later rerun keeps the same frame (and its hold) alive."""
    from streamlit.components.v1 import html

    html(
        f"""<script>/* {nonce} */
        const doc = window.parent.document;
        let tries = 0, left = false;
        for (const kind of ["wheel", "touchstart", "keydown", "mousedown"]) {{
          doc.addEventListener(kind, () => {{ left = true; }}, {{once: true, passive: true}});
        }}
        const hold = () => {{
          if (left) return;
          const el = doc.querySelector(".st-key-{container_key}");
          if (el && Math.abs(el.getBoundingClientRect().top) > 4) el.scrollIntoView({{block: "start"}});
          if (++tries < 80) setTimeout(hold, 250);
        }};
        setTimeout(hold, 150);
        </script>""",
        height=0,
    )


def error(message: str) -> None:
    """A message of the core (it may quote paths and user text) as text, not Markdown."""
    st.error(escape_md(message))


def url_value(value: str) -> str:
    """A value from the URL for a message: a plain id is quoted, anything else (Markdown,
    links, images) is never echoed."""
    return f"`{value}`" if re.fullmatch(r"[\w-]{1,100}", value, re.ASCII) else "named in the link"


def highlighted(answer: str, evidence: list[str]) -> str:
    """The answer as Markdown with each evidence span on a highlighted background."""
    spans = []
    for quote in evidence:
        start = answer.find(quote)
        if start >= 0:
            spans.append((start, start + len(quote)))
    spans.sort()
    out, cursor = [], 0
    for start, end in spans:
        if start < cursor:
            continue
        out.append(escape_md(answer[cursor:start]))
        out.append(f":orange-background[{escape_md(answer[start:end])}]")
        cursor = end
    out.append(escape_md(answer[cursor:]))
    return "".join(out)


def has_hangul(text: str) -> bool:
    return any("\uac00" <= ch <= "\ud7a3" or "\u3131" <= ch <= "\u318e" for ch in text)


_KO_ASIDE = re.compile(r"\s*[(（][^()（）]*[\uac00-\ud7a3][^()（）]*[)）]")


def english_only(text: str) -> str:
    """Author text for English mode: Korean asides in brackets removed, Korean-only lines dropped."""
    lines = [_KO_ASIDE.sub("", line) for line in text.splitlines()]
    return "\n".join(line for line in lines if not has_hangul(line))


def title(card: Card | CardSummary, korean: bool) -> str:
    return f"{card.title} · {card.title_ko}" if korean and card.title_ko else card.title


def title_md(card: Card | CardSummary, korean: bool) -> str:
    """The title for Markdown: a personal card's title is the learner's text, shown as written."""
    return line(title(card, korean), literal=True)


def label(text: str, text_ko: str, korean: bool) -> str:
    return f"{text} · {text_ko}" if korean and text_ko else text


def situation(card: Card, korean: bool) -> str:
    """The card's situation: its English paragraphs; the Korean ones too in Korean mode."""
    paragraphs = [p.strip() for p in card.sections.get("Situation", "").split("\n\n") if p.strip()]
    return "\n\n".join(p if korean else english_only(p) for p in paragraphs if korean or not has_hangul(p))


def _first_sentence(text: str) -> str:
    text = " ".join(text.split())
    end = text.find(". ")
    return text if end < 0 else text[: end + 1]


def turn_feedback(headline: TurnHeadline, korean: bool, answer: str = "") -> None:
    """What one answer did, good part first with a quote for each criterion it earned, then at
    most two things still missing in the same situation (the rest are in the full scorecard).
    The wording is the engine's (TurnHeadline), as in the terminal and the report."""
    def names(credits) -> str:
        return ", ".join(label(c.label, c.label_ko, korean) for c in credits)

    def quoted(credits) -> str:
        return "; ".join(f"**{label(c.label, c.label_ko, korean)}**" + (f" — “{escape_md(c.quote)}”" if c.quote else "")
                         for c in credits)

    so_far = f" · so far **{headline.met_so_far} of {headline.of}**"
    if headline.added:
        st.markdown(f"✅ Added: {quoted(headline.added)}{so_far}")
    elif headline.again:
        st.markdown(f"👍 Shown again: {quoted(headline.again)} · nothing new yet{so_far}")
    elif headline.met_so_far:
        st.markdown(f"Nothing new in this answer{so_far}")
    else:
        start = _first_sentence(answer)
        # a rude line is not praised as a start: how it sounds is said below instead
        good = f"A start to build on: “{escape_md(start)}”" if start and not headline.sounds else "No new criterion yet"
        st.markdown(f"{good} · no criterion met yet{so_far}")
    if missing := headline.missing:
        more = f" and {len(missing) - 2} more (in the full scorecard)" if len(missing) > 2 else ""
        st.caption(f"Still missing: {names(missing[:2])}{more}")
    for note in headline.sounds[:2]:
        korean_line = f"  \n{note.sounds_ko}" if korean else ""
        st.warning(f"🗣️ **How it sounds** — {note.name} (“{escape_md(note.evidence)}”): "
                   f"{escape_md(note.sounds)}{korean_line}")
    if headline.softer:
        st.caption(f"Try: “{escape_md(headline.softer)}”")


def message_lines(text: str) -> str:
    """A message of several lines from the engine, shown as text, line by line."""
    return "  \n".join(escape_md(line) for line in text.splitlines())


def your_english(review, korean: bool) -> None:
    """An answer's English corrected: wrong → right inline with why, then the whole answer
    corrected (coach.report's wording); nothing when there is nothing to correct."""
    if text := english_markdown(review, korean):
        st.markdown(text)


def stage_directions(text: str) -> str:
    """Author text with its stage directions ("[the audio breaks up]") in italics."""
    return re.sub(r"\[([^\[\]]+)\]", r"*(\1)*", text)


# where Markdown would turn a bare URL or e-mail address into a link; an invisible word joiner
# there keeps it text (the renderer links them even when escaped)
_AUTOLINK = re.compile(r"(?<=[A-Za-z])(?=://)|(?<=\bwww)(?=\\?\.)|(?=@)", re.IGNORECASE)
WORD_JOINER = "\u2060"


def line(text: str, literal: bool = False) -> str:
    """A prompt as Markdown: `literal` (a personal card's, the learner's own words) escaped so
    Markdown, HTML or a URL in it shows as typed; author text with its stage directions in italics."""
    if not literal:
        return stage_directions(text)
    return _AUTOLINK.sub(WORD_JOINER, escape_md(text))


def next_steps(items, korean: bool) -> None:
    """The one or two most useful next steps after an answer (English, and Korean in Korean mode)."""
    for item in items:
        tip = f"{item.tip}  \n{item.tip_ko}" if korean else item.tip
        st.markdown(f"👉 **{escape_md(item.title)}**: {tip}")  # a title may quote the answer


def scorecard(card: Card, result: Scorecard, answer: str, korean: bool,
              headline: TurnHeadline | None = None) -> None:
    """One answer against the rubric. With its headline, criteria an earlier answer covered in
    the same situation show as covered, never as missing; tips are for what is still missing."""
    met = sum(r.met for r in result.criteria.values())
    st.markdown(f"**This answer on its own** — {met} of {len(result.criteria)} criteria")
    all_evidence = [q for r in result.criteria.values() if r.met for q in r.evidence]
    st.markdown(highlighted(answer, all_evidence))
    earlier = headline.covered_before if headline is not None else frozenset()
    for cid, criterion_result in result.criteria.items():
        known = cid in {c.id for c in card.criteria}
        criterion = card.criterion(cid) if known else None
        name = label(criterion.label, criterion.label_ko, korean) if criterion else cid
        if criterion_result.met:
            judged = criterion_result.reason.startswith(LLM_REASON_PREFIX)
            st.markdown(f"✅ **{name}**" + (" — the interviewer's judgement" if judged else ""))
            for quote in criterion_result.evidence[:2]:
                st.caption(f"“{escape_md(quote)}”")
        elif cid in earlier:
            st.markdown(f"☑️ **{name}** — covered in an earlier answer")
        else:
            what = _first_sentence(criterion.definition) if criterion else ""
            st.markdown(f"⬜ **{name}** — not in this answer. {escape_md(what)}")
    if result.llm:
        _llm_opinion(card, result)
    delivery(result, meeting=card.kind == "meeting")
    for item in result.feedback:
        if item.criterion in earlier:
            continue
        tip = f"{item.tip}  \n{item.tip_ko}" if korean else item.tip
        st.info(f"**{item.label}**: {tip}")


def _llm_opinion(card: Card, result: Scorecard) -> None:
    info = result.llm or {}
    if info.get("status") != "ok":
        st.caption(f"Second opinion: {info.get('note') or info.get('status')}")
        return
    labels = {c.id: c.label for c in card.criteria}
    for item in info.get("disagreements", []):
        verdict = "its view was used" if item.get("applied") else "its view was not used: it quoted nothing you said"
        seen = lambda v: "shown" if v else "not shown"  # noqa: E731
        st.warning(
            f"The AI second opinion differs on **{labels.get(item.get('criterion'), item.get('criterion'))}** "
            f"(rules: {seen(item.get('rubric'))}, AI: {seen(item.get('llm'))}; {verdict})."
        )


def delivery(result: Scorecard, meeting: bool = False) -> None:
    d = result.delivery
    cols = st.columns(4)
    cols[0].metric("Words", d.word_count)
    cols[1].metric("Fillers", d.filler_count, help=d.filler_note)
    if meeting:  # the drill teaches them: counted, never marked down
        cols[2].metric("Softeners", d.hedge_count, help="'I think', 'maybe': in a meeting they keep a point polite.")
    else:
        cols[2].metric("Hedges", d.hedge_count)
    cols[3].metric("Words / min", d.words_per_minute if d.words_per_minute is not None else "—")
    if d.long_pauses:
        pauses = ", ".join(
            f"{p.duration:.1f}s after “{escape_md(p.after_word)}” at {p.start:.0f}s" for p in d.long_pauses[:5]
        )
        st.caption(f"Long pauses: {pauses}")
    # the words that may not have come through are the pronunciation feedback's alone (one
    # list, one figure: coach.pronunciation), not a second list of unsure transcript words here
    if d.filler_note:
        st.caption(d.filler_note)


def summary(result: Summary, korean: bool) -> None:
    """The end-of-session summary, in the words of `coach report` (coach.report's blocks)."""
    st.subheader("Summary")
    if result.since_last:  # better than last time, or not, said first and plainly
        st.markdown(since_last_markdown(result, korean))
    st.markdown(result_markdown(result, korean))
    if result.retell:
        st.markdown(retell_markdown(result))
    st.markdown(practise_markdown(result, korean))
    if result.english:
        st.markdown(habits_markdown(result, korean))
    if result.model_answer_gaps:
        st.markdown("#### Model answers beside your answers")
        tabs = st.tabs([gap.title for gap in result.model_answer_gaps])
        for tab, gap in zip(tabs, result.model_answer_gaps, strict=True):
            with tab:
                left, right = st.columns(2)
                left.markdown(yours_markdown(result, gap))
                right.markdown(model_markdown(gap))
                st.markdown(lacked_markdown(gap))


def card_preview(card: Card, korean: bool, author: bool = False) -> None:
    """A card for learners (what it asks and what a good answer shows); `author` adds the
    rubric's detectors, weights and variants for content authors."""
    st.caption(" · ".join(x for x in (card.level, ", ".join(card.tags)) if x))
    st.markdown(situation(card, korean))
    for turn in card.turns:
        name = "Question" if card.kind == "interview" else card.turn_label(turn.id, korean)
        st.markdown(f"**{name}:** {line(turn.prompt, card.personal)}")
        if turn.prompt_ko and korean:
            st.caption(turn.prompt_ko)
    st.markdown("**What a good answer shows**")
    for c in card.criteria:
        st.markdown(f"- **{label(c.label, c.label_ko, korean)}**: {_first_sentence(c.definition)}")
    for name, text in card.sections.items():
        if name in ("Model answers", "Situation"):
            continue
        with st.expander(name):
            st.markdown(text if korean else english_only(text))
    if not author:
        return
    with st.expander("For authors: turns and rubric", expanded=False):
        st.caption(f"id: {card.id} · persona: {card.persona}")
        for turn in card.turns:
            st.markdown(f"**{turn.id}** — {line(turn.prompt, card.personal)}")
            for variant in turn.variants:
                st.caption(f"variant: {variant}")
        st.table(
            [
                {
                    "id": c.id,
                    "label": c.label,
                    "label_ko": c.label_ko,
                    "detector": c.detector.type,
                    "weight": f"{c.weight:g}",
                    "what counts": c.definition,
                    "tip": f"{c.tip} / {c.tip_ko}" if korean else c.tip,
                }
                for c in card.criteria
            ]
        )
    if card.model_answers:
        with st.expander("Model answers"):
            for answer in card.model_answers:
                st.markdown(f"**{answer.title}**")
                st.markdown(answer.text)
                if answer.notes:
                    st.caption(answer.notes)
