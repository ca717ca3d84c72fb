"""The one door to a language model: litellm with the configured model, typed failures.

Every call goes through `litellm.completion` with the model of the settings (any litellm
model string: a hosted API, `ollama/<name>`, or `openai/<name>` plus `COACH_LLM_API_BASE`
for a vLLM or llama.cpp server), its API key, timeout and retries.

    complete_text(settings, messages, prompt_version=...) -> (text, LLMInfo)
    complete_json(settings, messages, schema, name=..., prompt_version=...) -> (dict, LLMInfo)

Failures are typed: the model did not answer (timeout, refused connection, rate limit, any
other API error) -> `LLMUnavailableError`; it answered with something unusable (empty, not
JSON, not matching the schema) -> `LLMInvalidReplyError`, whose `info` attribute holds the
`LLMInfo` of that reply. Callers fall back to the deterministic path on either.

litellm is imported only inside a call (it is slow to import and the app's first page must
not pay for it), after `LITELLM_LOCAL_MODEL_COST_MAP=True` so it fetches nothing itself.

Tests (and advanced users) may pass extra keyword arguments to `litellm.completion`
through `settings.extra["llm_kwargs"]`, e.g. `{"mock_response": "..."}`.
"""

from __future__ import annotations

import json
import logging
import os
import re
import threading
import time
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from coach.errors import LLMInvalidReplyError, LLMUnavailableError

if TYPE_CHECKING:
    from coach.config import Settings

log = logging.getLogger(__name__)

# OpenAI-compatible local servers (llama.cpp, vLLM) ignore the key, but the client needs one.
PLACEHOLDER_API_KEY = "not-needed"
EXTRA_KWARGS_KEY = "llm_kwargs"


class LLMInfo(BaseModel):
    """What produced an output: recorded next to everything an LLM wrote."""

    model: str
    prompt_version: str
    latency_s: float


def is_configured(settings: Settings) -> bool:
    """True when a model is configured (COACH_LLM_MODEL); nothing is imported or called."""
    return bool((settings.llm_model or "").strip())


def _litellm():
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    try:
        import litellm
    except ImportError as exc:  # a broken install must not take the deterministic path down
        log.warning("litellm cannot be imported: %s", exc)
        raise LLMUnavailableError(f"the LLM client (litellm) cannot be imported: {exc}") from exc
    litellm.suppress_debug_info = True  # no "Give Feedback" banners on stdout
    if not getattr(litellm.client_session, "_coach_no_redirects", False):
        # a redirect from the LLM server would re-send the whole prompt (the learner's answer, the
        # API key's header) to another origin: none is followed, the 3xx is an API error
        import httpx

        client = httpx.Client(follow_redirects=False)
        client._coach_no_redirects = True  # type: ignore[attr-defined]
        litellm.client_session = client
    return litellm


def _call_kwargs(settings: Settings) -> dict[str, Any]:
    model = (settings.llm_model or "").strip()
    kwargs: dict[str, Any] = {
        "model": model,
        "timeout": settings.llm_timeout_s,
        # litellm's own retries and the OpenAI client's: both follow the setting (default 0)
        "num_retries": settings.llm_retries,
        "max_retries": settings.llm_retries,
        "drop_params": True,
    }
    if settings.llm_api_base:
        kwargs["api_base"] = settings.llm_api_base
    if settings.llm_api_key:
        kwargs["api_key"] = settings.llm_api_key
    elif settings.llm_api_base and model.startswith("openai/"):
        kwargs["api_key"] = PLACEHOLDER_API_KEY
    kwargs.update((settings.extra or {}).get(EXTRA_KWARGS_KEY) or {})
    return kwargs


# terminal escape sequences whole (CSI "ESC [ … final", OSC "ESC ] … BEL/ST", two-byte ESC x), then
# the C0 controls but tab and newline, DEL, the C1 controls and the bidi overrides
_ESCAPES = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-_]|\x9b[0-?]*[ -/]*[@-~]")
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def strip_controls(value):
    """`value` without control characters (in every string of a reply's JSON too): model text is
    shown in a terminal and a browser, where `\\x1b[2J` would clear the screen or set the title."""
    if isinstance(value, str):
        return _CONTROLS.sub("", _ESCAPES.sub("", value))
    if isinstance(value, list):
        return [strip_controls(item) for item in value]
    if isinstance(value, dict):
        return {key: strip_controls(item) for key, item in value.items()}
    return value


def _one_line(text: object, limit: int = 200) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _unavailable(litellm, exc: Exception, settings: Settings) -> LLMUnavailableError:
    model = settings.llm_model
    ex = litellm.exceptions
    if isinstance(exc, ex.Timeout):
        why = f"did not answer within {settings.llm_timeout_s:g} s"
    elif isinstance(exc, ex.RateLimitError):
        why = "is rate limited"
    elif isinstance(exc, ex.AuthenticationError):
        why = "rejected the API key (COACH_LLM_API_KEY)"
    elif isinstance(exc, ex.NotFoundError):
        why = "does not exist at that address"
    elif "connection" in str(exc).lower() or isinstance(exc, ex.APIConnectionError):
        where = settings.llm_api_base or "its API"
        why = f"cannot be reached at {where}"
    elif isinstance(exc, ex.BadRequestError):
        why = "rejected the request"
    else:
        why = f"failed ({type(exc).__name__})"
    log.warning("LLM %s %s: %s", model, why, _one_line(exc, 500))
    return LLMUnavailableError(f"the language model {model!r} {why}")


def _invalid(message: str, info: LLMInfo | None, reply: str | None = None) -> LLMInvalidReplyError:
    log.warning(
        "LLM %s reply unusable (%s): %s",
        info.model if info else "?",
        message,
        _one_line(reply or "", 300),
    )
    error = _reply_error(message)
    error.info = info
    error.reply = reply
    return error


def _complete(
    settings: Settings,
    messages: list[dict],
    *,
    prompt_version: str,
    max_tokens: int,
    temperature: float,
    response_format: dict | None = None,
) -> tuple[str, LLMInfo]:
    if not is_configured(settings):
        raise LLMUnavailableError("no language model is configured (set COACH_LLM_MODEL)")
    litellm = _litellm()
    kwargs = _call_kwargs(settings)
    if response_format is not None:
        kwargs["response_format"] = response_format
    started = time.perf_counter()
    try:
        response = _by_deadline(
            lambda: litellm.completion(messages=messages, max_tokens=max_tokens, temperature=temperature, **kwargs),
            settings.llm_timeout_s)
    except DeadlinePassed as exc:
        log.warning("LLM %s did not answer within %g s (the whole call, retries included)",
                    settings.llm_model, settings.llm_timeout_s)
        raise LLMUnavailableError(
            f"the language model {settings.llm_model!r} did not answer within {settings.llm_timeout_s:g} s") from exc
    except (
        litellm.exceptions.JSONSchemaValidationError,
        litellm.exceptions.APIResponseValidationError,
    ) as exc:
        info = _info(settings, prompt_version, started)
        raise _invalid(f"rejected by the client ({type(exc).__name__})", info, str(exc)) from exc
    except Exception as exc:  # every API failure is "did not answer"; the cause is logged
        raise _unavailable(litellm, exc, settings) from exc
    info = _info(settings, prompt_version, started)
    try:
        choice = response.choices[0]
        content = choice.message.content
        finish = getattr(choice, "finish_reason", None)
    except (AttributeError, IndexError, TypeError) as exc:
        raise _invalid("no choices in the reply", info) from exc
    if isinstance(content, str):
        content = strip_controls(content)
    if not isinstance(content, str) or not content.strip():
        raise _invalid("empty reply", info, content)
    log.info(
        "LLM %s answered (%s) in %.2f s, finish=%s",
        info.model,
        prompt_version,
        info.latency_s,
        finish,
    )
    return content, info


class DeadlinePassed(Exception):
    """The call did not end by its deadline."""


def _by_deadline(call, seconds: float):
    """`call()`'s result, or DeadlinePassed once `seconds` have gone by. litellm's `timeout` is
    per read, so a server that trickles a byte a second (or retries) would keep it waiting far
    past the setting: the call runs in a daemon thread that is left behind at the deadline (its
    read ends when the server stops or the process exits; it has nothing to write back)."""
    outcome: dict = {}
    done = threading.Event()

    def run():
        try:
            outcome["value"] = call()
        except BaseException as exc:  # handed to the caller's thread
            outcome["error"] = exc
        finally:
            done.set()

    threading.Thread(target=run, name="llm-call", daemon=True).start()
    if not done.wait(seconds):
        raise DeadlinePassed
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def _info(settings: Settings, prompt_version: str, started: float) -> LLMInfo:
    return LLMInfo(
        model=(settings.llm_model or "").strip(),
        prompt_version=prompt_version,
        latency_s=round(time.perf_counter() - started, 3),
    )


def complete_text(
    settings: Settings,
    messages: list[dict],
    *,
    prompt_version: str,
    max_tokens: int = 120,
    temperature: float = 0.3,
) -> tuple[str, LLMInfo]:
    """Plain text from the model. Raises LLMUnavailableError or LLMInvalidReplyError."""
    return _complete(
        settings,
        messages,
        prompt_version=prompt_version,
        max_tokens=max_tokens,
        temperature=temperature,
    )


def json_schema_format(schema: dict, name: str, strict: bool = True) -> dict:
    """The OpenAI-style `response_format` that asks for JSON matching `schema`."""
    return {
        "type": "json_schema",
        "json_schema": {"name": name, "schema": schema, "strict": strict},
    }


def complete_json(
    settings: Settings,
    messages: list[dict],
    schema: dict,
    *,
    name: str,
    prompt_version: str,
    max_tokens: int = 600,
    temperature: float = 0.0,
) -> tuple[dict, LLMInfo]:
    """A JSON object matching `schema` (requested with response_format, checked here).

    Raises LLMUnavailableError (no answer) or LLMInvalidReplyError (empty, not JSON, or not
    matching the schema; the error's `info` tells which model and how long).
    """
    text, info = _complete(
        settings,
        messages,
        prompt_version=prompt_version,
        max_tokens=max_tokens,
        temperature=temperature,
        response_format=json_schema_format(schema, name),
    )
    try:
        data = parse_json_reply(text, schema)
    except LLMInvalidReplyError as exc:
        raise _invalid(exc.why, info, text) from None
    return strip_controls(data), info


_FENCE = re.compile(r"^\s*```[a-zA-Z]*\s*\n?(.*?)\n?\s*```\s*$", re.DOTALL)


def parse_json_reply(text: str, schema: dict) -> dict:
    """Parse a reply as JSON (a ```json fence around it is tolerated) and check the schema."""
    if text is None or not text.strip():
        raise _reply_error("empty reply")
    fenced = _FENCE.match(text)
    body = fenced.group(1) if fenced else text
    try:
        data = json.loads(body)
    except ValueError as exc:
        raise _reply_error(f"not valid JSON ({getattr(exc, 'msg', exc)})") from None
    problem = schema_problem(data, schema)
    if problem:
        raise _reply_error(f"does not match the schema: {problem}")
    return data


def _reply_error(why: str) -> LLMInvalidReplyError:
    error = LLMInvalidReplyError(f"the language model's reply is unusable: {why}")
    error.info = None
    error.why = why
    error.reply = None
    return error


def schema_problem(data: Any, schema: dict) -> str | None:
    """The first way `data` breaks `schema`, as one line, or None."""
    from jsonschema import Draft202012Validator

    errors = sorted(Draft202012Validator(schema).iter_errors(data), key=lambda e: list(e.path))
    if not errors:
        return None
    error = errors[0]
    where = "/".join(str(p) for p in error.path) or "(top level)"
    return f"{where}: {_one_line(error.message, 160)}"
