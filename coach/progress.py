"""Progress over time, from `coach history` records: per session and criterion whether the
session met it, readable session labels, and which skills are weak across all cards.

Sessions with no scored answer do not count."""

from __future__ import annotations

from collections import Counter
from datetime import datetime

from coach.content import Library


def answered(record: dict) -> bool:
    return any(t.get("scorecard") for t in record["turns"])


def when(started_at: str) -> str:
    """'1 Dec 06:53' (UTC) from an ISO timestamp."""
    moment = datetime.fromisoformat(started_at)
    return f"{moment.day} {moment:%b %H:%M}"


def status_text(record: dict) -> str:
    if not answered(record):
        return "no answers yet"
    return "finished" if record["status"] == "finished" else "in progress"


def session_label(record: dict, library: Library) -> str:
    """'1 Dec 06:53 · Optimizing training … · 4 of 6 · finished' for pickers and lists."""
    card = library.cards.get(record["card"])
    title = card.title if card else record["card"]
    result = record.get("result") or {}
    score = f" · {result['met']} of {result['of']}" if answered(record) and result.get("of") else ""
    return f"{when(record['started_at'])} · {title}{score} · {status_text(record)}"


def _labels(library: Library, card_id: str) -> dict[str, str]:
    card = library.cards.get(card_id)
    return {c.id: c.label for c in card.criteria} if card else {}


def criterion_progress(records: list[dict], library: Library, card_id: str) -> list[dict]:
    """Rows {session, order, started_at, criterion, label, met, result} for the answered sessions of
    one card, oldest first; `session` is a readable label that is unique per session."""
    labels = _labels(library, card_id)
    sessions = sorted((r for r in records if r["card"] == card_id and answered(r)), key=lambda r: r["started_at"])
    seen: Counter[str] = Counter()
    rows = []
    for order, record in enumerate(sessions, start=1):
        name = when(record["started_at"])
        seen[name] += 1
        if seen[name] > 1:
            name = f"{name} ({seen[name]})"
        result = record["result"]
        for key, state in result["criteria"].items():
            criterion = key.split("/")[-1]
            label = labels.get(criterion, criterion)
            if "/" in key:
                label = f"{label} ({key.split('/')[0]})"
            rows.append({"session": name, "order": order, "started_at": record["started_at"], "criterion": key,
                         "label": label, "met": int(bool(state["met"])),
                         "verdict": "met" if state["met"] else "not yet",
                         "result": f"{result['met']} of {result['of']}"})
    return rows


def weak_skills(records: list[dict], library: Library) -> list[dict]:
    """Across all cards: for each skill (criterion id), in how many answered sessions it was met.
    Weakest first. Rows {skill, criterion, sessions, met, rate, cards}."""
    tally: dict[str, dict] = {}
    for record in records:
        if not answered(record):
            continue
        labels = _labels(library, record["card"])
        for key, state in record["result"]["criteria"].items():
            criterion = key.split("/")[-1]
            entry = tally.setdefault(criterion, {"labels": Counter(), "sessions": 0, "met": 0, "cards": set()})
            entry["labels"][labels.get(criterion, criterion.replace("_", " "))] += 1
            entry["sessions"] += 1
            entry["met"] += bool(state["met"])
            entry["cards"].add(record["card"])
    rows = [
        {"skill": entry["labels"].most_common(1)[0][0], "criterion": criterion, "sessions": entry["sessions"],
         "met": entry["met"], "rate": round(entry["met"] / entry["sessions"], 3), "cards": len(entry["cards"])}
        for criterion, entry in tally.items()
    ]
    return sorted(rows, key=lambda r: (r["rate"], -r["sessions"], r["skill"]))
