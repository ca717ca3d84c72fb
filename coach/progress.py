"""Progress over time, from `coach history` records: per session and criterion whether the
session met it, readable session labels, and which skills are weak across all cards.

Only finished sessions with a scored answer count (an unfinished one is offered to resume,
not judged half-way). A skill is a criterion of one card, so two cards' criteria that share
an id are never merged under one label, and each session counts once per skill (a card with
several situations meets it when every situation did). Times are shown in the learner's
time zone."""

from __future__ import annotations

from collections import Counter
from datetime import datetime, timezone, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from coach.content import Library


def answered(record: dict) -> bool:
    return any(t.get("scorecard") for t in record["turns"])


def zone(name: str | None) -> tzinfo | None:
    """A time zone by IANA name ("Asia/Seoul"), or None (the machine's own) when unknown."""
    try:
        return ZoneInfo(name) if name else None
    except (ZoneInfoNotFoundError, ValueError):
        return None


def when(started_at: str, tz: tzinfo | None = None) -> str:
    """'1 Dec 15:53' in the learner's time zone (`tz`; None: this machine's) from an ISO
    timestamp; a timestamp without a zone is UTC, as the store writes them."""
    moment = datetime.fromisoformat(started_at)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    moment = moment.astimezone(tz)
    return f"{moment.day} {moment:%b %H:%M}"


def counted(record: dict) -> bool:
    """Whether a session counts in progress: finished, with at least one scored answer."""
    return record.get("status") == "finished" and answered(record)


def status_text(record: dict) -> str:
    if not answered(record):
        return "no answers yet"
    return "finished" if record["status"] == "finished" else "in progress"


def session_label(record: dict, library: Library, tz: tzinfo | None = None) -> str:
    """'1 Dec 06:53 · Optimizing training … · 4 of 6 · finished' for pickers and lists."""
    card = library.cards.get(record["card"])
    removed = library.removed.get(record["card"])  # a personal card the learner deleted
    title = card.title if card else f"{removed.title} (deleted card)" if removed else record["card"]
    result = record.get("result") or {}
    score = f" · {result['met']} of {result['of']}" if answered(record) and result.get("of") else ""
    return f"{when(record['started_at'], tz)} · {title}{score} · {status_text(record)}"


def _labels(library: Library, card_id: str) -> dict[str, str]:
    card = library.cards.get(card_id)
    return {c.id: c.label for c in card.criteria} if card else {}


def criterion_progress(records: list[dict], library: Library, card_id: str, tz: tzinfo | None = None) -> list[dict]:
    """Rows {session, order, started_at, criterion, label, met, result} for the counted sessions
    of one card, oldest first; `session` is a readable label that is unique per session."""
    card = library.cards.get(card_id)
    labels = _labels(library, card_id)
    sessions = sorted((r for r in records if r["card"] == card_id and counted(r)), key=lambda r: r["started_at"])
    seen: Counter[str] = Counter()
    rows = []
    for order, record in enumerate(sessions, start=1):
        name = when(record["started_at"], tz)
        seen[name] += 1
        if seen[name] > 1:
            name = f"{name} ({seen[name]})"
        result = record["result"]
        for key, state in result["criteria"].items():
            criterion = key.split("/")[-1]
            label = labels.get(criterion, criterion.replace("_", " "))
            if "/" in key:
                moment = card.turn_label(key.split("/")[0]) if card else key.split("/")[0].replace("-", " ")
                label = f"{label} ({moment})"
            rows.append({"session": name, "order": order, "started_at": record["started_at"], "criterion": key,
                         "label": label, "met": int(bool(state["met"])),
                         "verdict": "met" if state["met"] else "not yet",
                         "result": f"{result['met']} of {result['of']}"})
    return rows


def weak_skills(records: list[dict], library: Library) -> list[dict]:
    """Across all cards: for each skill (a criterion of one card), in how many counted sessions
    it was met. Weakest first. Rows {skill, card, criterion, sessions, met, rate}."""
    tally: dict[tuple[str, str], dict] = {}
    for record in records:
        if not counted(record):
            continue
        per_session: dict[str, bool] = {}
        for key, state in record["result"]["criteria"].items():
            criterion = key.split("/")[-1]
            per_session[criterion] = per_session.get(criterion, True) and bool(state["met"])
        for criterion, met in per_session.items():
            entry = tally.setdefault((record["card"], criterion), {"sessions": 0, "met": 0})
            entry["sessions"] += 1
            entry["met"] += met
    rows = []
    for (card_id, criterion), entry in tally.items():
        card = library.cards.get(card_id)
        label = _labels(library, card_id).get(criterion, criterion.replace("_", " "))
        rows.append({"skill": f"{label} · {card.title if card else card_id}", "card": card_id, "criterion": criterion,
                     "sessions": entry["sessions"], "met": entry["met"],
                     "rate": round(entry["met"] / entry["sessions"], 3)})
    return sorted(rows, key=lambda r: (r["rate"], -r["sessions"], r["skill"]))


def _bare(word: str) -> str:
    return word.strip(" ,.;:!?\"“”").lower()


def words_to_practise(records: list[dict], min_flags: int = 2) -> list[dict]:
    """The learner's own list: words flagged (coach.pronunciation, kept with each spoken answer's
    transcript) in at least `min_flags` answers, with how often they were said and flagged,
    oldest session first in `history` (True: came through), and the last tip. Most flagged first.
    Rows {word, said, flagged, history, came_through_last, sound, tip, tip_ko}."""
    tally: dict[str, dict] = {}
    for record in sorted(records, key=lambda r: r["started_at"]):
        for turn in record["turns"]:
            words = ((turn.get("transcript") or {}).get("pronunciation") or {}).get("words") or []
            for word in words:
                key = _bare(word["word"])
                if not key:
                    continue
                entry = tally.setdefault(key, {"word": _bare(word["word"]), "said": 0, "flagged": 0, "history": [],
                                               "sound": None, "tip": None, "tip_ko": None})
                entry["said"] += 1
                entry["history"].append(not word.get("flag"))
                if word.get("flag"):
                    entry["flagged"] += 1
                    entry.update(sound=word.get("sound"), tip=word.get("tip"), tip_ko=word.get("tip_ko"))
    rows = [dict(e, came_through_last=e["history"][-1]) for e in tally.values() if e["flagged"] >= min_flags]
    return sorted(rows, key=lambda r: (-r["flagged"], r["word"]))
