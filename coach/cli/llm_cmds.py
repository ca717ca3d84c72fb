"""`coach llm serve` (a local llama.cpp server) and `coach llm check` (one tiny call)."""

from __future__ import annotations

import sys
from pathlib import Path


def register(subparsers) -> None:
    llm = subparsers.add_parser(
        "llm",
        help="the optional language model: local server, check",
        description="The optional language model.",
    )
    commands = llm.add_subparsers(dest="llm_command", required=True)

    serve = commands.add_parser(
        "serve",
        help="run llama.cpp's OpenAI-compatible server on 127.0.0.1 (needs the llm-server extra)",
        description="A local OpenAI-compatible llama.cpp server on 127.0.0.1 (extra `llm-server`).",
    )
    serve.add_argument("--gguf", required=True, type=Path, help="the GGUF model file")
    serve.add_argument("--port", type=int, default=8080, help="port on 127.0.0.1 (0: any free port)")
    serve.add_argument("--threads", type=int, default=None, help="CPU threads (default: llama.cpp's)")
    serve.add_argument("--alias", default="local", help="model name the server answers to")
    serve.add_argument("--ctx", type=int, default=4096, help="context size in tokens")
    serve.set_defaults(handler=run_serve)

    check = commands.add_parser(
        "check",
        help="send one tiny request to the configured model",
        description="One tiny request to the configured model.",
    )
    check.set_defaults(handler=run_check)


def run_serve(args) -> int:
    from coach.llm_server import serve_forever, start_server, usage_lines

    if not 0 <= args.port <= 65535:
        print("coach: --port must be between 0 and 65535", file=sys.stderr)
        return 2
    server = start_server(args.gguf, port=args.port, threads=args.threads, alias=args.alias, n_ctx=args.ctx)
    for line in usage_lines(server):
        print(line, flush=True)
    serve_forever(server)
    print("stopped", flush=True)
    return 0


def run_check(args) -> int:
    from coach.config import load_settings
    from coach.errors import LLMInvalidReplyError, LLMUnavailableError
    from coach.llm import complete_text, is_configured

    settings = load_settings()
    if not is_configured(settings):
        print("no language model configured: set COACH_LLM_MODEL (and COACH_LLM_API_BASE for a local server)")
        return 1
    where = f" at {settings.llm_api_base}" if settings.llm_api_base else ""
    try:
        text, info = complete_text(
            settings,
            [{"role": "user", "content": "Reply with the single word: ok"}],
            prompt_version="check-1",
            max_tokens=8,
            temperature=0.0,
        )
    except (LLMUnavailableError, LLMInvalidReplyError) as exc:
        print(f"failed: {exc}")
        return 1
    reply = " ".join(text.split())[:60]
    print(f"ok: {info.model}{where} answered in {info.latency_s:.2f} s: {reply!r}")
    return 0
