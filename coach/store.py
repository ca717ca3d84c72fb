"""Storage: sqlmodel tables and queries. SQLite under the data dir by default; any SQLAlchemy
URL (PostgreSQL included) through COACH_DATABASE_URL. The schema is kept by named Alembic
migrations (coach/migrations/versions), applied in place when a store opens.

Every write commits at once: an answer is on disk before anything is done with it.
"""

from __future__ import annotations

import copy
import os
import sqlite3
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.exc import NoSuchModuleError, SQLAlchemyError
from sqlmodel import Field, Session, SQLModel, col, create_engine, select

from coach.access import LOCAL_KEY, Learner
from coach.errors import (
    ConcurrentAnswerError,
    DatabaseDamagedError,
    SessionNotFoundError,
    StorageError,
    TurnPositionTakenError,
)

MIGRATIONS = Path(__file__).resolve().parent / "migrations"


def utcnow() -> datetime:
    return datetime.now(UTC)



class TurnKind(StrEnum):
    """What a prompt is: the card's question, a follow-up on what was missing, the same
    question asked again after a refused answer, or the request to retell the whole answer."""

    QUESTION = "question"
    FOLLOW_UP = "follow-up"
    RETRY = "retry"
    RETELL = "retell"


class TurnStatus(StrEnum):
    """Where a turn stands: asked; answered (saved, not scored yet); scored; failed (scoring
    failed, the answer is kept); skipped; refused (too long: kept, never scored)."""

    ASKED = "asked"
    ANSWERED = "answered"
    SCORED = "scored"
    FAILED = "failed"
    SKIPPED = "skipped"
    REFUSED = "refused"

class LearnerRow(SQLModel, table=True):
    """Whose sessions: a signed-in identity (issuer and subject; email and name are only shown),
    or the local learner of a single-learner install (id `local`)."""

    __tablename__ = "learner"
    __table_args__ = (sa.UniqueConstraint("issuer", "subject", name="uq_learner_identity"),)

    id: str = Field(primary_key=True, max_length=32)
    issuer: str = Field(sa_type=sa.Text)
    subject: str = Field(sa_type=sa.Text)
    email: str | None = Field(default=None, sa_type=sa.Text)
    name: str | None = Field(default=None, sa_type=sa.Text)
    created_at: datetime = Field(default_factory=utcnow, sa_type=sa.DateTime(timezone=True))


class PracticeSession(SQLModel, table=True):
    __tablename__ = "practice_session"

    id: str = Field(default_factory=lambda: uuid.uuid4().hex, primary_key=True, max_length=32)
    learner_id: str = Field(default=LOCAL_KEY, foreign_key="learner.id", index=True, max_length=32)
    card_id: str = Field(max_length=100, index=True)
    persona_id: str = Field(max_length=100)
    status: str = Field(default="active", max_length=20)  # active | finished
    content_version: str = Field(max_length=20)
    started_at: datetime = Field(default_factory=utcnow, sa_type=sa.DateTime(timezone=True), index=True)
    finished_at: datetime | None = Field(default=None, sa_type=sa.DateTime(timezone=True))


class Turn(SQLModel, table=True):
    """One prompt of a session and, once given, its answer and scorecard."""

    __table_args__ = (sa.UniqueConstraint("session_id", "position", name="uq_turn_session_position"),)

    id: int | None = Field(default=None, primary_key=True)
    session_id: str = Field(foreign_key="practice_session.id", index=True, max_length=32)
    position: int
    turn_id: str = Field(max_length=100)
    kind: str = Field(max_length=20)  # a TurnKind
    criterion: str | None = Field(default=None, max_length=100)
    prompt: str = Field(sa_type=sa.Text)
    answer_text: str | None = Field(default=None, sa_type=sa.Text)
    audio_path: str | None = Field(default=None, sa_type=sa.Text)
    transcript_json: str | None = Field(default=None, sa_type=sa.Text)
    draft: str | None = Field(default=None, sa_type=sa.Text)  # typed for the pending turn, not sent yet
    scorecard_json: str | None = Field(default=None, sa_type=sa.Text)
    scorer_version: str | None = Field(default=None, max_length=20)
    llm_json: str | None = Field(default=None, sa_type=sa.Text)
    status: str = Field(default=TurnStatus.ASKED, max_length=20)  # a TurnStatus
    error: str | None = Field(default=None, sa_type=sa.Text)
    created_at: datetime = Field(default_factory=utcnow, sa_type=sa.DateTime(timezone=True))
    answered_at: datetime | None = Field(default=None, sa_type=sa.DateTime(timezone=True))
    scored_at: datetime | None = Field(default=None, sa_type=sa.DateTime(timezone=True))
    # Bumped by every write; a writer that read version N writes only where it is still N, so
    # two writers answering the same prompt cannot both win (the later one is refused).
    version: int = Field(default=0, sa_column_kwargs={"server_default": "0"})


class AnswerRevision(SQLModel, table=True):
    """An earlier version of a turn's answer, replaced by "correct and re-score"."""

    __tablename__ = "answer_revision"

    id: int | None = Field(default=None, primary_key=True)
    turn_id: int = Field(foreign_key="turn.id", index=True)
    answer_text: str = Field(sa_type=sa.Text)
    transcript_json: str | None = Field(default=None, sa_type=sa.Text)
    scorecard_json: str | None = Field(default=None, sa_type=sa.Text)
    created_at: datetime = Field(default_factory=utcnow, sa_type=sa.DateTime(timezone=True))
    # "corrected" (replaced by correct-and-re-score), "concurrent" (an answer refused because
    # another window or process answered the same prompt first; never scored) or "continued"
    # (hands-free, the learner went on after the turn was taken as over: the whole answer replaced it)
    reason: str = Field(default="corrected", max_length=20, sa_column_kwargs={"server_default": "corrected"})


# Revisions renamed when two lines of work were merged: a database upgraded to the old name
# goes on from where that revision now sits in the chain (its migration skips what exists).
RECHAINED = {"0004_turn_version": "0003_answer_revisions"}


def _rechain(connection: sa.Connection) -> None:
    if not sa.inspect(connection).has_table("alembic_version"):
        return
    for old, new in RECHAINED.items():
        connection.execute(sa.text("UPDATE alembic_version SET version_num = :new WHERE version_num = :old"),
                           {"new": new, "old": old})


def normalise_url(url: str) -> str:
    """PostgreSQL URLs use psycopg 3, the driver the project installs."""
    for prefix in ("postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


def private_dir(path: Path) -> Path:
    """A folder for the user's data, made readable by its owner only (0700)."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    return path


def write_private(path: Path, data: bytes) -> None:
    """Write a new file that only its owner can read (0600)."""
    handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(handle, "wb") as out:
        out.write(data)


def damaged(path: str, why: str) -> DatabaseDamagedError:
    return DatabaseDamagedError(
        f"the database file {path} is damaged ({why}) and was left untouched: move it aside "
        f"(mv '{path}' '{path}.damaged') and a fresh, empty one will be made on the next start"
    )


def _check_sqlite_file(path: Path) -> None:
    """Refuse a file that is not a healthy SQLite database before anything writes beside it
    (opening it read-write would add a -wal file, and a migration would try to write)."""
    if not path.is_file() or path.stat().st_size == 0:
        return
    try:
        connection = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            verdict = connection.execute("PRAGMA quick_check(1)").fetchone()[0]
        finally:
            connection.close()
    except sqlite3.DatabaseError as exc:
        text = str(exc)
        if "not a database" in text or "malformed" in text or "encrypted" in text:
            raise damaged(str(path), text) from None
        return  # locked, unreadable...: the engine reports those in its own words
    if verdict != "ok":
        raise damaged(str(path), "SQLite quick_check: " + verdict.splitlines()[-1].strip())


def _read_only_folder(folder: Path) -> bool:
    try:
        return bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
    except OSError:
        return False


CONNECT_TIMEOUT_S = 10  # a database address that accepts and never answers: one line, not minutes
STATEMENT_TIMEOUT_S = 30  # one statement on a database server (a lock never released, a stuck server)


def _server_timeouts(url: str) -> dict:
    """Connect and statement timeouts for a PostgreSQL server, unless the URL sets its own."""
    if not url.startswith("postgresql"):
        return {}
    query = sa.engine.make_url(url).query
    args: dict = {}
    if "connect_timeout" not in query:
        args["connect_timeout"] = CONNECT_TIMEOUT_S
    if "options" not in query:
        args["options"] = f"-c statement_timeout={STATEMENT_TIMEOUT_S * 1000}"
    return args


def _storage_error(exc: Exception, url: str = "", read_only: Path | None = None) -> StorageError:
    text = str(exc).lower()
    if "password authentication failed" in text or "no password supplied" in text:
        return StorageError("the database refused the user name or password in COACH_DATABASE_URL")
    if "timeout expired" in text or "connection timeout" in text or "timed out" in text:
        return StorageError(f"the database server did not answer within {CONNECT_TIMEOUT_S} s; "
                            "check COACH_DATABASE_URL (is the server up, and is that its address?)")
    if "statement timeout" in text:
        return StorageError(f"the database server did not finish a query within {STATEMENT_TIMEOUT_S} s; "
                            "try again in a moment")
    if url.startswith("sqlite:///") and ("malformed" in text or "not a database" in text):
        return damaged(url.split("///", 1)[1], str(exc.args[0] if exc.args else exc).splitlines()[0])
    if "locked" in text or "busy" in text:
        return StorageError("the database is busy or locked by another program; try again in a moment")
    if ("readonly" in text or "read-only" in text or "attempt to write" in text) and read_only is not None:
        return StorageError(f"the database {read_only} is on a read-only file system: past sessions can be "
                            "read, but nothing can be saved; give COACH_DATA_DIR a writable folder to practise")
    if "readonly" in text or "read-only" in text or "attempt to write" in text:
        return StorageError("the database is read-only; check COACH_DATA_DIR or the file's permissions")
    if "unable to open" in text or "could not connect" in text or "connection refused" in text:
        return StorageError("cannot open the database; check COACH_DATABASE_URL or COACH_DATA_DIR")
    return StorageError(f"database error: {str(exc).splitlines()[0]}")


class Store:
    def __init__(self, url: str, *, migrate: bool = True, busy_timeout_s: float = 10.0):
        self.url = normalise_url(url)
        self.is_sqlite = self.url.startswith("sqlite")
        self.learner = LOCAL_KEY  # whose sessions the queries read and write (see `scoped`)
        self.read_only_path: Path | None = None  # a SQLite file on a read-only file system
        try:
            if self.is_sqlite:
                self._prepare_sqlite_file()
                self.engine = create_engine(
                    self._engine_url(), connect_args={"timeout": busy_timeout_s, "check_same_thread": False})
                event.listen(self.engine, "connect", _sqlite_pragmas)
            else:
                self.engine = create_engine(self.url, pool_pre_ping=True, connect_args=_server_timeouts(self.url))
        except (ImportError, NoSuchModuleError) as exc:
            scheme = self.url.split(":", 1)[0]
            raise StorageError(
                f"COACH_DATABASE_URL uses {scheme!r}, whose database driver is not installed ({exc}); "
                "use sqlite:///path/to/file.db, or postgresql://… after `pip install -e .[postgres]`"
            ) from None
        self._file: tuple[Path, int, int] | None = None  # the SQLite file opened: path, device, inode
        if migrate and self.read_only_path is None:
            self.migrate()
        elif migrate:
            self._check_read_only_schema()
        self._remember_file()

    def _engine_url(self) -> str:
        """The SQLite URL to open: an existing file on a read-only file system (a read-only
        mount, a CD, a snapshot) is opened immutable, so its history can still be read (SQLite
        would otherwise need to write its -shm file beside it and say it "cannot open" it)."""
        path = self._sqlite_path()
        if path is None or not path.is_file() or not _read_only_folder(path.parent):
            return self.url
        self.read_only_path = path
        return f"sqlite:///{path.as_uri()}?mode=ro&immutable=1&uri=true".replace("sqlite:///file://", "sqlite:///file:")

    def _check_read_only_schema(self) -> None:
        from alembic.script import ScriptDirectory

        head = ScriptDirectory.from_config(self._alembic_config(None)).get_current_head()
        try:
            current = self.revision()
        except SQLAlchemyError as exc:
            raise _storage_error(exc, self.url, self.read_only_path) from exc
        if current != head:
            raise StorageError(f"the database {self.read_only_path} is on a read-only file system and needs an "
                               "upgrade first: open it once where it can be written")

    def _remember_file(self) -> None:
        if self.is_sqlite and (path := self._sqlite_path()) is not None and path.exists():
            status = path.stat()
            self._file = (path, status.st_dev, status.st_ino)

    def _sqlite_path(self) -> Path | None:
        url = sa.engine.make_url(self.url)
        if not url.database or url.database == ":memory:" or url.query.get("uri") == "true":
            return None
        return Path(url.database).resolve()

    def check_file(self) -> None:
        """StorageError when the SQLite file this store opened was deleted or replaced since:
        its open connections would go on writing into a file nobody can open again."""
        if self._file is None:
            return
        path, device, inode = self._file
        try:
            status = path.stat()
            same = (status.st_dev, status.st_ino) == (device, inode)
        except OSError:
            same = False
        if not same:
            raise StorageError(
                f"the database file {path} was deleted or replaced while Rehearse was running, so nothing "
                "more can be saved: put the file back, or restart Rehearse to start a new, empty one")

    def _prepare_sqlite_file(self) -> None:
        """Check an existing file, or create it (and its folder) for its owner only: SQLite
        gives the -wal and -shm files the database file's permissions."""
        url = sa.engine.make_url(self.url)
        if not url.database or url.database == ":memory:" or url.query.get("uri") == "true":
            return  # in memory, or a `file:` URI the caller opens as it says
        path = Path(url.database)
        try:
            private_dir(path.parent)
        except OSError as exc:
            raise StorageError(f"cannot create the data folder {path.parent}: {exc.strerror}") from None
        _check_sqlite_file(path)
        try:
            write_private(path, b"")
        except OSError:
            pass  # it exists, or the folder is read-only (the engine's error says so on writing)

    # --- schema -----------------------------------------------------------------------

    def _alembic_config(self, connection):
        from alembic.config import Config

        config = Config()
        config.set_main_option("script_location", str(MIGRATIONS))
        config.attributes["connection"] = connection
        return config

    def migrate(self, revision: str = "head") -> None:
        """Upgrade the schema in place to `revision` (each migration is named and recorded)."""
        from alembic import command

        try:
            with self.engine.connect() as connection:
                if self.is_sqlite:  # a migration may rebuild a table others point at (batch mode)
                    connection.exec_driver_sql("PRAGMA foreign_keys=OFF")
                    connection.commit()
                with connection.begin():
                    _rechain(connection)
                    command.upgrade(self._alembic_config(connection), revision)
                if self.is_sqlite:
                    connection.exec_driver_sql("PRAGMA foreign_keys=ON")
                    connection.commit()
        except SQLAlchemyError as exc:
            raise _storage_error(exc, self.url, self.read_only_path) from exc

    def revision(self) -> str | None:
        from alembic.runtime.migration import MigrationContext

        with self.engine.connect() as connection:
            return MigrationContext.configure(connection).get_current_revision()

    # --- whose data ----------------------------------------------------------------------

    def scoped(self, learner: Learner) -> Store:
        """This store as one learner sees it: every query below reads and writes only their
        sessions (and those sessions' turns and answers). It shares the engine, so it is cheap
        to make on every page run, and never cached between visitors."""
        scoped = copy.copy(self)
        scoped.learner = learner.key
        if not learner.is_local:
            scoped.remember_learner(learner)
        return scoped

    def remember_learner(self, learner: Learner) -> None:
        """Add the signed-in learner's row on their first visit; keep their email and name current."""
        with self._session() as db:
            row = db.get(LearnerRow, learner.key)
            if row is None:
                row = LearnerRow(id=learner.key, issuer=learner.issuer, subject=learner.subject)
            elif (row.email, row.name) == (learner.email, learner.name):
                return
            row.email, row.name = learner.email, learner.name
            db.add(row)
            try:
                db.commit()
            except sa.exc.IntegrityError:  # another replica added them at the same moment
                db.rollback()

    def learners(self) -> list[LearnerRow]:
        """Every learner with a row (the CLI's --user looks them up here)."""
        with self._session() as db:
            return list(db.exec(select(LearnerRow).order_by(col(LearnerRow.created_at))).all())

    def _owned_sessions(self):
        return select(PracticeSession.id).where(PracticeSession.learner_id == self.learner)

    def _owned_turns(self):
        return select(Turn.id).where(col(Turn.session_id).in_(self._owned_sessions()))

    def _own_session(self, db: Session, session_id: str) -> PracticeSession:
        """The learner's session; another learner's is as absent as one that never existed."""
        row = db.get(PracticeSession, session_id)
        if row is None or row.learner_id != self.learner:
            raise SessionNotFoundError(f"no session {session_id!r}")
        return row

    def _own_turn(self, db: Session, turn_pk: int) -> Turn:
        row = db.get(Turn, turn_pk)
        if row is None:
            raise SessionNotFoundError(f"turn {turn_pk} does not exist")
        self._own_session(db, row.session_id)
        return row

    # --- writes and reads ---------------------------------------------------------------

    @contextmanager
    def _session(self) -> Iterator[Session]:
        self.check_file()
        try:
            with Session(self.engine, expire_on_commit=False) as session:
                yield session
        except SQLAlchemyError as exc:
            raise _storage_error(exc, self.url, self.read_only_path) from exc

    def create_session(self, card_id: str, persona_id: str, content_version: str) -> PracticeSession:
        row = PracticeSession(card_id=card_id, persona_id=persona_id, content_version=content_version,
                              learner_id=self.learner)
        with self._session() as db:
            db.add(row)
            db.commit()
        return row

    def start_session(self, card_id: str, persona_id: str, content_version: str,
                      first_turn: Callable[[str], dict]) -> tuple[PracticeSession, Turn]:
        """A new session and its first prompt (`first_turn`: the session id -> the Turn's fields),
        written in one transaction: a failure (a full disk) leaves neither, never a session with
        no question."""
        row = PracticeSession(card_id=card_id, persona_id=persona_id, content_version=content_version,
                              learner_id=self.learner)
        with self._session() as db:
            db.add(row)
            db.flush()  # the session row first: the turn points at it
            turn = Turn(session_id=row.id, position=0, **first_turn(row.id))
            db.add(turn)
            db.commit()
        return row, turn

    def add_turn(self, session_id: str, position: int, turn_id: str, kind: str, prompt: str,
                 criterion: str | None = None, llm_json: str | None = None) -> Turn:
        """A new prompt at `position`; TurnPositionTakenError when another writer put one there first."""
        with self._session() as db:
            self._own_session(db, session_id)
        row = Turn(session_id=session_id, position=position, turn_id=turn_id, kind=kind,
                   prompt=prompt, criterion=criterion, llm_json=llm_json)
        self.check_file()
        try:
            with Session(self.engine, expire_on_commit=False) as db:
                db.add(row)
                db.commit()
        except sa.exc.IntegrityError as exc:
            if "foreign key" in str(exc).lower():
                raise SessionNotFoundError(f"no session {session_id!r}") from None
            raise TurnPositionTakenError(f"the session already has a prompt at position {position}") from None
        except SQLAlchemyError as exc:
            raise _storage_error(exc, self.url, self.read_only_path) from exc
        return row

    def _update_turn(self, turn_pk: int, expected_version: int | None = None, **values) -> Turn:
        """One UPDATE that bumps the turn's version; with `expected_version`, only where the turn
        is still at that version (ConcurrentAnswerError when another writer changed it first)."""
        query = sa.update(Turn).where(col(Turn.id) == turn_pk, col(Turn.session_id).in_(self._owned_sessions()))
        if expected_version is not None:
            query = query.where(col(Turn.version) == expected_version)
        query = query.values(**values, version=col(Turn.version) + 1)
        with self._session() as db:
            changed = db.connection().execute(query).rowcount  # a Connection gives the CursorResult
            db.commit()
            row = self._own_turn(db, turn_pk)
            if not changed:
                raise ConcurrentAnswerError(f"turn {turn_pk} was changed by another writer")
            db.refresh(row)
            return row

    def save_answer(self, turn_pk: int, text: str | None, *, audio_path: str | None = None,
                    transcript_json: str | None = None, expected_version: int | None = None) -> Turn:
        values = {"status": TurnStatus.ANSWERED, "answered_at": utcnow(), "error": None}
        if text is not None:
            values["answer_text"] = text
        if audio_path is not None:
            values["audio_path"] = audio_path
        if transcript_json is not None:
            values["transcript_json"] = transcript_json
        return self._update_turn(turn_pk, expected_version, **values)

    def get_turn(self, turn_pk: int) -> Turn:
        with self._session() as db:
            return self._own_turn(db, turn_pk)

    def replace_transcript(self, turn_pk: int, expected: str, transcript_json: str) -> bool:
        """The turn's transcript with something added to it (its pronunciation result), only
        where it is still `expected` (not where another recording replaced it meanwhile); False
        when it was not. The version is not bumped: nothing another writer read changes."""
        query = (sa.update(Turn)
                 .where(col(Turn.id) == turn_pk, col(Turn.session_id).in_(self._owned_sessions()),
                        col(Turn.transcript_json) == expected)
                 .values(transcript_json=transcript_json))
        with self._session() as db:
            changed = db.connection().execute(query).rowcount
            db.commit()
            return bool(changed)

    def save_draft(self, turn_pk: int, text: str) -> Turn:
        """What is typed for a turn not answered yet; its status does not change. A draft is not
        an answer, so its version is not bumped: a tab typing never makes another writer's
        answer to the turn lose its race (see `_update_turn`)."""
        with self._session() as db:
            db.execute(sa.update(Turn).where(col(Turn.id) == turn_pk, col(Turn.session_id).in_(
                self._owned_sessions())).values(draft=text))
            db.commit()
            row = self._own_turn(db, turn_pk)
            db.refresh(row)
            return row

    def save_scorecard(self, turn_pk: int, scorecard_json: str, scorer_version: str, *,
                       expected_version: int | None = None) -> Turn:
        return self._update_turn(turn_pk, expected_version, scorecard_json=scorecard_json,
                                 scorer_version=scorer_version, status=TurnStatus.SCORED, scored_at=utcnow(),
                                 error=None)

    def keep_unused_answer(self, turn_pk: int, text: str, transcript_json: str | None = None) -> AnswerRevision:
        """Keep an answer that was refused because another writer answered the turn first."""
        row = AnswerRevision(turn_id=turn_pk, answer_text=text, transcript_json=transcript_json, reason="concurrent")
        with self._session() as db:
            self._own_turn(db, turn_pk)
            db.add(row)
            db.commit()
        return row

    def keep_revision(self, turn: Turn, reason: str = "corrected") -> AnswerRevision:
        """Keep the turn's current answer (text, transcript, scorecard) before it is replaced."""
        if turn.id is None:
            raise ValueError("only a stored turn has answers to keep")
        row = AnswerRevision(turn_id=turn.id, answer_text=turn.answer_text or "",
                             transcript_json=turn.transcript_json, scorecard_json=turn.scorecard_json,
                             reason=reason)
        with self._session() as db:
            self._own_turn(db, turn.id)
            db.add(row)
            db.commit()
        return row

    def revisions(self, turn_pk: int) -> list[AnswerRevision]:
        with self._session() as db:
            query = (select(AnswerRevision).where(AnswerRevision.turn_id == turn_pk,
                                                  col(AnswerRevision.turn_id).in_(self._owned_turns()))
                     .order_by(col(AnswerRevision.id)))
            return list(db.exec(query).all())

    def reopen_turn(self, turn_pk: int, expected_version: int | None = None) -> Turn:
        """The turn asked again, its answer taken off (keep it first: `keep_revision`); its
        recording stays attached until a new one replaces it."""
        return self._update_turn(turn_pk, expected_version, status=TurnStatus.ASKED, answer_text=None,
                                 transcript_json=None, scorecard_json=None, scorer_version=None,
                                 answered_at=None, scored_at=None, error=None)

    def delete_turn(self, turn_pk: int) -> None:
        """Remove an unanswered prompt (a follow-up chosen from an answer since corrected)."""
        with self._session() as db:
            row = db.get(Turn, turn_pk)
            if row is not None:
                self._own_session(db, row.session_id)
                db.delete(row)
                db.commit()

    def mark_failed(self, turn_pk: int, error: str, *, expected_version: int | None = None) -> Turn:
        return self._update_turn(turn_pk, expected_version, status=TurnStatus.FAILED, error=error)

    def mark_refused(self, turn_pk: int, error: str) -> Turn:
        return self._update_turn(turn_pk, status=TurnStatus.REFUSED, error=error)

    def mark_skipped(self, turn_pk: int) -> Turn:
        return self._update_turn(turn_pk, status=TurnStatus.SKIPPED)

    def finish_session(self, session_id: str) -> None:
        with self._session() as db:
            row = self._own_session(db, session_id)
            row.status, row.finished_at = "finished", utcnow()
            db.add(row)
            db.commit()

    def get_session(self, session_id: str) -> tuple[PracticeSession, list[Turn]]:
        with self._session() as db:
            row = self._own_session(db, session_id)
            turns = db.exec(select(Turn).where(Turn.session_id == session_id).order_by(col(Turn.position))).all()
            return row, list(turns)

    def list_sessions(self, limit: int = 200, card_id: str | None = None) -> list[PracticeSession]:
        with self._session() as db:
            query = (select(PracticeSession).where(PracticeSession.learner_id == self.learner)
                     .order_by(col(PracticeSession.started_at).desc()).limit(limit))
            if card_id:
                query = query.where(PracticeSession.card_id == card_id)
            return list(db.exec(query).all())

    def turns_for(self, session_ids: list[str]) -> dict[str, list[Turn]]:
        out: dict[str, list[Turn]] = {sid: [] for sid in session_ids}
        if not session_ids:
            return out
        with self._session() as db:
            rows = db.exec(
                select(Turn).where(col(Turn.session_id).in_(session_ids),
                                   col(Turn.session_id).in_(self._owned_sessions())).order_by(col(Turn.position))
            ).all()
        for row in rows:
            out[row.session_id].append(row)
        return out

    def forget_learner(self) -> list[str]:
        """Delete every session of this learner, with its turns and kept answers; the other
        learners' rows are untouched. Returns the recordings those turns named, for the caller
        to remove from disk."""
        with self._session() as db:
            turns = db.exec(select(Turn).where(col(Turn.session_id).in_(self._owned_sessions()))).all()
            recordings = [t.audio_path for t in turns if t.audio_path]
            db.execute(sa.delete(AnswerRevision).where(col(AnswerRevision.turn_id).in_(self._owned_turns())))
            db.execute(sa.delete(Turn).where(col(Turn.session_id).in_(self._owned_sessions())))
            db.execute(sa.delete(PracticeSession).where(col(PracticeSession.learner_id) == self.learner))
            db.commit()
        return recordings


def _sqlite_pragmas(dbapi_connection, _record) -> None:
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute("PRAGMA journal_mode=WAL")
    except Exception:  # a read-only database cannot switch journal mode; reads still work
        pass
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def recording_path(data_dir: Path, session_id: str, suffix: str = ".wav") -> Path:
    """Where a new recording of the session goes (a fresh name under the data dir)."""
    return Path(data_dir) / "audio" / session_id / f"{utcnow():%Y%m%dT%H%M%S}-{uuid.uuid4().hex[:8]}{suffix}"


def save_audio_file(data_dir: Path, session_id: str, data: bytes, suffix: str = ".wav") -> Path:
    """Keep the raw recording before anything else touches it."""
    return _keep_recording(data_dir, session_id, suffix, lambda path: write_private(path, data))


def copy_audio_file(data_dir: Path, session_id: str, source: Path, suffix: str = ".wav") -> Path:
    """Keep a recording given as a file: copied in pieces (never read whole) to a new private file."""
    import shutil

    def copy(path: Path) -> None:
        with open(source, "rb") as src:
            handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(handle, "wb") as out:
                shutil.copyfileobj(src, out, 1 << 20)

    return _keep_recording(data_dir, session_id, suffix, copy, remove_on_failure=True)


def _keep_recording(data_dir: Path, session_id: str, suffix: str, write, remove_on_failure: bool = False) -> Path:
    """A new private recording path under the data dir (its folders made private), filled by
    `write(path)`; a failure is one StorageError."""
    path = recording_path(data_dir, session_id, suffix)
    folder = path.parent
    try:
        for each in (Path(data_dir), folder.parent, folder):
            private_dir(each)
        write(path)
    except OSError as exc:
        if remove_on_failure:
            path.unlink(missing_ok=True)
        raise StorageError(f"cannot save the recording in {folder}: {exc.strerror}") from None
    return path


_stores: dict[str, Store] = {}


def open_store(url: str | None = None) -> Store:
    """One Store per URL and process (engines pool connections and are thread-safe)."""
    if url is None:
        from coach.config import load_settings

        url = load_settings().database_url
    if url not in _stores:
        _stores[url] = Store(url)
    return _stores[url]
