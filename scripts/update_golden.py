"""Rewrite the golden expected files after a deliberate change, then review the diff.

    .venv/bin/python scripts/update_golden.py

- tests/golden/content/<kind>/<id>.json: the parsed form of every card and persona file
- tests/golden/scorecards/<name>.json: exact scorecards for the pinned answers in
  tests/golden/pinned_answers.json
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.golden_files import content_expectations, pinned_expectations  # noqa: E402


def write(path: Path, data) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, ensure_ascii=False, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def main() -> None:
    for path, data in content_expectations():
        write(path, data)
    for path, data in pinned_expectations():
        write(path, data)
    print("golden files written; review them with git diff")


if __name__ == "__main__":
    main()
