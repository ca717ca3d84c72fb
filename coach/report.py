"""Session records for `coach history` and the Markdown report of one session."""

from __future__ import annotations

import json
import re

from coach.session import SessionView
from coach.store import PracticeSession, Store, Turn
from coach.summary import Summary


def turn_record(turn: Turn) -> dict:
    record = {
        "prompt": turn.prompt,
        "kind": turn.kind,
        "answer": turn.answer_text,
        "status": turn.status,
        "scorecard": json.loads(turn.scorecard_json) if turn.scorecard_json else None,
    }
    if turn.audio_path:
        record["audio_path"] = turn.audio_path
    if turn.transcript_json:
        record["transcript"] = json.loads(turn.transcript_json)
    if turn.error:
        record["error"] = turn.error
    return record


def session_record(row: PracticeSession, turns: list[Turn]) -> dict:
    return {
        "id": row.id,
        "card": row.card_id,
        "persona": row.persona_id,
        "mode": row.mode,
        "status": row.status,
        "started_at": row.started_at.isoformat(),
        "finished_at": row.finished_at.isoformat() if row.finished_at else None,
        "content_version": row.content_version,
        "turns": [turn_record(t) for t in turns],
    }


def history(store: Store, limit: int = 200) -> list[dict]:
    """Sessions newest first, each with its turns and scorecards."""
    rows = store.list_sessions(limit=limit)
    turns = store.turns_for([r.id for r in rows])
    return [session_record(r, turns[r.id]) for r in rows]


_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]#|<>~$])")


def escape_md(text: str) -> str:
    """User text shown as text, never as Markdown or HTML."""
    return _MD_SPECIAL.sub(r"\\\1", text)


def markdown_report(view: SessionView, summary: Summary, korean: bool = True) -> str:
    card = view.card
    lines = [
        f"# Rehearse report: {card.title}",
        "",
        f"- Card: `{card.id}` ({card.title_ko})",
        f"- Persona: {view.persona.name}, {view.persona.role}",
        f"- Started: {view.row.started_at:%Y-%m-%d %H:%M} UTC",
        f"- Criteria met: {sum(c.met for c in summary.criteria)} of {len(summary.criteria)}",
        "",
        "## Conversation",
        "",
    ]
    for turn in view.turns:
        lines.append(f"**{view.persona.name}:** {escape_md(turn.prompt)}")
        lines.append("")
        if turn.answer_text:
            lines.append(f"**You:** {escape_md(turn.answer_text)}")
            lines.append("")
        if turn.scorecard_json:
            scorecard = json.loads(turn.scorecard_json)
            met = [c for c, r in scorecard["criteria"].items() if r["met"]]
            lines.append(f"_Met: {', '.join(met) or 'none'}; overall {scorecard['overall']:.2f}_")
            lines.append("")
    return "\n".join(lines) + "\n" + summary_markdown(summary, korean, heading="##")


def summary_markdown(summary: Summary, korean: bool, heading: str = "####") -> str:
    """The end-of-session summary as Markdown: for the report file and for the app."""
    lines = [f"{heading} Result per criterion", ""]
    for row in summary.criteria:
        mark = "✅" if row.met else "❌"
        where = f" ({row.turn})" if row.turn else ""
        label = f"{row.label} / {row.label_ko}" if korean else row.label
        lines.append(f"- {mark} **{label}**{where}")
        for quote in row.evidence[:2]:
            lines.append(f"  - “{escape_md(quote)}”")
    if summary.model_answer_gaps:
        lines += ["", f"{heading} What the model answers had that yours lacked", ""]
        for gap in summary.model_answer_gaps:
            parts = gap.had + [f"concept: {c}" for c in gap.concepts]
            lines.append(f"- *{gap.title}*: {', '.join(parts)}")
    lines += ["", f"{heading} Practise next", ""]
    if not summary.practise_next:
        lines.append("Every criterion was met. Try another card, or this one again for a new variant.")
    for item in summary.practise_next:
        lines.append(f"1. **{item.title}**: {item.tip}" + (f" ({item.tip_ko})" if korean else ""))
    return "\n".join(lines) + "\n"
