"""The README's command table, made from the parser the `coach` command uses: each command's
synopsis (argparse's usage line) and its description. `cog` writes it into README.md, and a
test (`tests/test_generated_docs.py`) fails when the README differs from it."""

from __future__ import annotations

import argparse
import re

from coach.cli import build_parser


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _synopsis(parser: argparse.ArgumentParser) -> str:
    usage = " ".join(parser.format_usage().removeprefix("usage: ").split())
    return usage.replace(" [-h]", "").replace("|", "\\|")


def command_table() -> str:
    rows = ["| command | what it does |", "|---|---|"]
    for command in _subcommands(build_parser()).values():
        for leaf in _subcommands(command).values() or [command]:
            description = re.sub(r"\s+", " ", leaf.description or "").replace("|", "\\|")
            rows.append(f"| `{_synopsis(leaf)}` | {description} |")
    return "\n".join(rows)
