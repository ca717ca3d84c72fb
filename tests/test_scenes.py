"""Meeting scenes as content (coach.scenes): the packs' scenes load, their timeline is placed as
written, and broken scenes are reported as `path:line: message` like cards."""

from __future__ import annotations

from pathlib import Path

import pytest

from coach.cli import main
from coach.library import load_library
from coach.scenes import timeline
from tests.conftest import REPO

SCENE = REPO / "content" / "scenes" / "standup-late-joiner.md"


def test_the_packs_scenes_load_without_problems(library):
    assert {"standup-late-joiner", "plan-review-disagree", "talking-at-once"} <= set(library.scenes)
    assert not [p for p in library.problems if "/scenes/" in p.path]
    moves = {m.move for s in library.scenes.values() for m in s.moments}
    assert {"take_floor", "ask_repeat", "softened_disagreement", "yield_floor"} <= moves
    for scene in library.scenes.values():
        voices = {(library.persona(p).voice.voice, library.persona(p).voice.pitch) for p in scene.personas}
        assert len(voices) == len(scene.personas) >= 2, scene.id
        assert scene.id not in library.cards  # a scene is not a practice card


def test_the_stand_up_has_a_dropout_and_a_late_joiner(library):
    scene = library.scenes["standup-late-joiner"]
    lines, windows = timeline(scene, library.personas)
    dropout = next(line for line in lines if line.dropout)
    assert "[" in dropout.text and dropout.speaker == "ravi-video-call"
    ask = next(w for w in windows if w.id == "ask-repeat")
    assert ask.opens == dropout.end  # opens when the broken line ends
    assert lines[0].start == 0.0 and lines[1].start == pytest.approx(lines[0].end + 6.5)


def test_talking_at_once_starts_two_lines_together_and_closes_the_topic(library):
    lines, windows = timeline(library.scenes["talking-at-once"], library.personas)
    assert lines[1].start == lines[2].start and lines[1].speaker != lines[2].speaker
    assert lines[3].start == pytest.approx(max(lines[1].end, lines[2].end) + 0.6)  # after both have ended
    take = next(w for w in windows if w.id == "take-floor")
    assert take.opens == lines[4].start and take.closes == lines[5].start  # opens_with / closes_at


def _broken(tmp_path: Path, old: str, new: str) -> tuple[Path, list[str]]:
    text = SCENE.read_text(encoding="utf-8")
    assert old in text, old
    path = tmp_path / "scene.md"
    path.write_text(text.replace(old, new), encoding="utf-8")
    library = load_library([tmp_path], [REPO / "personas"])
    assert "standup-late-joiner" not in library.scenes
    return path, [str(p) for p in library.problems]


def _line_of(path: Path, needle: str) -> int:
    """The line of the first `needle`; "\n---\n" is the line after the front matter (the body's first)."""
    text = path.read_text(encoding="utf-8")
    if needle == "\n---\n":
        return text[: text.index(needle, 1)].count("\n") + 3
    return next(n for n, line in enumerate(text.splitlines(), 1) if needle in line)


@pytest.mark.parametrize("old, new, needle, message", [
    ("    window: 6\n    move: take_floor", "    window: 6\n    colour: red\n    move: take_floor", "colour:",
     "unknown field 'moments.0.colour'"),
    ("speaker: sofia-product-manager", "speaker: tariq-strategy", "speaker: tariq-strategy",
     "speaker 'tariq-strategy' is not one of the scene's personas"),
    ("move: ask_repeat", "move: ask_again", "move: ask_again", "unknown move 'ask_again'"),
    ("opens_after: ravi-dropout", "opens_after: ravi-drop", "opens_after: ravi-drop",
     "opens_after names line 'ravi-drop', which no line has as its id"),
    ("    dropout: 2.0", "    dropout: 2.0\n    at: 3", "after: 0.4", "give one of at, after, starts_with"),
    ("[the audio breaks up] ", "", "dropout: 2.0", "marks where the audio breaks up"),
    ("sofia-product-manager", "nobody", "personas:", "persona 'nobody' does not exist"),
    ("## Situation", "## Setting", "\n---\n", "missing or empty section '## Situation'"),
])
def test_a_broken_scene_is_reported_at_its_line(tmp_path, old, new, needle, message):
    path, problems = _broken(tmp_path, old, new)
    line = _line_of(path, needle)
    assert any(p.startswith(f"{path}:{line}: ") and message in p for p in problems), (line, problems)


def test_validate_scores_each_moments_expected_line_and_loading_does_not(tmp_path):
    from coach.validation import scoring_problems

    text = SCENE.read_text(encoding="utf-8")
    path = tmp_path / "scene.md"
    path.write_text(text.replace("expected: I can go first, if that's okay.", "expected: The weather is nice."),
                    encoding="utf-8")
    library = load_library([tmp_path], [REPO / "personas"])
    assert "standup-late-joiner" in library.scenes and library.problems == []
    assert [str(p) for p in scoring_problems(library)] == [
        f"{path}:{_line_of(path, 'expected: The weather')}: moment 'speak-first': the expected line does not meet "
        "appropriate; reword it or add extra_patterns"]


def test_personas_with_the_same_voice_are_refused(tmp_path):
    persona_dir = tmp_path / "personas"
    persona_dir.mkdir()
    for name in ("anya-team-lead", "ravi-video-call", "sofia-product-manager"):
        text = (REPO / "personas" / f"{name}.md").read_text(encoding="utf-8")
        if name == "sofia-product-manager":
            text = text.replace("voice: en-us+f4", "voice: en-gb+f2").replace("pitch: 60", "pitch: 55")
        (persona_dir / f"{name}.md").write_text(text, encoding="utf-8")
    content = tmp_path / "content"
    content.mkdir()
    (content / "scene.md").write_text(SCENE.read_text(encoding="utf-8"), encoding="utf-8")
    library = load_library([content], [persona_dir])
    assert [str(p) for p in library.problems] == [
        f"{content / 'scene.md'}:8: persona 'sofia-product-manager' sounds like 'anya-team-lead' (same voice and "
        "pitch); pick personas with distinct voices"]


def test_coach_validate_reports_a_broken_scene(tmp_path, capsys):
    path, _ = _broken(tmp_path, "move: ask_repeat", "move: ask_again")
    assert main(["validate", str(path)]) == 1
    out = capsys.readouterr().out
    assert f"{path}:{_line_of(path, 'move: ask_again')}: moment 'ask-repeat': bad detector params" in out
    assert main(["validate", str(SCENE)]) == 0
    assert ", 1 scenes, " in capsys.readouterr().out


def test_a_persona_listed_twice_and_an_id_shared_with_a_card_are_refused(tmp_path):
    review = (REPO / "content" / "scenes" / "plan-review-disagree.md").read_text(encoding="utf-8")
    (tmp_path / "twice.md").write_text(review.replace(
        "personas: [sofia-product-manager, tariq-strategy]",
        "personas: [sofia-product-manager, tariq-strategy, sofia-product-manager]"), encoding="utf-8")
    (tmp_path / "a-scene.md").write_text(review.replace("id: plan-review-disagree", "id: status-update"),
                                         encoding="utf-8")
    card = REPO / "content" / "meetings" / "status-update.md"
    (tmp_path / "status-update.md").write_text(card.read_text(encoding="utf-8"), encoding="utf-8")
    library = load_library([tmp_path], [REPO / "personas"])
    problems = sorted(str(p) for p in library.problems)
    assert problems == [
        f"{tmp_path / 'status-update.md'}:2: duplicate card id 'status-update' (also in {tmp_path / 'a-scene.md'})",
        f"{tmp_path / 'twice.md'}:8: persona 'sofia-product-manager' is listed twice",
    ]
