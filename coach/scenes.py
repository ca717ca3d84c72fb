"""Meeting scenes: several personas talk on a timeline, and at marked moments the learner must
act (speak up first, take the floor, ask for a repeat after a dropout, give way).

A scene is a markdown file with `kind: scene` in its front matter, kept with the packs
(`content/scenes/`), checked by the same strict models and reported as `path:line: message`.
Its moments are judged with the video-call drill's criteria (`appropriate`: the meeting move;
`polite`: the politeness detector in a moment), through the card scorer.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import Field, field_validator

from coach.content.markdown import _LineMap, _parse_front, _sections
from coach.content.schema import SLUG, Card, Criterion, DetectorCheck, DetectorSpec, Problem, Strict, Turn, _non_blank

if TYPE_CHECKING:
    from coach.content.schema import Persona

CriterionId = Literal["appropriate", "polite"]
CRITERIA: tuple[CriterionId, ...] = ("appropriate", "polite")
DEFAULT_GAP = 0.6  # seconds between one line's end and the next line's start
DEFAULT_WINDOW = 6.0  # how long a moment stays open when nothing closes it
DROPOUT_MARK = re.compile(r"\[[^\]]*\]")
_WORD = re.compile(r"[A-Za-z0-9'’]+")
_PAUSE = re.compile(r"[.,;:?!…]")


class SceneLine(Strict):
    """One persona line. It starts at `at` (seconds from the start), together with the line
    `starts_with` names, or `after` seconds after the lines before it have ended (default 0.6;
    negative: it starts before they end, talking over them)."""

    id: str | None = Field(default=None, pattern=SLUG)
    speaker: str
    text: str
    at: float | None = Field(default=None, ge=0, le=600)
    after: float | None = Field(default=None, ge=-30, le=60)
    starts_with: str | None = None
    seconds: float | None = Field(default=None, gt=0, le=60)  # how long it lasts (default: from words and rate)
    dropout: float | None = Field(default=None, gt=0, le=10)  # seconds of broken audio at its [ … ] mark

    _blank = field_validator("text")(_non_blank)


class SceneMoment(Strict):
    """A moment the learner must act in: its window opens when the line `opens_after` ends (or
    when `opens_with` starts, or at `opens`), and closes when `closes_at` starts or `window`
    seconds after opening. `move` is the meeting move expected; `expected` is a line that does it."""

    id: str = Field(pattern=SLUG)
    label: str
    label_ko: str
    opens_after: str | None = None
    opens_with: str | None = None
    opens: float | None = Field(default=None, ge=0, le=600)
    closes_at: str | None = None
    window: float | None = Field(default=None, gt=0, le=60)
    move: str
    extra_patterns: list[str] = Field(default_factory=list)
    expected: str
    criteria: list[CriterionId] = Field(default_factory=lambda: list(CRITERIA), min_length=1)
    tip: str
    tip_ko: str

    _blank = field_validator("label", "label_ko", "expected", "tip", "tip_ko")(_non_blank)


class SceneFrontMatter(Strict):
    id: str = Field(pattern=SLUG)
    kind: Literal["scene"]
    title: str
    title_ko: str
    level: Literal["beginner", "intermediate", "upper-intermediate", "advanced"]
    tags: list[str] = Field(min_length=1)
    personas: list[str] = Field(min_length=2, max_length=3)
    lines: list[SceneLine] = Field(min_length=1)
    moments: list[SceneMoment] = Field(min_length=1)

    _blank = field_validator("title", "title_ko")(_non_blank)


class Scene(SceneFrontMatter):
    sections: dict[str, str] = Field(default_factory=dict)
    path: str = ""
    content_version: str = ""

    def moment(self, moment_id: str) -> SceneMoment:
        return next(m for m in self.moments if m.id == moment_id)

    def card_for(self, moment: SceneMoment) -> Card:
        """The moment as a one-turn meeting card, scored by the card scorer: `appropriate` is the
        moment's meeting move (a rude line does not count), `polite` the politeness detector."""
        params: dict = {"move": moment.move, "forbid_rude": True}
        if moment.extra_patterns:
            params["extra_patterns"] = list(moment.extra_patterns)
        criteria = {
            "appropriate": Criterion(
                id="appropriate", label="A phrase that fits the moment", label_ko="상황에 맞는 표현",
                definition=f"Does what the moment needs ({moment.label}).",
                detector=DetectorSpec(type="meeting_move", params=params),
                tip=moment.tip, tip_ko=moment.tip_ko, follow_ups=[moment.label], weight=2,
            ),
            "polite": Criterion(
                id="polite", label="Sounds polite", label_ko="정중하게 들리는 말",
                definition="Sounds polite to a colleague in an international team, in this moment.",
                detector=DetectorSpec(type="politeness"),
                tip='A plain request is fine ("Sorry, could you say that again?"); avoid bare commands.',
                tip_ko='"Sorry, could you say that again?" 같은 평범한 요청이면 충분합니다. 명령형은 피하세요.',
                follow_ups=["Was that a request?"],
            ),
        }
        return Card(
            id=f"{self.id}--{moment.id}", kind="meeting", title=f"{self.title}: {moment.label}",
            title_ko=self.title_ko, level=self.level, tags=list(self.tags), persona=self.personas[0],
            turns=[Turn(id=moment.id, label=moment.label, label_ko=moment.label_ko, prompt=moment.label,
                        criteria=list(moment.criteria))],
            criteria=[criteria[c] for c in moment.criteria], path=self.path,
        )


# --- the timeline --------------------------------------------------------------------------


class TimelineError(ValueError):
    """A line or moment that cannot be placed; `loc` is the field at fault."""

    def __init__(self, loc: tuple, message: str):
        super().__init__(message)
        self.loc = loc


@dataclass(frozen=True)
class TimedLine:
    index: int
    id: str | None
    speaker: str
    text: str
    start: float
    end: float
    dropout: float | None = None


@dataclass(frozen=True)
class Window:
    id: str
    opens: float
    closes: float


def line_seconds(line: SceneLine, rate_wpm: int) -> float:
    """How long a line lasts when spoken: its own `seconds`, or its words at the voice's rate
    plus a short pause at each punctuation mark, plus the dropout's broken audio."""
    if line.seconds is not None:
        return line.seconds
    spoken = DROPOUT_MARK.sub(" ", line.text)
    words = len(_WORD.findall(spoken))
    pauses = len(_PAUSE.findall(spoken))
    return round(words * 60.0 / rate_wpm + 0.15 * pauses + (line.dropout or 0.0), 2)


def timeline(scene: SceneFrontMatter, personas: dict[str, Persona]) -> tuple[list[TimedLine], list[Window]]:
    """When each line is said and when each moment is open, in seconds from the scene's start.
    TimelineError names the line or moment that cannot be placed."""
    lines: list[TimedLine] = []
    by_id: dict[str, TimedLine] = {}
    for index, line in enumerate(scene.lines):
        persona = personas.get(line.speaker)
        rate = persona.voice.rate if persona else 165
        if line.at is not None:
            start = line.at
        elif line.starts_with is not None:
            if line.starts_with not in by_id:
                raise TimelineError(("lines", index, "starts_with"),
                                    f"lines.{index}: starts_with names {line.starts_with!r}, not an earlier line's id")
            start = by_id[line.starts_with].start
        else:
            previous_end = max((earlier.end for earlier in lines), default=0.0)
            start = previous_end + (DEFAULT_GAP if line.after is None else line.after) if lines else (line.after or 0.0)
        if start < 0:
            raise TimelineError(("lines", index), f"lines.{index}: starts before the scene does ({start:.2f} s)")
        timed = TimedLine(index, line.id, line.speaker, line.text, round(start, 2),
                          round(start + line_seconds(line, rate), 2), line.dropout)
        lines.append(timed)
        if line.id:
            by_id[line.id] = timed
    windows = []
    for index, moment in enumerate(scene.moments):
        named = moment.opens_after or moment.opens_with
        if named is not None and named not in by_id:
            field = "opens_after" if moment.opens_after else "opens_with"
            raise TimelineError(("moments", index, field),
                                f"moment {moment.id!r}: {field} names line {named!r}, which no line has as its id")
        opens = (moment.opens if moment.opens is not None
                 else by_id[moment.opens_after].end if moment.opens_after else by_id[named or ""].start)
        if moment.closes_at is not None:
            if moment.closes_at not in by_id:
                raise TimelineError(("moments", index, "closes_at"), f"moment {moment.id!r}: closes_at names "
                                    f"{moment.closes_at!r}, which no line has as its id")
            closes = by_id[moment.closes_at].start
        else:
            closes = opens + (moment.window or DEFAULT_WINDOW)
        if closes <= opens:
            raise TimelineError(("moments", index), f"moment {moment.id!r}: closes ({closes:.2f} s) before it "
                                                    f"opens ({opens:.2f} s)")
        windows.append(Window(moment.id, round(opens, 2), round(closes, 2)))
    return lines, windows


# --- parsing ---------------------------------------------------------------------------------

REQUIRED_SECTIONS = ("Situation",)


def declares_scene(text: str) -> bool:
    """Whether a content file's front matter says `kind: scene` (read before it is parsed as a card)."""
    head = text.split("\n---", 1)[0]
    return re.search(r"(?m)^kind:\s*['\"]?scene['\"]?\s*(?:#.*)?$", head) is not None


def parse_scene(path: Path, text: str, problems: list[Problem],
                check_detector: DetectorCheck) -> tuple[Scene, _LineMap] | None:
    """A scene's own checks (fields, sections, references inside the file, detector params by
    `check_detector`, scoring's check passed in by coach.library); personas and timing are
    checked by `check_scene` once the personas are loaded, and each moment's `expected` line by
    `coach validate` (coach.validation)."""
    read = _parse_front(path, text, SceneFrontMatter, problems)
    if read is None:
        return None
    parsed, front = read
    before = len(problems)
    sections, section_lines, _ = _sections(parsed.body, parsed.body_first_line)
    for name in REQUIRED_SECTIONS:
        if not sections.get(name):
            problems.append(Problem(str(path), section_lines.get(name, parsed.body_first_line),
                                    f"missing or empty section '## {name}'"))
    for loc, message in _field_problems(front):
        problems.append(Problem(str(path), parsed.lines.line(loc), message))
    line_ids: set[str] = set()
    for index, line in enumerate(front.lines):
        if line.id and line.id in line_ids:
            problems.append(Problem(str(path), parsed.lines.line(("lines", index, "id")),
                                    f"duplicate line id {line.id!r}"))
        line_ids.add(line.id or "")
        if line.speaker not in front.personas:
            problems.append(Problem(str(path), parsed.lines.line(("lines", index, "speaker")),
                                    f"speaker {line.speaker!r} is not one of the scene's personas"))
    moment_ids: set[str] = set()
    for index, moment in enumerate(front.moments):
        if moment.id in moment_ids:
            problems.append(Problem(str(path), parsed.lines.line(("moments", index, "id")),
                                    f"duplicate moment id {moment.id!r}"))
        moment_ids.add(moment.id)
    if len(problems) > before:
        return None
    scene = Scene(**front.model_dump(), sections=sections, path=str(path),
                  content_version=hashlib.sha256(text.encode()).hexdigest()[:12])
    for index, moment in enumerate(scene.moments):
        for field, message in _moment_problems(scene, moment, check_detector):
            problems.append(Problem(str(path), parsed.lines.line(("moments", index, field)), message))
    if len(problems) > before:
        return None
    return scene, parsed.lines


def _field_problems(front: SceneFrontMatter) -> list[tuple[tuple, str]]:
    """Fields that exclude each other, and a dropout without its mark, at the field's line."""
    found: list[tuple[tuple, str]] = []
    for index, line in enumerate(front.lines):
        given = [name for name in ("at", "after", "starts_with") if getattr(line, name) is not None]
        if len(given) > 1:
            found.append((("lines", index, given[1]), f"lines.{index}: give one of at, after, starts_with "
                                                      f"(got {', '.join(given)})"))
        if line.dropout is not None and not DROPOUT_MARK.search(line.text):
            found.append((("lines", index, "dropout"), f"lines.{index}: a dropout line marks where the audio "
                                                       "breaks up with [ … ] in its text"))
    for index, moment in enumerate(front.moments):
        given = [n for n in ("opens_after", "opens_with", "opens") if getattr(moment, n) is not None]
        if len(given) != 1:
            found.append((("moments", index, *given[1:2]), f"moment {moment.id!r}: give exactly one of opens_after, "
                                                          f"opens_with, opens (got {', '.join(given) or 'none'})"))
        if moment.closes_at is not None and moment.window is not None:
            found.append((("moments", index, "window"), f"moment {moment.id!r}: give closes_at or window, not both"))
    return found


def _moment_problems(scene: Scene, moment: SceneMoment, check_detector_spec: DetectorCheck) -> list[tuple[str, str]]:
    """A moment's detector params, checked at load (cheap); its `expected` line is scored by
    `coach validate` only (coach.validation.expected_line_problem)."""
    card = scene.card_for(moment)
    found = []
    for criterion in card.criteria:
        for message in check_detector_spec(criterion.detector.type, criterion.detector.params):
            field = "extra_patterns" if "extra_patterns" in message else "move"
            found.append((field, f"moment {moment.id!r}: {message}"))
    return found


def expected_line(path: Path, moment_index: int, check_detector: DetectorCheck) -> int:
    """The line of a moment's `expected` field in a scene file (1 when it cannot be read again)."""
    try:
        parsed = parse_scene(path, path.read_text(encoding="utf-8"), [], check_detector)
    except (OSError, UnicodeDecodeError):
        return 1
    return parsed[1].line(("moments", moment_index, "expected")) if parsed is not None else 1


def check_scene(scene: Scene, lines: _LineMap, personas: dict[str, Persona]) -> list[Problem]:
    """What needs the personas: that they exist, that their voices differ, and the timeline."""
    problems = []
    for index, persona_id in enumerate(scene.personas):
        if persona_id not in personas:
            problems.append(Problem(scene.path, lines.line(("personas", index)),
                                    f"persona {persona_id!r} does not exist"))
    if problems:
        return problems
    voices: dict[tuple, str] = {}
    for index, persona_id in enumerate(scene.personas):
        voice = personas[persona_id].voice
        key = (voice.voice, voice.pitch)
        if persona_id in scene.personas[:index]:
            problems.append(Problem(scene.path, lines.line(("personas", index)),
                                    f"persona {persona_id!r} is listed twice"))
        elif key in voices:
            problems.append(Problem(scene.path, lines.line(("personas", index)),
                                    f"persona {persona_id!r} sounds like {voices[key]!r} (same voice and pitch); "
                                    "pick personas with distinct voices"))
        voices[key] = persona_id
    try:
        timeline(scene, personas)
    except TimelineError as exc:
        problems.append(Problem(scene.path, lines.line(exc.loc), str(exc)))
    return problems
