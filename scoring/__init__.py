"""Rubric scoring: deterministic detectors with verbatim evidence, offline and fast.

    scoring.score(card, turn_id, text) -> Scorecard
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
import threading
from collections import OrderedDict
from pathlib import Path
from typing import TYPE_CHECKING

from scoring.models import CriterionResult, FeedbackItem, PitfallHit, Scorecard, SpeechTiming, Structure

if TYPE_CHECKING:
    from coach.content.schema import Card

SCORER_RELEASE = "1.0.0"
MAX_SCORED_CHARS = 20_000
_WORDS = re.compile(r"[\w'’/]+", re.ASCII)  # fixed and backtracking-free: stdlib re is safe and faster

__all__ = ["SCORER_VERSION", "Scorecard", "SpeechTiming", "detector_accepts", "score", "is_trivial",
           "scorer_version", "warm_up"]


@functools.cache
def warm_up() -> None:
    """Load the parser, then the English rules, in the background, once per process: the practice
    engine asks when it is made, so the learner's first answer waits for neither (about 0.5 s and
    0.1-0.4 s). A score that needs the parser meanwhile waits on its lock."""

    def warm() -> None:
        from scoring import english, grammar

        grammar.warm()
        english.warm()

    threading.Thread(target=warm, name="scorer-warm-up", daemon=True).start()


@functools.cache
def scorer_version() -> str:
    """The version stored with every scorecard: the release and a short hash of the bytes of the
    scoring code and its pattern files (scoring/**/*.py, scoring/patterns/**), so a verdict stored
    before any change to them says it is stale. Read once per process, when the first answer is
    scored (about 1 ms: 26 files, 0.4 MB); a copy whose files cannot be read says `+unknown`."""
    try:
        return f"{SCORER_RELEASE}+{code_hash(Path(__file__).resolve().parent)}"  # at most 20 characters
    except OSError:
        return f"{SCORER_RELEASE}+unknown"


def code_hash(root: Path) -> str:
    """A short hash of the scoring package's code and pattern files under `root`."""
    digest = hashlib.sha256()
    for path in sorted({*root.rglob("*.py"), *(root / "patterns").rglob("*")}):
        if path.is_file() and "__pycache__" not in path.parts:
            digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:10]


def __getattr__(name: str) -> str:
    if name == "SCORER_VERSION":  # computed when first asked for, not at import
        return scorer_version()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def is_trivial(text: str, short_moves: bool = False) -> bool:
    """An answer that says nothing ('fine', 'I don't know', 'yes'), whatever else matches.
    A single word is one, except where `short_moves`: in a meeting moment one word can be the
    whole move ("Sorry?" asks for a repeat, "Sharing." shares), and its detectors judge it."""
    from scoring.detectors.base import entry
    from scoring.regex import compile_pattern

    words = _WORDS.findall(text)
    if not words or (len(words) < 2 and not short_moves):
        return True
    stripped = " ".join(words).lower()
    trivial = "|".join(f"(?:{p})" for p in entry("guards", "trivial")["patterns"])
    return compile_pattern(f"^(?:{trivial})$").search(stripped) is not None


def score(
    card: Card,
    turn_id: str | None,
    text: str,
    timing: SpeechTiming | None = None,
    answer_id: str | int | None = None,
) -> Scorecard:
    """Score one answer against the criteria of one turn of a card."""
    from scoring.delivery import measure
    from scoring.text import Answer

    turn = card.turn(turn_id)
    notes = []
    scored_text = text
    if len(text) > MAX_SCORED_CHARS:
        scored_text = text[:MAX_SCORED_CHARS]
        notes.append(f"only the first {MAX_SCORED_CHARS:,} characters were scored")
    answer = Answer(scored_text)
    trivial = is_trivial(scored_text, short_moves=card.kind == "meeting")
    results: dict[str, CriterionResult] = {}
    for criterion in card.criteria_for(turn.id):
        if trivial:
            results[criterion.id] = CriterionResult(met=False, score=0.0, reason="answer too short to show this")
            continue
        detector, params = _detector_and_params(criterion)
        hit = detector.detect(answer, params, turn.id)
        results[criterion.id] = CriterionResult(
            met=hit.met, score=hit.score if hit.met else min(hit.score, 0.99), evidence=hit.evidence, reason=hit.reason
        )
    return Scorecard(
        id=answer_id,
        card=card.id,
        turn=turn.id,
        criteria=results,
        delivery=measure(answer, timing),
        notes=notes,
        scorer_version=scorer_version(),
        **derived_fields(card, turn.id, results, scored_text),
    )


def parse_ahead(card: Card, answers: list[tuple[str | None, str]]) -> None:
    """Before a batch of (turn, text) answers to one card is scored, parse as one batch the texts
    whose scoring needs the grammar: each is scored once without the parse to find out (strong
    answers are settled by the phrase lists), then the parser runs only on those."""
    from scoring import grammar

    turns = {turn.id for turn in card.turns}
    with grammar.wanted_parses() as wanted:
        for turn_id, text in answers:
            if turn_id is None or turn_id in turns:  # an unknown turn is reported when its line is scored
                score(card, turn_id, text)
    grammar.prime(sorted(wanted))


def derived_fields(card: Card, turn_id: str, results: dict[str, CriterionResult], text: str) -> dict:
    """What a scorecard derives from its criterion results: overall, feedback, pitfalls and
    structure (also recomputed by the LLM judge after it changes a verdict)."""
    criteria = card.criteria_for(turn_id)
    overall = sum(results[c.id].score * c.weight for c in criteria) / sum(c.weight for c in criteria)
    return {
        "overall": round(overall, 3),
        "feedback": feedback_for(card, results),
        "pitfalls": pitfalls_of(card, results, text),
        "structure": structure_of(card, results, text),
    }


def pitfalls_of(card: Card, results: dict[str, CriterionResult], text: str) -> list[PitfallHit]:
    """The card's pitfalls this answer shows: an unmet criterion, or a pitfall's own detector
    finding it (with the sentence that shows it)."""
    from scoring.text import Answer

    hits = []
    for pitfall in card.pitfalls:
        if pitfall.detector is not None:
            detector, params = _detector_and_params(pitfall)
            found = detector.detect(Answer(text), params, "")
            if found.met:
                hits.append(PitfallHit(text=pitfall.text, text_ko=pitfall.text_ko, evidence=found.evidence))
        elif pitfall.criterion in results and not results[pitfall.criterion].met:
            hits.append(PitfallHit(text=pitfall.text, text_ko=pitfall.text_ko, criterion=pitfall.criterion))
    return hits


_PARSED: OrderedDict[tuple[str, str], tuple] = OrderedDict()
MAX_PARSED_SPECS = 4096  # distinct detector specs kept, the least recently used dropped first


def _detector_and_params(criterion):
    """The detector and validated params of a criterion (or a pitfall with a detector), parsed
    once per distinct spec: keyed by the spec's content, not by the loaded object, so a library
    loaded again (the app does, per run, for a learner with own cards) adds nothing to the cache."""
    from scoring.detectors import detector_for

    spec = criterion.detector
    key = (spec.type, json.dumps(spec.params, sort_keys=True, default=repr))
    cached = _PARSED.get(key)
    if cached is None:
        detector = detector_for(spec.type)
        cached = (detector, detector.Params.model_validate(spec.params))
        _PARSED[key] = cached
        while len(_PARSED) > MAX_PARSED_SPECS:
            _PARSED.popitem(last=False)
    else:
        _PARSED.move_to_end(key)
    return cached


def detector_accepts(criterion, turn_id: str, text: str) -> bool:
    """Whether the criterion's own detector (its phrases and its grammar readings) meets it on
    `text` alone: the standard an outside opinion (the LLM judge's quote) must meet to count."""
    from scoring.text import Answer

    if is_trivial(text):
        return False
    detector, params = _detector_and_params(criterion)
    return detector.detect(Answer(text), params, turn_id).met


def feedback_for(card: Card, results: dict[str, CriterionResult]) -> list[FeedbackItem]:
    items = []
    for cid, result in results.items():
        if result.met:
            continue
        criterion = card.criterion(cid)
        items.append(
            FeedbackItem(
                criterion=cid,
                label=criterion.label,
                label_ko=criterion.label_ko,
                tip=criterion.tip,
                tip_ko=criterion.tip_ko,
                follow_up=criterion.follow_ups[0],
            )
        )
    return items


def structure_of(card: Card, results: dict[str, CriterionResult], text: str) -> Structure | None:
    """Where each part of the expected structure first appears, and whether in order."""
    if not card.structure:
        return None
    positions = {}
    for cid in card.structure:
        result = results.get(cid)
        if result and result.met and result.evidence:
            positions[cid] = text.find(result.evidence[0])
    found = sorted(positions, key=positions.__getitem__)
    expected_present = [cid for cid in card.structure if cid in positions]
    return Structure(expected=list(card.structure), found=found, in_order=found == expected_present)
