"""A content file's markdown: its YAML front matter (parsed once, aliases bounded) as data with
the line of each key, and its body split into `## ` sections. Every problem is reported as
`path:line: message`."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import frontmatter
import yaml
from pydantic import BaseModel, ValidationError

from coach.content.schema import Problem

# The front matter's YAML aliases (*name) may not make it bigger than this many values when
# expanded (a "billion laughs" of 481 bytes expands to billions).
MAX_FRONT_MATTER_VALUES = 20_000


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


_Front = TypeVar("_Front", bound=BaseModel)


def _parse_front(path: Path, text: str, model: type[_Front], problems: list[Problem]) -> tuple[_Parsed, _Front] | None:
    """A Markdown file's parts and its front matter validated as `model`; None, with the problems
    reported at their lines, when either fails."""
    parsed = _parse_markdown(path, text, problems)
    if parsed is None:
        return None
    try:
        return parsed, model.model_validate(parsed.data)
    except ValidationError as exc:
        _report_validation(path, exc, parsed.lines, problems)
        return None
