"""Running the `coach` command in tests: in this process (fast), or as a real process.

`run(*args, input=..., env=..., cwd=...)` calls `coach.cli.main(argv)` here, with stdin, stdout,
stderr, the environment, the working folder and `sys.argv` as a process would have them, and
returns a `subprocess.CompletedProcess` (`returncode`, `stdout`, `stderr`), so a test written
against the process reads the same. What stays the same as a process: the exit code (argparse's
`SystemExit` included), one-line errors, an unexpected exception's traceback on stderr with exit 1,
stdin as bytes (`sys.stdin.buffer`, not a terminal), output encoded as this interpreter encodes
its own (UTF-8, `surrogateescape` under a C.UTF-8 locale), bytes arguments decoded as Python
decodes argv (`os.fsdecode`). What a process alone can show is left to `run_process`: the locale
and encoding Python picks at start-up, signals, pipes read while the command runs, exit at
interpreter shutdown, a second process on the same files. Starting `coach` costs 0.5-2 s a
process; here the parser, the speech model and the content stay loaded between calls.
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
import traceback
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
COACH = str(REPO / ".venv" / "bin" / "coach")

Arg = str | bytes | os.PathLike


def _argv(args: Sequence[Arg]) -> list[str]:
    return [os.fsdecode(a) for a in args]


@contextlib.contextmanager
def _environment(env: Mapping[str, str] | None) -> Iterator[None]:
    """os.environ exactly `env` (as a process started with `env=` sees it), restored after."""
    if env is None:
        yield
        return
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


class _Stdin(io.TextIOWrapper):
    def isatty(self) -> bool:
        return False


def _stream(data: bytes = b"") -> io.TextIOWrapper:
    errors = getattr(sys.__stdout__, "errors", None) or "strict"
    return io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors=errors, write_through=True)


def run(*args: Arg, input: str | bytes | None = None, env: Mapping[str, str] | None = None,
        cwd: str | os.PathLike | None = REPO, text: bool = True, timeout: float | None = None,
        ) -> subprocess.CompletedProcess:
    """`coach ARGS` in this process; see the module notes. `timeout` is accepted for the same
    signature as `run_process` (pytest-timeout stops a hung test)."""
    from coach import store as store_module
    from coach.cli import main

    argv = _argv(args)
    data = input.encode("utf-8", "surrogateescape") if isinstance(input, str) else (input or b"")
    stdin = _Stdin(io.BytesIO(data), encoding="utf-8", errors=getattr(sys.__stdin__, "errors", None) or "strict")
    stdout, stderr = _stream(), _stream()
    saved = sys.stdin, sys.stdout, sys.stderr, sys.argv
    stores_before = set(store_module._stores)
    here = os.getcwd()
    code: int
    with _environment(env):
        try:
            if cwd is not None:
                os.chdir(cwd)
            sys.stdin, sys.stdout, sys.stderr, sys.argv = stdin, stdout, stderr, ["coach", *argv]
            try:
                code = main(argv)
            except SystemExit as exc:  # argparse, or a command that exits
                if exc.code is None or isinstance(exc.code, int):
                    code = exc.code or 0
                else:
                    print(exc.code, file=sys.stderr)
                    code = 1
            except BaseException:  # what the interpreter does with an uncaught exception
                traceback.print_exc(file=sys.stderr)
                code = 1
            with contextlib.suppress(ValueError, OSError):
                sys.stdout.flush()
                sys.stderr.flush()
        finally:
            sys.stdin, sys.stdout, sys.stderr, sys.argv = saved
            os.chdir(here)
            for url in set(store_module._stores) - stores_before:  # a process closes its database at exit
                with contextlib.suppress(Exception):
                    store_module._stores.pop(url).engine.dispose()
    out, err = stdout.buffer.getvalue(), stderr.buffer.getvalue()  # type: ignore[attr-defined]
    if text:
        return subprocess.CompletedProcess(["coach", *argv], code, out.decode("utf-8", "replace"),
                                           err.decode("utf-8", "replace"))
    return subprocess.CompletedProcess(["coach", *argv], code, out, err)


def run_process(*args: Arg, input: str | bytes | None = None, env: Mapping[str, str] | None = None,
                cwd: str | os.PathLike | None = REPO, text: bool = True, timeout: float | None = 120,
                ) -> subprocess.CompletedProcess:
    """`coach ARGS` as a real process (this worktree's code: PYTHONPATH is set to it)."""
    environment = {**(os.environ if env is None else env)}
    environment.setdefault("PYTHONPATH", str(REPO))
    binary = not text or isinstance(input, bytes) or any(isinstance(a, bytes) for a in args)
    result = subprocess.run([COACH, *args], capture_output=True, input=input, env=environment, cwd=cwd,
                            timeout=timeout, text=not binary)
    if binary and text:
        result.stdout, result.stderr = result.stdout.decode(), result.stderr.decode()
    return result
