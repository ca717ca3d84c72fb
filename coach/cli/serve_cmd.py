"""`coach serve`: run the app with Streamlit, refusing an address beyond this machine unless
sign-in is configured (or anonymous use is allowed with COACH_ALLOW_ANONYMOUS=1)."""

from __future__ import annotations

import os
import sys

from coach.access import auth_configured, auth_problem, serving_refusal
from coach.config import REPO_ROOT, load_settings
from coach.errors import CoachError


def register(subparsers) -> None:
    serve = subparsers.add_parser(
        "serve",
        help="serve the app (streamlit run app.py); refuses a non-loopback address without sign-in",
        description=(
            "Serves the app (`streamlit run app.py`); refuses a non-loopback `--server.address` "
            "without sign-in (README, \"Sign-in\")."
        ),
    )
    serve.add_argument("passed_through", nargs="*", metavar="STREAMLIT_OPTION",  # taken as given (cli.main)
                       help="Streamlit's options, e.g. --server.port 8502 --secrets.files /etc/rehearse/secrets.toml")
    serve.set_defaults(handler=run_serve)


# the options that decide whether serving is safe: where it listens, and where sign-in is set up
DECIDING = {"server.address": False, "secrets.files": True}  # name: may be given more than once


def _flags(arguments: list[str]) -> dict[str, object]:
    """The deciding options among Streamlit's `--section.option value` / `=value` flags."""
    flags: dict[str, object] = {}
    index = 0
    while index < len(arguments):
        argument = arguments[index]
        index += 1
        name, has_value, value = argument.removeprefix("--").partition("=")
        if not argument.startswith("--") or name not in DECIDING:
            continue
        if not has_value and index < len(arguments):
            value, index = arguments[index], index + 1
        flags[name] = [*flags.get(name, []), value] if DECIDING[name] else value  # type: ignore[misc]
    return flags


def _from_environment(flags: dict[str, object]) -> dict[str, object]:
    """The deciding options Streamlit takes from STREAMLIT_* variables (`STREAMLIT_SERVER_ADDRESS`),
    where no flag gives them: `streamlit run` reads those too, so they decide as much as a flag."""
    for name, many in DECIDING.items():
        value = os.environ.get("STREAMLIT_" + name.upper().replace(".", "_"))
        if name not in flags and value is not None:
            flags[name] = value.split() if many else value
    return flags


def run_serve(args) -> int:
    from streamlit import config

    arguments = [a for a in args.passed_through if a != "--"]
    config.get_config_options(force_reparse=True, options_from_flags=_from_environment(_flags(arguments)))
    address = config.get_option("server.address")
    secrets_files = config.get_option("secrets.files") or []
    if problem := auth_problem(secrets_files):
        raise CoachError(problem)
    sign_in = auth_configured(secrets_files)
    if refusal := serving_refusal(address, sign_in, load_settings().allow_anonymous):
        raise CoachError(refusal)
    # coach.ui.server is `streamlit run` with the pages' modules imported while the server starts
    command = [sys.executable, "-m", "coach.ui.server", "run", str(REPO_ROOT / "app.py"), *arguments]
    sys.stdout.flush()
    os.execv(sys.executable, command)
    return 0  # not reached: exec replaces this process
