"""Reading a JSONL batch (`coach score --jsonl`, `coach politeness --jsonl`) one line at a time:
a bad line is reported with its number and the other lines are still processed; and the one
text source (--text | --file | --jsonl) of the commands that judge a text alone."""

from __future__ import annotations

import itertools
import json
import multiprocessing
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

from coach.content.text_input import not_utf8, open_input, text_problem
from coach.errors import CoachError, EmptyAnswerError

# A line longer than this is reported and skipped unread (an answer is scored on its first
# 20,000 characters; JSON escapes take up to 12 bytes a character): /dev/zero never ends a line.
MAX_LINE_BYTES = 1 << 20


MAX_SKIPPED_BYTES = 64 << 20  # an over-long line is read past this far to find the next one


def add_text_source(parser, one: str) -> None:
    """--text, --file (holding one `one`) or --jsonl, one of them required."""
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--text")
    source.add_argument("--file", type=Path, help=f"a text file holding one {one}")
    source.add_argument("--jsonl", type=Path, help='lines {"id": ..., "text": ...}')


def run_texts(args, judge: Callable[[str, object], dict], noun: str) -> int:
    """One text (--text or --file) judged and printed as one JSON object, or a --jsonl batch of
    `noun` with each line's `id` echoed. `judge(text, id)` raises for an empty text."""
    from coach.content.text_input import read_utf8
    from scoring import MAX_SCORED_CHARS

    if args.jsonl is None:
        text = args.text if args.text is not None else read_utf8(args.file, MAX_SCORED_CHARS * 4)
        if problem := text_problem(text):
            raise CoachError(f"--text: {problem}")
        print(json.dumps(judge(text, None), ensure_ascii=False))
        return 0
    return run_batch(args.jsonl, lambda item: judge(item.get("text") or "", item.get("id")), noun=noun)


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


CHUNK_LINES = 256  # lines read and parsed together before they are handled, in order


def run_batch(path: Path, handle: Callable[[dict], dict], *, optional: tuple[str, ...] = (), noun: str = "answers",
              prepare: Callable[[list[dict]], None] | None = None, workers: int = 1) -> int:
    """The one rule for a JSONL batch: each usable line's JSON result on stdout, in order; each bad
    line as `path:line: why` on stderr while the others go on; exit 2 if any line was bad, and an
    empty batch is bad input. `prepare` sees each chunk's parsed lines first (the scorer parses
    their texts as one batch). With `workers` > 1, the chunks after the first are handled in that
    many forked processes (the first, in this one, loads what they then share), still printed in
    order."""
    global _handle, _prepare
    _handle, _prepare = handle, prepare
    failures = seen = 0
    chunks = (_read_chunk(chunk, optional) for chunk in _chunks(lines(path), CHUNK_LINES))
    for outcomes in _handled(chunks, workers):
        for number, output, error in outcomes:
            seen += 1
            if error is not None:
                failures += 1
                print(f"{path}:{number}: {error}", file=sys.stderr)
            else:
                print(output)
    if not seen:
        raise EmptyAnswerError(f"{path} holds no {noun}")
    return 2 if failures else 0  # bad input is exit 2, as everywhere in `coach`


Item = tuple[int, dict | None, Exception | None]
Outcome = tuple[int, str | None, str | None]  # line number, JSON result or why the line failed
_handle: Callable[[dict], dict] | None = None  # what the forked workers call (set before they fork)
_prepare: Callable[[list[dict]], None] | None = None


def _read_chunk(chunk, optional: tuple[str, ...]) -> list[Item]:
    items: list[Item] = []
    for number, line, problem in chunk:
        if problem is None and not (line or "").strip():
            continue
        try:
            if problem is not None:
                raise ValueError(problem)
            items.append((number, parse(line or "", optional=optional), None))
        except ValueError as exc:
            items.append((number, None, exc))
    return items


def _handle_chunk(items: list[Item]) -> list[Outcome]:
    assert _handle is not None
    if _prepare is not None:
        _prepare([item for _, item, _ in items if item is not None])
    outcomes: list[Outcome] = []
    for number, item, error in items:
        try:
            if error is not None or item is None:
                raise error or ValueError("unreadable line")
            outcomes.append((number, json.dumps(_handle(item), ensure_ascii=False), None))
        except (ValueError, CoachError) as exc:
            outcomes.append((number, None, str(exc)))
    return outcomes


def _handled(chunks: Iterator[list[Item]], workers: int) -> Iterator[list[Outcome]]:
    """The chunks' outcomes in order: the first here (it loads the parser the workers then
    share), the rest here too, or in `workers` forked processes when at least two are left
    (a pool costs more than it saves on fewer)."""
    for first in itertools.islice(chunks, 1):
        yield _handle_chunk(first)
    ahead = list(itertools.islice(chunks, 2))
    if workers <= 1 or len(ahead) < 2:
        yield from map(_handle_chunk, itertools.chain(ahead, chunks))
        return
    sys.stdout.flush()  # what is printed so far is printed once, not again by a worker
    with multiprocessing.get_context("fork").Pool(workers) as pool:
        yield from pool.imap(_handle_chunk, itertools.chain(ahead, chunks))


def default_workers() -> int:
    """One per core this process may use, at most MAX_WORKERS."""
    return max(1, min(MAX_WORKERS, len(os.sched_getaffinity(0))))


MAX_WORKERS = 8


def _chunks(iterable, size):
    chunk = []
    for item in iterable:
        chunk.append(item)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


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
