"""The practice session engine: pure logic over the store, used by the app and the CLI.

start -> the persona's opening prompt -> submit an answer (saved first, then scored) ->
scorecard + the next prompt (a targeted follow-up, the next meeting turn, or a retry) ->
... -> finished, with a summary. Every step is persisted, so any process can resume a
session from its id.
"""

from __future__ import annotations

import json
import logging
import threading
from dataclasses import dataclass, field
from pathlib import Path

import scoring
from coach import interviewer
from coach.config import Settings, load_settings
from coach.content.schema import Card, Library, Persona
from coach.content.text_input import as_text
from coach.errors import (
    AnswerTooLongError,
    AudioError,
    CoachError,
    ConcurrentAnswerError,
    EmptyAnswerError,
    KoreanAnswerError,
    SessionFinishedError,
    TurnPositionTakenError,
)
from coach.interviewer import NextPrompt
from coach.result import SessionResult, TurnDelta, card_turn_of, session_result
from coach.store import (
    PracticeSession,
    Store,
    Turn,
    TurnKind,
    TurnStatus,
    copy_audio_file,
    recording_path,
    save_audio_file,
)
from scoring import english
from scoring import warm_up as warm_up_scorer
from scoring.models import Scorecard, SpeechTiming

log = logging.getLogger(__name__)

# A refused answer (too long) stays in its turn, and the same prompt is asked again in a new
# one: the answer is kept, and never scored by a later resume.
CLOSED = (TurnStatus.SCORED, TurnStatus.SKIPPED, TurnStatus.REFUSED)

# An answer saved but not scored yet is being scored by its writer for at most this long
# (scoring, the LLM judge and the follow-up's wording each end by their deadline); after it
# the writer is taken to be gone (killed mid-turn) and the answer may be replaced.
SCORING_WINDOW_S = 120.0


def concurrent_answer(session_id: str) -> ConcurrentAnswerError:
    return ConcurrentAnswerError(
        "this prompt was answered meanwhile in another window or process, so this answer was not used; "
        f"it is kept with the session. Reload the page, or resume with: coach practice --session {session_id}")


def session_finished() -> SessionFinishedError:
    return SessionFinishedError("this session is finished; start a new one")


def pk(turn: Turn) -> int:
    """A stored turn's primary key (every turn read from the store has one)."""
    if turn.id is None:
        raise ValueError("the turn is not stored yet")
    return turn.id


@dataclass
class SessionView:
    """A session as loaded: its row, card, persona and turns with parsed scorecards. A gesture
    loads it once and keeps it current as it writes (`put`), so nothing is loaded twice."""

    row: PracticeSession
    card: Card
    persona: Persona
    turns: list[Turn]
    _result: SessionResult | None = field(default=None, repr=False, compare=False)

    def put(self, turn: Turn) -> Turn:
        """A turn as just written to the store: replaces the loaded one, or is added."""
        for index, known in enumerate(self.turns):
            if known.id == turn.id:
                self.turns[index] = turn
                break
        else:
            self.turns.append(turn)
        self._result = None
        return turn

    def drop(self, turn_pk: int) -> None:
        self.turns = [t for t in self.turns if t.id != turn_pk]
        self._result = None

    @property
    def id(self) -> str:
        return self.row.id

    @property
    def finished(self) -> bool:
        return self.row.status == "finished"

    @property
    def pending(self) -> Turn | None:
        """The turn waiting for an answer (or for its answer to be scored)."""
        if self.turns and self.turns[-1].status not in CLOSED:
            return self.turns[-1]
        return None

    @property
    def open_turn(self) -> Turn:
        """The pending turn of a session a gesture answers (`PracticeEngine._active` made sure
        there is one)."""
        if self.pending is None:
            raise session_finished()
        return self.pending

    def scorecards(self) -> list[tuple[Turn, Scorecard]]:
        return [(t, Scorecard.model_validate_json(t.scorecard_json)) for t in self.turns if t.scorecard_json]

    def result(self) -> SessionResult:
        """The session's running result: one rubric, the best verdict per criterion so far
        (computed once per change of the turns)."""
        if self._result is None:
            self._result = session_result(self.card, self.turns)
        return self._result

    @property
    def answered(self) -> int:
        return sum(1 for t in self.turns if t.scorecard_json)

    def first_answer(self) -> Turn | None:
        return next((t for t in self.turns if t.scorecard_json), None)

    def retell(self) -> Turn | None:
        return next((t for t in self.turns if t.kind == TurnKind.RETELL and t.scorecard_json), None)


@dataclass
class TurnResult:
    scorecard: Scorecard
    next_prompt: str | None
    finished: bool
    notes: list[str] = field(default_factory=list)
    session_met: list[str] = field(default_factory=list)  # criteria met by any answer so far
    result: SessionResult | None = None  # the session's running result after this answer
    delta: TurnDelta | None = None  # what this answer added, and what is still missing
    transcript: object | None = None  # the coach.stt.Transcript of a spoken answer
    suggestions: list = field(default_factory=list)  # coach.vocabulary.TermSuggestion: misheard terms?
    session: SessionView | None = None  # the session after the gesture (loaded once, kept current)
    turn_pk: int | None = None  # the answered turn
    pending_turn: int | None = None  # the id of the turn that `next_prompt` asks (answer it with turn_pk=)


class PracticeEngine:
    def __init__(self, library: Library, store: Store, settings: Settings | None = None):
        self.library = library
        self.store = store
        self.settings = settings or load_settings()
        warm_up_scorer()  # the parser and the English rules load in the background while the learner starts

    # --- lifecycle ----------------------------------------------------------------------

    def start(self, card_id: str, persona_id: str | None = None) -> SessionView:
        card = self.library.card(card_id)
        persona = self.library.persona(persona_id or card.persona)
        def opening(session_id: str) -> dict:
            prompt = interviewer.opening(card, persona, session_id)
            return {"turn_id": prompt.turn_id, "kind": prompt.kind, "prompt": prompt.prompt,
                    "criterion": prompt.criterion, "llm_json": json.dumps(prompt.llm) if prompt.llm else None}

        # the session and its first question in one write: a failure leaves no half-started session
        row, turn = self.store.start_session(card.id, persona.id, card.content_version, opening)
        return SessionView(row, card, persona, [turn])

    def load(self, session_id: str) -> SessionView:
        row, turns = self.store.get_session(session_id)
        card = self.library.card(row.card_id)
        persona = self.library.persona(row.persona_id)
        return SessionView(row, card, persona, turns)

    def resume(self, session_id: str) -> SessionView:
        """The session as `load` gives it, after finishing a turn that was interrupted between
        its steps (Ctrl-C or kill -9 while the follow-up was being worded): an active session
        whose last turn is closed gets the prompt that should have come next (or is finished)."""
        view = self.load(session_id)
        if view.finished or view.pending is not None or not view.turns:
            return view
        last = view.turns[-1]
        next_prompt: NextPrompt | None
        if last.status == TurnStatus.REFUSED:  # the same prompt is asked again, as `submit` does
            next_prompt = NextPrompt(last.turn_id, TurnKind(last.kind), last.prompt, criterion=last.criterion,
                                     llm=json.loads(last.llm_json) if last.llm_json else None)
        elif last.status == TurnStatus.SKIPPED:
            turn_ids = [t.id for t in view.card.turns]
            next_prompt = (self._next_card_turn(view, turn_ids.index(last.turn_id) + 1)
                           if last.turn_id in turn_ids else None)  # a situation removed from the card since
        else:
            assert last.scorecard_json is not None  # closed, neither refused nor skipped: scored
            scorecard = Scorecard.model_validate_json(last.scorecard_json)
            next_prompt = self._next(view, last, scorecard, last.answer_text or "")
        log.info("session %s: resuming a turn interrupted after turn %s", session_id, last.position)
        if next_prompt is None:
            self._finish(view)
        else:
            self._ask(view, next_prompt, last.position + 1)  # or the prompt another writer resumed with
        return view

    def forget_learner(self) -> int:
        """"Delete all my data": the learner's sessions, turns and kept answers, and their
        recordings; a signed-in learner's whole folder (recordings and cards) goes too. Other
        learners' rows and files are untouched. Returns the number of sessions deleted."""
        import shutil

        count = len(self.store.list_sessions(limit=10**9))
        recordings = self.store.forget_learner()
        home = Path(self.settings.learner_dir).resolve()
        for name in recordings:
            path = Path(name).resolve()
            if home in path.parents:  # only the learner's own folder is ever touched
                path.unlink(missing_ok=True)
        if not self.settings.learner.is_local:
            shutil.rmtree(home, ignore_errors=True)
        else:
            shutil.rmtree(home / "audio", ignore_errors=True)
        return count

    def latest_active(self, kind: str | None = None) -> SessionView | None:
        """The newest unfinished session (of a kind of card) whose card still loads, to resume."""
        for row in self.store.list_sessions(limit=50):
            card = self.library.cards.get(row.card_id)
            if row.status != "active" or card is None or (kind and card.kind != kind):
                continue
            try:
                return self.load(row.id)
            except CoachError:
                continue
        return None

    def _ask(self, view: SessionView, prompt: NextPrompt, position: int | None = None) -> Turn:
        """The next prompt, as a new turn at `position` (the one after the turn it follows; by
        default the end of the session). When another writer asked a prompt there first (a
        resuming window or process), that one is asked instead: the view is loaded again."""
        llm_json = json.dumps(prompt.llm) if prompt.llm else None
        if position is None:
            position = max((t.position for t in view.turns), default=-1) + 1
        try:
            return view.put(self.store.add_turn(view.id, position, prompt.turn_id, prompt.kind, prompt.prompt,
                                                criterion=prompt.criterion, llm_json=llm_json))
        except TurnPositionTakenError:
            self._reload(view)
            return next(t for t in view.turns if t.position == position)

    def _reload(self, view: SessionView) -> None:
        """Another writer changed the session: the view is brought up to date (a second load,
        only after a race)."""
        row, turns = self.store.get_session(view.id)
        view.row = row
        view.turns = list(turns)
        view._result = None

    def _finish(self, view: SessionView) -> None:
        self.store.finish_session(view.id)
        view.row.status = "finished"

    # --- answers ------------------------------------------------------------------------

    def attach_recording(self, session_id: str, audio_path: str) -> Turn:
        """Record the raw audio in the pending turn before it is transcribed."""
        return self._attach(self._active(session_id), audio_path)

    def _attach(self, view: SessionView, audio_path: str) -> Turn:
        return view.put(self.store.save_answer(pk(view.open_turn), None, audio_path=audio_path))

    # --- spoken answers -------------------------------------------------------------------

    def vocabulary(self, view: SessionView) -> list[str]:
        from coach.vocabulary import card_vocabulary

        return card_vocabulary(view.card)

    def decode_options(self, view: SessionView):
        """How this card's answers are decoded: biased towards the card's own terms."""
        from coach.stt import DecodeOptions

        return DecodeOptions().with_vocabulary(self.vocabulary(view))

    def start_live_answer(self, session_id: str, *, await_head: bool = False):
        """A `coach.live.LiveAnswer` for the pending turn: its recording file is attached to
        the turn now, before the first chunk arrives, so a dropped stream or a reload loses
        nothing (`recovered_recording` finds it again). `await_head`: the browser will hand
        over its own recording of the opening words (`LiveAnswer.add_head`)."""
        from coach import stt
        from coach.live import LiveAnswer

        view = self._active(session_id)
        path = recording_path(self.settings.learner_dir, session_id, ".wav")
        live = LiveAnswer(path, stt.load_model(self.settings), self.decode_options(view), self.settings,
                          await_head=await_head)
        self._attach(view, str(path))
        # the card's terms as said (espeak-ng for those outside the dictionary) and the phone
        # decoder, made while the learner speaks: the hints after "stop" wait for neither
        from coach.hints import warm

        threading.Thread(target=warm, args=(self.vocabulary(view),), name="hints-warm", daemon=True).start()
        return live

    def answer_with_audio(self, session_id: str, audio, *, transcript=None, suffix: str = ".wav",
                          turn_pk: int | None = None, pronounce_later: bool = False) -> TurnResult:
        """The voice turn: keep the recording (bytes are saved to the data dir; a file is
        copied there unless it is there already), transcribe it with the card's vocabulary
        (unless the live path already did: `transcript`), then score and continue as
        `submit`. The result carries the transcript and the probably misheard terms.
        AudioError when the recording cannot be used; it stays attached to the turn.
        `pronounce_later`: the pronunciation result, when the live path has not made it, is
        made in the background after the answer is scored and added to the stored transcript
        (the app's one-piece recorder: feedback does not wait for it)."""
        from coach import stt

        view = self._active(session_id, turn_pk)
        if turn_pk is not None and (view.pending is None or view.pending.id != turn_pk):
            if isinstance(audio, (bytes, bytearray, memoryview)):  # the recording stays on disk
                save_audio_file(self.settings.learner_dir, session_id, bytes(audio), suffix)
            raise concurrent_answer(view.id)
        path = self._keep_recording(view, audio, suffix)
        # the phone check of a free answer reads the recording: after "stop" on the live path it
        # would add about 0.2 s per 5 s of speech on two cores, so there it is left out
        live = transcript is not None
        if transcript is None:
            try:
                transcript = stt.transcribe(path, self.settings, self.decode_options(view))
            except AudioError as exc:
                raise self.not_english_help(view, exc) from exc
        later = pronounce_later and transcript.pronunciation is None
        if transcript.pronunciation is None and not later:
            from coach.pronunciation import pronunciation_of

            transcript.pronunciation = pronunciation_of(transcript, self.settings, None if live else path)
        transcript.pronunciation_pending = later
        answered = turn_pk or pk(view.open_turn)
        stored = transcript.model_dump_json()
        result = self._submit(view, transcript.text, transcript_json=stored, timing=transcript.to_timing(),
                              turn_pk=answered)
        if later:
            self._pronounce_in_background(answered, stored, transcript, path)
        from coach.hints import term_hints

        result.transcript = transcript
        result.notes.extend(getattr(transcript, "warnings", []))
        # "did you mean …?": a candidate is put to the recording (a forced choice of the
        # transcribed words against the term), only when there is one
        result.suggestions = term_hints(transcript, path, self.vocabulary(view))
        return result

    def _pronounce_in_background(self, turn_pk: int, stored: str, transcript, audio=None) -> threading.Thread:
        """Make the answer's pronunciation result in a thread and add it to the transcript stored
        with the turn (`stored`), unless another recording has replaced that meanwhile."""
        from sqlalchemy.exc import SQLAlchemyError

        from coach.pronunciation import pronunciation_of

        transcript = transcript.model_copy(deep=True)  # the caller's stays as it was returned

        def work() -> None:
            try:
                transcript.pronunciation = pronunciation_of(transcript, self.settings, audio)
            finally:
                transcript.pronunciation_pending = False
                try:
                    if not self.store.replace_transcript(turn_pk, stored, transcript.model_dump_json()):
                        log.info("pronunciation of turn %s not kept: its recording was replaced", turn_pk)
                except (CoachError, SQLAlchemyError) as exc:  # the store is gone
                    log.warning("pronunciation of turn %s not kept: %s", turn_pk, exc)

        thread = threading.Thread(target=work, name=f"pronounce-{turn_pk}", daemon=True)
        thread.start()
        return thread

    def transcribe_only(self, session_id: str, audio, *, transcript=None, suffix: str = ".wav"):
        """A recording kept and transcribed for the pending turn but not sent: the learner
        had typed a draft, so the transcript is offered beside it. The transcript is saved
        with the turn, so a reload brings it back."""
        from coach import stt

        view = self._active(session_id)
        path = self._keep_recording(view, audio, suffix)
        if transcript is None:
            transcript = stt.transcribe(path, self.settings, self.decode_options(view))
        view.put(self.store.save_answer(pk(view.open_turn), None, transcript_json=transcript.model_dump_json()))
        return transcript

    def _keep_recording(self, view: SessionView, audio, suffix: str) -> Path:
        """The recording saved in the data dir (bytes written, an outside file copied) and
        attached to the pending turn, before anything else is done with it."""
        session_id = view.id
        if isinstance(audio, (bytes, bytearray, memoryview)):
            path = save_audio_file(self.settings.learner_dir, session_id, bytes(audio), suffix)
        else:
            from coach.audio import check_recording_file

            # a device, a pipe, bytes that are not audio or a file bigger than any allowed recording
            # is refused from its first bytes and its size, before anything is copied
            path = check_recording_file(audio, self.settings.max_audio_seconds)
            home = (Path(self.settings.learner_dir) / "audio").resolve()
            if home not in path.resolve().parents:
                path = copy_audio_file(self.settings.learner_dir, session_id, path, path.suffix or suffix)
        if view.open_turn.audio_path != str(path):
            self._attach(view, str(path))
        return path

    def recovered_recording(self, view: SessionView, quiet_seconds: float = 3.0) -> Path | None:
        """A recording of the pending turn that was saved but never answered with (the page
        reloaded or the stream dropped mid-answer), once nothing has written to it for
        `quiet_seconds`."""
        import time

        pending = view.pending
        if pending is None or pending.answer_text or not pending.audio_path:
            return None
        path = Path(pending.audio_path)
        if not path.is_file() or path.stat().st_size <= 44:
            return None
        if time.time() - path.stat().st_mtime < quiet_seconds:
            return None
        return path

    def rescore(self, session_id: str, turn_pk: int, text: str) -> TurnResult:
        """"Correct and re-score": the corrected text replaces a scored answer (the earlier
        version is kept in the store's answer history); the turn gets a new scorecard, and a
        follow-up not answered yet is chosen again from the new result."""
        view = self.load(session_id)
        turn = next((t for t in view.turns if t.id == turn_pk), None)
        if turn is None or not turn.answer_text:
            raise EmptyAnswerError("there is no answer to correct on that turn")
        self._check_length(text)
        self.store.keep_revision(turn)
        timing = None
        if turn.transcript_json:
            from coach.stt import Transcript

            timing = Transcript.model_validate_json(turn.transcript_json).to_timing()
        turn = view.put(self.store.save_answer(pk(turn), text))
        later = [t for t in view.turns if t.position > turn.position]
        if later and all(not t.answer_text for t in later) and len(later) == 1 and not view.finished:
            # The follow-up was chosen from the old answer and is not answered yet: choose
            # it again from the corrected one.
            self.store.delete_turn(pk(later[0]))
            view.drop(pk(later[0]))
        elif later or view.finished:
            scorecard = self._score(view, turn, text, timing, [])
            view.put(self.store.save_scorecard(pk(turn), scorecard.model_dump_json(exclude_none=True),
                                               scorecard.scorer_version))
            result = view.result()
            met = result.met_ids(None if view.card.kind == "interview" else turn.turn_id)
            pending = view.pending
            index = next(i for i, t in enumerate(view.turns) if t.id == turn.id)
            return TurnResult(scorecard, pending.prompt if pending else None, view.finished, [], met, result,
                              result.deltas.get(index), session=view, turn_pk=turn.id,
                              pending_turn=pending.id if pending else None)
        return self._score_and_continue(view, pk(turn), text, timing)

    def take_back(self, session_id: str, turn_pk: int) -> SessionView:
        """Hands-free, the learner went on with the answer to `turn_pk` after its turn was taken
        as over (a pause inside a sentence): the answer is kept as a revision, the follow-up chosen
        from it (asked, not answered) is withdrawn, and the turn waits for the whole answer again.
        ConcurrentAnswerError when that is no longer so (the follow-up was answered, the session
        ended, another window changed the turn): the learner's words then answer what is open."""
        view = self.load(session_id)
        turn = next((t for t in view.turns if t.id == turn_pk), None)
        later = [t for t in view.turns if turn is not None and t.position > turn.position]
        if (turn is None or not turn.answer_text or view.finished or len(later) != 1
                or later[0].answer_text or later[0].audio_path):
            raise concurrent_answer(view.id)
        self.store.keep_revision(turn, reason="continued")
        view.put(self.store.reopen_turn(pk(turn), expected_version=turn.version))
        self.store.delete_turn(pk(later[0]))
        view.drop(pk(later[0]))
        return view

    def _check_length(self, text: str) -> None:
        """The one answer check before anything is saved: not empty (the length cap is `submit`'s)."""
        if not text or not text.strip():
            raise EmptyAnswerError("the answer is empty: type or say something first")
        if len(text) > self.settings.max_answer_chars:
            raise AnswerTooLongError(f"the answer is {len(text):,} characters; the limit is "
                                     f"{self.settings.max_answer_chars:,}")

    def submit(self, session_id: str, text: str, *, transcript_json: str | None = None,
               timing: SpeechTiming | None = None, turn_pk: int | None = None) -> TurnResult:
        """Save the answer, then score it and decide the next prompt.

        `turn_pk` is the turn the learner was shown (the CLI and the app pass it): when another
        window or process answered it first, or is scoring an answer to it right now, this
        answer is refused (ConcurrentAnswerError) and kept with the turn, never scored."""
        return self._submit(self._active(session_id, turn_pk), text, transcript_json=transcript_json,
                            timing=timing, turn_pk=turn_pk)

    def _submit(self, view: SessionView, text: str, *, transcript_json: str | None = None,
                timing: SpeechTiming | None = None, turn_pk: int | None = None) -> TurnResult:
        turn = view.pending
        text = as_text(text or "")  # a byte that was not UTF-8 (a lone surrogate) cannot be stored
        if not text or not text.strip():
            raise EmptyAnswerError("the answer is empty: type or say something first")
        if turn is None or (turn_pk is not None and turn.id != turn_pk) or self._being_scored(turn):
            shown = turn_pk if turn_pk is not None else turn.id if turn is not None else None
            if shown is None:
                raise session_finished()
            raise self._refuse_concurrent(view.id, shown, text, transcript_json)
        if transcript_json is None:  # typed: the turn's recording goes with it when its words were sent
            transcript_json = self._spoken_in(turn, text)
        if transcript_json is not None and timing is None:  # timing always travels with a transcript
            from coach.stt import Transcript

            timing = Transcript.model_validate_json(transcript_json).to_timing()
        try:
            turn = view.put(self.store.save_answer(pk(turn), text, transcript_json=transcript_json,
                                                   expected_version=turn.version))
        except ConcurrentAnswerError:
            raise self._refuse_concurrent(view.id, pk(turn), text, transcript_json) from None
        if len(text) > self.settings.max_answer_chars:
            message = (f"the answer is {len(text):,} characters; the limit is "
                       f"{self.settings.max_answer_chars:,}. It is saved; please send a shorter one")
            view.put(self.store.mark_refused(pk(turn), message))
            again = NextPrompt(turn.turn_id, TurnKind(turn.kind), turn.prompt, criterion=turn.criterion,
                               llm=json.loads(turn.llm_json) if turn.llm_json else None)
            self._ask(view, again, turn.position + 1)
            raise AnswerTooLongError(message)
        if english.is_korean(text):
            self._ask_again_in_english(view, turn)
        return self._score_and_continue(view, pk(turn), text, timing, turn.version, transcript_json)

    def _missing_in_turn(self, view: SessionView, turn: Turn) -> list[str]:
        """The criteria this turn's situation still needs, the follow-up's own criterion first."""
        card_turn = card_turn_of(view.card, turn)
        missing = [s.criterion for s in view.result().missing() if s.card_turn == card_turn]
        if turn.criterion in missing:
            missing.remove(turn.criterion)
            missing.insert(0, turn.criterion)
        return missing

    def not_english_help(self, view: SessionView, error: AudioError) -> AudioError:
        """A recording refused as not English (a Korean answer, or English too unclear to hear) gets,
        besides the reason, the English frames of what the turn still needs (the recording is kept
        with the turn; the learner records again or types). Other refusals are returned as they are."""
        from coach.stt import NOT_ENGLISH

        if str(error) != NOT_ENGLISH or view.pending is None:
            return error
        missing = self._missing_in_turn(view, view.pending)
        return AudioError(interviewer.say_it_in_english(view.card, missing,
                                                        said=(NOT_ENGLISH, interviewer.NOT_ENGLISH_KO)))

    def _ask_again_in_english(self, view: SessionView, turn: Turn) -> None:
        """An answer in Korean is kept with its turn, never scored as empty: the coach says it was
        Korean, gives English frames for what the turn still needs, and asks the same question again."""
        missing = self._missing_in_turn(view, turn)
        message = interviewer.say_it_in_english(view.card, missing)
        view.put(self.store.mark_refused(pk(turn), message))
        again = NextPrompt(turn.turn_id, TurnKind(turn.kind), turn.prompt, criterion=turn.criterion,
                           llm=json.loads(turn.llm_json) if turn.llm_json else None)
        self._ask(view, again, turn.position + 1)
        raise KoreanAnswerError(message)

    def _being_scored(self, turn: Turn) -> bool:
        """An answer saved moments ago and not scored yet: its writer is scoring it now."""
        if not turn.answer_text or turn.status != TurnStatus.ANSWERED or turn.answered_at is None:
            return False
        from datetime import UTC, datetime

        answered = turn.answered_at if turn.answered_at.tzinfo else turn.answered_at.replace(tzinfo=UTC)
        return (datetime.now(UTC) - answered).total_seconds() < SCORING_WINDOW_S

    def _refuse_concurrent(self, session_id: str, turn_pk: int, text: str,
                           transcript_json: str | None) -> ConcurrentAnswerError:
        """The answer lost the race for its prompt: kept with the turn it meant to answer."""
        self.store.keep_unused_answer(turn_pk, text, transcript_json)
        log.info("session %s: an answer to turn %s was refused (another writer answered first)",
                    session_id, turn_pk)
        return concurrent_answer(session_id)

    @staticmethod
    def _spoken_in(turn: Turn, text: str) -> str | None:
        """The pending turn's saved transcript (a recording kept beside a typed draft, or found
        again after a reload), when the text sent contains what was said."""
        if not turn.transcript_json:
            return None
        spoken = (json.loads(turn.transcript_json).get("text") or "").strip()
        return turn.transcript_json if spoken and spoken in text else None

    def retry_scoring(self, session_id: str) -> TurnResult:
        """Score a saved answer whose scoring failed earlier."""
        view = self._active(session_id)
        turn = view.open_turn
        if not turn.answer_text:
            raise EmptyAnswerError("there is no saved answer to score yet")
        if len(turn.answer_text) > self.settings.max_answer_chars:
            raise AnswerTooLongError(
                f"the saved answer is {len(turn.answer_text):,} characters; the limit is "
                f"{self.settings.max_answer_chars:,}. Shorten it and send it again")
        return self._score_and_continue(view, pk(turn), turn.answer_text, None, turn.version, turn.transcript_json)

    def save_draft(self, turn_pk: int, text: str) -> Turn:
        """Keep what is typed for a turn not answered yet, so a reload or another tab finds it
        (written as it changes: no session load)."""
        return self.store.save_draft(turn_pk, text)

    def save_transcript(self, session_id: str, transcript_json: str) -> Turn:
        """Keep a recording's transcript with the pending turn, so a reload brings it back."""
        view = self._active(session_id)
        return view.put(self.store.save_answer(pk(view.open_turn), None, transcript_json=transcript_json))

    def _active(self, session_id: str, turn_pk: int | None = None) -> SessionView:
        view = self.resume(session_id)
        if turn_pk is not None and (view.pending is None or view.pending.id != turn_pk) and \
                any(t.id == turn_pk for t in view.turns):
            return view  # the prompt the writer saw was answered meanwhile: submit refuses it
        if view.finished or view.pending is None:
            raise session_finished()
        return view

    def _score(self, view: SessionView, turn: Turn, text: str, timing: SpeechTiming | None,
               notes: list[str], version: int | None = None) -> Scorecard:
        scoring_turn = card_turn_of(view.card, turn)
        try:
            scorecard = scoring.score(view.card, scoring_turn, text, timing=timing)
            if self.settings.llm_model:
                scorecard = self._judge(view.card, scoring_turn, text, scorecard)
                if scorecard.llm and scorecard.llm.get("note"):
                    notes.append(scorecard.llm["note"])
        except CoachError:
            raise
        except Exception as exc:  # the answer is saved; the user can retry the scoring
            log.exception("scoring failed for turn %s", turn.id)
            try:
                view.put(self.store.mark_failed(pk(turn), f"scoring failed: {exc}", expected_version=version))
            except ConcurrentAnswerError:
                pass  # another writer answered the turn meanwhile; its state stands
            raise CoachError("scoring failed; your answer is saved and can be scored again") from exc
        return scorecard

    def _score_and_continue(self, view: SessionView, turn_pk: int, text: str, timing: SpeechTiming | None,
                            version: int | None = None, transcript_json: str | None = None) -> TurnResult:
        """Score the saved answer and ask the next prompt. `version` is the turn's version once
        this writer saved the answer: the scorecard is written only where it still is (another
        writer that replaced the answer meanwhile wins, and this one is refused)."""
        turn = next(t for t in view.turns if t.id == turn_pk)
        notes: list[str] = []
        scorecard = self._score(view, turn, text, timing, notes, version)
        try:
            view.put(self.store.save_scorecard(turn_pk, scorecard.model_dump_json(exclude_none=True),
                                               scorecard.scorer_version, expected_version=version))
        except ConcurrentAnswerError:  # another writer changed the turn meanwhile (a rare second load)
            current = next((t for t in self.load(view.id).turns if t.id == turn_pk), None)
            if current is None or current.answer_text != text:
                self.store.keep_unused_answer(turn_pk, text, transcript_json)
            raise concurrent_answer(view.id) from None
        result = view.result()
        session_met = result.met_ids(None if view.card.kind == "interview" else turn.turn_id)
        delta = result.deltas.get(next(i for i, t in enumerate(view.turns) if t.id == turn_pk))
        next_prompt = self._next(view, turn, scorecard, text)
        if next_prompt is None:
            self._finish(view)
            return TurnResult(scorecard, None, True, notes, session_met, result, delta, session=view, turn_pk=turn_pk)
        if next_prompt.note:
            notes.append(next_prompt.note)
        asked = self._ask(view, next_prompt, turn.position + 1)
        return TurnResult(scorecard, asked.prompt, False, notes, session_met, result, delta,
                          session=view, turn_pk=turn_pk, pending_turn=asked.id)

    def _judge(self, card: Card, turn_id: str, text: str, scorecard: Scorecard) -> Scorecard:
        from coach.llm_judge import judge

        return judge(self.settings, card, turn_id, text, scorecard)

    # --- what comes next ------------------------------------------------------------------

    def _next(self, view: SessionView, turn: Turn, scorecard: Scorecard, text: str) -> NextPrompt | None:
        if view.card.kind == "interview":
            return self._next_interview(view, text)
        return self._next_meeting(view, turn, scorecard)

    def _next_interview(self, view: SessionView, text: str) -> NextPrompt | None:
        """Follow up on every criterion still missing (each once), then the retell, then close."""
        if any(t.kind == TurnKind.RETELL for t in view.turns):
            return None
        main = view.card.turns[0].id
        asked = [t.prompt for t in view.turns]
        asked_criteria = {c for t in view.turns if t.criterion for c in t.criterion.split(",")}
        follow_ups = sum(1 for t in view.turns if t.kind == TurnKind.FOLLOW_UP and t.status != TurnStatus.REFUSED)
        result = view.result()
        missing = [view.card.criterion(state.criterion) for state in result.missing()]
        choice = interviewer.next_interview_question(view.card, view.persona, missing, asked_criteria, follow_ups)
        if choice is None:
            depth = interviewer.depth_question(view.card, view.id) if follow_ups == 0 else None
            if depth:
                return NextPrompt(main, TurnKind.FOLLOW_UP, interviewer.persona_words(view.persona, depth, follow_ups))
            return NextPrompt(main, TurnKind.RETELL, interviewer.retell_prompt(view.card))
        prompt = NextPrompt(main, TurnKind.FOLLOW_UP, "", criterion=",".join(c.id for c in choice.criteria))
        if self.settings.llm_model and len(choice.criteria) == 1:
            from coach.llm_followup import word_follow_up

            worded = word_follow_up(self.settings, view.persona, view.card, choice.criteria[0], text, asked)
            if worded.source == "llm":
                prompt.prompt = worded.text
                prompt.llm = worded.llm.model_dump() if worded.llm else None
                return prompt
            prompt.note = worded.note
        prompt.prompt = interviewer.persona_words(view.persona, choice.question, follow_ups)
        return prompt

    def _next_meeting(self, view: SessionView, turn: Turn, scorecard: Scorecard) -> NextPrompt | None:
        card_turn_ids = [t.id for t in view.card.turns]
        result = view.result()
        missing = [view.card.criterion(state.criterion) for state in result.missing()
                   if state.card_turn == turn.turn_id]
        met = [view.card.criterion(cid) for cid in result.met_ids(turn.turn_id)]
        retried = any(t.kind == TurnKind.RETRY and t.turn_id == turn.turn_id for t in view.turns)
        if missing and not retried:
            retries = sum(1 for t in view.turns if t.kind == TurnKind.RETRY)
            return interviewer.retry_prompt(view.card, view.persona, turn.turn_id, missing, met, retries)
        return self._next_card_turn(view, card_turn_ids.index(turn.turn_id) + 1)

    def _next_card_turn(self, view: SessionView, index: int) -> NextPrompt | None:
        if index >= len(view.card.turns):
            return None
        return interviewer.opening(view.card, view.persona, view.id, index)

    def skip_retry(self, session_id: str) -> SessionView:
        """Move on from an offered retry to the next turn of a meeting card."""
        view = self._active(session_id)
        pending = view.open_turn
        if pending.kind != TurnKind.RETRY or pending.answer_text:
            return view
        index = [t.id for t in view.card.turns].index(pending.turn_id) + 1
        next_prompt = self._next_card_turn(view, index)
        view.put(self.store.mark_skipped(pk(pending)))
        if next_prompt is None:
            self._finish(view)
            return view
        self._ask(view, next_prompt, pending.position + 1)
        return view

    def finish(self, session_id: str) -> SessionView:
        """End the session now (questions not answered stay open gaps)."""
        view = self.load(session_id)
        self._finish(view)
        return view
