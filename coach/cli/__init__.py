"""The `coach` command. Each sub-command lives in a module of this package with a
`register(subparsers)` function; errors of the core become one line on stderr."""

from __future__ import annotations

import argparse
import sys

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


def build_parser() -> argparse.ArgumentParser:
    import importlib

    parser = argparse.ArgumentParser(prog="coach", description="Rehearse: speaking practice coach")
    subparsers = parser.add_subparsers(dest="command", required=True)
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise
            continue
        module.register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
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


if __name__ == "__main__":
    sys.exit(main())
