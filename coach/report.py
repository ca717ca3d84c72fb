"""Session records for `coach history` and the Markdown report of one session."""

from __future__ import annotations

import json
import re

from coach.content import Card, Library
from coach.result import session_result
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


def session_record(row: PracticeSession, turns: list[Turn], card: Card | None = None) -> dict:
    """A session for `coach history`; `result` is the session's one rubric (see coach.result)."""
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
        "result": session_result(card, turns).to_json(),
    }


def history(store: Store, limit: int = 200, library: Library | None = None) -> list[dict]:
    """Sessions newest first, each with its turns, scorecards and result."""
    if library is None:
        from coach.content import default_library

        library = default_library()
    rows = store.list_sessions(limit=limit)
    turns = store.turns_for([r.id for r in rows])
    return [session_record(r, turns[r.id], library.cards.get(r.card_id) or library.removed.get(r.card_id))
            for r in rows]


_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]#|<>~$])")


def escape_md(text: str) -> str:
    """User text shown as text, never as Markdown or HTML."""
    return _MD_SPECIAL.sub(r"\\\1", text)


def markdown_report(view: SessionView, summary: Summary, korean: bool = True) -> str:
    card = view.card
    result = view.result()
    title = f"{card.title} ({card.title_ko})" if korean else card.title
    lines = [
        f"# Rehearse report: {card.title}",
        "",
        f"- Card: `{card.id}` · {title}",
        f"- Persona: {view.persona.name}, {view.persona.role}",
        f"- Started: {view.row.started_at:%Y-%m-%d %H:%M} UTC",
        f"- Criteria met: {result.met} of {result.of}",
        "",
        "## Conversation",
        "",
    ]
    for index, turn in enumerate(view.turns):
        lines.append(f"**{view.persona.name}:** {escape_md(turn.prompt)}")
        lines.append("")
        if turn.answer_text:
            lines.append(f"**You:** {escape_md(turn.answer_text)}")
            lines.append("")
        delta = result.deltas.get(index)
        if delta is not None:
            added = ", ".join(result.criteria[k].label for k in delta.added) or "nothing new"
            lines.append(f"_Added: {added}; so far {delta.met_so_far} of {delta.of}_")
            lines.append("")
    return "\n".join(lines) + "\n" + summary_markdown(summary, korean, heading="##")


def _label(label: str, label_ko: str, korean: bool) -> str:
    return f"{label} / {label_ko}" if korean and label_ko else label


def _quote(text: str) -> list[str]:
    return [f"> {escape_md(line)}" if line.strip() else ">" for line in text.strip().splitlines()]


def summary_markdown(summary: Summary, korean: bool, heading: str = "####") -> str:
    """The end-of-session summary as Markdown: for the report file and for the app."""
    met = sum(c.met for c in summary.criteria)
    lines = [f"{heading} Result: {met} of {len(summary.criteria)} criteria met", ""]
    for row in summary.criteria:
        mark = "✅" if row.met else "⬜"
        where = f" ({row.turn})" if row.turn else ""
        label = _label(row.label, row.label_ko, korean)
        answer = f" · answer {row.answer + 1}" if row.met and row.answer is not None else ""
        lines.append(f"- {mark} **{label}**{where}{answer}" + ("" if row.met else " — not shown yet"))
        for quote in row.evidence[:2]:
            lines.append(f"  - “{escape_md(quote)}”")
    if summary.retell:
        r = summary.retell
        lines += ["", f"{heading} Your retell compared with your first answer", "",
                  f"- First answer: {r.first_met} of {r.of} criteria, {r.first_words} words",
                  f"- Retell: {r.retell_met} of {r.of} criteria, {r.retell_words} words"
                  + (f", {r.retell_seconds:.0f} s (target {r.target_seconds} s)" if r.retell_seconds else
                     f" (target {r.target_seconds} s spoken)")]
        if r.gained:
            lines.append(f"- Now in one answer: {', '.join(r.gained)}")
        if r.lost:
            lines.append(f"- Dropped from the retell: {', '.join(r.lost)}")
    if summary.best:
        lines += ["", f"{heading} Your best answer ({len(summary.best.met)} of {summary.best.of} criteria)", ""]
        lines += _quote(summary.best.text)
    if summary.model_answer_gaps:
        lines += ["", f"{heading} Model answers", ""]
        for gap in summary.model_answer_gaps:
            lines += [f"**{escape_md(gap.title)}**", ""]
            if gap.text:
                lines += _quote(gap.text)
                lines.append("")
            if gap.meets:
                lines.append(f"- Meets: {', '.join(gap.meets)}")
            lacked = gap.had + [f"the idea of {c}" for c in gap.concepts]
            whose = "your best answer" if summary.best else "your answers"
            if lacked:
                lines.append(f"- It had what {whose} lacked: {', '.join(lacked)}")
            else:
                lines.append(f"- {whose.capitalize()} covered everything this one did.")
            lines.append("")
    lines += ["", f"{heading} Practise next", ""]
    if not summary.practise_next:
        lines.append("Every criterion was met. Try another card, or this one again for a new variant.")
    for item in summary.practise_next:
        lines.append(f"1. **{item.title}**: {item.tip}" + (f" ({item.tip_ko})" if korean else ""))
    return "\n".join(lines) + "\n"
