"""History's progress: the first try per criterion as a trend, how each session sounded, and a
session's first answer beside its retell. Everything shown comes from `Coach.progress` (the
`coach progress` data) and the session's view; charts stay legible on a 390 px phone (large
labels, no side legends, axes only where they say something)."""

from __future__ import annotations

import altair as alt
import pandas as pd
import streamlit as st

from coach.practice import PracticeView, english_kind_label, since_last, since_last_text, when
from coach.ui import widgets

LABEL_FONT = 13  # axis labels a phone can read
GREEN, RED, BLUE = "#6aa84f", "#e06666", "#3d85c6"


def session_names(sessions: list[dict]) -> dict[str, str]:
    """'#1 · 1 Dec 15:53': numbered, so two sessions in one minute stay two columns. `at` already
    carries the learner's offset, so it is shown as it is."""
    return {s["id"]: f"#{n} · {when(s['at'], _zone_of(s['at']))}" for n, s in enumerate(sessions, start=1)}


def _zone_of(at: str):
    from datetime import datetime

    return datetime.fromisoformat(at).tzinfo


def skills_chart(skills: list[dict], korean: bool) -> None:
    """Across all cards, how often the first answer showed each skill, weakest first."""
    if not skills:
        return
    st.markdown("##### Skills on the first try")
    st.caption("How often your first answer, before any follow-up, showed each skill; weakest first."
               + (" 후속 질문 전 첫 답변에서 각 항목을 얼마나 자주 보여 줬는지입니다." if korean else ""))
    frame = pd.DataFrame(skills)
    frame["share"] = frame["met"].astype(str) + " of " + frame["sessions"].astype(str)
    frame["name"] = [f"{r['label']} · {r['share']}" for r in frame.to_dict("records")]
    frame["row"] = range(len(frame))
    # each skill's name and count above its bar, its card under it: a phone has no room for an axis
    fit = alt.ExprRef(expr="width")  # long names are cut at the chart's width, never drawn over each other
    base = alt.Chart(frame).encode(
        y=alt.Y("row:O", axis=None),
        tooltip=[alt.Tooltip("skill:N", title="Skill"), alt.Tooltip("share:N", title="First answers that showed it")],
    )
    bars = base.mark_bar(height=9, yOffset=2, cornerRadius=3).encode(
        x=alt.X("rate:Q", scale=alt.Scale(domain=[0, 1]), axis=None),
        color=alt.Color("rate:Q", scale=alt.Scale(domain=[0, 1], range=[RED, GREEN]), legend=None),
    )
    names = base.mark_text(align="left", baseline="bottom", dy=-5, fontSize=LABEL_FONT, fontWeight="bold",
                           color="#222", limit=fit).encode(x=alt.value(0), text="name:N")
    cards = base.mark_text(align="left", baseline="top", dy=9, fontSize=LABEL_FONT - 2, color="#666",
                           limit=fit).encode(x=alt.value(0), text="card_title:N")
    st.altair_chart((bars + names + cards).properties(height=alt.Step(56)), width="stretch")


def card_progress(data: dict, card_id: str, korean: bool) -> None:
    """One card: 'better than last time', the first answer's share over sessions (and the retell's),
    each criterion's first try per session, and how the sessions sounded."""
    sessions = [s for s in data["sessions"] if s["card"] == card_id]
    if not sessions:
        return
    names = session_names(sessions)
    change = since_last(data, sessions[-1]["id"])
    if change is not None:
        st.markdown(f"**{since_last_text(change, korean)}**")
    else:
        st.caption("Practise this card again to see whether your first answer gets better."
                   + (" 이 카드를 다시 연습하면 첫 답변이 나아졌는지 볼 수 있어요." if korean else ""))

    st.markdown("###### Your first answer, session by session")
    st.caption("Criteria met before any follow-up (the retell, when you gave one, beside it)."
               + (" 후속 질문 전에 충족한 항목 수 (다시 말하기도 함께)." if korean else ""))
    rows = []
    for s in sessions:
        fa = s["first_answer"]
        rows.append({"session": names[s["id"]], "what": "First answer", "share": fa["met"] / (fa["of"] or 1),
                     "count": f"{fa['met']} of {fa['of']}"})
        if s["retell"]:
            rt = s["retell"]
            rows.append({"session": names[s["id"]], "what": "Retell", "share": rt["met"] / (rt["of"] or 1),
                         "count": f"{rt['met']} of {rt['of']}"})
    order = list(names.values())
    trend = alt.Chart(pd.DataFrame(rows)).encode(
        x=alt.X("session:O", sort=order, title=None, axis=alt.Axis(labelAngle=-30, labelFontSize=LABEL_FONT - 1,
                                                                  labelLimit=120)),
        y=alt.Y("share:Q", scale=alt.Scale(domain=[0, 1.15]), title=None,
                axis=alt.Axis(format="%", values=[0, 0.5, 1], labelFontSize=LABEL_FONT)),
        color=alt.Color("what:N", scale=alt.Scale(domain=["First answer", "Retell"], range=[BLUE, GREEN]),
                        legend=alt.Legend(title=None, orient="top", labelFontSize=LABEL_FONT)),
        tooltip=[alt.Tooltip("session:O", title="Session"), alt.Tooltip("what:N", title="Answer"),
                 alt.Tooltip("count:N", title="Criteria met")],
    )
    chart = (trend.mark_line(point=alt.OverlayMarkDef(size=90)) +
             trend.mark_text(dy=-12, fontSize=LABEL_FONT, fontWeight="bold").encode(text="count:N"))
    st.altair_chart(chart.properties(height=230), width="stretch")

    grid = [{"session": names[t["session"]], "skill": c["label"], "verdict": "met" if t["met"] else "not yet"}
            for c in data["criteria"] if c["card"] == card_id for t in c["first_try"]]
    if grid:
        st.markdown("###### Each criterion on the first try")
        heat = (
            alt.Chart(pd.DataFrame(grid)).mark_rect(stroke="white", strokeWidth=2, cornerRadius=3)
            .encode(
                x=alt.X("session:O", title=None, sort=order,
                        axis=alt.Axis(labelAngle=-30, orient="top", labelFontSize=LABEL_FONT - 1, labelLimit=120)),
                y=alt.Y("skill:N", title=None, sort=None, axis=alt.Axis(labelLimit=170, labelFontSize=LABEL_FONT)),
                color=alt.Color("verdict:N", scale=alt.Scale(domain=["met", "not yet"], range=[GREEN, "#f4c7c3"]),
                                legend=alt.Legend(title=None, orient="bottom", labelFontSize=LABEL_FONT)),
                tooltip=[alt.Tooltip("session:O", title="Session"), alt.Tooltip("skill:N", title="Criterion"),
                         alt.Tooltip("verdict:N", title="First try")],
            )
        ).properties(height=alt.Step(30))
        st.altair_chart(heat, width="stretch")
    how_you_sound(sessions, names, korean)


def how_you_sound(sessions: list[dict], names: dict[str, str], korean: bool) -> None:
    """Pace and fillers per minute over the spoken sessions, and the grammar kinds per session."""
    st.markdown("###### How you sound")
    spoken = [s for s in sessions if s["wpm"] is not None]
    if spoken:
        order = [names[s["id"]] for s in spoken]
        pace = pd.DataFrame([{"session": names[s["id"]], "wpm": s["wpm"], "fillers": s["fillers_per_min"],
                              "pauses": s.get("long_pauses", 0)} for s in spoken])
        left, right = st.columns(2)  # side by side on a wide screen, one under the other on a phone
        for col, field, title, note in (
                (left, "wpm", "Words per minute", "Natural speech is about 120-160."),
                (right, "fillers", "Fillers per minute (at least)",
                 "Counted from the transcript; the recogniser may drop some 'um's, so the true count can be higher.")):
            with col:
                st.markdown(f"**{title}**")
                line = alt.Chart(pace).encode(
                    x=alt.X("session:O", sort=order, title=None, axis=alt.Axis(labelAngle=-30, labelLimit=120,
                                                                               labelFontSize=LABEL_FONT - 1)),
                    y=alt.Y(f"{field}:Q", title=None, axis=alt.Axis(labelFontSize=LABEL_FONT, tickCount=4)),
                    tooltip=[alt.Tooltip("session:O", title="Session"), alt.Tooltip(f"{field}:Q", title=title),
                             alt.Tooltip("pauses:Q", title="Long pauses")])
                st.altair_chart((line.mark_line(point=True, color=BLUE) +
                                 line.mark_text(dy=-10, fontSize=LABEL_FONT).encode(text=f"{field}:Q"))
                                .properties(height=170), width="stretch")
                st.caption(note)
        latest = spoken[-1]
        if latest.get("flagged_words"):
            st.markdown("Words that did not come through last time: "
                        + ", ".join(f"**{widgets.escape_md(w)}**" for w in latest["flagged_words"][:10]))
    else:
        st.caption("Pace and fillers are measured on spoken answers; these sessions were typed."
                   + (" 말하기 속도와 군말은 음성 답변에서만 측정됩니다." if korean else ""))
    kinds = [{"session": names[s["id"]], "kind": english_kind_label(kind, korean), "count": n}
             for s in sessions for kind, n in s["corrections"].items()]
    if kinds:
        st.markdown("**Grammar that came back**" + (" · 반복된 문법 실수" if korean else ""))
        bars = alt.Chart(pd.DataFrame(kinds)).mark_bar(cornerRadius=2).encode(
            x=alt.X("session:O", sort=list(names.values()), title=None,
                    axis=alt.Axis(labelAngle=-30, labelLimit=120, labelFontSize=LABEL_FONT - 1)),
            y=alt.Y("count:Q", title="corrections", axis=alt.Axis(labelFontSize=LABEL_FONT, tickMinStep=1)),
            color=alt.Color("kind:N", legend=alt.Legend(title=None, orient="bottom", columns=2,
                                                        labelFontSize=LABEL_FONT, labelLimit=170)),
            tooltip=[alt.Tooltip("session:O", title="Session"), alt.Tooltip("kind:N", title="Kind"),
                     alt.Tooltip("count:Q", title="Corrections")])
        st.altair_chart(bars.properties(height=200), width="stretch")


def session_compared(view: PracticeView, korean: bool) -> None:
    """The session's first answer beside its retell (one under the other on a phone), and whether
    the first answer was better than last time."""
    first, retell = view.first_and_retell()
    if first is None:
        return
    if view.summary is not None and view.summary.since_last:
        st.markdown(f"**{since_last_text(view.summary.since_last, korean)}**")
    of = view.result.of
    left, right = st.columns(2)
    with left:
        met = sum(1 for c in first.scorecard.criteria.values() if c.met)
        st.markdown(f"**First answer** · {met} of {len(first.scorecard.criteria) or of}"
                    + (" · 첫 답변" if korean else ""))
        st.text(first.text)
    with right:
        if retell is None:
            st.markdown("**Retell**" + (" · 다시 말하기" if korean else ""))
            st.caption("No retell in this session.")
        else:
            met = sum(1 for c in retell.scorecard.criteria.values() if c.met)
            st.markdown(f"**Retell** · {met} of {len(retell.scorecard.criteria) or of}"
                        + (" · 다시 말하기" if korean else ""))
            st.text(retell.text)


def session_sound(data: dict | None, session_id: str, korean: bool) -> None:
    """One line on how the session sounded: pace, fillers per minute (a lower bound), long pauses,
    the words that did not come through, and the grammar kinds that came back."""
    s = next((s for s in (data or {}).get("sessions", []) if s["id"] == session_id), None)
    if s is None:
        return
    parts = []
    if s["wpm"] is not None:
        parts.append(f"{s['wpm']:.0f} words per minute")
        parts.append(f"at least {s['fillers_per_min']:.1f} fillers per minute")
        parts.append(f"{s.get('long_pauses', 0)} long pause{'s' if s.get('long_pauses', 0) != 1 else ''}")
    if s["flagged_words"]:
        parts.append("did not come through: " + ", ".join(widgets.escape_md(w) for w in s["flagged_words"][:8]))
    if s["corrections"]:
        kinds = s["corrections"].items()
        parts.append("grammar: " + ", ".join(f"{english_kind_label(k, korean)} ×{n}" for k, n in kinds))
    if parts:
        st.caption("How it sounded: " + " · ".join(parts))
