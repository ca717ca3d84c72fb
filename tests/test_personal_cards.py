"""The learner's own cards (issue 20): `coach card new|edit|rm|list` (in this process, with a
process's stdin, stdout and environment: tests/coach_cli.py), the personal cards practised, scored,
listed, validated and removed with their sessions still readable."""

from __future__ import annotations

import json
import os
import re
import stat
from pathlib import Path

import pytest
import yaml

from coach.library import load_library
from coach.personal import RUBRICS
from tests.coach_cli import run
from tests.conftest import REPO

STORY_QUESTION = "How did you cut inference serving cost at your last job?"

QUESTIONS = {
    "story": (STORY_QUESTION, ["optimization_experience", "problem_solving", "measured_results", "teamwork",
                               "options_rejected", "reflection"]),
    "concept": ("Explain how paged attention saves KV cache memory.", ["key_concepts", "quantifies", "tradeoffs"]),
    "status-update": ("Can you tell us where the storage migration stands?",
                      ["context", "progress", "next_steps", "blocker_or_ask"]),
    "disagreement": ("Let's ship the new scheduler to every cluster on Friday. Thoughts?",
                     ["acknowledge", "softened_disagreement", "reason", "alternative", "invites_input"]),
    "clarifying": ("We need the evaluation pipeline to be enterprise-ready next sprint. Questions?",
                   ["checks_understanding", "specific_question", "polite"]),
    "summary": ("We're out of time. Can you sum up the GPU budget decisions?",
                ["signposts_summary", "decisions", "owners", "deadlines", "confirms"]),
    "speaking-up": ("That's the new on-call rota. Any first reactions?", ["opener", "contribution", "invites_input"]),
}


@pytest.fixture
def env(tmp_path):
    return {**os.environ, "COACH_DATA_DIR": str(tmp_path / "data")}


def coach(env, *args, input=None):
    return run(*args, input=input, env=env)


def new_card(env, rubric, *questions, extra=()):
    args = ["card", "new", "--rubric", rubric, *[a for q in questions for a in ("--question", q)], *extra,
            "--format", "json"]
    result = coach(env, *args)
    assert result.returncode == 0, result.stderr
    return [json.loads(line) for line in result.stdout.splitlines()]


def one_line_exit_2(result):
    assert result.returncode == 2, (result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("coach: "), result.stderr
    return lines[0]


@pytest.mark.slow
def test_every_rubric_makes_a_valid_personal_card_listed_as_personal(env, tmp_path):
    made = {}
    for rubric, (question, criteria) in QUESTIONS.items():
        extra = ["--terms", "paged attention, KV cache, memory fragmentation"] if rubric == "concept" else []
        [out] = new_card(env, rubric, question, extra=extra)
        assert set(out) >= {"id", "path", "kind", "criteria"}
        assert out["criteria"] == criteria and out["rubric"] == rubric
        assert out["kind"] == ("meeting" if rubric not in ("story", "concept") else "interview")
        path = Path(out["path"])
        assert path.parent == tmp_path / "data" / "cards" and path.is_file()
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        made[out["id"]] = question

    cards = {c["id"]: c for c in json.loads(coach(env, "cards", "--format", "json").stdout)}
    assert all(cards[card_id]["personal"] is True for card_id in made)
    assert cards["gpu-cluster-optimization"]["personal"] is False
    assert all(c["personal"] is False for cid, c in cards.items() if cid not in made)

    validate = coach(env, "validate")
    assert validate.returncode == 0, validate.stdout
    assert f"{len(cards)} cards" in validate.stdout
    files = [str(tmp_path / "data" / "cards" / f"{card_id}.md") for card_id in made]
    assert coach(env, "validate", *files).returncode == 0

    library = load_library([REPO / "content"], [REPO / "personas"], personal_paths=[tmp_path / "data" / "cards"])
    assert not library.problems
    for card_id, question in made.items():
        card = library.cards[card_id]
        assert card.personal and card.turns[0].prompt == question
    listed = json.loads(coach(env, "card", "list", "--format", "json").stdout)
    assert {c["id"] for c in listed} == set(made)


def test_issue_rubric_names_are_accepted_too(env):
    [out] = new_card(env, "experience", "Tell me about a time you made a training job cheaper.")
    assert out["rubric"] == "story"
    [out] = new_card(env, "polite-disagreement", "I think we should drop the staging cluster. Thoughts?")
    assert out["rubric"] == "disagreement"


def test_several_questions_one_card_each_and_duplicate_titles_get_unique_ids(env):
    outs = new_card(env, "story", STORY_QUESTION, "Tell me about your hardest debugging session.")
    assert len(outs) == 2 and outs[0]["id"] != outs[1]["id"]
    [again] = new_card(env, "story", STORY_QUESTION)
    assert again["id"] == outs[0]["id"] + "-2"
    [titled] = new_card(env, "concept", "What is ZeRO-3?", extra=["--title", "ZeRO"])
    [titled_again] = new_card(env, "concept", "What is ZeRO-2?", extra=["--title", "ZeRO"])
    assert titled["title"] == titled_again["title"] == "ZeRO"
    assert titled_again["id"] == titled["id"] + "-2"
    ids = [c["id"] for c in json.loads(coach(env, "card", "list", "--format", "json").stdout)]
    assert len(ids) == len(set(ids)) == 5


@pytest.mark.slow
@pytest.mark.parametrize("args, message", [
    (["--rubric", "story", "--question", ""], "empty"),
    (["--rubric", "story", "--question", "   \n  "], "empty"),
    (["--rubric", "story", "--question", "x" * 5000], "5,000 characters"),
    (["--rubric", "poem", "--question", "Why?"], "unknown rubric 'poem'"),
    (["--rubric", "story", "--question", "Why?", "--terms", "a, b"], "concept rubric"),
    (["--rubric", "story", "--question", "A?", "--question", "B?", "--title", "T"], "single --question"),
    (["--rubric", "story", "--question", "Fine?", "--question", ""], "question 2 is empty"),
    (["--rubric", "concept", "--question", "Why?", "--terms", "ok, ***"], "no letter or digit"),
    (["--rubric", "story", "--question", "Why\x1b[31m red?"], "control character"),
    (["--rubric", "story", "--question", "Why?", "--title", "  "], "the title is empty"),
])
def test_bad_input_is_one_line_exit_2_and_writes_nothing(env, tmp_path, args, message):
    line = one_line_exit_2(coach(env, "card", "new", *args, "--format", "json"))
    assert message in line
    cards = tmp_path / "data" / "cards"
    assert not cards.exists() or not list(cards.glob("*.md"))


def test_unwritable_data_dir_is_one_line_exit_2(env, tmp_path):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the data dir should be", encoding="utf-8")
    line = one_line_exit_2(coach({**env, "COACH_DATA_DIR": str(blocker)}, "card", "new", "--rubric", "story",
                                 "--question", STORY_QUESTION))
    assert "cannot write your cards" in line and "COACH_DATA_DIR" in line
    assert blocker.read_text(encoding="utf-8") == "a file where the data dir should be"


def test_korean_question_is_accepted(env):
    question = "대규모 GPU 클러스터에서 추론 비용을 어떻게 줄였나요?"
    [out] = new_card(env, "story", question)
    assert out["id"].startswith("my-")
    card = json.loads(coach(env, "card", "list", "--format", "json").stdout)[0]
    assert card["question"] == question and card["title"] == question
    text = Path(out["path"]).read_text(encoding="utf-8")
    assert question in text  # written as UTF-8, not escaped


def test_markdown_and_html_in_the_question_stay_text(env):
    question = 'Explain **KV cache** paging.\n<script>alert("x")</script> ![img](http://evil/x.png)\n## Model answers'
    [out] = new_card(env, "concept", question, extra=["--terms", "KV cache, <b>paging</b>, page_table"])
    text = Path(out["path"]).read_text(encoding="utf-8")
    front, body = text.split("\n---\n", 1)
    data = yaml.safe_load(front.removeprefix("---\n"))
    assert data["turns"][0]["prompt"] == question  # kept exactly, as a YAML string
    assert not [part for part in ("<script>", "alert(", "evil", "Explain **KV") if part in body]  # YAML only
    assert body.count("## Model answers") == 1
    assert "- **\\<b\\>paging\\</b\\>**" in body  # terms in the body are escaped
    for criterion in data["criteria"]:
        assert not re.search(r"[<>*!\[\]]", criterion["follow_ups"][0]), criterion["follow_ups"][0]
    assert coach(env, "validate").returncode == 0


@pytest.mark.slow
def test_personal_story_practised_end_to_end_then_removed_with_its_session_readable(env, library):
    [out] = new_card(env, "story", STORY_QUESTION)
    card_id = out["id"]
    strong = library.card("gpu-cluster-optimization").model_answers[0].text
    answers = ["I think it went well overall.", strong, strong, strong, strong]
    result = coach(env, "practice", "--card", card_id, input="\n".join(answers) + "\n")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert any(line.startswith("Dr. ") and STORY_QUESTION in line for line in lines)  # asked as written
    first = next(i for i, line in enumerate(lines) if line.startswith("Scorecard"))
    follow_up = next(line for line in lines[first:] if line.startswith("Dr. "))
    assert '"How did you cut inference serving cost at your last job"' in follow_up  # the follow-up quotes it
    assert "Criteria met: 6 of 6" in result.stdout

    score = coach(env, "score", "--card", card_id, "--text", strong, "--format", "json")
    assert score.returncode == 0, score.stderr
    scored = json.loads(score.stdout)
    assert scored["card"] == card_id and all(v["met"] for v in scored["criteria"].values())

    [session] = json.loads(coach(env, "history", "--format", "json").stdout)
    assert session["card"] == card_id and session["result"]["met"] == 6 == session["result"]["of"]

    removed = coach(env, "card", "rm", card_id)
    assert removed.returncode == 0, removed.stderr
    cards = {c["id"] for c in json.loads(coach(env, "cards", "--format", "json").stdout)}
    assert card_id not in cards
    [after] = json.loads(coach(env, "history", "--format", "json").stdout)
    assert after["result"] == session["result"] and after["turns"] == session["turns"]
    report = coach(env, "report", session["id"])
    assert report.returncode == 0, report.stderr
    assert STORY_QUESTION in report.stdout and "6 of 6" in report.stdout
    assert "was removed" in one_line_exit_2(coach(env, "score", "--card", card_id, "--text", strong))
    assert "was removed" in one_line_exit_2(coach(env, "practice", "--card", card_id, input=""))
    [fresh] = new_card(env, "story", STORY_QUESTION)
    assert fresh["id"] != card_id  # a removed card's id, which its sessions name, is not given again


def test_concept_card_scores_the_learners_terms(env):
    [out] = new_card(env, "concept", "Explain how paged attention saves KV cache memory.",
                     extra=["--terms", "paged attention, KV cache, memory fragmentation, block table"])
    good = ("Paged attention stores the KV cache in fixed-size blocks, like pages, and a block table maps each "
            "sequence to its blocks. That removes memory fragmentation, so we fit about 2x more sequences. "
            "The cost is an extra lookup in the kernel, but compared with contiguous allocation it wastes far "
            "less memory.")
    result = coach(env, "score", "--card", out["id"], "--text", good, "--format", "json")
    assert result.returncode == 0, result.stderr
    criteria = json.loads(result.stdout)["criteria"]
    assert criteria["key_concepts"]["met"] and criteria["quantifies"]["met"] and criteria["tradeoffs"]["met"]
    assert all(e in good for c in criteria.values() for e in c["evidence"])
    weak = json.loads(coach(env, "score", "--card", out["id"], "--text", "It is a clever trick.").stdout)
    assert not any(c["met"] for c in weak["criteria"].values())


@pytest.mark.slow
def test_meeting_move_practised_with_follow_ups(env, library):
    [out] = new_card(env, "status-update", "Tomorrow I have to tell the team my migration slips two weeks.")
    strong = library.card("status-update").model_answers[0].text
    result = coach(env, "practice", "--card", out["id"], input="\n".join(["Um, it's going okay.", strong, strong,
                                                                       strong]) + "\n")
    assert result.returncode == 0, result.stderr
    assert "Tomorrow I have to tell the team my migration slips two weeks." in result.stdout
    assert result.stdout.count("Scorecard") >= 2  # the weak answer got a follow-up
    assert "Criteria met: 4 of 4" in result.stdout


@pytest.mark.slow
def test_edit_keeps_the_id_and_refuses_built_in_cards(env):
    [out] = new_card(env, "concept", "What is tensor parallelism?", extra=["--terms", "all-reduce"])
    edited = coach(env, "card", "edit", out["id"], "--question", "What is sequence parallelism?",
                   "--terms", "all-gather, reduce-scatter", "--format", "json")
    assert edited.returncode == 0, edited.stderr
    assert json.loads(edited.stdout)["id"] == out["id"]
    [card] = json.loads(coach(env, "card", "list", "--format", "json").stdout)
    assert card["question"] == "What is sequence parallelism?" and card["title"] == "What is tensor parallelism?"
    text = Path(out["path"]).read_text(encoding="utf-8")
    assert "reduce-scatter" in text and "all-reduce" not in text
    assert "built-in card" in one_line_exit_2(coach(env, "card", "edit", "status-update", "--title", "x"))
    assert "built-in card" in one_line_exit_2(coach(env, "card", "rm", "gpu-cluster-optimization"))
    assert "unknown card" in one_line_exit_2(coach(env, "card", "rm", "my-nothing"))
    assert "empty" in one_line_exit_2(coach(env, "card", "edit", out["id"], "--question", " "))
    assert Path(out["path"]).read_text(encoding="utf-8") == text  # a refused edit changes nothing


@pytest.mark.slow
def test_a_broken_personal_file_is_reported_and_skipped(env, tmp_path):
    [out] = new_card(env, "story", STORY_QUESTION)
    broken = tmp_path / "data" / "cards" / "my-broken.md"
    text = Path(out["path"]).read_text(encoding="utf-8").replace(f"id: {out['id']}", "id: my-broken")
    broken.write_text(text.replace("kind: interview", "kind: podcast"), encoding="utf-8")
    clash = tmp_path / "data" / "cards" / "my-clash.md"
    clash.write_text(Path(out["path"]).read_text(encoding="utf-8").replace(f"id: {out['id']}", "id: status-update"),
                     encoding="utf-8")
    validate = coach(env, "validate")
    assert validate.returncode == 1
    assert f"{broken}:3: kind:" in validate.stdout
    assert f"{clash}:2: duplicate card id 'status-update'" in validate.stdout
    listing = coach(env, "cards", "--format", "json")
    assert listing.returncode == 0 and "my-broken" in listing.stderr
    cards = {c["id"]: c for c in json.loads(listing.stdout)}
    assert cards[out["id"]]["personal"] and not cards["status-update"]["personal"] and "my-broken" not in cards
    assert coach(env, "card", "rm", "my-broken").returncode == 0  # the learner's file, even broken
    assert not broken.exists()


def test_readme_lists_every_command():
    from coach.cli import build_parser

    readme = (REPO / "README.md").read_text(encoding="utf-8")
    table = readme.split("## The `coach` command", 1)[1].split("\n## ", 1)[0]
    parser = build_parser()
    commands = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction").choices
    for name, sub in commands.items():
        assert f"`coach {name}" in table, f"README's command table does not list `coach {name}`"
        for action in sub._actions:
            if action.__class__.__name__ == "_SubParsersAction":
                for child in action.choices:
                    assert f"coach {name} {child}" in table, f"README's command table lacks `coach {name} {child}`"
    assert all(name in table for name in RUBRICS)


CONCEPT_ANSWER = ("Paged attention stores the KV cache in fixed-size blocks, and a block table maps each sequence to "
                  "its blocks. That removes memory fragmentation, so we fit about 2x more sequences. The cost is an "
                  "extra lookup in the kernel, but compared with contiguous allocation it wastes far less memory.")


@pytest.mark.slow
@pytest.mark.parametrize("rubric", list(QUESTIONS))
def test_each_rubric_practised_to_the_end_then_removed_with_history_readable(rubric, library, tmp_path):
    """In the engine: a weak answer gets a follow-up, a strong one meets every criterion, the
    session is in History, and it still loads and reports once the card is removed."""
    from coach import personal
    from coach.config import load_settings
    from coach.library import library_for
    from coach.report import history
    from coach.session import PracticeEngine
    from coach.store import open_store

    settings = load_settings()
    lib = library_for(settings)
    terms = "paged attention, KV cache, memory fragmentation, block table" if rubric == "concept" else None
    [made] = personal.create(lib, settings, rubric, [QUESTIONS[rubric][0]], terms=terms)
    template = personal.RUBRICS[rubric].template
    strong = CONCEPT_ANSWER if template is None else library.card(template).model_answers[0].text
    engine = PracticeEngine(lib, open_store(settings.database_url), settings)
    view = engine.start(made.card.id)
    assert QUESTIONS[rubric][0] in view.pending.prompt
    weak = engine.submit(view.id, "Okay, sounds good to me.", turn_pk=view.pending.id)
    assert not weak.finished and weak.next_prompt
    result = engine.submit(view.id, strong, turn_pk=weak.pending_turn)
    assert result.result.met == result.result.of == len(QUESTIONS[rubric][1]), result.result.to_json()
    while not result.finished:
        result = engine.submit(view.id, strong, turn_pk=result.pending_turn)
    [record] = history(engine.store, library=lib)
    assert record["card"] == made.card.id and record["result"]["met"] == record["result"]["of"]

    personal.remove(lib, settings, made.card.id)
    again = library_for(settings)
    assert made.card.id not in again.cards and made.card.id in again.removed
    [after] = history(engine.store, library=again)
    assert after["result"] == record["result"]
    assert PracticeEngine(again, engine.store, settings).load(view.id).card.title == made.card.title
