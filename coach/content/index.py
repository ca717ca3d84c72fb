"""The own-card index: what the YAML parser read from each of the learner's card files, kept in
their folder's `.index.jsonl`, so a listing of thousands of own cards reads one file."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, BinaryIO

from coach.content.markdown import _LineMap, _Parsed


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
