"""Reading text: a content file or an answer file as UTF-8 text (a FileAccessError says why it
cannot be, and where), and whether a str (from argv, stdin, JSON) is text that can be stored."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import BinaryIO

from coach.errors import FileAccessError

# A content file (card, persona) is read only if it is a regular file of at most this size: a
# FIFO named *.md would block the reader, a link to /dev/zero would never end.
MAX_CONTENT_BYTES = 1 << 20


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
