"""`coach practice`, `coach history` and `coach report`."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from coach.access import LOCAL, Learner
from coach.audio import check_recording_file
from coach.config import load_settings
from coach.content.text_input import as_text, not_utf8, text_problem
from coach.errors import AnswerTooLongError, CoachError, ConcurrentAnswerError, EmptyAnswerError, KoreanAnswerError
from coach.library import default_library
from coach.llm import strip_controls
from coach.practice import Coach, PracticeView, TurnStatus, zone
from coach.report import history
from coach.store import Store, open_store


def register(subparsers) -> None:
    practice = subparsers.add_parser(
        "practice",
        help="practise a card in the terminal",
        description=(
            "A session in the terminal: one answer per line from a pipe, or the recordings in order "
            "(the app's voice turn); `--session ID` resumes one."
        ),
    )
    practice.add_argument("--card", help="card id (see `coach cards`)")
    practice.add_argument("--persona", help="persona id (default: the card's)")
    practice.add_argument("--session", help="resume this session id instead of starting one")
    practice.add_argument("--audio", nargs="+", type=Path, metavar="FILE",
                          help="answer with these recordings, in order (WAV, FLAC, MP3, OGG...)")
    practice.set_defaults(handler=run_practice)

    hist = subparsers.add_parser(
        "history",
        help="past sessions, newest first",
        description=(
            "Past sessions, newest first; on a shared database `--user` names the signed-in learner "
            "(learner id, subject or email; default: the local learner)."
        ),
    )
    hist.add_argument("--format", choices=["json", "table"], default="table")
    hist.add_argument("--limit", type=int, default=200)
    hist.add_argument("--user", help=USER_HELP)
    hist.set_defaults(handler=run_history)

    report = subparsers.add_parser(
        "report",
        help="print a session's Markdown report",
        description="A session's Markdown report, times in your time zone (`--tz`, else this machine's; "
                    "`--user` as for `history`).",
    )
    report.add_argument("session_id")
    report.add_argument("--user", help=USER_HELP)
    report.add_argument("--tz", help=TZ_HELP)
    report.set_defaults(handler=run_report)

    prog = subparsers.add_parser(
        "progress",
        help="first try per criterion and how you sound, over sessions",
        description=(
            "Per criterion and card, whether your first answer (before any follow-up) met it in each finished "
            "session, oldest first; per session the first answer and the retell (`met`, `of`), `wpm`, "
            "`fillers_per_min` (a lower bound when spoken), `flagged_words` and grammar `corrections` by kind. "
            "`at` is ISO 8601 in your time zone (`--tz`, else this machine's). `--user` as for `history`."
        ),
    )
    prog.add_argument("--user", help=USER_HELP)
    prog.add_argument("--card", help="only this card's sessions")
    prog.add_argument("--tz", help=TZ_HELP)
    prog.add_argument("--format", choices=["json"], default="json")
    prog.set_defaults(handler=run_progress)


TZ_HELP = "your time zone, an IANA name such as Asia/Seoul (default: this machine's)"
USER_HELP = ("on a shared database, the signed-in learner whose sessions to read: their learner id, "
             "subject or email (default: the local learner)")


def find_learner(store: Store, who: str | None) -> Learner:
    """The learner `--user` names: their id, their identity's subject, or their email (when only
    one learner has it); the local learner without --user."""
    if who is None or who == LOCAL.key:
        return LOCAL
    rows = store.learners()
    found = [r for r in rows if r.id == who] or [r for r in rows if r.subject == who or
                                                 (r.email or "").lower() == who.lower()]
    if not found:
        raise CoachError(f"no learner {who!r} in this database (give a learner id, subject or email)")
    if len(found) > 1:
        raise CoachError(f"{who!r} names {len(found)} learners (" + ", ".join(f"{r.id}: {r.issuer}" for r in found)
                         + "); give the learner id")
    row = found[0]
    return Learner(row.id, row.issuer, row.subject, row.email, row.name)


def _coach(who: str | None = None) -> Coach:
    settings = load_settings()
    store = open_store(settings.database_url)
    learner = find_learner(store, who)
    return Coach.of(default_library(), store.scoped(learner), settings.for_learner(learner))


def _say(text: str) -> None:
    """One line to the terminal, without control characters (a stored prompt worded by a model
    must not clear the screen or set the title)."""
    print(strip_controls(text), flush=True)


def _print_answer(view: PracticeView) -> None:
    """The newest answer's feedback and the next prompt, in the app's words (labels, not ids)."""
    feedback = view.feedback[max(view.feedback)]
    card, result, headline = feedback.scorecard, view.result, feedback.headline
    added = ", ".join(c.label for c in headline.added) if headline else ""
    missing = ", ".join(c.label for c in headline.missing) if headline else ""
    _say(f"Scorecard: overall {card.overall:.2f} | added: {added or 'nothing new'}"
         f" | still missing: {missing or 'none'}")
    for cid, verdict in card.criteria.items():
        if verdict.met:
            label = next((c.label for c in view.card.criteria if c.id == cid), cid)
            _say(f"  + {label}: \"{verdict.evidence[0] if verdict.evidence else ''}\"")
    for sounds in headline.sounds if headline else ():
        _say(f"  sounds impolite: {sounds.name} (\"{sounds.evidence}\"): {sounds.sounds}")
    if headline and headline.softer:
        _say(f"  try: \"{headline.softer}\"")
    _say(f"  so far in this session: {result.met} of {result.of} criteria met")
    for hint in view.hints:
        _say(f"  (heard {hint})")
    for note in view.notes:
        _say(f"  (note: {note})")
    if view.pending is not None:
        _say(f"{view.persona.name}: {view.pending.prompt}")


def run_practice(args) -> int:
    coach = _coach()
    for path in args.audio or ():  # a file that cannot be a recording is refused before a session starts
        try:
            check_recording_file(path, coach.settings.max_audio_seconds)
        except CoachError as exc:
            raise CoachError(f"{path}: {exc}") from None
    if args.session:
        view = coach.resume(args.session)
    elif args.card:
        coach.library.current_card(args.card)  # a removed personal card is not practised again
        view = coach.start(args.card, args.persona)
    else:
        raise CoachError("give --card ID to start a session or --session ID to resume one")
    _say(f"Session: {view.id}")
    _say(f"Card: {view.card.title} ({view.card.title_ko})")
    if view.pending is None:
        _say("This session is finished.")
        return 0
    pending = view.pending
    if pending.answer_text and TurnStatus(pending.status) in {TurnStatus.ANSWERED, TurnStatus.FAILED}:
        _say("Scoring the answer saved before the interruption …")
        view = coach.score_again(view.id)
        _print_answer(view)
        if view.finished:
            _finish(view)
            return 0
    else:
        _say(f"{view.persona.name}: {pending.prompt}")
    if args.audio:
        return _answer_with_recordings(coach, view, args.audio)
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
            # the prompt on screen: an answer is for it, not for one asked elsewhere since
            view = coach.send_text(view.id, line, turn_pk=_shown(view))
        except EmptyAnswerError as exc:
            print(f"coach: {exc}", file=sys.stderr)
            continue
        except KoreanAnswerError as exc:  # kept, not scored: the coach helps and asks again
            _say(str(exc))
            view = coach.open(view.id)
            _say(f"{view.persona.name}: {_pending(view).prompt}")
            continue
        except AnswerTooLongError as exc:
            print(f"coach: {exc}", file=sys.stderr)
            refused = True
            view = coach.open(view.id)  # the same prompt, asked again
            _say(f"{view.persona.name}: {_pending(view).prompt}")
            continue
        except ConcurrentAnswerError as exc:  # the session moved on elsewhere: stop here
            print(f"coach: {exc}", file=sys.stderr)
            return 2
        except CoachError as exc:
            print(f"coach: {exc}", file=sys.stderr)
            return 2
        _print_answer(view)
        if view.finished:
            _finish(view)
            return 2 if refused else 0


def _shown(view: PracticeView) -> int | None:
    return view.pending.id if view.pending is not None else None


def _pending(view: PracticeView):
    if view.pending is None:
        raise CoachError("this session is finished; start a new one")
    return view.pending


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


def _answer_with_recordings(coach: Coach, view: PracticeView, recordings: list[Path]) -> int:
    """Each recording answers the pending prompt, through the same engine path as the app's
    voice turn (saved, transcribed with the card's vocabulary, scored, followed up)."""
    for path in recordings:
        try:
            view = coach.send_audio(view.id, path, turn_pk=_shown(view))
        except CoachError as exc:
            print(f"coach: {path}: {exc}", file=sys.stderr)
            return 2
        _say(f"You (from {path.name}): {getattr(view.transcript, 'text', '')}")
        _print_answer(view)
        if view.finished:
            _finish(view)
            return 0
    _say(f"(recordings used up; resume with: coach practice --session {view.id})")
    return 0


def _finish(view: PracticeView) -> None:
    _say(f"{view.persona.name}: {view.persona.closing}")
    _say("")
    _say(view.report())


MAX_HISTORY = 1_000_000


def run_history(args) -> int:
    if not 1 <= args.limit <= MAX_HISTORY:
        raise CoachError(f"--limit must be between 1 and {MAX_HISTORY:,}")
    store = open_store(load_settings().database_url)
    records = history(store.scoped(find_learner(store, args.user)), limit=args.limit, library=default_library())
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


def _zone(name: str | None):
    if not name:
        return None
    tz = zone(name)
    if tz is None:
        raise CoachError(f"--tz {name!r} is not a time zone name (for example Asia/Seoul)")
    return tz


def run_report(args) -> int:
    print(strip_controls(_coach(args.user).open(args.session_id).report(tz=_zone(args.tz))))
    return 0


def run_progress(args) -> int:
    tz = _zone(args.tz)
    coach = _coach(args.user)
    if args.card and args.card not in coach.library.cards and args.card not in coach.library.removed:
        raise CoachError(f"unknown card {args.card!r} (see `coach cards`)")
    print(json.dumps(coach.progress(card=args.card, tz=tz), ensure_ascii=False, indent=2))
    return 0
