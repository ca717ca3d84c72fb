"""`coach practice`, `coach history` and `coach report`."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from coach.config import load_settings
from coach.content import as_text, default_library, not_utf8, text_problem
from coach.errors import AnswerTooLongError, CoachError, ConcurrentAnswerError, EmptyAnswerError
from coach.report import history, markdown_report
from coach.session import PracticeEngine, TurnResult
from coach.store import open_store
from coach.summary import summarise


def register(subparsers) -> None:
    practice = subparsers.add_parser("practice", help="practise a card in the terminal")
    practice.add_argument("--card", help="card id (see `coach cards`)")
    practice.add_argument("--persona", help="persona id (default: the card's)")
    practice.add_argument("--session", help="resume this session id instead of starting one")
    practice.add_argument("--audio", nargs="+", type=Path, metavar="FILE",
                          help="answer with these recordings, in order (WAV, FLAC, MP3, OGG...)")
    practice.set_defaults(handler=run_practice)

    hist = subparsers.add_parser("history", help="past sessions, newest first")
    hist.add_argument("--format", choices=["json", "table"], default="table")
    hist.add_argument("--limit", type=int, default=200)
    hist.set_defaults(handler=run_history)

    report = subparsers.add_parser("report", help="print a session's Markdown report")
    report.add_argument("session_id")
    report.set_defaults(handler=run_report)


def _engine() -> PracticeEngine:
    settings = load_settings()
    return PracticeEngine(default_library(), open_store(settings.database_url), settings)


def _say(text: str) -> None:
    print(text, flush=True)


def _print_result(result: TurnResult, persona_name: str) -> None:
    card = result.scorecard
    met = [cid for cid, r in card.criteria.items() if r.met]
    session = result.result
    delta = result.delta
    added = delta.added if delta else met
    missing = delta.missing if delta else card.missing()
    _say(
        f"Scorecard: overall {card.overall:.2f} | added: {', '.join(added) or 'nothing new'}"
        f" | still missing: {', '.join(missing) or 'none'}"
    )
    for cid in met:
        quote = card.criteria[cid].evidence[0] if card.criteria[cid].evidence else ""
        _say(f"  + {cid}: \"{quote}\"")
    if session is not None:
        _say(f"  so far in this session: {session.met} of {session.of} criteria met")
    else:
        _say(f"  so far in this session: {len(result.session_met)} of {len(card.criteria)} criteria met")
    for suggestion in result.suggestions:
        _say(f"  (heard {suggestion.message()})")
    for note in result.notes:
        _say(f"  (note: {note})")
    if result.next_prompt:
        _say(f"{persona_name}: {result.next_prompt}")


def run_practice(args) -> int:
    engine = _engine()
    if args.session:
        view = engine.resume(args.session)
    elif args.card:
        engine.library.current_card(args.card)  # a removed personal card is not practised again
        view = engine.start(args.card, args.persona)
    else:
        raise CoachError("give --card ID to start a session or --session ID to resume one")
    _say(f"Session: {view.id}")
    _say(f"Card: {view.card.title} ({view.card.title_ko})")
    if view.finished or view.pending is None:
        _say("This session is finished.")
        return 0
    pending = view.pending
    shown = pending.id  # the prompt on screen: an answer is for it, not for one asked elsewhere since
    if pending.answer_text and pending.status in ("answered", "failed"):
        _say("Scoring the answer saved before the interruption …")
        result = engine.retry_scoring(view.id)
        _print_result(result, view.persona.name)
        if result.finished:
            _finish(engine, view.id)
            return 0
        shown = result.pending_turn
    else:
        _say(f"{view.persona.name}: {pending.prompt}")
    if args.audio:
        return _answer_with_recordings(engine, view, args.audio)
    interactive = sys.stdin.isatty()
    refused = False  # a refused answer makes the exit code 2 once the input is used up
    number = 0
    while True:
        number += 1
        try:
            line, problem = _read_answer(interactive)
        except EOFError:
            _say(f"(input ended; resume with: coach practice --session {view.id})")
            return 2 if refused else 0
        if problem:  # kept and scored with the bad bytes replaced (U+FFFD); the exit code says so
            print(f"coach: answer {number}: {problem}", file=sys.stderr)
            refused = True
        try:
            result = engine.submit(view.id, line, turn_pk=shown)
        except EmptyAnswerError as exc:
            print(f"coach: {exc}", file=sys.stderr)
            continue
        except AnswerTooLongError as exc:
            print(f"coach: {exc}", file=sys.stderr)
            refused = True
            again = engine.load(view.id).pending
            shown = again.id
            _say(f"{view.persona.name}: {again.prompt}")
            continue
        except ConcurrentAnswerError as exc:  # the session moved on elsewhere: stop here
            print(f"coach: {exc}", file=sys.stderr)
            return 2
        except CoachError as exc:
            print(f"coach: {exc}", file=sys.stderr)
            return 2
        _print_result(result, view.persona.name)
        shown = result.pending_turn
        if result.finished:
            _finish(engine, view.id)
            return 2 if refused else 0


def _read_answer(interactive: bool) -> tuple[str, str | None]:
    """One answer line, and why it is not quite what was sent (bytes that are not UTF-8 are
    replaced by U+FFFD, so the answer and every line after it are still used). EOFError at the end."""
    if interactive:
        try:
            line = input("You: ")
        except UnicodeDecodeError as exc:
            return "", not_utf8(exc.object[exc.start], "type it again")
        problem = text_problem(line, "it was kept with the bad bytes replaced by U+FFFD")
        return as_text(line), problem
    raw = sys.stdin.buffer.readline()
    if not raw:
        raise EOFError
    raw = raw.rstrip(b"\r\n") if raw.endswith(b"\n") else raw
    try:
        return raw.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        return raw.decode("utf-8", "replace"), not_utf8(
            raw[exc.start], "it was kept with the bad bytes replaced by U+FFFD")


def _answer_with_recordings(engine: PracticeEngine, view, recordings: list[Path]) -> int:
    """Each recording answers the pending prompt, through the same engine path as the app's
    voice turn (saved, transcribed with the card's vocabulary, scored, followed up)."""
    shown = view.pending.id
    for path in recordings:
        try:
            result = engine.answer_with_audio(view.id, path, turn_pk=shown)
        except CoachError as exc:
            print(f"coach: {path}: {exc}", file=sys.stderr)
            return 2
        _say(f"You (from {path.name}): {result.transcript.text}")
        _print_result(result, view.persona.name)
        shown = result.pending_turn
        if result.finished:
            _finish(engine, view.id)
            return 0
    _say(f"(recordings used up; resume with: coach practice --session {view.id})")
    return 0


def _finish(engine: PracticeEngine, session_id: str) -> None:
    view = engine.load(session_id)
    summary = summarise(view)
    _say(f"{view.persona.name}: {view.persona.closing}")
    _say("")
    _say(markdown_report(view, summary))


MAX_HISTORY = 1_000_000


def run_history(args) -> int:
    if not 1 <= args.limit <= MAX_HISTORY:
        raise CoachError(f"--limit must be between 1 and {MAX_HISTORY:,}")
    records = history(open_store(load_settings().database_url), limit=args.limit, library=default_library())
    if args.format == "json":
        print(json.dumps(records, ensure_ascii=False, indent=2))
        return 0
    for record in records:
        answered = sum(1 for t in record["turns"] if t["answer"])
        result = record["result"]
        print(
            f"{record['id']}  {record['started_at'][:16]}  {record['card']:<28}"
            f" {record['status']:<9} {answered} answer(s)  {result['met']} of {result['of']} met"
        )
    return 0


def run_report(args) -> int:
    engine = _engine()
    view = engine.load(args.session_id)
    print(markdown_report(view, summarise(view)))
    return 0
