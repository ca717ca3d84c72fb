"""Each learner sees only their own: every store query is scoped by the signed-in learner, so one
learner cannot read, resume, answer, correct or report another's session by its id."""

from __future__ import annotations

import io
import json
import zipfile

import pytest
import sqlalchemy as sa

from coach.access import LOCAL, learner_key, signed_in
from coach.config import load_settings
from coach.errors import SessionNotFoundError
from coach.practice import Coach
from coach.session import PracticeEngine
from coach.store import Store

ISSUER = "http://127.0.0.1:9400"
ANN = signed_in(ISSUER, "ann", "ann@example.com", "Ann")
BO = signed_in(ISSUER, "bo", "bo@example.com", "Bo")
WAV = b"RIFF" + b"\0" * 60  # only kept on disk here, never transcribed


def coach_for(store: Store, library, learner) -> Coach:
    settings = load_settings().for_learner(learner)
    return Coach(PracticeEngine(library, store.scoped(learner), settings))


@pytest.fixture
def two(database_url, library):
    store = Store(database_url)
    return coach_for(store, library, ANN), coach_for(store, library, BO)


def test_identity_is_issuer_and_subject_never_the_email():
    assert learner_key(ISSUER, "ann") != learner_key("https://other.example", "ann")
    assert signed_in(ISSUER, "ann", "x@example.com").key == signed_in(ISSUER, "ann", "y@example.com").key
    assert signed_in(ISSUER, "ann", "same@example.com").key != signed_in(ISSUER, "bo", "same@example.com").key
    with pytest.raises(ValueError):
        learner_key(ISSUER, "")


def test_a_learner_cannot_read_resume_answer_or_report_anothers_session(two):
    ann, bo = two
    mine = ann.start("status-update")
    ann.send_text(mine.id, "Context: the migration. Progress: half the tables moved.")
    theirs = bo.start("polite-disagreement")

    assert [s.id for s in ann.engine.store.list_sessions()] == [mine.id]
    assert [s.id for s in bo.engine.store.list_sessions()] == [theirs.id]
    for gesture in (lambda: bo.open(mine.id), lambda: bo.resume(mine.id), lambda: bo.open(mine.id).report(),
                    lambda: bo.send_text(mine.id, "I take over this session."), lambda: bo.end(mine.id),
                    lambda: bo.score_again(mine.id), lambda: bo.skip(mine.id)):
        with pytest.raises(SessionNotFoundError, match=f"no session '{mine.id}'"):  # as if it never existed
            gesture()
    turn = ann.open(mine.id).turns[0]
    pending = ann.open(mine.id).turns[-1]
    store = bo.engine.store
    for write in (lambda: store.save_answer(pending.id, "hijacked"), lambda: store.save_draft(pending.id, "x"),
                  lambda: store.save_scorecard(turn.id, "{}", "v"), lambda: store.mark_skipped(pending.id),
                  lambda: store.keep_revision(turn), lambda: store.keep_unused_answer(turn.id, "x"),
                  lambda: store.delete_turn(pending.id), lambda: store.finish_session(mine.id),
                  lambda: store.add_turn(mine.id, 9, "main", "question", "Mine now?")):
        with pytest.raises(SessionNotFoundError):
            write()
    assert store.turns_for([mine.id]) == {mine.id: []} and store.revisions(turn.id) == []
    again = ann.open(mine.id)  # nothing of Ann's changed
    assert [t.status for t in again.turns] == [t.status for t in ann.open(mine.id).turns]
    assert again.turns[-1].answer_text is None and again.turns[-1].draft is None and not again.finished
    assert ann.engine.latest_active() is not None and ann.engine.latest_active().id == mine.id
    assert bo.engine.latest_active().id == theirs.id


def test_the_local_learner_does_not_see_signed_in_learners(database_url, library):
    store = Store(database_url)
    ann = coach_for(store, library, ANN)
    ann.start("status-update")
    local = coach_for(store, library, LOCAL)
    assert local.engine.store.list_sessions() == [] and store.list_sessions() == []
    local.start("status-update")
    assert len(ann.engine.store.list_sessions()) == 1 and len(store.list_sessions()) == 1
    assert {row.id for row in store.learners()} == {"local", ANN.key}


def test_existing_sessions_become_the_local_learners(database_url, library):
    old = Store(database_url, migrate=False)
    old.migrate("0006_turn_version")
    with old.engine.begin() as conn:
        conn.execute(sa.text(
            "INSERT INTO practice_session (id, card_id, persona_id, status, content_version, started_at) "
            "VALUES ('s1', 'status-update', 'anya-team-lead', 'active', 'v0', CURRENT_TIMESTAMP)"))
    old.engine.dispose()
    store = Store(database_url)
    assert store.get_session("s1")[0].learner_id == "local"
    with pytest.raises(SessionNotFoundError):
        store.scoped(ANN).get_session("s1")
    from alembic import command

    with store.engine.begin() as conn:  # the migration goes back down as well
        command.downgrade(store._alembic_config(conn), "0006_turn_version")
    with store.engine.connect() as conn:
        assert conn.execute(sa.text("SELECT count(*) FROM practice_session")).scalar() == 1
        assert not sa.inspect(conn).has_table("learner")


def test_recordings_are_kept_in_the_learners_own_folder(two):
    ann, bo = two
    view = ann.start("status-update")
    path = ann.engine._keep_recording(ann.engine.load(view.id), WAV, ".wav")
    data_dir = load_settings().data_dir
    assert path.is_relative_to(data_dir / "learners" / ANN.key / "audio" / view.id)
    local = Coach(PracticeEngine(ann.library, bo.engine.store.scoped(LOCAL), load_settings()))
    local_view = local.start("status-update")
    local_path = local.engine._keep_recording(local.engine.load(local_view.id), WAV, ".wav")
    assert local_path.is_relative_to(data_dir / "audio" / local_view.id)  # where it always was


def test_delete_my_data_removes_only_that_learners_rows_and_files(two):
    ann, bo = two
    ann_view, bo_view = ann.start("status-update"), bo.start("status-update")
    ann_audio = ann.engine._keep_recording(ann.engine.load(ann_view.id), WAV, ".wav")
    bo_audio = bo.engine._keep_recording(bo.engine.load(bo_view.id), WAV, ".wav")
    ann.send_text(ann_view.id, "Context: the migration. Progress: done.")
    assert ann.forget_me() == 1
    assert ann.engine.store.list_sessions() == [] and not ann_audio.exists()
    assert not ann.settings.learner_dir.exists()
    with pytest.raises(SessionNotFoundError):
        ann.open(ann_view.id)
    assert [s.id for s in bo.engine.store.list_sessions()] == [bo_view.id] and bo_audio.exists()
    assert bo.open(bo_view.id).turns[0].audio_path == str(bo_audio)


def test_export_holds_the_learners_history_and_reports_only(two):
    ann, bo = two
    mine = ann.start("status-update")
    ann.send_text(mine.id, "Context: the migration. Progress: done. Next: the cut-over on Friday.")
    bo.start("polite-disagreement")
    archive = zipfile.ZipFile(io.BytesIO(ann.export(korean=False)))
    history = json.loads(archive.read("history.json"))
    assert [record["id"] for record in history] == [mine.id]
    reports = [name for name in archive.namelist() if name.startswith("reports/")]
    assert len(reports) == 1 and mine.id[:8] in reports[0]
    assert "the migration" in archive.read(reports[0]).decode()


@pytest.mark.slow
def test_cli_history_and_report_take_the_learner_on_a_shared_database(library, capsys):
    from coach.cli import main as coach_main

    store = Store(load_settings().database_url)  # the CLI's own database (COACH_DATA_DIR)
    ann, bo = coach_for(store, library, ANN), coach_for(store, library, BO)
    mine = ann.start("status-update")
    ann.send_text(mine.id, "Context: the migration. Progress: done.")
    theirs = bo.start("polite-disagreement")
    capsys.readouterr()

    def run(*argv: str) -> tuple[int, str, str]:
        code = coach_main(list(argv))
        out, err = capsys.readouterr()
        return code, out, err

    code, out, _ = run("history", "--format", "json", "--user", "ANN@example.com")
    assert code == 0 and [r["id"] for r in json.loads(out)] == [mine.id]
    record = json.loads(out)[0]
    assert set(record) >= {"id", "card", "persona", "started_at", "turns", "result"}  # the contract's shape
    code, out, _ = run("history", "--format", "json", "--user", "bo")
    assert [r["id"] for r in json.loads(out)] == [theirs.id]
    code, out, _ = run("history", "--format", "json", "--user", ANN.key)
    assert [r["id"] for r in json.loads(out)] == [mine.id]
    assert json.loads(run("history", "--format", "json")[1]) == []  # the local learner has none
    code, out, _ = run("report", mine.id, "--user", "ann")
    assert code == 0 and "the migration" in out
    code, out, err = run("report", mine.id, "--user", "bo")
    assert code == 2 and out == "" and err == f"coach: no session '{mine.id}'\n"
    code, _, err = run("history", "--user", "carol@example.com")
    assert code == 2 and err.startswith("coach: no learner 'carol@example.com'")


@pytest.mark.slow
def test_history_page_deletes_all_my_data_after_a_confirmation(library):
    """Single-learner mode (no sign-in): the local learner's sessions and recordings go, only
    once the checkbox confirms it."""
    from streamlit.testing.v1 import AppTest

    from tests.conftest import REPO

    settings = load_settings()
    local = Coach(PracticeEngine(library, Store(settings.database_url), settings))
    view = local.start("status-update")
    recording = local.engine._keep_recording(local.engine.load(view.id), WAV, ".wav")
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=60)
    at.session_state["audio_on"] = False
    at.run()
    at.switch_page("coach/ui/pages/history.py").run()
    assert not at.exception
    delete = next(b for b in at.button if b.label == "Delete all my data")
    assert delete.disabled  # not before the learner confirms
    next(c for c in at.checkbox if c.label == "Yes, delete all my data").check().run()
    next(b for b in at.button if b.label == "Delete all my data").click().run()
    assert not at.exception
    assert [s.value for s in at.success] == ["All your data was deleted (1 session(s) and their recordings)."]
    assert local.engine.store.list_sessions() == [] and not recording.exists()


def test_export_round_trip_holds_the_recordings_and_one_local_time(two):
    """Issue 31: the export holds each recording (the same bytes, named from its turn in
    history.json), and the report, history.json, progress.json and History's label give the
    session's start in the learner's zone, the same clock."""
    from zoneinfo import ZoneInfo

    from coach.practice import session_label

    ann, _ = two
    seoul = ZoneInfo("Asia/Seoul")
    view = ann.start("status-update")
    kept = ann.engine._keep_recording(ann.engine.load(view.id), WAV, ".wav")
    ann.send_text(view.id, "Context: the migration. Progress: done. Next: the cut-over on Friday.")
    ann.end(view.id)
    archive = zipfile.ZipFile(io.BytesIO(ann.export(korean=False, tz=seoul)))
    history = json.loads(archive.read("history.json"))
    [record] = history
    recordings = [t["recording"] for t in record["turns"] if t.get("recording")]
    assert recordings and all(name.startswith("recordings/") for name in recordings)
    assert [archive.read(name) for name in recordings] == [WAV]
    assert kept.name in recordings[0]
    assert record["at"].endswith("+09:00") and record["at"][:16] != record["started_at"][:16]
    [report] = [name for name in archive.namelist() if name.startswith("reports/")]
    text = archive.read(report).decode()
    local = record["at"][:16].replace("T", " ")
    assert f"- Started: {local} (UTC+09:00)" in text and " UTC\n" not in text
    assert json.loads(archive.read("progress.json"))["sessions"][0]["at"] == record["at"]
    label = session_label(record, ann.library, seoul)
    assert label.startswith(f"{int(local[8:10])} ") and local[11:16] in label  # History's list, the same clock
