"""Thousands of the learner's own cards (issue 29): loading the library reads none of them, a card
by id reads its one file, a listing reads each file's YAML once (then the folder's index), and
nothing is scored or parsed for grammar at load (issue 30). Calls are counted, never timed;
figures: benchmarks/scale.py."""

from __future__ import annotations

import pytest

import coach.content.loader as content
from coach.library import load_library
from coach.personal import CardSpec, render
from tests.conftest import REPO

OWN = 2_000


@pytest.fixture(scope="module")
def template(library):
    """One rendered card of each of two rubrics, to copy under many ids (rendering 2,000 is slow)."""
    return {name: render(f"my-{name}", CardSpec(name, f"How would you handle {name}?", f"My {name}", [], []), library)
            for name in ("status-update", "story")}


def write_own_cards(folder, template, count=OWN):
    folder.mkdir(parents=True, exist_ok=True)
    for number in range(count):
        name = ("status-update", "story")[number % 2]
        text = template[name].replace(f"id: my-{name}", f"id: my-q-{number}").replace(f"My {name}", f"Mine {number}")
        (folder / f"my-q-{number}.md").write_text(text, encoding="utf-8")


@pytest.fixture
def counted(monkeypatch):
    """How many card files were parsed (YAML), built (schema and detector params) and scored."""
    calls = {"yaml": 0, "built": 0, "scored": 0}
    parse, build = content._parse_markdown, content._card_of

    def counting_parse(*args, **kwargs):
        calls["yaml"] += 1
        return parse(*args, **kwargs)

    def counting_build(*args, **kwargs):
        calls["built"] += 1
        return build(*args, **kwargs)

    def no_scoring(*args, **kwargs):
        calls["scored"] += 1
        raise AssertionError("scored at load")

    import scoring

    monkeypatch.setattr(content, "_parse_markdown", counting_parse)
    monkeypatch.setattr(content, "_card_of", counting_build)
    monkeypatch.setattr(scoring, "score", no_scoring)
    monkeypatch.setattr(content, "_PARSED_FILES", type(content._PARSED_FILES)())
    return calls


def load(own):
    return load_library([REPO / "content"], [REPO / "personas"], personal_paths=[own])


def test_loading_reads_no_own_card_and_a_card_by_id_reads_one(tmp_path, template, counted):
    own = tmp_path / "cards"
    write_own_cards(own, template)
    library = load(own)
    built_in = counted["built"]
    assert built_in < 50, counted  # the built-in cards only
    assert library.card("status-update").id == "status-update" and counted["built"] == built_in
    assert library.card("my-q-1234").title == "Mine 1234"
    assert counted["built"] == built_in + 1
    assert "my-q-1999" in library.cards and "my-q-2000" not in library.cards and "nothing" not in library.cards
    assert counted["built"] == built_in + 2
    assert counted["scored"] == 0


def test_a_listing_reads_each_own_card_once_and_later_listings_read_the_index(tmp_path, template, counted):
    own = tmp_path / "cards"
    write_own_cards(own, template)
    listed = [c.id for c in load(own).cards_of_kind()]
    assert sum(i.startswith("my-q-") for i in listed) == OWN
    yaml_first = counted["yaml"]
    assert OWN <= yaml_first < OWN + 50
    assert (own / ".index.jsonl").is_file()

    content._PARSED_FILES.clear()  # a new process
    counted["yaml"] = 0
    again = load(own)
    assert [c.id for c in again.cards_of_kind()] == listed
    assert counted["yaml"] < 50, counted  # the built-in cards and personas only: own cards came from the index
    assert again.card("my-q-7").turns[0].prompt == "How would you handle story?"
    assert counted["scored"] == 0

    changed = own / "my-q-8.md"
    changed.write_text(changed.read_text(encoding="utf-8").replace("Mine 8", "Changed"), encoding="utf-8")
    content._PARSED_FILES.clear()
    counted["yaml"] = 0
    assert load(own).card("my-q-8").title == "Changed"
    assert [c.title for c in load(own).cards_of_kind() if c.id == "my-q-8"] == ["Changed"]


def test_the_process_cache_of_parsed_files_is_bounded(tmp_path, template, counted, monkeypatch):
    monkeypatch.setattr(content, "MAX_PARSED_FILES", 100)
    own = tmp_path / "cards"
    write_own_cards(own, template, 400)
    for _ in range(3):
        assert len(load(own).cards) > 400
        assert len(content._PARSED_FILES) <= 100


def test_an_own_card_is_found_by_its_file_name(tmp_path, template):
    own = tmp_path / "cards"
    write_own_cards(own, template, 2)
    (own / "my-q-1.md").rename(own / "renamed.md")
    library = load(own)
    assert "my-q-1" not in library.cards and "renamed" not in library.cards
    assert any("is not its file's name" in p.message and p.path.endswith("renamed.md") for p in library.problems)


def test_the_scorer_version_changes_with_the_scoring_code_and_patterns(tmp_path):
    """Stored with every scored turn (20 characters at most): a verdict made before a change to the
    scoring code or a pattern file says it is stale."""
    import shutil

    import scoring

    version = scoring.scorer_version()
    assert version == scoring.SCORER_VERSION and len(version) <= 20 and version.startswith(scoring.SCORER_RELEASE + "+")
    copy = tmp_path / "scoring"
    shutil.copytree(REPO / "scoring", copy, ignore=shutil.ignore_patterns("__pycache__"))
    assert scoring.code_hash(copy) == version.split("+")[1]
    (copy / "patterns" / "guards.yaml").write_text((copy / "patterns" / "guards.yaml").read_text() + "\n# x\n")
    changed = scoring.code_hash(copy)
    assert changed != version.split("+")[1]
    (copy / "detectors" / "meeting.py").write_text((copy / "detectors" / "meeting.py").read_text() + "\n")
    assert scoring.code_hash(copy) not in (changed, version.split("+")[1])


def test_scoring_own_cards_loaded_again_and_again_keeps_the_scorers_cache_bounded(tmp_path, library, monkeypatch):
    """The app loads the library per page run for a signed-in learner with own cards: each card's
    detector params are parsed once per distinct spec, and no more than MAX_PARSED_SPECS are kept."""
    import scoring

    monkeypatch.setattr(scoring, "_PARSED", type(scoring._PARSED)())
    monkeypatch.setattr(scoring, "MAX_PARSED_SPECS", 20)
    own = tmp_path / "cards"
    own.mkdir()
    for number in range(30):  # concept cards with terms of their own: a distinct key_concepts spec each
        spec = CardSpec("concept", f"Explain thing {number}?", f"Thing {number}", [f"term{number}", "cache"], [])
        (own / f"my-t-{number}.md").write_text(render(f"my-t-{number}", spec, library), encoding="utf-8")
    sizes = []
    for _ in range(3):
        loaded = load(own)
        for card in loaded.cards.values():
            if card.personal:
                scoring.score(card, None, "It trades memory for speed: about 2x faster, but costs 30% more memory.")
        sizes.append(len(scoring._PARSED))
    assert sizes == [20, 20, 20], sizes
    before = len(scoring._PARSED)
    for _ in range(3):
        scoring.score(load(own).card("my-t-29"), None, "About 2x faster.")
    assert len(scoring._PARSED) == before


def test_listing_own_cards_from_a_warm_index_builds_none_and_notices_changed_files(tmp_path, template, counted):
    """`coach cards`, the Start page and the card pickers list summaries (Library.summaries): from
    a warm index no own Card is built; a file changed, removed or broken since is noticed."""
    own = tmp_path / "cards"
    write_own_cards(own, template)
    first = [s.id for s in load(own).summaries()]  # builds each own card once and indexes its summary
    assert sum(i.startswith("my-q-") for i in first) == OWN

    content._PARSED_FILES.clear()  # a new process
    content._SUMMARIES.clear()
    counted.update(yaml=0, built=0)
    library = load(own)
    built_in = counted["built"]
    listed = library.summaries()
    assert [s.id for s in listed] == first and [c.id for c in library.cards_of_kind()] == first
    assert counted["built"] == built_in + OWN  # cards_of_kind built them; summaries() did not:
    content._PARSED_FILES.clear()
    content._SUMMARIES.clear()
    counted.update(yaml=0, built=0)
    library = load(own)
    built_in = counted["built"]
    listed = library.summaries("meeting")
    assert counted["built"] == built_in and counted["yaml"] < 50, counted
    assert {s.id for s in listed} >= {f"my-q-{n}" for n in range(0, OWN, 2)}  # the status updates
    assert library.find(None, "Mine 1234")[0].id == "my-q-1234" and counted["built"] == built_in
    assert len(library.find(None, "", ["story"])) >= OWN // 2
    assert library.card("my-q-7").title == "Mine 7" and counted["built"] == built_in + 1  # opened: built

    changed = own / "my-q-8.md"
    changed.write_text(changed.read_text(encoding="utf-8").replace("Mine 8", "Changed"), encoding="utf-8")
    (own / "my-q-9.md").unlink()
    (own / "my-q-10.md").write_text("---\nid: my-q-10\n---\nbroken\n", encoding="utf-8")
    for _ in range(2):  # this process (its caches), then a new one (the index alone)
        library = load(own)
        titles = {s.id: s.title for s in library.summaries() if s.personal}
        assert titles["my-q-8"] == "Changed" and "my-q-9" not in titles and "my-q-10" not in titles
        assert len(titles) == OWN - 2
        assert any(p.path.endswith("my-q-10.md") and "missing field" in p.message for p in library.problems)
        content._PARSED_FILES.clear()
        content._SUMMARIES.clear()


def test_a_summary_is_not_used_once_the_code_that_validated_it_changed(tmp_path, template, counted, monkeypatch):
    own = tmp_path / "cards"
    write_own_cards(own, template, 20)
    load(own).summaries()
    content._PARSED_FILES.clear()
    content._SUMMARIES.clear()
    monkeypatch.setattr(content, "_stamp", lambda check: "newer-code")
    counted.update(yaml=0, built=0)
    library = load(own)
    built_in = counted["built"]
    assert len([s for s in library.summaries() if s.personal]) == 20
    assert counted["built"] == built_in + 20 and counted["yaml"] < 50  # validated again, from the index's parse
    content._PARSED_FILES.clear()
    content._SUMMARIES.clear()
    counted.update(built=0)
    library = load(own)
    built_in = counted["built"]
    assert len([s for s in library.summaries() if s.personal]) == 20 and counted["built"] == built_in


def test_coach_cards_lists_own_cards_as_before(tmp_path, template, monkeypatch, capsys):
    """The listing's contract (DESIGN.md): the same JSON and table from summaries as from cards."""
    import json

    from coach.cli import main
    from coach.cli.content_cmds import card_summary

    own = tmp_path / "data" / "cards"
    write_own_cards(own, template, 30)
    monkeypatch.setenv("COACH_DATA_DIR", str(tmp_path / "data"))
    for _ in range(2):  # no index yet, then from the index
        assert main(["cards", "--format", "json"]) == 0
        printed = capsys.readouterr().out
        assert printed == json.dumps([card_summary(c) for c in load(own).cards_of_kind()], ensure_ascii=False,
                                     indent=2) + "\n"
    assert main(["cards", "--kind", "meeting"]) == 0
    table = capsys.readouterr().out.splitlines()
    assert len(table) == len(load(own).cards_of_kind("meeting")) and sum(t.endswith("[your own]") for t in table) == 15


@pytest.mark.slow
def test_the_start_page_with_thousands_of_own_cards_shows_a_page_of_them_and_search_finds_the_rest(template):
    """The Start page lists the learner's cards from their summaries and renders the first
    own_cards.PAGE (PAGE more at each "Show more"); the search box finds any other."""
    import os
    from pathlib import Path

    from coach.ui import own_cards
    from tests.test_app import app

    write_own_cards(Path(os.environ["COACH_DATA_DIR"]) / "cards", template)

    def rows(at):
        return [e.label for e in at.expander if e.label.startswith("✍️ Mine ")]

    at = app()
    assert not at.exception, at.exception
    assert f"#### Your own cards ({OWN})" in [m.value for m in at.markdown]
    assert len(rows(at)) == own_cards.PAGE
    at.button(key="own-more").click().run()
    assert len(rows(at)) == 2 * own_cards.PAGE
    at.text_input[0].input("Mine 1234").run()
    assert [r.split(" · ")[0] for r in rows(at)] == ["✍️ Mine 1234"]
    assert "#### Your own cards (1)" in [m.value for m in at.markdown]


def test_a_gesture_in_the_app_copies_the_library_without_reading_the_own_cards(tmp_path, template, counted):
    """`Coach._private_library` (a card made, edited or removed in the app) copies LazyCards."""
    from coach.practice import _copied

    own = tmp_path / "cards"
    write_own_cards(own, template, 200)
    library = load(own)
    built_in = counted["built"]
    copy = _copied(library.cards)
    assert counted["built"] == built_in
    assert copy["my-q-3"].title == "Mine 3" and "my-q-3" not in library.cards.read
    del copy["my-q-3"]
    assert "my-q-3" not in copy and library.cards["my-q-3"].title == "Mine 3"
    assert len([c for c in copy.values() if c.personal]) == 199
