"""The `coach` command. Each sub-command lives in a module of this package with a
`register(subparsers)` function; errors of the core become one line on stderr."""

from __future__ import annotations

import argparse
import atexit
import os
import sys
import threading

from coach.errors import CoachError

COMMAND_MODULES = (
    "coach.cli.content_cmds",
    "coach.cli.card_cmds",
    "coach.cli.score_cmd",
    "coach.cli.politeness_cmd",
    "coach.cli.english_cmd",
    "coach.cli.session_cmds",
    "coach.cli.voice_cmds",
    "coach.cli.meeting_cmd",
    "coach.cli.llm_cmds",
    "coach.cli.serve_cmd",
)


# The module that registers each sub-command, so that `coach score …` imports the score command's
# module only, not the practice engine, speech or the LLM client of the others (start-up time;
# tests/test_cli.py holds it to what the modules register). A command missing here
# still works: its parser is built from every module, as for `coach --help`.
COMMANDS = {
    "validate": "coach.cli.content_cmds",
    "cards": "coach.cli.content_cmds",
    "card": "coach.cli.card_cmds",
    "score": "coach.cli.score_cmd",
    "politeness": "coach.cli.politeness_cmd",
    "english": "coach.cli.english_cmd",
    "practice": "coach.cli.session_cmds",
    "history": "coach.cli.session_cmds",
    "report": "coach.cli.session_cmds",
    "progress": "coach.cli.session_cmds",
    "transcribe": "coach.cli.voice_cmds",
    "pronounce": "coach.cli.voice_cmds",
    "speak": "coach.cli.voice_cmds",
    "meeting": "coach.cli.meeting_cmd",
    "llm": "coach.cli.llm_cmds",
    "serve": "coach.cli.serve_cmd",
}


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The `coach` parser: every sub-command, or with `command` (a known sub-command's name) only
    the sub-commands of the module that registers it."""
    import importlib

    parser = argparse.ArgumentParser(prog="coach", description="Rehearse: speaking practice coach")
    subparsers = parser.add_subparsers(dest="command", required=True)
    modules = (COMMANDS[command],) if command in COMMANDS else COMMAND_MODULES
    for name in modules:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise
            if command is not None:  # its module is not there: the whole parser says what is
                return build_parser()
            continue
        module.register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(argv[0] if argv else None)
    if argv[:1] == ["serve"] and argv[1:2] not in (["-h"], ["--help"]):  # Streamlit's options, as given
        args = parser.parse_args(argv[:1])
        args.passed_through = argv[1:]
    else:
        args = parser.parse_args(argv)
    try:
        return int(args.handler(args) or 0)
    except CoachError as exc:
        print(f"coach: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


def console() -> None:
    """The `coach` command's entry point: `main`, then a quick exit. The interpreter's own exit
    frees every object one by one, about 0.1 s after a command that loaded the parser (a tenth of
    `coach score`); once the output is flushed and the exit handlers have run (logging's, temporary
    folders'), there is nothing left that freeing them would do. Exits as usual while a thread
    that is not a daemon still runs (the usual exit waits for it)."""
    code = main()
    if any(thread.is_alive() and not thread.daemon for thread in threading.enumerate()
           if thread is not threading.main_thread()):
        sys.exit(code)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (BrokenPipeError, ValueError):  # the reader has gone, or the stream is closed
            pass
    atexit._run_exitfuncs()
    os._exit(code)


if __name__ == "__main__":
    console()
