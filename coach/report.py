"""Session records for `coach history` and the Markdown report of one session."""

from __future__ import annotations

import json
import re

from coach.content.schema import Card, Library
from coach.progress import local_time, since_last_text
from coach.result import session_result
from coach.session import SessionView
from coach.store import PracticeSession, Store, Turn
from coach.summary import ModelAnswerGap, Summary
from scoring.english import Review


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
        from coach.library import default_library

        library = default_library()
    rows = store.list_sessions(limit=limit)
    turns = store.turns_for([r.id for r in rows])
    return [session_record(r, turns[r.id], library.cards.get(r.card_id) or library.removed.get(r.card_id))
            for r in rows]


_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]#|<>~$])")


def escape_md(text: str) -> str:
    """User text shown as text, never as Markdown or HTML."""
    return _MD_SPECIAL.sub(r"\\\1", text)


def markdown_report(view: SessionView, summary: Summary, korean: bool = True, tz=None) -> str:
    """The session's report; times in the learner's zone `tz` (None: this machine's), as the app shows them."""
    card = view.card
    result = view.result()
    title = f"{card.title} ({card.title_ko})" if korean else card.title
    lines = [
        f"# Rehearse report: {card.title}",
        "",
        f"- Card: `{card.id}` · {title}",
        f"- Persona: {view.persona.name}, {view.persona.role}",
        f"- Started: {local_time(view.row.started_at, tz)}",
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
            lines.append(f"_{result.headline(delta, {}).summary}_")  # the app's headline, without its quotes
            lines.append("")
    return "\n".join(lines) + "\n" + summary_markdown(summary, korean, heading="##")


def _label(label: str, label_ko: str, korean: bool) -> str:
    return f"{label} / {label_ko}" if korean and label_ko else label


def _quote(text: str) -> list[str]:
    return [f"> {escape_md(line)}" if line.strip() else ">" for line in text.strip().splitlines()]


# The summary's wording, once: the app renders these blocks (model answers in tabs, the
# learner's answers beside each), `coach report` and `coach practice` join them.


def result_markdown(summary: Summary, korean: bool, heading: str = "####") -> str:
    lines = [f"{heading} Result: {summary.met} of {summary.of} criteria met", ""]
    for row in summary.criteria:
        mark = "✅" if row.met else "⬜"
        where = f" ({escape_md(row.turn_label)})" if row.turn_label else ""
        label = _label(row.label, row.label_ko, korean)
        answer = f" · answer {row.answer_number}" if row.met and row.answer_number else ""
        lines.append(f"- {mark} **{label}**{where}{answer}" + ("" if row.met else " — not shown yet"))
        for quote in row.evidence[:2]:
            lines.append(f"  - “{escape_md(quote)}”")
    return "\n".join(lines) + "\n"


def retell_markdown(summary: Summary) -> str:
    r = summary.retell
    if r is None:
        return ""
    spoken = f", {r.retell_seconds:.0f} s; target {r.target_seconds} s" if r.retell_seconds else \
        f"; target {r.target_seconds} s spoken"
    lines = [f"**Your retell compared with your first answer:** {r.retell_met} of {r.of} criteria in one answer "
             f"({r.retell_words} words{spoken}); "
             f"your first answer had {r.first_met} of {r.of} ({r.first_words} words)."]
    if r.gained:
        lines.append(f"Now in one answer: {', '.join(r.gained)}.")
    if r.lost:
        lines.append(f"Left out of the retell: {', '.join(r.lost)}.")
    return " ".join(lines) + "\n"


def practise_markdown(summary: Summary, korean: bool, heading: str = "####") -> str:
    lines = [f"{heading} Practise next", ""]
    if not summary.practise_next:
        lines.append("Every criterion was met. Try another card, or this one again for a new variant.")
    for item in summary.practise_next:
        lines.append(f"1. **{escape_md(item.title)}**: {item.tip}" + (f"  \n   {item.tip_ko}" if korean else ""))
    return "\n".join(lines) + "\n"


def yours_markdown(summary: Summary, gap: ModelAnswerGap) -> str:
    """The learner's answers shown beside one model answer: those that added to the result."""
    lines = [f"**Your answers** ({summary.met} of {summary.of} criteria in this session)", ""]
    if not gap.yours:
        lines.append("_No answer yet._")
    for number in gap.yours:
        answer = summary.answer(number)
        added = ", ".join(answer.added) or "nothing new"
        name = f"Answer {number}, your retell" if answer.retell else f"Answer {number}"
        lines += [f"_{name} — added: {added}_", ""] + _quote(answer.text) + [""]
    return "\n".join(lines) + "\n"


def model_markdown(gap: ModelAnswerGap) -> str:
    lines = ["**Model answer**", ""] + _quote(gap.text) + [""]
    lines.append(f"Meets: {', '.join(gap.meets) or '—'}")
    return "\n".join(lines) + "\n"


def lacked_markdown(gap: ModelAnswerGap) -> str:
    lacked = gap.had + [f"the idea of {c}" for c in gap.concepts]
    if lacked:
        return f"**It had what your answers lacked:** {', '.join(lacked)}\n"
    return "Your answers covered everything this one did.\n"


def english_markdown(review: Review, korean: bool) -> str:
    """One answer's English: each correction inline (wrong → right) with why, then the answer
    with every correction applied ("" when there is nothing to correct)."""
    if not review.corrections:
        return ""
    lines = ["**Your English**", ""]
    for c in review.corrections:
        why = f"{c.why} {c.why_ko}" if korean else c.why
        lines.append(f"- ~~{escape_md(c.wrong)}~~ → **{escape_md(c.right)}** — {escape_md(why)}")
    lines += ["", f"Said correctly: “{escape_md(review.corrected.strip())}”"]
    return "\n".join(lines) + "\n"


def habits_markdown(summary: Summary, korean: bool, heading: str = "####") -> str:
    """The kinds of English error that came back across the session ("" when none did)."""
    if not summary.english:
        return ""
    lines = [f"{heading} Your English: what came back", ""]
    for habit in summary.english:
        label = _label(habit.label, habit.label_ko, korean)
        examples = "; ".join(f"{escape_md(w)} → {escape_md(r)}" for w, r in habit.examples)
        lines.append(f"- **{label}**: in {habit.answers} answer{'s' if habit.answers != 1 else ''} "
                     f"({habit.count}×), e.g. {examples}")
    return "\n".join(lines) + "\n"


def since_last_markdown(summary: Summary, korean: bool) -> str:
    """'Better than last time: …' (and in Korean): the first answer against last session's ("" for
    a card's first session)."""
    if not summary.since_last:
        return ""
    return f"**{since_last_text(summary.since_last, korean)}**\n"


def summary_markdown(summary: Summary, korean: bool, heading: str = "####") -> str:
    """The end-of-session summary as Markdown: the report file and the terminal."""
    parts = [result_markdown(summary, korean, heading)]
    if summary.since_last:
        parts.insert(0, since_last_markdown(summary, korean))
    if summary.retell:
        parts.append(retell_markdown(summary))
    parts.append(practise_markdown(summary, korean, heading))
    if summary.english:
        parts.append(habits_markdown(summary, korean, heading))
    if summary.model_answer_gaps:
        parts.append(f"{heading} Model answers beside your answers\n")
        for gap in summary.model_answer_gaps:
            parts += [f"**{escape_md(gap.title)}**\n", yours_markdown(summary, gap), model_markdown(gap),
                      lacked_markdown(gap)]
    return "\n".join(parts)
