"""The loader: card, persona and scene files into a Library. Broken files become problems
(`path:line: message`) and never stop the others loading; the learner's own cards are read when
first asked for (LazyCards).

Each detector's type and params are checked by the `check_detector` the caller passes (scoring's,
from coach.library): the content layer never imports scoring."""

from __future__ import annotations

import functools
import hashlib
import os
import stat
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, MutableMapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from coach.content.index import _INDEX, _own_card_index
from coach.content.markdown import _LineMap, _parse_front, _parse_markdown, _Parsed, _report_validation, _sections
from coach.content.schema import (
    Card,
    CardFrontMatter,
    CardSummary,
    DetectorCheck,
    Library,
    ModelAnswer,
    Persona,
    PersonaFrontMatter,
    Problem,
    summary_of,
)
from coach.content.text_input import read_utf8
from coach.errors import FileAccessError

REMOVED_FOLDER = ".removed"  # hidden, so `coach validate` and the listing never see it


class LazyCards(MutableMapping[str, Card]):
    """Cards by id, the learner's own read from their files only when asked for (issue 29): a
    lookup by id reads the one file named after it (`cards/<id>.md`: an own card's id is its file
    name), and only listing every card (iterating, `len`) reads them all. `coach score` and a
    practice session on any card so read no own card but theirs, whatever their number.

    `summaries()` lists every card without building the own ones: each own file's summary comes
    from the folder's index while the file is unchanged (`list_one`); a card so listed is built
    from its file when asked for."""

    def __init__(self, cards: dict[str, Card] | None = None,
                 pending: dict[str, list[str]] | None = None,
                 load: Callable[[LazyCards, str, str], Card | None] | None = None,
                 list_one: Callable[[LazyCards, str, str], Card | CardSummary | None] | None = None):
        self._cards: dict[str, Card] = dict(cards or {})
        self._pending: dict[str, list[str]] = dict(pending or {})  # id (the file's name) -> its files
        self._listed: dict[str, CardSummary] = {}  # listed from a summary, not built yet (its file: .path)
        self._load = load
        self._list_one = list_one

    def _read(self, key: str) -> None:
        listed = self._listed.pop(key, None)
        for path in (listed.path,) if listed is not None else self._pending.pop(key, ()):
            if self._load is not None and key not in self._cards and (card := self._load(self, key, path)) is not None:
                self._cards[card.id] = card

    def _read_all(self) -> None:
        if not self._pending and not self._listed:
            return
        with _own_card_index(self._pending):
            while self._listed:
                self._read(next(iter(self._listed)))
            while self._pending:
                self._read(next(iter(self._pending)))

    def summaries(self) -> list[CardSummary]:
        """A summary of every card, the own ones listed from their folder's index: no own Card
        is built but those of files changed since they were last listed (or not yet indexed)."""
        if self._pending and self._list_one is not None:
            with _own_card_index(self._pending):
                while self._pending:
                    key = next(iter(self._pending))
                    for path in self._pending.pop(key):
                        found = self._list_one(self, key, path)
                        if isinstance(found, CardSummary):
                            self._listed[key] = found
                        elif found is not None:
                            self._cards[found.id] = found
        elif self._pending:
            self._read_all()
        return [*map(summary_of, self._cards.values()), *self._listed.values()]

    def copy(self) -> LazyCards:
        """Another shelf of the same cards, files and summaries, read from then on apart (no file
        is read to make it)."""
        other = LazyCards(self._cards, {key: list(paths) for key, paths in self._pending.items()}, self._load,
                          self._list_one)
        other._listed = dict(self._listed)
        return other

    def known(self, key: str) -> Card | CardSummary | None:
        """The card or summary of this id read so far (no file is read to answer)."""
        return self._cards.get(key) or self._listed.get(key)

    def ids(self) -> set[str]:
        """The ids of the cards read and of the files not read yet (an id no new card may take),
        without reading any."""
        return {*self._cards, *self._listed, *self._pending}

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
        self._listed.pop(key, None)
        self._cards[key] = card

    def __delitem__(self, key: str) -> None:
        self._read(key)
        del self._cards[key]

    def __repr__(self) -> str:
        return f"LazyCards({len(self._cards)} read, {len(self._listed)} listed, {len(self._pending)} not yet)"


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
    key = _file_key(path, personal, check_detector)
    if key is not None and (hit := _PARSED_FILES.get(key)) is not None:
        _PARSED_FILES.move_to_end(key)
        problems.extend(hit[1])
        return hit[0]
    found: list[Problem] = []
    card = None
    fingerprint = key[1:4] if key is not None else ()
    index = _INDEX[-1] if _INDEX and fingerprint else None
    stamp = _stamp(check_detector) if index is not None else ""
    indexed = None
    if index is not None and (entry := index.get(path, fingerprint, stamp)) is not None:
        parsed, version, current = entry
        card = _card_of(path, parsed, version, found, personal, check_detector)
        if card is None:  # valid once, not now (a newer loader): the file says where
            found = []
        elif not current:  # its summary is of older code: kept again
            indexed = parsed
    if card is None:
        text = _read(path, found)
        read = None if text is None else _parse_markdown(path, text, found)
        if read is not None and text is not None:
            card = _card_of(path, read, _content_version(text), found, personal, check_detector)
            indexed = read
    if card is not None and index is not None and indexed is not None:
        index.add(path, fingerprint, indexed, card.content_version, stamp, summary_of(card).stored())
    if key is not None:
        _PARSED_FILES[key] = (card, tuple(found))
        while len(_PARSED_FILES) > MAX_PARSED_FILES:
            _PARSED_FILES.popitem(last=False)
    problems.extend(found)
    return card


def _file_key(path: Path, personal: bool, check_detector: DetectorCheck) -> tuple | None:
    """A regular file's path, modification time, size and inode (with how it is read), or None."""
    try:
        info = os.stat(path)
    except OSError:  # the read says why
        return None
    if not stat.S_ISREG(info.st_mode):
        return None
    return (str(path), info.st_mtime_ns, info.st_size, info.st_ino, personal, check_detector)


# The summaries of own card files listed from their index in this process, while each file is
# unchanged (the app lists the library again on each page run).
_SUMMARIES: OrderedDict[tuple, CardSummary] = OrderedDict()


MAX_SUMMARIES = 20_000


def _card_summary(path: Path, problems: list[Problem], check_detector: DetectorCheck,
                  personal: bool = False) -> Card | CardSummary | None:
    """What a listing needs of a file: its card when this process has it, else the summary its
    folder's index keeps while the file is unchanged, else its card (`_card_file`, which indexes it)."""
    key = _file_key(path, personal, check_detector)
    if key is not None and key not in _PARSED_FILES:
        summary = _SUMMARIES.get(key)
        if summary is not None:
            _SUMMARIES.move_to_end(key)
            return summary
        if _INDEX:
            stored = _INDEX[-1].summary(path, key[1:4], _stamp(check_detector))
            summary = None if stored is None else CardSummary.from_stored(stored, str(path), personal)
            if summary is not None:
                _SUMMARIES[key] = summary
                while len(_SUMMARIES) > MAX_SUMMARIES:
                    _SUMMARIES.popitem(last=False)
                return summary
    return _card_file(path, problems, check_detector, personal)


@functools.cache
def _stamp(check_detector: DetectorCheck) -> str:
    """What an own card's summary in the index was validated by: a hash of the content layer's
    code and the detector check's (`check_detector.version()`, scoring's code hash). A summary of
    another stamp is not used: the card is validated again."""
    digest = hashlib.sha256()
    for code in sorted(Path(__file__).resolve().parent.glob("*.py")):
        digest.update(code.name.encode() + b"\0" + code.read_bytes() + b"\0")
    digest.update(f"{check_detector.__module__}.{check_detector.__qualname__}".encode())
    version = getattr(check_detector, "version", None)
    digest.update(str(version() if callable(version) else "").encode())
    return digest.hexdigest()[:12]


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
            loc: tuple[str | int, ...] = ("criteria", index, "id")
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
    read = _parse_front(path, text, PersonaFrontMatter, problems)
    if read is None:
        return None
    parsed, front = read
    instructions = parsed.body.strip()
    if not instructions:
        problems.append(
            Problem(str(path), parsed.body_first_line, "the body must hold the persona's instructions")
        )
        return None
    return Persona(**front.model_dump(), instructions=instructions, path=str(path))


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
    if _refused(library, cards.get, card, line, file_id):
        return False
    cards[card.id] = card
    return True


def _refused(library: Library, taken: Callable[[str], Card | CardSummary | None], card: Card | CardSummary,
             line: Callable[[str], int], file_id: str | None = None) -> bool:
    """Whether a card (or an own card's summary) may not be listed: its id is taken (`taken`
    says by what), its persona does not exist or (an own card, `file_id`) its id is not its
    file's name; each refusal is a problem."""
    path = card.path
    if (first := taken(card.id)) is not None or card.id in library.scenes:
        first_path = (first or library.scenes[card.id]).path
        library.problems.append(Problem(path, line("id"), f"duplicate card id {card.id!r} (also in {first_path})"))
        return True
    if file_id is not None and card.id != file_id:
        library.problems.append(Problem(path, line("id"), f"the card's id {card.id!r} is not its file's name; "
                                                          f"rename the file {card.id}.md"))
        return True
    if card.persona not in library.personas:  # `coach validate` rejects it: it is not listed or served
        library.problems.append(Problem(path, line("persona"), f"persona {card.persona!r} does not exist"))
        return True
    return False


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

    def load(shelf: LazyCards, file_id: str, name: str) -> Card | None:
        path = Path(name)
        card = _card_file(path, library.problems, check_detector, personal=True)
        if card is None or _refused(library, shelf.known, card, lambda key: _line_of(str(path), key), file_id):
            return None
        return card

    def list_one(shelf: LazyCards, file_id: str, name: str) -> Card | CardSummary | None:
        path = Path(name)
        found = _card_summary(path, library.problems, check_detector, personal=True)
        if found is None or _refused(library, shelf.known, found, lambda key: _line_of(str(path), key), file_id):
            return None
        return found

    return LazyCards(built_in, pending, load, list_one)


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

    def load(shelf: LazyCards, file_id: str, name: str) -> Card | None:
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


def _read(path: Path, problems: list[Problem]) -> str | None:
    try:
        return read_utf8(path, content=True)
    except FileAccessError as exc:
        problems.append(Problem(str(path), exc.line or 1, exc.reason))
        return None
