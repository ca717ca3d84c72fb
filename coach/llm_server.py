"""A local OpenAI-compatible LLM server: llama.cpp's own server, in-process, via xllamacpp.

    coach llm serve --gguf PATH [--port N] [--threads N] [--alias NAME]

`xllamacpp` is an optional extra (`pip install -e .[llm-server]`); the rest of the app never
imports it. The server binds to 127.0.0.1 only. Point the app at it with

    COACH_LLM_MODEL=openai/<alias>   COACH_LLM_API_BASE=http://127.0.0.1:<port>/v1
"""

from __future__ import annotations

import logging
import os
import signal
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Self

from coach.errors import LLMServerError

log = logging.getLogger(__name__)

HOST = "127.0.0.1"
DEFAULT_PORT = 8080
DEFAULT_ALIAS = "local"
DEFAULT_CTX = 4096
INSTALL_HINT = "pip install -e .[llm-server]   (or: pip install xllamacpp)"


@dataclass
class LocalServer:
    """A running llama.cpp server; `close()` (or leaving a `with` block) stops it."""

    handle: Any
    alias: str
    port: int
    threads: int | None

    @property
    def base_url(self) -> str:
        return f"http://{HOST}:{self.port}"

    @property
    def api_base(self) -> str:
        return f"{self.base_url}/v1"

    @property
    def model(self) -> str:
        """The litellm model string for COACH_LLM_MODEL."""
        return f"openai/{self.alias}"

    def close(self) -> None:
        handle, self.handle = self.handle, None
        if handle is not None:
            del handle  # xllamacpp stops its HTTP server and main loop in the destructor

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _xllamacpp():
    try:
        import xllamacpp
    except ImportError as exc:
        if getattr(exc, "name", None) in ("xllamacpp", None) and "xllamacpp" in str(exc):
            message = f"the local LLM server needs the optional extra 'llm-server': {INSTALL_HINT}"
        else:
            message = f"xllamacpp is installed but cannot be loaded ({exc}); reinstall: {INSTALL_HINT}"
        raise LLMServerError(message) from exc
    return xllamacpp


def start_server(
    gguf: str | os.PathLike,
    *,
    port: int = DEFAULT_PORT,
    threads: int | None = None,
    alias: str = DEFAULT_ALIAS,
    n_ctx: int = DEFAULT_CTX,
) -> LocalServer:
    """Load the GGUF model and start serving on 127.0.0.1:port (0 picks a free port)."""
    xlc = _xllamacpp()
    path = Path(gguf).expanduser()
    if not path.is_file():
        raise LLMServerError(f"model file not found: {path}")
    if not alias.strip() or any(ch.isspace() for ch in alias):
        raise LLMServerError(f"--alias must be one word, not {alias!r}")
    if threads is not None and threads < 1:
        raise LLMServerError("--threads must be at least 1")
    _check_gguf(path)
    if port:
        _check_port_free(int(port))
    params = xlc.CommonParams()
    params.model.path = str(path)
    # newer llama.cpp takes sets/lists here, older builds a single string
    params.model_alias = alias if isinstance(params.model_alias, str) else {alias}
    if hasattr(params, "hostnames"):
        params.hostnames = [HOST]
    else:
        params.hostname = HOST
    params.port = int(port)
    params.n_ctx = n_ctx
    params.n_parallel = 1
    for name in ("ui", "webui"):  # the built-in web UI is not ours to serve
        if hasattr(params, name):
            setattr(params, name, False)
    if threads is not None:
        params.cpuparams.n_threads = threads
        params.cpuparams_batch.n_threads = threads
    try:
        handle = xlc.Server(params)
    except Exception as exc:  # bad GGUF, port in use: xllamacpp raises plain errors
        raise LLMServerError(f"the llama.cpp server did not start: {exc}") from exc
    actual_port = _port_of(getattr(handle, "listening_address", ""), port)
    return LocalServer(handle=handle, alias=alias, port=actual_port, threads=threads)


def _check_gguf(path: Path) -> None:
    try:
        with open(path, "rb") as handle:
            magic = handle.read(4)
    except OSError as exc:
        raise LLMServerError(f"cannot read model file {path}: {exc.strerror or exc}") from exc
    if magic != b"GGUF":
        raise LLMServerError(f"{path} is not a GGUF model file")


def _check_port_free(port: int) -> None:
    """A clear message for the common mistake; llama.cpp only says 'failed to init'."""
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        # like the server itself: a port in TIME_WAIT is free, one with a listener is not
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((HOST, port))
        except OSError as exc:
            raise LLMServerError(
                f"port {port} on {HOST} is in use ({exc.strerror or exc}); choose another with --port"
            ) from exc


def _port_of(address: str, fallback: int) -> int:
    try:
        return int(str(address).rstrip("/").rsplit(":", 1)[1])
    except (IndexError, ValueError):
        return fallback


def usage_lines(server: LocalServer) -> list[str]:
    return [
        f"llama.cpp server ready at {server.api_base} (model alias {server.alias!r}"
        + (f", {server.threads} thread(s))" if server.threads else ")"),
        "Use it with:",
        f"  COACH_LLM_MODEL={server.model}",
        f"  COACH_LLM_API_BASE={server.api_base}",
        "Press Ctrl-C to stop.",
    ]


def serve_forever(server: LocalServer, stop: threading.Event | None = None) -> None:
    """Block until Ctrl-C, SIGTERM or `stop` is set; then stop the server.

    Some llama.cpp builds install their own SIGINT handler when the server starts, which
    would swallow Ctrl-C; ours are installed after it, so both signals stop us cleanly.
    """
    stop = stop or threading.Event()
    previous: dict[signal.Signals, Any] = {}
    if threading.current_thread() is threading.main_thread():
        for signum in (signal.SIGINT, signal.SIGTERM):
            previous[signum] = signal.signal(signum, lambda *_: stop.set())
    try:
        while not stop.wait(0.5):
            pass
    except KeyboardInterrupt:
        pass
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler if handler is not None else signal.SIG_DFL)
        server.close()
