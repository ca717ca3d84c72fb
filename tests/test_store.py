"""Storage: named migrations in place, and clear messages when the database misbehaves."""

from __future__ import annotations

import os
import sqlite3
import stat

import pytest
import sqlalchemy as sa

from coach.errors import StorageError
from coach.store import Store


def test_blank_database_is_migrated_to_head(database_url):
    store = Store(database_url)
    assert store.revision() == "0007_learner"
    Store(database_url)  # opening again is a no-op


def test_upgrade_from_the_previous_schema_keeps_data(database_url):
    old = Store(database_url, migrate=False)
    old.migrate("0001_initial")
    with old.engine.begin() as conn:
        conn.execute(sa.text(
            "INSERT INTO practice_session (id, card_id, persona_id, status, content_version, started_at) "
            "VALUES ('s1', 'status-update', 'anya-team-lead', 'active', 'v0', CURRENT_TIMESTAMP)"))
        conn.execute(sa.text(
            "INSERT INTO turn (session_id, position, turn_id, kind, prompt, answer_text, status, created_at) "
            "VALUES ('s1', 0, 'main', 'question', 'Quick update?', 'I finished it.', 'answered', CURRENT_TIMESTAMP)"))
    old.engine.dispose()
    store = Store(database_url)
    assert store.revision() == "0007_learner"
    row, turns = store.get_session("s1")
    assert not hasattr(row, "mode") and turns[0].answer_text == "I finished it." and turns[0].audio_path is None
    store.save_answer(turns[0].id, None, audio_path="/tmp/x.wav")
    assert store.get_session("s1")[1][0].audio_path == "/tmp/x.wav"


def test_migrations_are_recorded(database_url):
    store = Store(database_url)
    with store.engine.connect() as conn:
        assert conn.execute(sa.text("SELECT version_num FROM alembic_version")).scalar() == "0007_learner"


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores file permissions")
def test_read_only_database_file_gives_a_clear_message(tmp_path):  # pragma: no cover - root in CI
    path = tmp_path / "ro.db"
    Store(f"sqlite:///{path}")
    path.chmod(stat.S_IRUSR)
    with pytest.raises(StorageError, match="read-only"):
        Store(f"sqlite:///{path}").create_session("c", "p", "v")


def test_read_only_database_gives_a_clear_message(tmp_path):
    path = tmp_path / "ro.db"
    Store(f"sqlite:///{path}")
    store = Store(f"sqlite:///file:{path}?mode=ro&uri=true", migrate=False)
    with pytest.raises(StorageError, match="read-only"):
        store.create_session("status-update", "anya-team-lead", "v1")


def test_locked_database_gives_a_clear_message_and_keeps_data(tmp_path):
    path = tmp_path / "locked.db"
    store = Store(f"sqlite:///{path}", busy_timeout_s=0.2)
    session = store.create_session("status-update", "anya-team-lead", "v1")
    turn = store.add_turn(session.id, 0, "main", "question", "Quick update?")
    holder = sqlite3.connect(path)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(StorageError, match="busy or locked"):
            store.save_answer(turn.id, "I finished the schema.")
    finally:
        holder.rollback()
        holder.close()
    store.save_answer(turn.id, "I finished the schema.")
    assert store.get_session(session.id)[1][0].answer_text == "I finished the schema."


def test_unwritable_data_dir_gives_a_clear_message(tmp_path):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("x")
    with pytest.raises(StorageError, match="cannot create the data folder"):
        Store(f"sqlite:///{blocker}/sub/db.sqlite")


def test_a_database_upgraded_to_the_turn_versions_first_name_is_rechained(database_url):
    """The turn-version migration was first 0004_turn_version (after 0003); a database upgraded
    to it goes on through 0004_drop_unused and 0005_turn_draft, and keeps its versions."""
    old = Store(database_url, migrate=False)
    old.migrate("0003_answer_revisions")
    with old.engine.begin() as conn:
        conn.execute(sa.text("ALTER TABLE turn ADD COLUMN version INTEGER NOT NULL DEFAULT 0"))
        conn.execute(sa.text(
            "ALTER TABLE answer_revision ADD COLUMN reason VARCHAR(20) NOT NULL DEFAULT 'corrected'"))
        conn.execute(sa.text("UPDATE alembic_version SET version_num = '0004_turn_version'"))
        conn.execute(sa.text(
            "INSERT INTO practice_session (id, card_id, persona_id, mode, status, content_version, started_at) "
            "VALUES ('s1', 'status-update', 'anya-team-lead', 'text', 'active', 'v0', CURRENT_TIMESTAMP)"))
        conn.execute(sa.text(
            "INSERT INTO turn (session_id, position, turn_id, kind, prompt, status, created_at, version) "
            "VALUES ('s1', 0, 'main', 'question', 'Quick update?', 'pending', CURRENT_TIMESTAMP, 3)"))
    old.engine.dispose()
    store = Store(database_url)
    assert store.revision() == "0007_learner"
    turn = store.get_session("s1")[1][0]
    assert turn.version == 3 and turn.draft is None
    assert store.save_answer(turn.id, "Done.", expected_version=3).version == 4
