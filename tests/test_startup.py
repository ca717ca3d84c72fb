"""A fast start (issue 30): loading the content scores and parses nothing, the scorer's heavy
libraries load only when an answer needs them and without what they would drag in, and what
makes that possible (the inflection table, the lemma lookups) gives lemminflect's own answers.
Figures: benchmarks/startup.py."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.conftest import REPO

HEAVY = ("torch", "streamlit", "faster_whisper", "litellm", "ctranslate2", "sqlalchemy", "spacy.cli", "typer",
         "weasel", "requests")


def imported_after(code: str) -> dict:
    """Which of the heavy modules (and spaCy, lemminflect) a fresh interpreter has imported
    after running `code`."""
    probe = (f"import sys\n{code}\nimport json\n"
             f"print(json.dumps({{m: m in sys.modules for m in {[*HEAVY, 'spacy', 'lemminflect']!r}}}))")
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=REPO,
                            env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"}, timeout=120)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.splitlines()[-1])


@pytest.mark.slow
def test_loading_the_library_imports_no_parser_no_inflection_tables_no_heavy_library():
    loaded = imported_after("from coach.library import default_library\nassert default_library().cards")
    assert not any(loaded.values()), loaded


@pytest.mark.slow
def test_coach_score_imports_the_parser_without_torch_and_nothing_of_the_other_commands(tmp_path):
    answer = ("For context, I'm moving the billing export. So far the schema is done. "
              "Next I'll switch the traffic on Thursday.")
    loaded = imported_after(
        "import os, sys, io\n"
        f"os.environ['COACH_DATA_DIR'] = {str(tmp_path)!r}\n"
        "from coach.cli import main\n"
        "out, sys.stdout = sys.stdout, io.StringIO()\n"
        f"code = main(['score', '--card', 'status-update', '--text', {answer!r}])\n"
        "sys.stdout = out\n"
        "assert code == 0")
    assert loaded["spacy"] and loaded["lemminflect"], loaded  # this answer needs the parse
    assert not any(loaded[m] for m in HEAVY), loaded


def test_the_inflection_table_is_lemminflects_for_every_shipped_word():
    """scoring/patterns/inflections.json: run scripts/update_inflections.py after adding a {word}."""
    import importlib.util

    from scoring.regex import _shipped_inflections

    spec = importlib.util.spec_from_file_location("update_inflections", REPO / "scripts" / "update_inflections.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    assert _shipped_inflections() == script.table(), "run scripts/update_inflections.py"


def test_lemmas_looked_up_a_word_at_a_time_are_lemminflects():
    from lemminflect import config
    from lemminflect.codecs.LemmaLUCodec import LemmaLUCodec

    from scoring.lazy_imports import LazyLemmaTable

    whole = LemmaLUCodec.load(config.lemma_lu_fn)
    lazy = LazyLemmaTable(config.lemma_lu_fn)
    words = sorted(whole)
    sample = [*words[:50], *words[-50:], *words[::37], "", "zzzzz", "not-a-word", "naïve", "'d"]
    assert [lazy.get(w, {}) for w in sample] == [whole.get(w, {}) for w in sample]


def test_inflections_looked_up_a_word_at_a_time_are_lemminflects():
    """Every lemma of lemminflect's inflection table, with the modal and auxiliary verbs its loader
    hard-codes, reads the same a word at a time."""
    from lemminflect import config
    from lemminflect.codecs.InflectionLUCodec import InflectionLUCodec

    from scoring.lazy_imports import LazyInflectionTable

    whole = InflectionLUCodec.load(config.inflection_lu_fn)
    lazy = LazyInflectionTable(config.inflection_lu_fn)
    words = [*sorted(whole), "", "zzzzz", "not-a-word", "naïve"]
    assert len(words) > 30_000 and {"be", "can", "will"} <= set(words)
    assert [lazy.get(w, {}) for w in words] == [whole.get(w, {}) for w in words]


def test_the_warm_up_loads_the_parser_and_the_english_rules():
    """The practice engine's warm-up leaves nothing for the first answer to load: the parse of the
    warm-up text is kept and the English rules are built."""
    import threading

    import scoring
    from scoring import english, grammar

    scoring.warm_up()
    for thread in threading.enumerate():
        if thread.name == "scorer-warm-up":
            thread.join(timeout=60)
    assert english.phrase_rules.cache_info().currsize == 1
    assert grammar.WARM_TEXT in grammar._docs or len(grammar._docs) == grammar.MAX_DOCS


def test_a_library_loaded_again_adds_nothing_to_the_scorers_cache():
    """The app loads the library per page run for a signed-in learner with own cards: the parsed
    detector params are cached by their content, not per loaded object."""
    import scoring
    from coach.config import load_settings
    from coach.library import library_for

    answer = "For context, the billing export. I finished the schema. Next I'll add tests."
    cards = ("status-update", "polite-disagreement", "gpu-cluster-optimization")
    sizes = []
    for _ in range(3):
        library = library_for(load_settings())
        for card in cards:
            scoring.score(library.card(card), None, answer)
        sizes.append(len(scoring._PARSED))
    assert sizes[0] == sizes[1] == sizes[2], sizes
