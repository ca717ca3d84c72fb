"""One door between the pages and the engine (issue 30): the pages import the application API's
named types, views and helpers (coach.practice.__all__, never a whole module) and coach.errors, and
never hold the engine. The import contracts (pyproject.toml, `lint-imports`) hold the modules they
reach; these tests hold what the contracts cannot see: names and attributes."""

from __future__ import annotations

import ast
import re
import types
from pathlib import Path

import coach.practice

REPO = Path(__file__).resolve().parent.parent
PAGES = sorted((REPO / "coach" / "ui").rglob("*.py"))


def test_the_application_api_exports_no_whole_module():
    modules = [name for name in coach.practice.__all__ if isinstance(getattr(coach.practice, name), types.ModuleType)]
    assert modules == []
    assert not [name for name in coach.practice.__all__ if not hasattr(coach.practice, name)]


def test_the_pages_import_only_what_the_application_api_exports():
    outside = []
    for path in [*PAGES, REPO / "app.py"]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module == "coach.practice":
                outside += [f"{path.name}: {a.name}" for a in node.names if a.name not in coach.practice.__all__]
    assert outside == []


def test_no_page_holds_the_engine():
    mentions = [f"{path.relative_to(REPO)}:{number}: {line.strip()}"
                for path in PAGES
                for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
                if re.search(r"PracticeEngine|\.engine\b", line)]
    assert mentions == []
