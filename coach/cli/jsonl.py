"""Reading a JSONL batch (`coach score --jsonl`, `coach politeness --jsonl`) one line at a time:
a bad line is reported with its number and the other lines are still processed."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from coach.content import not_utf8, open_input, text_problem

# A line longer than this is reported and skipped unread (an answer is scored on its first
# 20,000 characters; JSON escapes take up to 12 bytes a character): /dev/zero never ends a line.
MAX_LINE_BYTES = 1 << 20


MAX_SKIPPED_BYTES = 64 << 20  # an over-long line is read past this far to find the next one


def _raw_lines(handle) -> Iterator[bytes | str]:
    """Each line's bytes, or why it is skipped (over MAX_LINE_BYTES: read past in chunks, up
    to MAX_SKIPPED_BYTES, after which the rest of the file is not read)."""
    while raw := handle.readline(MAX_LINE_BYTES + 1):
        if len(raw) <= MAX_LINE_BYTES or raw.endswith(b"\n"):
            yield raw
            continue
        skipped = len(raw)
        while (rest := handle.readline(MAX_LINE_BYTES)) and not rest.endswith(b"\n"):
            skipped += len(rest)
            if skipped > MAX_SKIPPED_BYTES:
                yield (f"the line does not end within {MAX_SKIPPED_BYTES:,} bytes; "
                       "the rest of the file is not read")
                return
        yield f"the line is longer than {MAX_LINE_BYTES:,} bytes; give one answer a line"


def lines(path: Path) -> Iterator[tuple[int, str | None, str | None]]:
    """(number, text or None, None or why the line is unusable) for each line."""
    with open_input(path) as handle:
        for number, raw in enumerate(_raw_lines(handle), start=1):
            if isinstance(raw, str):
                yield number, None, raw
                continue
            try:
                yield number, raw.decode("utf-8-sig" if number == 1 else "utf-8"), None
            except UnicodeDecodeError as exc:
                yield number, None, not_utf8(raw[exc.start])


def parse(line: str, optional: tuple[str, ...] = ()) -> dict:
    """One line as a JSON object whose "text" is a string when present, and whose `optional`
    fields are strings or null."""
    try:
        item = json.loads(line)
    except RecursionError:
        raise ValueError("the JSON is nested too deeply; give one flat object per line") from None
    except ValueError as exc:
        raise ValueError(f"not valid JSON ({exc})") from None
    if not isinstance(item, dict):
        raise ValueError('not a JSON object; give {"id": ..., "text": ...} per line')
    if not isinstance(item.get("text", ""), str) or not all(isinstance(item.get(n, ""), str | None) for n in optional):
        raise ValueError(" and ".join(f'"{name}"' for name in ("text", *optional)) + " must be strings")
    if "id" in item and not _usable_id(item["id"]):
        raise ValueError('"id" must be a string, a whole number or null')
    for name in ("text", *optional):
        value = item.get(name)
        if isinstance(value, str) and text_problem(value):
            raise ValueError(f'"{name}" holds an unpaired surrogate escape (\\u{ord(_first_surrogate(value)):04x}), '
                             "which is not text")
    return item


MAX_ID = 2**53  # larger whole numbers do not survive a JSON reader that uses doubles


def _usable_id(value) -> bool:
    """An id echoed back as it came: a string, a whole number (not true/false, NaN, 1e400 or
    2.5, which JSON readers do not give back the same), or null."""
    if value is None or isinstance(value, str):
        return value is None or text_problem(value) is None
    return isinstance(value, int) and not isinstance(value, bool) and abs(value) <= MAX_ID


def _first_surrogate(text: str) -> str:
    return next(char for char in text if 0xD800 <= ord(char) <= 0xDFFF)
