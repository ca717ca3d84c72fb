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
from functools import lru_cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from coach.content.schema import Library


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


# --- first try and how you sound, per session (`coach progress`) -------------------------------

FIRST_KINDS = {"question", "retry"}  # the card's question, or asked again; not a follow-up, not the retell


def local_iso(started_at: str, tz: tzinfo | None = None) -> str:
    """ISO 8601 with the learner's UTC offset ('2026-12-01T15:53:00+09:00'); `tz` None: this
    machine's zone. A timestamp without a zone is UTC, as the store writes them."""
    moment = datetime.fromisoformat(started_at)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(tz).isoformat(timespec="seconds")


def local_time(moment: datetime, tz: tzinfo | None = None) -> str:
    """'2026-12-01 15:53 (UTC+09:00)' in the learner's zone (`tz`; None: this machine's): the
    report's and the export's times, the same clock as the app's. A naive time is UTC."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    local = moment.astimezone(tz)
    offset = local.strftime("%z")
    return f"{local:%Y-%m-%d %H:%M} (UTC{offset[:3]}:{offset[3:]})"


def _card_turn(record: dict, turn: dict, library: Library) -> str:
    card = library.cards.get(record["card"]) or library.removed.get(record["card"])
    if card is not None and card.kind == "interview":
        return card.turns[0].id
    return (turn.get("scorecard") or {}).get("turn") or ""


def _several(record: dict) -> bool:
    return any("/" in key for key in (record.get("result") or {}).get("criteria", {}))


def first_answers(record: dict, library: Library) -> dict[str, dict]:
    """The first scored answer to each situation of the card (interviews: the question), before
    any follow-up: {card turn: scorecard}."""
    firsts: dict[str, dict] = {}
    for turn in record["turns"]:
        if not turn.get("scorecard") or turn.get("kind", "question") not in FIRST_KINDS:
            continue
        firsts.setdefault(_card_turn(record, turn, library), turn["scorecard"])
    return firsts


def first_try(record: dict, library: Library) -> dict[str, bool]:
    """Per criterion key of the session's result: met in the first answer to its situation.
    A situation the session never reached is left out."""
    firsts = first_answers(record, library)
    several = _several(record)
    out: dict[str, bool] = {}
    for key in record["result"]["criteria"]:
        card_turn, _, cid = key.rpartition("/")
        scorecard = firsts.get(card_turn) if several else next(iter(firsts.values()), None)
        if scorecard is None:
            continue
        out[key] = bool(((scorecard.get("criteria") or {}).get(cid) or {}).get("met"))
    return out


def _retell(record: dict) -> dict | None:
    turn = next((t for t in record["turns"] if t.get("kind") == "retell" and t.get("scorecard")), None)
    if turn is None:
        return None
    criteria = turn["scorecard"].get("criteria") or {}
    return {"met": sum(1 for v in criteria.values() if v.get("met")), "of": len(criteria)}


def sound(record: dict, kinds_of) -> dict:
    """How the session's answers sounded: pace and fillers over the spoken answers (None when
    every answer was typed), long pauses, the words flagged in them, and grammar correction kinds.
    `kinds_of(text)` gives the correction kinds of one answer (scoring.english)."""
    spoken_s = words_min = 0.0
    fillers = pauses = 0
    flagged: list[str] = []
    sounds: Counter[str] = Counter()
    corrections: Counter[str] = Counter()
    note = None
    for turn in record["turns"]:
        scorecard = turn.get("scorecard")
        if not scorecard:
            continue
        corrections.update(kinds_of(turn.get("answer") or ""))
        delivery = scorecard.get("delivery") or {}
        duration = delivery.get("duration")
        if duration:
            spoken_s += duration
            words_min += (delivery.get("words_per_minute") or 0) * duration
            fillers += delivery.get("filler_count") or 0
            pauses += len(delivery.get("long_pauses") or [])
            note = delivery.get("filler_note") or note
        words = ((turn.get("transcript") or {}).get("pronunciation") or {}).get("words") or []
        for word in words:
            if word.get("flag") and (bare := _bare(word["word"])):
                flagged.append(bare)
                if word.get("sound"):
                    sounds[word["sound"]] += 1
    minutes = spoken_s / 60
    return {
        "wpm": round(words_min / spoken_s, 1) if spoken_s else None,
        "fillers_per_min": round(fillers / minutes, 2) if minutes else None,
        # the recogniser may drop some 'um's: a spoken count is a lower bound (None: typed, exact)
        "fillers_at_least": bool(minutes),
        "fillers_note": note,
        "spoken_seconds": round(spoken_s, 1),
        "long_pauses": pauses,
        "flagged_words": list(dict.fromkeys(flagged)),
        "flagged_sounds": dict(sounds.most_common()),
        "corrections": dict(sorted(corrections.items(), key=lambda kv: (-kv[1], kv[0]))),
    }


@lru_cache(maxsize=4096)
def correction_kinds(text: str) -> tuple[str, ...]:
    """The kinds of the grammar corrections of one answer (scoring.english), kept per text: History
    asks for every session's answers on each run."""
    from scoring import english

    return tuple(c.kind for c in english.review(text).corrections) if text.strip() else ()


def progress(records: list[dict], library: Library, tz: tzinfo | None = None, card: str | None = None,
             kinds_of=None) -> dict:
    """`coach progress`: per criterion and card, whether the first answer met it in each counted
    session (oldest first), and per session the first answer, the retell and how it sounded.
    `at` is ISO 8601 in the learner's zone `tz`."""
    if kinds_of is None:
        kinds_of = correction_kinds

    sessions = sorted((r for r in records if counted(r) and (card is None or r["card"] == card)),
                      key=lambda r: r["started_at"])
    criteria: dict[tuple[str, str], dict] = {}
    out_sessions = []
    for record in sessions:
        at = local_iso(record["started_at"], tz)
        tried = first_try(record, library)
        the_card = library.cards.get(record["card"]) or library.removed.get(record["card"])
        labels = _labels(library, record["card"])
        current = [k for k in record["result"]["criteria"]
                   if the_card is None or k.split("/")[-1] in labels]
        for key in current:
            if key not in tried:
                continue
            card_turn, _, cid = key.rpartition("/")
            label = labels.get(cid, cid.replace("_", " "))
            if card_turn:
                moment = the_card.turn_label(card_turn) if the_card else card_turn.replace("-", " ")
                label = f"{label} ({moment})"
            entry = criteria.setdefault((record["card"], key), {
                "card": record["card"], "criterion": cid, "turn": card_turn or None, "label": label,
                "first_try": []})
            entry["first_try"].append({"session": record["id"], "at": at, "met": tried[key]})
        out_sessions.append({
            "id": record["id"], "card": record["card"], "at": at,
            "first_answer": {"met": sum(tried.get(k, False) for k in current), "of": len(current)},
            "retell": _retell(record),
            **sound(record, kinds_of),
        })
    return {"criteria": list(criteria.values()), "sessions": out_sessions}


def since_last(data: dict, session_id: str) -> dict | None:
    """This session's first answer against the previous session's on the same card:
    {"card", "before": {"met", "of", "at"}, "now": {"met", "of"}, "change": +n/0/-n, "gained", "lost"}
    (labels), or None when it is the first session of its card (or not counted)."""
    sessions = data["sessions"]
    index = next((i for i, s in enumerate(sessions) if s["id"] == session_id), None)
    if index is None:
        return None
    now = sessions[index]
    earlier = [s for s in sessions[:index] if s["card"] == now["card"]]  # oldest first
    if not earlier:
        return None
    before = earlier[-1]

    def met(sid: str) -> set[str]:
        return {c["label"] for c in data["criteria"] for t in c["first_try"] if t["session"] == sid and t["met"]}

    mine, theirs = met(now["id"]), met(before["id"])
    return {"card": now["card"], "before": dict(before["first_answer"], at=before["at"]),
            "now": dict(now["first_answer"]), "change": now["first_answer"]["met"] - before["first_answer"]["met"],
            "gained": sorted(mine - theirs), "lost": sorted(theirs - mine)}


def since_last_text(change: dict, korean: bool = False) -> str:
    """'Better than last time: your first answer met 5 of 6 (last time 1 of 6).' and in Korean."""
    now, before = change["now"], change["before"]
    figures = f"your first answer met {now['met']} of {now['of']} (last time {before['met']} of {before['of']})"
    figures_ko = f"첫 답변에서 {now['of']}개 중 {now['met']}개 충족 (지난번 {before['of']}개 중 {before['met']}개)"
    if change["change"] > 0:
        en, ko = f"Better than last time: {figures}.", f"지난번보다 좋아졌어요: {figures_ko}."
    elif change["change"] < 0:
        en, ko = f"Not as good as last time: {figures}.", f"지난번보다 조금 못했어요: {figures_ko}."
    else:
        en, ko = f"The same as last time: {figures}.", f"지난번과 같아요: {figures_ko}."
    if change["gained"]:
        en += f" New on the first try: {', '.join(change['gained'])}."
    if change["lost"]:
        en += f" Missed this time: {', '.join(change['lost'])}."
    return f"{en}  \n{ko}" if korean else en


def first_try_skills(data: dict, library: Library) -> list[dict]:
    """From `progress`: per skill (a criterion of one card, per situation), in how many counted
    sessions the first answer met it, weakest first. Rows {skill, label, card_title, card, criterion, sessions,
    met, rate}."""
    rows = []
    for entry in data["criteria"]:
        card = library.cards.get(entry["card"]) or library.removed.get(entry["card"])
        tries = entry["first_try"]
        met = sum(t["met"] for t in tries)
        title = card.title if card else entry["card"]
        rows.append({"skill": f"{entry['label']} · {title}", "label": entry["label"], "card_title": title,
                     "card": entry["card"], "criterion": entry["criterion"], "sessions": len(tries), "met": met,
                     "rate": round(met / len(tries), 3) if tries else 0.0})
    return sorted(rows, key=lambda r: (r["rate"], -r["sessions"], r["skill"]))
