"""Write scoring/patterns/inflections.json: the inflections of every `{word}` in the shipped
patterns (scoring/patterns/*.yaml) and cards (content/), as lemminflect gives them, so that
scoring loads a small JSON file instead of lemminflect's tables (0.2-0.5 s). Run it after
adding a `{word}` to a pattern list or a card; tests/test_startup.py fails until then.

    .venv/bin/python scripts/update_inflections.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scoring.regex import _LEMMA, INFLECTIONS_FILE, lemminflect_inflections  # noqa: E402


def shipped_words() -> set[str]:
    words: set[str] = set()
    for folder, pattern in ((ROOT / "scoring" / "patterns", "*.yaml"), (ROOT / "content", "**/*.md")):
        for path in sorted(folder.glob(pattern)):
            words.update(match.group(1) for match in _LEMMA.finditer(path.read_text(encoding="utf-8")))
    return words


def table() -> dict[str, list[str]]:
    return {word: list(lemminflect_inflections(word)) for word in sorted(shipped_words())}


def main() -> None:
    INFLECTIONS_FILE.write_text(render(table()), encoding="utf-8")
    print(f"{INFLECTIONS_FILE.relative_to(ROOT)}: {len(table())} words")


def render(data: dict[str, list[str]]) -> str:
    """The file's text: one word a line, so a diff shows which words changed."""
    lines = [f"  {json.dumps(word)}: {json.dumps(forms)}" for word, forms in data.items()]
    return "{\n" + ",\n".join(lines) + "\n}\n"


if __name__ == "__main__":
    main()
