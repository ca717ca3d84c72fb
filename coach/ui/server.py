"""The app's server process (`coach serve`): Streamlit's `run`, with the modules every page
imports loaded in a background thread while the server starts. Streamlit runs the app script
only when the first visitor connects, so without this the first visit waits for those imports
(about half a second on 2 cores: benchmarks/README.md, "The Start page")."""

from __future__ import annotations

import importlib
import logging
import sys
import threading

# what app.py and the Start page import, and what opening the store (its migrations) and loading
# the library import on the first visit; the same modules are then found in sys.modules
FIRST_VISIT_MODULES = ("coach.access", "coach.ui.account", "coach.ui.state", "coach.ui.widgets",
                       "coach.ui.own_cards", "coach.ui.practice_view", "alembic.command", "alembic.config",
                       "alembic.script", "alembic.runtime.migration", "pygments.lexers", "scoring.readings",
                       "sqlalchemy.dialects.sqlite")


IMPORT_THREAD = "first-visit-imports"


def _not_from_the_import_thread(record: logging.LogRecord) -> bool:
    """A component declared at import asks for the script run it is in; in the import thread there
    is none, and Streamlit would print "missing ScriptRunContext" at every start."""
    return record.threadName != IMPORT_THREAD


def _import_first_visit_modules() -> None:
    for name in FIRST_VISIT_MODULES:
        importlib.import_module(name)


def start_first_visit_imports() -> threading.Thread:
    """The first visit's modules, imported in a background thread (returned, started)."""
    logging.getLogger("streamlit.runtime.scriptrunner_utils.script_run_context").addFilter(_not_from_the_import_thread)
    thread = threading.Thread(target=_import_first_visit_modules, name=IMPORT_THREAD, daemon=True)
    thread.start()
    return thread


def main() -> None:
    """`python -m coach.ui.server run app.py [Streamlit's options]`, as `streamlit run`."""
    start_first_visit_imports()
    from streamlit.web import cli

    sys.exit(cli.main())


if __name__ == "__main__":
    main()
