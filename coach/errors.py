"""Typed errors of the core; the CLI and the UI turn each into one clear message."""

from __future__ import annotations

from typing import Any


class CoachError(Exception):
    """Base class: the message is meant for the user, on one line."""


class SettingsError(CoachError):
    """A COACH_* environment variable has a value that is not allowed."""


class FileAccessError(CoachError):
    """A file the user named cannot be read as text or written (missing, a folder, not
    UTF-8, read-only): says `path:line: reason`."""

    def __init__(self, path, line: int | None, reason: str):
        super().__init__(f"{path}:{line}: {reason}" if line else f"{path}: {reason}")
        self.path, self.line, self.reason = str(path), line, reason


class ContentError(CoachError):
    """A card or persona is missing or invalid."""


class UnknownCardError(ContentError):
    pass


class UnknownTurnError(ContentError):
    pass


class UnknownPersonaError(ContentError):
    pass


class EmptyAnswerError(CoachError):
    """The answer has no words in it."""


class AnswerTooLongError(CoachError):
    pass


class KoreanAnswerError(CoachError):
    """The answer was (mostly) in Korean: it is kept, not scored, and the question is asked again.
    The message says so in English and Korean, with English frames for what the turn still needs."""


class StorageError(CoachError):
    """The database cannot be read or written (locked, read-only, unreachable)."""


class DatabaseDamagedError(StorageError):
    """The SQLite file is not a database or is corrupt; it is left untouched."""


class SessionNotFoundError(StorageError):
    pass


class SessionFinishedError(CoachError):
    pass


class ConcurrentAnswerError(CoachError):
    """Another window or process answered (or is scoring) the same prompt first: this answer
    was not used; its text is kept with the turn (`answer_revision`, reason "concurrent")."""


class TurnPositionTakenError(ConcurrentAnswerError):
    """Another writer asked the next prompt of the session first (same position)."""


class AudioError(CoachError):
    """The recording cannot be used (empty, silent, corrupt, too long, not English)."""


class SpeechModelError(CoachError):
    """The speech-to-text model cannot be loaded."""


class LLMUnavailableError(CoachError):
    """The configured LLM did not answer (timeout, refused, rate limited)."""


class LLMInvalidReplyError(CoachError):
    """The configured LLM answered with something unusable: `why` (in a few words), the reply
    when there was one, and the call's `LLMInfo` when it was made."""

    why: str = ""
    reply: str | None = None
    info: Any = None  # coach.llm.LLMInfo (this module sits below it)


class SpeechSynthesisError(CoachError):
    """The line cannot be spoken (espeak-ng missing or failing); show it as text."""


class LLMServerError(CoachError):
    """The local LLM server cannot start (extra not installed, bad model file, port in use)."""


class PersonalCardError(ContentError):
    """A personal card cannot be made, changed or removed (bad question, unknown rubric, a
    built-in card, an unwritable data dir); nothing was written."""


class DuplicateTitleError(PersonalCardError):
    """The learner already has a card of that title (`card_id`); the app offers that one."""

    def __init__(self, message: str, card_id: str | None = None):
        super().__init__(message)
        self.card_id = card_id
