"""The own-card index: what the YAML parser read from each of the learner's card files and the
summary a listing shows of the card it made, kept in their folder's `.index.jsonl`, so a listing of
thousands of own cards reads one file and builds no card."""

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
    """What the YAML parser read from each own card file (its front matter as data, its body) and
    the summary of the card it made (`CardSummary.stored`), kept in the folder's `.index.jsonl` with
    the file's modification time, size and inode: a listing of thousands of own cards reads one
    file, not thousands of YAML front matters (JSON reads about 20 times as fast), and builds no
    card. A line is `name, mtime, size, inode, stamp, summary, parsed`, tab-separated (JSON holds no
    tab). Only a card that loaded is kept, so a file with a problem is read (and its problem
    reported) by every listing. The summary is used only while its stamp is the loader's (a hash
    of the content code and the detector check, `_stamp` in coach.content.loader): after a change
    to either, the parse is validated again and the line written afresh. An entry whose file
    changed is not used, and one that does not read is skipped. Best effort: a folder that cannot
    be written has no index."""

    NAME = ".index.jsonl"
    HEADER = b"rehearse own-card index 2\n"

    def __init__(self) -> None:
        # file -> (its folder, fingerprint, offset and size of its line, stamp, summary as JSON)
        self.entries: dict[str, tuple[Path, tuple, int, int, bytes, bytes]] = {}
        self.handles: dict[Path, BinaryIO] = {}
        self.new: dict[Path, dict[str, bytes]] = {}  # folder -> file -> its new line
        self.lines: dict[Path, int] = {}  # the lines of each folder's index (a file's older lines too)

    def _open(self, folder: Path) -> None:
        if folder in self.handles or folder in self.new:
            return
        self.new[folder] = {}
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
            self.lines[folder] = self.lines.get(folder, 0) + 1
            head = line.split(b"\t", 6)
            if len(head) == 7:
                try:
                    name = head[0].decode()
                    self.entries[os.path.join(folder, name)] = (
                        folder, (int(head[1]), int(head[2]), int(head[3])), offset, len(line), head[4], head[5])
                except ValueError:
                    pass
            offset += len(line)

    def summary(self, path: Path, fingerprint: tuple, stamp: str) -> Any:
        """The summary kept for this file while it is unchanged and its stamp is `stamp`, as the
        JSON read it (`CardSummary.from_stored` checks it), or None."""
        self._open(path.parent)
        entry = self.entries.get(str(path))
        if entry is None or entry[1] != fingerprint or entry[4] != stamp.encode():
            return None
        try:
            summary = json.loads(entry[5])
        except ValueError:
            return None
        return summary

    def get(self, path: Path, fingerprint: tuple, stamp: str) -> tuple[_Parsed, str, bool] | None:
        """What the parser read from this file while it is unchanged, its content version, and
        whether its summary is current (of this `stamp`); None when there is none."""
        self._open(path.parent)
        entry = self.entries.get(str(path))
        if entry is None or entry[1] != fingerprint:
            return None
        folder, _, offset, size, kept_stamp, _ = entry
        handle = self.handles[folder]
        try:
            handle.seek(offset)
            version, first_line, data, body = json.loads(handle.read(size).split(b"\t", 6)[6])
        except (OSError, ValueError, TypeError):
            return None
        if not isinstance(data, dict) or not isinstance(body, str) or not isinstance(first_line, int):
            return None
        return _Parsed(data, body, first_line, _LineMap(None, 1)), str(version), kept_stamp == stamp.encode()

    def add(self, path: Path, fingerprint: tuple, parsed: _Parsed, version: str, stamp: str,
            summary: list) -> None:
        if not _plain_data(parsed.data) or "\t" in path.name or "\n" in path.name or "\t" in stamp:
            return  # a YAML date or a non-text key would not read back the same from JSON
        self._open(path.parent)
        payload = json.dumps([version, parsed.body_first_line, parsed.data, parsed.body], ensure_ascii=False)
        head = "\t".join((path.name, *map(str, fingerprint), stamp, json.dumps(summary, ensure_ascii=False)))
        self.new.setdefault(path.parent, {})[str(path)] = f"{head}\t{payload}\n".encode()  # in place of its old line

    def close(self) -> None:
        for folder, lines in self.new.items():
            if lines:
                self._write(folder, lines)
        for handle in self.handles.values():
            handle.close()

    def _write(self, folder: Path, lines: dict[str, bytes]) -> None:
        """Append the new lines, or write the index afresh (the lines of unchanged files and the
        new ones) when most of it is stale: older lines of a file, files changed or gone."""
        old = self.handles.get(folder)
        kept = [] if old is None else [
            (offset, size) for name, (f, fingerprint, offset, size, _, _) in self.entries.items()
            if f == folder and name not in lines and _fingerprint(name) == fingerprint]
        index = folder / self.NAME
        try:
            if old is not None and self.lines.get(folder, 0) - len(kept) <= len(kept):
                with open(index, "ab") as out:
                    out.write(b"".join(lines.values()))  # one write: a reader sees whole lines or none
                return
            handle, temp = tempfile.mkstemp(prefix=".index.", suffix=".tmp", dir=folder)
            try:
                with os.fdopen(handle, "wb") as out:
                    out.write(self.HEADER)
                    if old is not None:
                        for offset, size in kept:
                            old.seek(offset)
                            out.write(old.read(size))
                    out.write(b"".join(lines.values()))
                os.chmod(temp, 0o600)
                os.replace(temp, index)
            except BaseException:
                Path(temp).unlink(missing_ok=True)
                raise
        except OSError:
            pass


def _fingerprint(name: str) -> tuple | None:
    try:
        info = os.stat(name)
    except OSError:
        return None
    return info.st_mtime_ns, info.st_size, info.st_ino


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
