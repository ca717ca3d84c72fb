"""Settings from the environment (COACH_*), with embedded defaults that need no set-up."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import platformdirs

REPO_ROOT = Path(__file__).resolve().parent.parent


def _env(name: str, default: str | None = None) -> str | None:
    value = os.environ.get(name, "").strip()
    return value or default


@dataclass(frozen=True)
class Settings:
    data_dir: Path
    database_url: str
    content_dirs: tuple[Path, ...]
    persona_dirs: tuple[Path, ...]
    max_answer_chars: int = 20_000
    max_audio_seconds: float = 300.0
    stt_engine: str = "faster-whisper"
    stt_model: str | None = None
    stt_device: str = "auto"
    llm_model: str | None = None
    llm_api_base: str | None = None
    llm_api_key: str | None = None
    llm_timeout_s: float = 20.0
    llm_retries: int = 0
    extra: dict = field(default_factory=dict)

    @property
    def audio_dir(self) -> Path:
        return self.data_dir / "audio"

    @property
    def tts_cache_dir(self) -> Path:
        return self.data_dir / "tts-cache"


def load_settings() -> Settings:
    data_dir = Path(
        _env("COACH_DATA_DIR") or platformdirs.user_data_dir("rehearse", appauthor=False)
    ).expanduser()
    database_url = _env("COACH_DATABASE_URL") or f"sqlite:///{data_dir / 'rehearse.db'}"
    content = _env("COACH_CONTENT_DIR")
    personas = _env("COACH_PERSONA_DIR")
    return Settings(
        data_dir=data_dir,
        database_url=database_url,
        content_dirs=(Path(content),) if content else (REPO_ROOT / "content",),
        persona_dirs=(Path(personas),) if personas else (REPO_ROOT / "personas",),
        max_answer_chars=int(_env("COACH_MAX_ANSWER_CHARS", "20000")),
        max_audio_seconds=float(_env("COACH_MAX_AUDIO_SECONDS", "300")),
        stt_engine=_env("COACH_STT_ENGINE", "faster-whisper"),
        stt_model=_env("COACH_STT_MODEL"),
        stt_device=_env("COACH_STT_DEVICE", "auto"),
        llm_model=_env("COACH_LLM_MODEL"),
        llm_api_base=_env("COACH_LLM_API_BASE"),
        llm_api_key=_env("COACH_LLM_API_KEY"),
        llm_timeout_s=float(_env("COACH_LLM_TIMEOUT", "20")),
        llm_retries=int(_env("COACH_LLM_RETRIES", "0")),
    )
