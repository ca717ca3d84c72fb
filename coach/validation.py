"""What `coach validate` checks besides the loader's checks: each card is scored once.

Loading a card checks its schema, its references and its detectors' params (patterns compile on
RE2, readings exist), which is all the app and `coach score` need to serve it. Scoring each turn
once (its first model answer, or its prompt, without the grammar parse) is the author's check that
a detector also runs: it costs the scorer's whole start-up, so it is made here, for `coach
validate` (and for a learner's new card), never when the library loads. A card that passes the
loader but would fail here is still served; scoring an answer on it fails with one message and
the answer kept (`PracticeEngine._score`), and nothing else is affected.
"""

from __future__ import annotations

from pathlib import Path

from coach.content import Card, Library, Problem, parse_card, read_utf8
from coach.errors import CoachError


def scoring_problem(card: Card) -> str | None:
    """Why scoring a turn of this card fails, or None."""
    import scoring
    from scoring.grammar import unparsed

    for turn in card.turns:
        answer = next((a.text for a in card.model_answers if a.turn in (None, turn.id)), turn.prompt)
        try:
            with unparsed():
                scoring.score(card, turn.id, answer)
        except Exception as exc:  # any failure: the author is told where
            detail = (str(exc).splitlines() or [""])[0]
            return f"scoring turn {turn.id!r} fails ({type(exc).__name__}: {detail}); check its detector params"
    return None


def scoring_problems(library: Library) -> list[Problem]:
    """A problem (`path:line: message`, the line of its `criteria:`) for each card of the library
    whose scoring fails, and for each scene moment whose `expected` line misses its criteria."""
    problems = []
    for card in library.cards.values():
        if message := scoring_problem(card):
            problems.append(Problem(card.path, _criteria_line(Path(card.path)), message))
    if library.scenes:
        from coach.scenes import expected_line, expected_line_problem

        for scene in library.scenes.values():
            for index, moment in enumerate(scene.moments):
                if message := expected_line_problem(scene, moment):
                    problems.append(Problem(scene.path, expected_line(Path(scene.path), index), message))
    return problems


def _criteria_line(path: Path) -> int:
    try:
        parsed = parse_card(path, read_utf8(path, content=True), [])
    except CoachError:  # changed or gone since it was loaded
        return 1
    return parsed[1].line(("criteria",)) if parsed is not None else 1
