"""Content packs: card and persona schemas, the markdown loader and the library validator.

A card or persona is a markdown file with YAML front matter. The front matter is checked by
strict pydantic models (unknown keys are errors); the body is split into `## ` sections.
Every problem is reported as `path:line: message` and never stops the other files loading.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
import tempfile
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, MutableMapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, Literal

import frontmatter
import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from coach.errors import FileAccessError, UnknownCardError, UnknownPersonaError, UnknownTurnError

SLUG = r"^[a-z0-9][a-z0-9_-]*$"


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _non_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("must not be empty")
    return value


class DetectorSpec(Strict):
    type: str
    params: dict[str, Any] = Field(default_factory=dict)


class Criterion(Strict):
    id: str = Field(pattern=SLUG)
    label: str
    label_ko: str
    definition: str
    detector: DetectorSpec
    tip: str
    tip_ko: str
    follow_ups: list[str] = Field(min_length=1)
    weight: float = Field(default=1.0, gt=0, le=10)

    _blank = field_validator("label", "label_ko", "definition", "tip", "tip_ko")(_non_blank)


class Turn(Strict):
    id: str = Field(pattern=SLUG)
    label: str | None = None  # the moment, for learners ("Ask Ravi to repeat"); default: from the id
    label_ko: str | None = None
    prompt: str
    prompt_ko: str | None = None
    variants: list[str] = Field(default_factory=list)
    criteria: list[str] = Field(min_length=1)

    _blank = field_validator("prompt")(_non_blank)


class Pitfall(Strict):
    """A habit the card warns about: shown when its criterion is unmet, or, with a `detector`
    (e.g. `generic_reason`), when that detector finds it, quoting the sentence that shows it."""

    text: str
    text_ko: str
    criterion: str | None = None
    detector: DetectorSpec | None = None


# what one practice can cover: a rubric a learner can hear feedback on, a session of a few minutes
MAX_CRITERIA = 40
MAX_TURNS = 40


class CardFrontMatter(Strict):
    id: str = Field(pattern=SLUG)
    kind: Literal["meeting", "interview"]
    title: str
    title_ko: str
    level: Literal["beginner", "intermediate", "upper-intermediate", "advanced"]
    tags: list[str] = Field(min_length=1)
    persona: str
    estimated_seconds: int | None = Field(default=None, gt=0)
    turns: list[Turn] = Field(min_length=1, max_length=MAX_TURNS)
    criteria: list[Criterion] = Field(min_length=1, max_length=MAX_CRITERIA)
    follow_ups: list[str] = Field(default_factory=list)
    pitfalls: list[Pitfall] = Field(default_factory=list)
    structure: list[str] | None = None

    _blank = field_validator("title", "title_ko")(_non_blank)


class ModelAnswer(Strict):
    """A model answer from the body; a `### turn-id` title ties it to that turn."""

    title: str
    text: str
    notes: str = ""
    turn: str | None = None


class Card(CardFrontMatter):
    """A card as loaded: the front matter plus what the markdown body holds."""

    sections: dict[str, str] = Field(default_factory=dict)
    model_answers: list[ModelAnswer] = Field(default_factory=list)
    path: str = ""
    content_version: str = ""
    personal: bool = False  # the learner's own card, from the data dir's cards/ (coach.personal)

    def turn(self, turn_id: str | None) -> Turn:
        if turn_id is None:
            return self.turns[0]
        for turn in self.turns:
            if turn.id == turn_id:
                return turn
        known = ", ".join(t.id for t in self.turns)
        raise UnknownTurnError(f"card {self.id!r} has no turn {turn_id!r} (turns: {known})")

    def criterion(self, criterion_id: str) -> Criterion:
        for criterion in self.criteria:
            if criterion.id == criterion_id:
                return criterion
        raise KeyError(criterion_id)

    def criteria_for(self, turn_id: str | None) -> list[Criterion]:
        return [self.criterion(cid) for cid in self.turn(turn_id).criteria]

    def turn_label(self, turn_id: str | None, korean: bool = False) -> str:
        """A card turn as learners read it: its `label` (and `label_ko` in Korean mode), or
        the id spelt as words ("take floor"), never the bare id."""
        turn = next((t for t in self.turns if t.id == turn_id), None)
        text = (turn.label if turn and turn.label else (turn_id or "").replace("-", " ").replace("_", " ")).strip()
        if korean and turn is not None and turn.label_ko:
            return f"{text} · {turn.label_ko}"
        return text

    @property
    def several_moments(self) -> bool:
        """A meeting card with several situations: its criteria are asked once per situation."""
        return self.kind == "meeting" and len(self.turns) > 1


class Voice(Strict):
    voice: str = "en-us"
    rate: int = Field(default=165, ge=80, le=300)
    pitch: int = Field(default=50, ge=0, le=99)


class PersonaFrontMatter(Strict):
    id: str = Field(pattern=SLUG)
    name: str
    role: str
    company: str
    style: str
    voice: Voice = Field(default_factory=Voice)
    max_follow_ups: int = Field(default=3, ge=0, le=10)
    strictness: Literal["lenient", "balanced", "strict"] = "balanced"
    greeting: str | None = None
    follow_up_lead_ins: list[str] = Field(default_factory=list)
    retry_line: str = "Let's try that one again."
    closing: str = "Thank you, that's all from me."

    _blank = field_validator("name", "role", "style")(_non_blank)


class Persona(PersonaFrontMatter):
    instructions: str = ""
    path: str = ""


# What the loader asks of whoever knows the detectors (scoring, passed in by coach.library): the
# problems with a detector's type and params, as messages (none when it is valid). The content
# layer never imports scoring; the check is passed to it.
DetectorCheck = Callable[[str, dict[str, Any]], list[str]]


@dataclass(frozen=True)
class Problem:
    path: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


# The card each kind of practice starts with on the first screen (the flagship interview question
# and the everyday meeting drill); listed first wherever cards are listed.
STARTER_CARDS = {"interview": "gpu-cluster-optimization", "meeting": "status-update"}


class LazyCards(MutableMapping[str, Card]):
    """Cards by id, the learner's own read from their files only when asked for (issue 29): a
    lookup by id reads the one file named after it (`cards/<id>.md`: an own card's id is its file
    name), and only listing every card (iterating, `len`) reads them all. `coach score` and a
    practice session on any card so read no own card but theirs, whatever their number."""

    def __init__(self, cards: dict[str, Card] | None = None,
                 pending: dict[str, list[str]] | None = None,
                 load: Callable[[str, str], Card | None] | None = None):
        self._cards: dict[str, Card] = dict(cards or {})
        self._pending: dict[str, list[str]] = dict(pending or {})  # id (the file's name) -> its files
        self._load = load

    def _read(self, key: str) -> None:
        for path in self._pending.pop(key, ()):
            if self._load is not None and key not in self._cards and (card := self._load(key, path)) is not None:
                self._cards[card.id] = card

    def _read_all(self) -> None:
        if not self._pending:
            return
        with _own_card_index(self._pending):
            while self._pending:
                self._read(next(iter(self._pending)))

    def ids(self) -> set[str]:
        """The ids of the cards read and of the files not read yet (an id no new card may take),
        without reading any."""
        return {*self._cards, *self._pending}

    @property
    def read(self) -> dict[str, Card]:
        """The cards read so far (no file is read to answer)."""
        return self._cards

    def __getitem__(self, key: str) -> Card:
        if key not in self._cards:
            self._read(key)
        return self._cards[key]

    def __contains__(self, key: object) -> bool:
        if isinstance(key, str) and key not in self._cards:
            self._read(key)
        return key in self._cards

    def __iter__(self) -> Iterator[str]:
        self._read_all()
        return iter(self._cards)

    def __len__(self) -> int:
        self._read_all()
        return len(self._cards)

    def __setitem__(self, key: str, card: Card) -> None:
        self._pending.pop(key, None)
        self._cards[key] = card

    def __delitem__(self, key: str) -> None:
        self._read(key)
        del self._cards[key]

    def __repr__(self) -> str:
        return f"LazyCards({len(self._cards)} read, {len(self._pending)} not yet)"


@dataclass
class Library:
    cards: MutableMapping[str, Card] = field(default_factory=dict)
    personas: dict[str, Persona] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    # personal cards the learner removed, kept (cards/.removed/) so their past sessions still
    # load and read; never listed, and `coach score` / `coach practice --card` refuse them
    removed: MutableMapping[str, Card] = field(default_factory=dict)
    # meeting scenes (`kind: scene`, coach.scenes): several personas and the moments the learner acts in
    scenes: dict[str, Any] = field(default_factory=dict)

    def card(self, card_id: str) -> Card:
        """A listed card, or a removed personal card (for the sessions practised on it)."""
        try:
            return self.cards[card_id]
        except KeyError:
            if card_id in self.removed:
                return self.removed[card_id]
            broken = next((p for p in self.problems if Path(p.path).stem == card_id), None)
            if broken is not None:  # its file is there but did not load: say why
                raise UnknownCardError(f"card {card_id!r} did not load: {broken}") from None
            raise UnknownCardError(f"unknown card {card_id!r}; see `coach cards`") from None

    def current_card(self, card_id: str) -> Card:
        """A card that may be practised or scored now: not one the learner removed."""
        if card_id not in self.cards and card_id in self.removed:
            raise UnknownCardError(f"card {card_id!r} was removed; its past sessions are still in `coach history`")
        return self.card(card_id)

    def persona(self, persona_id: str) -> Persona:
        try:
            return self.personas[persona_id]
        except KeyError:
            raise UnknownPersonaError(f"unknown persona {persona_id!r}") from None

    def cards_of_kind(self, kind: str | None = None) -> list[Card]:
        """Cards of a kind, the first card to practise (STARTER_CARDS) first, then by title."""
        return sorted(
            (c for c in self.cards.values() if kind is None or c.kind == kind),
            key=lambda c: (c.kind, c.id != STARTER_CARDS.get(c.kind), c.title),
        )

    def starter(self, kind: str) -> Card | None:
        """The card a new learner should start with for this kind of practice."""
        cards = self.cards_of_kind(kind)
        return cards[0] if cards else None

    def search(self, kind: str | None = None, query: str = "", tags: Iterable[str] = ()) -> list[Card]:
        """Cards of a kind whose id, titles or tags contain `query` and that carry any of `tags`."""
        query, wanted = query.strip().lower(), set(tags)
        return [
            card
            for card in self.cards_of_kind(kind)
            if (not wanted or wanted & set(card.tags))
            and (not query or query in f"{card.id} {card.title} {card.title_ko} {' '.join(card.tags)}".lower())
        ]


# --- parsing ---------------------------------------------------------------------------


class _LineMap:
    """Maps a pydantic error location to the line of that key in the YAML front matter. Made
    from the node graph on the first question (a card that loads cleanly never asks one)."""

    def __init__(self, node: yaml.Node | None, first_line: int):
        self._node: yaml.Node | None = node
        self._lines: dict[tuple, int] | None = None
        self.first_line = first_line

    @property
    def lines(self) -> dict[tuple, int]:
        if self._lines is None:
            self._lines = {}
            if self._node is not None:
                try:
                    self._walk(self._node, ())
                except RecursionError:  # nested too deeply: the lines found so far
                    pass
            self._node = None
        return self._lines

    def _walk(self, node: yaml.Node, loc: tuple) -> None:
        self.lines[loc] = node.start_mark.line + self.first_line
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                self.lines[(*loc, key.value)] = key.start_mark.line + self.first_line
                self._walk_value(value, (*loc, key.value))
        elif isinstance(node, yaml.SequenceNode):
            for index, item in enumerate(node.value):
                self._walk(item, (*loc, index))

    def _walk_value(self, node: yaml.Node, loc: tuple) -> None:
        if isinstance(node, yaml.MappingNode | yaml.SequenceNode):
            key_line = self.lines[loc]
            self._walk(node, loc)
            self.lines[loc] = key_line
        # scalars keep the key's line

    def line(self, loc: Iterable) -> int:
        loc = tuple(loc)
        while loc and loc not in self.lines:
            loc = loc[:-1]
        return self.lines.get(loc, self.first_line)


@dataclass
class _Parsed:
    data: dict[str, Any]
    body: str
    body_first_line: int
    lines: _LineMap


def _parse_markdown(path: Path, text: str, problems: list[Problem]) -> _Parsed | None:
    handler = frontmatter.YAMLHandler()
    if not handler.detect(text):
        problems.append(Problem(str(path), 1, "missing YAML front matter (start the file with ---)"))
        return None
    front, body = handler.split(text)
    # line numbers of the first character of the front matter and of the body in the file
    first_line = text.count("\n", 0, text.find(front)) + 1
    try:
        loader, node = _compose(front)
        # the limit is on what aliases multiply: a long card written out in full is not refused
        # for aliases it does not have (its size is bounded by MAX_CONTENT_BYTES)
        if ("*" in front and _expanded_values(node) > MAX_FRONT_MATTER_VALUES
                and (alias := _first_alias_line(front)) is not None):
            problems.append(Problem(str(path), first_line + alias,
                                    f"the front matter's YAML aliases (*name) expand to more than "
                                    f"{MAX_FRONT_MATTER_VALUES:,} values; write the values out"))
            return None
        data = loader.construct_document(node) if node is not None else None
        lines = _LineMap(node, first_line)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = first_line + (mark.line if mark else 0)
        problems.append(Problem(str(path), line, f"YAML syntax error: {exc.problem or exc}"))
        return None
    except RecursionError:
        problems.append(Problem(str(path), first_line, "the front matter is nested too deeply"))
        return None
    if not isinstance(data, dict):
        problems.append(Problem(str(path), first_line, "front matter must be a mapping of fields"))
        return None
    body_first_line = text.count("\n", 0, len(text) - len(body)) + 1
    return _Parsed(data, body, body_first_line, lines)


_FAST_LOADER = getattr(yaml, "CSafeLoader", None)  # libyaml: about 10 times as fast as the pure-Python parser


def _compose(front: str) -> tuple[yaml.SafeLoader, yaml.Node | None]:
    """The front matter's node graph, parsed once (libyaml when PyYAML has it), and the loader
    that constructs its values from it. A syntax error is raised by the pure-Python parser, so
    its message and line are the same with or without libyaml."""
    if _FAST_LOADER is not None:
        loader = _FAST_LOADER(front)
        try:
            return loader, loader.get_single_node()
        except yaml.YAMLError:
            pass
    loader = yaml.SafeLoader(front)
    return loader, loader.get_single_node()


def _expanded_values(node: yaml.Node | None) -> int:
    """How many values the node graph holds once its aliases are expanded, counted without
    expanding them (each node once); an alias to a node that holds it counts as endless."""
    sizes: dict[int, int] = {}
    active: set[int] = set()

    def size(each: yaml.Node) -> int:
        key = id(each)
        if key in sizes:
            return sizes[key]
        if key in active:
            return MAX_FRONT_MATTER_VALUES + 1
        active.add(key)
        total = 1
        if isinstance(each, yaml.MappingNode):
            total += sum(size(k) + size(v) for k, v in each.value)
        elif isinstance(each, yaml.SequenceNode):
            total += sum(size(item) for item in each.value)
        active.discard(key)
        sizes[key] = total = min(total, MAX_FRONT_MATTER_VALUES + 1)
        return total

    return 0 if node is None else size(node)


def _first_alias_line(front: str) -> int | None:
    for event in yaml.parse(front, Loader=yaml.SafeLoader):
        if isinstance(event, yaml.AliasEvent):
            return event.start_mark.line
    return None


def _report_validation(path: Path, exc: ValidationError, lines: _LineMap, out: list[Problem]):
    for error in exc.errors():
        loc = [p for p in error["loc"] if not (isinstance(p, str) and p.startswith("function-"))]
        where = ".".join(str(p) for p in loc) or "front matter"
        if error["type"] == "extra_forbidden":
            message = f"unknown field {where!r}"
        elif error["type"] == "missing":
            message = f"missing field {where!r}"
        else:
            message = f"{where}: {error['msg']}"
        out.append(Problem(str(path), lines.line(loc), message))


_HEADING = re.compile(r"^(#{2,3})\s+(.+?)\s*$")


def _sections(body: str, first_line: int) -> tuple[dict[str, str], dict[str, int], list[tuple]]:
    """Split the body into `## ` sections; also collect `### ` subsections of each."""
    sections: dict[str, list[str]] = {}
    section_lines: dict[str, int] = {}
    subsections: list[tuple[str, str, int, list[str]]] = []
    current: str | None = None
    for offset, line in enumerate(body.splitlines()):
        match = _HEADING.match(line)
        if match and len(match.group(1)) == 2:
            current = match.group(2)
            sections[current] = []
            section_lines[current] = first_line + offset
            continue
        if current is None:
            continue
        sections[current].append(line)
        if match:
            subsections.append((current, match.group(2), first_line + offset, []))
        elif subsections and subsections[-1][0] == current:
            subsections[-1][3].append(line)
    text = {name: "\n".join(lines).strip() for name, lines in sections.items()}
    return text, section_lines, subsections


MODEL_ANSWERS = "Model answers"


def _model_answers(subsections: list[tuple], turn_ids: set[str]) -> list[ModelAnswer]:
    answers = []
    for section, title, _line, lines in subsections:
        if section != MODEL_ANSWERS:
            continue
        spoken = [ln for ln in lines if not ln.lstrip().startswith(">")]
        notes = [ln.lstrip()[1:].strip() for ln in lines if ln.lstrip().startswith(">")]
        answers.append(
            ModelAnswer(
                title=title,
                text=" ".join(" ".join(spoken).split()),
                notes=" ".join(n for n in notes if n),
                turn=title if title in turn_ids else None,
            )
        )
    return answers


REQUIRED_SECTIONS = {
    "meeting": ("Situation", "Key phrases"),
    "interview": ("Situation", "Key concepts", MODEL_ANSWERS),
}


def parse_card(path: Path, text: str, problems: list[Problem], *, check_detector: DetectorCheck,
               personal: bool = False) -> tuple[Card, _LineMap] | None:
    parsed = _parse_markdown(path, text, problems)
    if parsed is None:
        return None
    card = _card_of(path, parsed, _content_version(text), problems, personal, check_detector)
    return None if card is None else (card, parsed.lines)


def _content_version(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def _card_of(path: Path, parsed: _Parsed, content_version: str, problems: list[Problem],
             personal: bool, check_detector: DetectorCheck) -> Card | None:
    """The card of a parsed file, or None with its problems added."""
    try:
        front = CardFrontMatter.model_validate(_interned(parsed.data))
    except ValidationError as exc:
        _report_validation(path, exc, parsed.lines, problems)
        return None
    sections, section_lines, subsections = _sections(parsed.body, parsed.body_first_line)
    ok = True
    for name in REQUIRED_SECTIONS[front.kind]:
        if not sections.get(name):
            line = section_lines.get(name, parsed.body_first_line)
            problems.append(Problem(str(path), line, f"missing or empty section '## {name}'"))
            ok = False
    answers = _model_answers(subsections, {t.id for t in front.turns})
    before = len(problems)
    if front.kind == "interview" and sections.get(MODEL_ANSWERS) and not answers:
        problems.append(
            Problem(
                str(path),
                section_lines[MODEL_ANSWERS],
                "'## Model answers' needs at least one '### Title' subsection",
            )
        )
        ok = False
    _check_card_references(path, front, parsed.lines, problems, check_detector)
    if not ok or len(problems) > before:  # a card `coach validate` rejects is never served
        return None
    # the front matter is validated above: its values are taken as they are
    return Card.model_construct(
        **dict(front),
        sections=_interned(sections),
        model_answers=answers,
        path=str(path),
        content_version=content_version,
        personal=personal,
    )


# The text of cards is mostly the same from card to card (a learner's own cards repeat their
# rubric's labels, tips, definitions and detector params): each distinct string is kept once.
_STRINGS: dict[str, str] = {}
MAX_INTERNED_STRINGS = 200_000


def _interned(value: Any) -> Any:
    if isinstance(value, str):
        if len(_STRINGS) >= MAX_INTERNED_STRINGS:
            _STRINGS.clear()
        return _STRINGS.setdefault(value, value)
    if isinstance(value, dict):
        return {_interned(k): _interned(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_interned(v) for v in value]
    return value


# A card file parsed once per process while it is unchanged (its path, modification time, size
# and inode): the app loads the library again on each page run for a signed-in learner.
_PARSED_FILES: OrderedDict[tuple, tuple[Card | None, tuple[Problem, ...]]] = OrderedDict()
MAX_PARSED_FILES = 4_000


def _card_file(path: Path, problems: list[Problem], check_detector: DetectorCheck,
               personal: bool = False) -> Card | None:
    """The card of a file (None when it does not load, its problems added to `problems`),
    parsed once per process while the file is unchanged."""
    key = None
    try:
        info = os.stat(path)
        if stat.S_ISREG(info.st_mode):
            key = (str(path), info.st_mtime_ns, info.st_size, info.st_ino, personal, check_detector)
    except OSError:  # the read below says why
        pass
    hit = _PARSED_FILES.get(key) if key is not None else None
    if hit is not None:
        _PARSED_FILES.move_to_end(key)
        problems.extend(hit[1])
        return hit[0]
    found: list[Problem] = []
    card = None
    fingerprint = key[1:4] if key is not None else ()
    index = _INDEX[-1] if _INDEX and fingerprint else None
    if index is not None and (entry := index.get(path, fingerprint)) is not None:
        card = _card_of(path, entry[0], entry[1], found, personal, check_detector)
        if card is None:  # valid once, not now (a newer loader): the file says where
            found = []
    if card is None:
        text = _read(path, found)
        parsed = None if text is None else _parse_markdown(path, text, found)
        if parsed is not None and text is not None:
            card = _card_of(path, parsed, _content_version(text), found, personal, check_detector)
            if card is not None and index is not None:
                index.add(path, fingerprint, parsed, card.content_version)
    if key is not None:
        _PARSED_FILES[key] = (card, tuple(found))
        while len(_PARSED_FILES) > MAX_PARSED_FILES:
            _PARSED_FILES.popitem(last=False)
    problems.extend(found)
    return card


class _CardIndex:
    """What the YAML parser read from each own card file (its front matter as data, its body),
    kept in the folder's `.index.jsonl` with the file's modification time, size and inode: a
    listing of thousands of own cards reads one file, not thousands of YAML front matters (JSON
    reads about 20 times as fast). Only what the file's bytes decide is kept, so a newer loader
    still validates every card; an entry whose file changed is not used, and one that does not
    read is skipped. Best effort: a folder that cannot be written has no index."""

    NAME = ".index.jsonl"
    HEADER = b"rehearse own-card index 1\n"

    def __init__(self) -> None:
        self.entries: dict[str, tuple[Path, tuple, int, int]] = {}  # file -> (index, fingerprint, offset, size)
        self.handles: dict[Path, BinaryIO] = {}
        self.new: dict[Path, list[bytes]] = {}
        self.used: dict[Path, list[tuple[int, int]]] = {}  # the entries read: (offset, size)

    def _open(self, folder: Path) -> None:
        if folder in self.handles or folder in self.new:
            return
        self.new[folder] = []
        try:
            handle = open(folder / self.NAME, "rb")  # noqa: SIM115 - closed in close()
        except OSError:
            return
        if handle.readline() != self.HEADER:
            handle.close()
            return
        self.handles[folder] = handle
        offset = len(self.HEADER)
        for line in handle:
            head = line.split(b"\t", 4)
            if len(head) == 5:
                try:
                    name = head[0].decode()
                    self.entries[os.path.join(folder, name)] = (folder, (int(head[1]), int(head[2]), int(head[3])),
                                                                offset, len(line))
                except ValueError:
                    pass
            offset += len(line)

    def get(self, path: Path, fingerprint: tuple) -> tuple[_Parsed, str] | None:
        self._open(path.parent)
        entry = self.entries.get(str(path))
        if entry is None or entry[1] != fingerprint:
            return None
        folder, _, offset, size = entry
        handle = self.handles[folder]
        try:
            handle.seek(offset)
            version, first_line, data, body = json.loads(handle.read(size).split(b"\t", 4)[4])
        except (OSError, ValueError, TypeError):
            return None
        if not isinstance(data, dict) or not isinstance(body, str) or not isinstance(first_line, int):
            return None
        self.used.setdefault(folder, []).append((offset, size))
        return _Parsed(data, body, first_line, _LineMap(None, 1)), str(version)

    def add(self, path: Path, fingerprint: tuple, parsed: _Parsed, version: str) -> None:
        if not _plain_data(parsed.data) or "\t" in path.name or "\n" in path.name:
            return  # a YAML date or a non-text key would not read back the same from JSON
        self._open(path.parent)
        payload = json.dumps([version, parsed.body_first_line, parsed.data, parsed.body], ensure_ascii=False)
        head = "\t".join((path.name, *map(str, fingerprint)))
        self.new.setdefault(path.parent, []).append(f"{head}\t{payload}\n".encode())

    def close(self) -> None:
        for folder, lines in self.new.items():
            if lines:
                self._write(folder, lines)
        for handle in self.handles.values():
            handle.close()

    def _write(self, folder: Path, lines: list[bytes]) -> None:
        """Append the new entries, or write the index afresh (the entries read and the new ones)
        when most of it is stale."""
        used = self.used.get(folder, [])
        stale = sum(1 for f, *_ in self.entries.values() if f == folder) - len(used)
        index = folder / self.NAME
        try:
            old = self.handles.get(folder)
            if old is not None and stale <= len(used):
                with open(index, "ab") as out:
                    out.write(b"".join(lines))  # one write: a reader sees whole lines or none
                return
            handle, temp = tempfile.mkstemp(prefix=".index.", suffix=".tmp", dir=folder)
            try:
                with os.fdopen(handle, "wb") as out:
                    out.write(self.HEADER)
                    for offset, size in used if old is not None else ():
                        old.seek(offset)
                        out.write(old.read(size))
                    out.write(b"".join(lines))
                os.chmod(temp, 0o600)
                os.replace(temp, index)
            except BaseException:
                Path(temp).unlink(missing_ok=True)
                raise
        except OSError:
            pass


def _plain_data(value: Any) -> bool:
    if isinstance(value, dict):
        return all(isinstance(k, str) and _plain_data(v) for k, v in value.items())
    if isinstance(value, list):
        return all(_plain_data(v) for v in value)
    return value is None or isinstance(value, str | int | float | bool)


_INDEX: list[_CardIndex] = []  # the index in use while a listing reads every own card


@contextmanager
def _own_card_index(pending: dict) -> Iterator[None]:
    index = _CardIndex()
    _INDEX.append(index)
    try:
        yield
    finally:
        _INDEX.pop()
        index.close()


def _line_of(path: str, key: str) -> int:
    """The line of a top-level field of a card file (read again: only a problem asks)."""
    try:
        text = read_utf8(Path(path), content=True)
    except FileAccessError:
        return 1
    parsed = _parse_markdown(Path(path), text, [])
    return parsed.lines.line((key,)) if parsed is not None else 1


def _check_card_references(path: Path, card: CardFrontMatter, lines: _LineMap, out: list[Problem],
                            check_detector_spec: DetectorCheck):
    seen: set[str] = set()
    for index, criterion in enumerate(card.criteria):
        if criterion.id in seen:
            loc = ("criteria", index, "id")
            out.append(Problem(str(path), lines.line(loc), f"duplicate criterion id {criterion.id!r}"))
        seen.add(criterion.id)
        messages = check_detector_spec(criterion.detector.type, criterion.detector.params)
        if not messages and criterion.detector.type == "key_concepts":
            messages = _key_concept_problems(criterion.detector.params)
        for message in messages:
            loc = ("criteria", index, "detector", "params" if "param" in message else "type")
            out.append(Problem(str(path), lines.line(loc), f"criterion {criterion.id!r}: {message}"))
    turn_ids: set[str] = set()
    for index, turn in enumerate(card.turns):
        if turn.id in turn_ids:
            out.append(
                Problem(str(path), lines.line(("turns", index, "id")), f"duplicate turn id {turn.id!r}")
            )
        turn_ids.add(turn.id)
        for cindex, cid in enumerate(turn.criteria):
            if cid not in seen:
                out.append(
                    Problem(
                        str(path),
                        lines.line(("turns", index, "criteria", cindex)),
                        f"turn {turn.id!r} names criterion {cid!r}, which is not defined in criteria",
                    )
                )
    for index, cid in enumerate(card.structure or []):
        if cid not in seen:
            out.append(
                Problem(str(path), lines.line(("structure", index)), f"structure names unknown criterion {cid!r}")
            )
    for index, pitfall in enumerate(card.pitfalls):
        if pitfall.criterion and pitfall.criterion not in seen:
            out.append(
                Problem(
                    str(path),
                    lines.line(("pitfalls", index, "criterion")),
                    f"pitfall names unknown criterion {pitfall.criterion!r}",
                )
            )
        if pitfall.detector is not None:
            for message in check_detector_spec(pitfall.detector.type, pitfall.detector.params):
                loc = ("pitfalls", index, "detector", "params" if "param" in message else "type")
                out.append(Problem(str(path), lines.line(loc), message))


def _key_concept_problems(params: dict[str, Any]) -> list[str]:
    """What the key_concepts detector's own checks let through and scoring cannot use."""
    concepts = params.get("concepts") or []
    problems = [f"bad detector params: concepts.{i}.name: {c.get('name')!r} has no letter or digit"
                for i, c in enumerate(concepts) if not any(ch.isalnum() for ch in str(c.get("name", "")))]
    wanted = params.get("min_covered")
    if isinstance(wanted, int) and wanted > len(concepts):
        problems.append(f"bad detector params: min_covered: {wanted} is more than the {len(concepts)} concepts "
                        "listed, so it can never be met")
    return problems


def parse_persona(path: Path, text: str, problems: list[Problem]) -> Persona | None:
    parsed = _parse_markdown(path, text, problems)
    if parsed is None:
        return None
    try:
        front = PersonaFrontMatter.model_validate(parsed.data)
    except ValidationError as exc:
        _report_validation(path, exc, parsed.lines, problems)
        return None
    instructions = parsed.body.strip()
    if not instructions:
        problems.append(
            Problem(str(path), parsed.body_first_line, "the body must hold the persona's instructions")
        )
        return None
    return Persona(**front.model_dump(), instructions=instructions, path=str(path))


# --- the library -------------------------------------------------------------------------


def markdown_files(folder: Path) -> list[Path]:
    """The content files of a folder: `*.md` but not READMEs, nor hidden files such as an
    editor's lock file (`.#card.md`, often a link to nowhere). Linked folders are followed
    (a pack kept elsewhere and linked in), each real folder once, so a link loop ends."""
    found: list[Path] = []
    seen: set[str] = set()
    for root, dirs, files in os.walk(folder, followlinks=True):
        real = os.path.realpath(root)
        if real in seen:
            dirs[:] = []
            continue
        seen.add(real)
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        found.extend(Path(root) / name for name in (*files, *dirs)  # a folder named *.md is reported
                     if name.endswith(".md") and name.lower() != "readme.md" and not name.startswith("."))
    return sorted(found)


def _markdown_files(paths: Iterable[Path]) -> list[Path]:
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            files.extend(markdown_files(path))
        else:
            files.append(path)  # a missing file or folder is reported when it is read
    return files


def _is_persona_file(path: Path, persona_roots: list[Path]) -> bool:
    resolved = path.resolve()
    return any(root.resolve() in resolved.parents for root in persona_roots)


def load_library(
    content_paths: Iterable[Path], persona_paths: Iterable[Path], check_paths: Iterable[Path] = (),
    personal_paths: Iterable[Path] = (), *, check_detector: DetectorCheck,
) -> Library:
    """Load every card and persona; broken files become problems, the rest loads.

    `check_detector` checks each detector's type and params (scoring's check, passed in by
    coach.library: the content layer does not import scoring); a card whose check fails is a
    problem, not served.

    `check_paths` are extra files or folders to validate (for `coach validate PATH`): files
    under a persona folder are read as personas, the others as cards. `personal_paths` are the
    learner's own card folders (the data dir's cards/, see coach.personal), marked `personal`; a
    folder that does not exist yet holds no cards. Own cards are read when first asked for
    (`LazyCards`): a card by its id reads `<id>.md` alone, a listing reads them all (each file
    parsed once per process while unchanged); their problems are in `problems` once read. The
    removed cards kept in their `.removed/` subfolder go to `Library.removed`, read the same way.
    """
    personal_roots = [Path(p) for p in personal_paths if Path(p).is_dir()]
    persona_roots = [Path(p) for p in persona_paths]
    library = Library()
    persona_files = _markdown_files(persona_roots)
    card_files = _markdown_files(Path(p) for p in content_paths)
    for extra in _markdown_files(Path(p) for p in check_paths):
        (persona_files if _is_persona_file(extra, persona_roots) else card_files).append(extra)

    for path in dict.fromkeys(persona_files):
        text = _read(path, library.problems)
        persona = None if text is None else parse_persona(path, text, library.problems)
        if persona is None:
            continue
        if persona.id in library.personas:
            library.problems.append(Problem(str(path), 2, f"duplicate persona id {persona.id!r}"))
            continue
        library.personas[persona.id] = persona

    built_in: dict[str, Card] = {}
    scene_lines: dict[str, Any] = {}
    for path in dict.fromkeys(card_files):
        text = _read(path, library.problems)
        if text is not None and _load_scene(path, text, library, scene_lines, built_in, check_detector):
            continue
        parsed = None if text is None else parse_card(path, text, library.problems, check_detector=check_detector)
        if parsed is not None:
            card, lines = parsed
            _add_card(library, built_in, card, lambda key: lines.line((key,)))  # noqa: B023 - called at once

    shelf = _own_cards(library, built_in, personal_roots, set(card_files), check_detector)
    library.cards = shelf
    if library.scenes:
        from coach.scenes import check_scene

        for scene in list(library.scenes.values()):
            found = check_scene(scene, scene_lines[scene.id], library.personas)
            if found:
                library.problems.extend(found)
                del library.scenes[scene.id]
    library.removed = _removed_cards(library, personal_roots, check_detector)
    return library


def _add_card(library: Library, cards: dict[str, Card], card: Card, line: Callable[[str], int],
              file_id: str | None = None) -> bool:
    """Add a parsed card to `cards` unless its id is taken, its persona does not exist or (an own
    card, `file_id`) its id is not its file's name; each refusal is a problem."""
    path = card.path
    if card.id in cards or card.id in library.scenes:
        first = (cards.get(card.id) or library.scenes[card.id]).path
        library.problems.append(Problem(path, line("id"), f"duplicate card id {card.id!r} (also in {first})"))
        return False
    if file_id is not None and card.id != file_id:
        library.problems.append(Problem(path, line("id"), f"the card's id {card.id!r} is not its file's name; "
                                                          f"rename the file {card.id}.md"))
        return False
    if card.persona not in library.personas:  # `coach validate` rejects it: it is not listed or served
        library.problems.append(Problem(path, line("persona"), f"persona {card.persona!r} does not exist"))
        return False
    cards[card.id] = card
    return True


def _own_files(roots: list[Path]) -> list[str]:
    """`markdown_files` of the learner's folders, as strings (thousands of own cards: no Path
    object is made for a file until it is read)."""
    found: list[str] = []
    seen: set[str] = set()

    def walk(folder: str) -> None:
        real = os.path.realpath(folder)
        if real in seen:
            return
        seen.add(real)
        try:
            with os.scandir(folder) as scan:
                entries = sorted(scan, key=lambda e: e.name)
        except OSError:
            return
        for entry in entries:
            name = entry.name
            if name.endswith(".md") and not name.startswith(".") and name.lower() != "readme.md":
                found.append(entry.path)  # a folder named *.md is reported when it is read
            elif not name.startswith(".") and entry.is_dir():  # follows links, as os.walk(followlinks=True)
                walk(entry.path)

    for root in roots:
        walk(str(root))
    return found


def _own_cards(library: Library, built_in: dict[str, Card], roots: list[Path], seen: set[Path],
               check_detector: DetectorCheck) -> LazyCards:
    """The built-in cards and, read when asked for, the learner's own (see LazyCards)."""
    pending: dict[str, list[str]] = {}
    skip = {str(p) for p in seen}
    for name in _own_files(roots):
        if name not in skip:
            pending.setdefault(os.path.basename(name)[:-3], []).append(name)

    def load(file_id: str, name: str) -> Card | None:
        path = Path(name)
        card = _card_file(path, library.problems, check_detector, personal=True)
        if card is None:
            return None
        added = _add_card(library, shelf.read, card, lambda key: _line_of(str(path), key), file_id)
        return card if added else None

    shelf = LazyCards(built_in, pending, load)
    return shelf


def _removed_cards(library: Library, roots: list[Path], check_detector: DetectorCheck) -> LazyCards:
    """Removed own cards, for their past sessions (`cards/.removed/<id>.md`, or `<id>.<n>.md` when
    an id was removed again), read when asked for; a broken one is skipped quietly (it is never
    practised again, and its sessions still read without it)."""
    pending: dict[str, list[str]] = {}
    for root in roots:
        folder = root / REMOVED_FOLDER
        if folder.is_dir():
            for path in sorted(folder.glob("*.md"), reverse=True):  # the newest name first
                pending.setdefault(path.name.split(".")[0], []).append(str(path))

    def load(file_id: str, name: str) -> Card | None:
        card = _card_file(Path(name), [], check_detector, personal=True)
        if card is None or card.id != file_id or card.id in library.cards:
            return None
        return card

    return LazyCards({}, pending, load)


def _load_scene(path: Path, text: str, library: Library, scene_lines: dict[str, Any],
                cards: dict[str, Card], check_detector: DetectorCheck) -> bool:
    """Load a `kind: scene` file into `library.scenes` (or its problems); False for any other file."""
    from coach.scenes import declares_scene, parse_scene

    if not declares_scene(text):
        return False
    parsed = parse_scene(path, text, library.problems, check_detector)
    if parsed is not None:
        scene, lines = parsed
        if scene.id in library.scenes or scene.id in cards:
            first = (library.scenes.get(scene.id) or cards[scene.id]).path
            library.problems.append(Problem(str(path), lines.line(("id",)),
                                            f"duplicate id {scene.id!r} (also in {first})"))
        else:
            library.scenes[scene.id] = scene
            scene_lines[scene.id] = lines
    return True


REMOVED_FOLDER = ".removed"  # hidden, so `coach validate` and the listing never see it


# A content file (card, persona) is read only if it is a regular file of at most this size: a
# FIFO named *.md would block the reader, a link to /dev/zero would never end.
MAX_CONTENT_BYTES = 1 << 20
# The front matter's YAML aliases (*name) may not make it bigger than this many values when
# expanded (a "billion laughs" of 481 bytes expands to billions).
MAX_FRONT_MATTER_VALUES = 20_000

_KINDS = ((stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def open_input(path: Path, *, regular_only: bool = False) -> BinaryIO:
    """Open a file for reading; FileAccessError says in one line why it cannot be. With
    `regular_only`, anything but a regular file is refused without blocking (a FIFO is opened
    non-blocking and never read)."""
    try:
        handle = os.open(path, os.O_RDONLY | (os.O_NONBLOCK if regular_only else 0))
    except FileNotFoundError:
        if path.is_symlink():
            target = os.readlink(path)
            raise FileAccessError(path, None, f"a broken link (to {target}); remove it or fix the link") from None
        raise FileAccessError(path, None, "no such file or folder") from None
    except IsADirectoryError:
        raise FileAccessError(path, None, "a folder, not a text file") from None
    except OSError as exc:
        raise FileAccessError(path, None, f"cannot be read ({exc.strerror})") from None
    mode = os.fstat(handle).st_mode
    why = "a folder, not a text file" if stat.S_ISDIR(mode) else None
    if regular_only and why is None and not stat.S_ISREG(mode):
        kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
        why = f"{kind}, not a regular file; content must be plain .md files"
    if why:
        os.close(handle)
        raise FileAccessError(path, None, why)
    if regular_only:
        os.set_blocking(handle, True)
    return os.fdopen(handle, "rb")


def read_utf8(path: Path, max_bytes: int | None = None, *, content: bool = False) -> str:
    """A text file's content (a UTF-8 byte-order mark, as Windows editors write, is dropped);
    FileAccessError says why it cannot be read, and where.

    At most `max_bytes` are read (an answer file: what is scored is capped anyway, and
    /dev/zero never ends); a `content` file must be a regular file of MAX_CONTENT_BYTES at most."""
    limit = MAX_CONTENT_BYTES if content else max_bytes
    with open_input(path, regular_only=content) as handle:
        data = handle.read() if limit is None else handle.read(limit + 1)
    truncated = limit is not None and len(data) > limit
    if truncated and content:
        raise FileAccessError(path, None, f"over the {MAX_CONTENT_BYTES:,}-byte limit of a content file")
    if truncated:
        data = data[:limit]
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        if not (truncated and exc.reason == "unexpected end of data"):
            raise FileAccessError(path, data.count(b"\n", 0, exc.start) + 1, not_utf8(data[exc.start])) from None
        text = data[: exc.start].decode("utf-8-sig")  # the read ended inside a character
    if "\0" in text:  # UTF-16, a binary file, /dev/zero: not text
        at = data.index(b"\0")
        raise FileAccessError(path, data.count(b"\n", 0, at) + 1, not_utf8(0))
    return text


def not_utf8(byte: int, advice: str = "save the file as UTF-8") -> str:
    return f"not UTF-8 text (byte 0x{byte:02x}); {advice}"


def _is_surrogate(char: str) -> bool:
    return 0xD800 <= ord(char) <= 0xDFFF


def text_problem(text: str, advice: str = "give it as UTF-8") -> str | None:
    """Why a str cannot be stored or scored as text, or None. Python keeps a byte that is not
    UTF-8 in argv (and in stdin under some locales) as a lone surrogate, and JSON may escape
    one (\\ud800): neither can be encoded, so RE2 and the database refuse them."""
    try:
        text.encode("utf-8")
        return None
    except UnicodeEncodeError as exc:
        bad = text[exc.start]
    if 0xDC80 <= ord(bad) <= 0xDCFF:
        return not_utf8(ord(bad) - 0xDC00, advice)
    return f"holds an unpaired surrogate (\\u{ord(bad):04x}), which is not text; {advice}"


def as_text(text: str) -> str:
    """`text` with every lone surrogate (see `text_problem`) replaced by U+FFFD."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        pass
    return "".join("\ufffd" if _is_surrogate(char) else char for char in text)


def _read(path: Path, problems: list[Problem]) -> str | None:
    try:
        return read_utf8(path, content=True)
    except FileAccessError as exc:
        problems.append(Problem(str(path), exc.line or 1, exc.reason))
        return None

