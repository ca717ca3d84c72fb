"""Rendering helpers shared by the pages: cards, scorecards with highlighted evidence, summaries.

All author and user text is rendered as Markdown without HTML; user text is escaped."""

from __future__ import annotations

import re

import streamlit as st

from coach.content import Card
from coach.report import escape_md, summary_markdown
from coach.summary import Summary
from scoring.models import Scorecard


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


def scorecard(card: Card, result: Scorecard, answer: str, korean: bool) -> None:
    met = sum(r.met for r in result.criteria.values())
    st.markdown(f"**Scorecard** — {met} of {len(result.criteria)} criteria met · overall {result.overall:.2f}")
    all_evidence = [q for r in result.criteria.values() if r.met for q in r.evidence]
    st.markdown(highlighted(answer, all_evidence))
    for cid, criterion_result in result.criteria.items():
        criterion = card.criterion(cid)
        label = f"{criterion.label} · {criterion.label_ko}" if korean else criterion.label
        mark = "✅" if criterion_result.met else "❌"
        st.markdown(f"{mark} **{label}** — {escape_md(criterion_result.reason)}")
        for quote in criterion_result.evidence[:2]:
            st.caption(f"“{escape_md(quote)}”")
    if result.llm:
        _llm_opinion(result)
    delivery(result)
    for item in result.feedback:
        tip = f"{item.tip}  \n{item.tip_ko}" if korean else item.tip
        st.info(f"**{item.label}**: {tip}")


def _llm_opinion(result: Scorecard) -> None:
    info = result.llm or {}
    if info.get("status") != "ok":
        st.caption(f"Second opinion: {info.get('note') or info.get('status')}")
        return
    for item in info.get("disagreements", []):
        verdict = "applied" if item.get("applied") else "not applied (no verbatim evidence)"
        st.warning(
            f"The model and the rubric disagree on **{item.get('criterion')}** "
            f"(rubric: {item.get('rubric')}, model: {item.get('llm')}; {verdict})."
        )


def delivery(result: Scorecard) -> None:
    d = result.delivery
    cols = st.columns(4)
    cols[0].metric("Words", d.word_count)
    cols[1].metric("Fillers", d.filler_count, help=d.filler_note)
    cols[2].metric("Hedges", d.hedge_count)
    cols[3].metric("Words / min", d.words_per_minute if d.words_per_minute is not None else "—")
    if d.long_pauses:
        pauses = ", ".join(
            f"{p.duration:.1f}s after “{escape_md(p.after_word)}” at {p.start:.0f}s" for p in d.long_pauses[:5]
        )
        st.caption(f"Long pauses: {pauses}")
    if d.unclear_words:
        st.caption("May be unclear: " + ", ".join(escape_md(w) for w in d.unclear_words[:10]))
    if d.filler_note:
        st.caption(d.filler_note)


def summary(result: Summary, korean: bool) -> None:
    st.subheader("Summary")
    st.markdown(f"**{sum(c.met for c in result.criteria)} of {len(result.criteria)}** criteria met.")
    st.markdown(summary_markdown(result, korean))


def card_preview(card: Card, korean: bool) -> None:
    st.markdown(f"### {card.title}")
    st.caption(f"{card.title_ko} · {card.kind} · {card.level} · tags: {', '.join(card.tags)} · persona: {card.persona}")
    for name, text in card.sections.items():
        if name == "Model answers":
            continue
        with st.expander(name, expanded=name == "Situation"):
            st.markdown(text)
    with st.expander("Turns and rubric", expanded=True):
        for turn in card.turns:
            st.markdown(f"**{turn.id}** — {turn.prompt}")
            if turn.prompt_ko:
                st.caption(turn.prompt_ko)
            for variant in turn.variants:
                st.caption(f"variant: {variant}")
        st.table(
            [
                {
                    "id": c.id,
                    "label": c.label,
                    "label_ko": c.label_ko,
                    "detector": c.detector.type,
                    "weight": c.weight,
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
