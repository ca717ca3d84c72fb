"""Progress over time: per session and criterion, whether the session met it."""

from __future__ import annotations

from coach.content import Library


def criterion_progress(records: list[dict], library: Library, card_id: str) -> list[dict]:
    """Rows {session, started_at, criterion, label, met} for the sessions of one card, oldest first.

    A criterion counts as met in a session when any answer of it met the criterion."""
    card = library.cards.get(card_id)
    rows = []
    for record in sorted((r for r in records if r["card"] == card_id), key=lambda r: r["started_at"]):
        met: dict[str, bool] = {}
        for turn in record["turns"]:
            for cid, result in ((turn.get("scorecard") or {}).get("criteria") or {}).items():
                met[cid] = met.get(cid, False) or bool(result.get("met"))
        if not met:
            continue
        for cid, value in met.items():
            label = card.criterion(cid).label if card and cid in {c.id for c in card.criteria} else cid
            rows.append({"session": record["id"][:8], "started_at": record["started_at"],
                         "criterion": cid, "label": label, "met": int(value)})
    return rows
