"""The checks of the content that need scoring, above both the content layer and `scoring`.

At load, each detector's type and params are checked (`detector_problems`, which coach.library
passes to the content loader: patterns compile on RE2, readings exist), which is all the app and
`coach score` need to serve a card. The content layer never imports scoring; this module does.

Scoring each turn once (its first model answer, or its prompt, without the grammar parse) is the
author's check that a detector also runs: it costs the scorer's whole start-up, so it is made here,
for `coach validate` (and for a learner's new card), never when the library loads. A card that
passes the loader but would fail here is still served; scoring an answer on it fails with one
message and the answer kept (`PracticeEngine._score`), and nothing else is affected.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from coach.content.loader import parse_card
from coach.content.schema import Card, Library, Problem
from coach.content.text_input import read_utf8
from coach.errors import CoachError

if TYPE_CHECKING:
    from coach.scenes import Scene, SceneMoment


def detector_problems(detector_type: str, params: dict[str, Any]) -> list[str]:
    """Problems with a detector's type and params, as messages (empty when valid): scoring's
    check, passed to the content loader (its `check_detector`)."""
    from scoring.detectors import check_detector_spec

    return check_detector_spec(detector_type, params)


def _detector_check_version() -> str:
    import scoring

    return scoring.scorer_version()


# what an own card's summary in the index was checked by (coach.content.loader._stamp): scoring's code
detector_problems.version = _detector_check_version  # type: ignore[attr-defined]


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


def expected_line_problem(scene: Scene, moment: SceneMoment) -> str | None:
    """Why a scene moment's `expected` line does not meet its criteria, or None (an author's
    check, made by `coach validate`, never when the library loads)."""
    import scoring
    from scoring.grammar import unparsed

    with unparsed():  # as for cards: the phrase lists, not the 2 s it takes to load the parser
        result = scoring.score(scene.card_for(moment), moment.id, moment.expected)
    missed = [cid for cid, verdict in result.criteria.items() if not verdict.met]
    if missed:
        return (f"moment {moment.id!r}: the expected line does not meet {', '.join(missed)}; "
                "reword it or add extra_patterns")
    return None


def scoring_problems(library: Library) -> list[Problem]:
    """A problem (`path:line: message`, the line of its `criteria:`) for each card of the library
    whose scoring fails, and for each scene moment whose `expected` line misses its criteria."""
    problems = []
    for card in library.cards.values():
        if message := scoring_problem(card):
            problems.append(Problem(card.path, _criteria_line(Path(card.path)), message))
    if library.scenes:
        from coach.scenes import expected_line

        for scene in library.scenes.values():
            for index, moment in enumerate(scene.moments):
                if message := expected_line_problem(scene, moment):
                    problems.append(Problem(scene.path, expected_line(Path(scene.path), index, detector_problems),
                                            message))
    return problems


def _criteria_line(path: Path) -> int:
    try:
        parsed = parse_card(path, read_utf8(path, content=True), [], check_detector=detector_problems)
    except CoachError:  # changed or gone since it was loaded
        return 1
    return parsed[1].line(("criteria",)) if parsed is not None else 1
