"""The application API that every front end calls: the app's pages, `coach practice` and
`coach report`.

Each gesture (start, send text, send a recording, correct a transcript, skip, end) is one
engine call that loads the session once, and returns one immutable `PracticeView`: the
session's result, what the newest answer added and the next steps after it, the retell
compared with the first answer, the misheard-term hints, the next prompt with its persona,
and, once the session is finished, its summary. Front ends only render it; none of them
computes a result, a summary or a wording of its own.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass, replace
from datetime import datetime, timedelta, timezone
from functools import cached_property
from pathlib import Path
from types import MappingProxyType

from coach import conversation, meeting
from coach.access import LOCAL as LOCAL_LEARNER
from coach.access import Learner, auth_configured, auth_problem, signed_in
from coach.audio import FrameResampler, format_seconds
from coach.config import Settings, load_settings
from coach.content.loader import REMOVED_FOLDER, LazyCards, markdown_files
from coach.content.schema import Card, CardSummary, Library, Persona, Voice
from coach.conversation import Call, ConversationNow, LiveConversation, Said
from coach.drills import DrillLine, lines_for, read_aloud
from coach.errors import AudioError, CoachError, ContentError
from coach.hints import stored_turn_hints
from coach.interviewer import korean_hint
from coach.library import load_library
from coach.llm_judge import LLM_REASON_PREFIX
from coach.llm_rewrite import Rewrite, natural_rewrite
from coach.llm_suggest import NEEDS_LLM, ConceptSuggestion, SuggestedQuestion, questions_from_posting, suggest_concept
from coach.llm_suggest import available as llm_available
from coach.meeting import LEARNER, LiveMeeting, MeetingNow, MeetingResult, SceneView
from coach.personal import RUBRICS, Rubric, questions_from, rubric_of, spec_of
from coach.personal import create as create_card
from coach.personal import edit as edit_card
from coach.personal import remove as remove_card
from coach.progress import (
    counted,
    criterion_progress,
    first_try_skills,
    local_iso,
    progress,
    session_label,
    since_last,
    since_last_text,
    weak_skills,
    when,
    words_to_practise,
    zone,
)
from coach.pronunciation import REFERENCE_VOICE, Pronunciation, WordScore, line_around, say_again, slow_voice, word_clip
from coach.report import (
    english_markdown,
    escape_md,
    habits_markdown,
    history,
    lacked_markdown,
    markdown_report,
    model_markdown,
    practise_markdown,
    result_markdown,
    retell_markdown,
    session_record,
    since_last_markdown,
    yours_markdown,
)
from coach.result import SessionResult, TurnDelta, TurnHeadline
from coach.session import CLOSED, PracticeEngine, SessionView, TurnResult
from coach.store import PracticeSession, Store, Turn, TurnKind, TurnStatus, open_store
from coach.summary import (
    PracticeItem,
    RetellComparison,
    Summary,
    english_of,
    next_steps,
    retell_comparison,
    summarise,
)
from coach.vocabulary import card_vocabulary
from scoring.english import KIND_LABELS, Review
from scoring.models import Scorecard

log = logging.getLogger(__name__)

# What the front ends use besides the gestures: plain data and view types, and pure helpers (the
# wording of a summary, a label, a time). Named one by one, never a whole module, so that the pages
# depend on the application API (and coach.errors) alone: pyproject.toml's import contracts hold them to it.
__all__ = [
    # the gestures and their views
    "Coach", "Feedback", "PracticeView", "PronunciationStatus", "Transcribed", "present",
    # data and view types
    "Card", "CardSummary", "ConceptSuggestion", "DrillLine", "Learner", "Library", "Persona", "Pronunciation",
    "Rewrite", "Rubric", "Scorecard", "SessionResult", "Settings", "Store", "SuggestedQuestion", "Summary", "Turn",
    "TurnDelta", "TurnHeadline", "TurnKind", "TurnStatus", "Voice", "WordScore",
    # constants
    "LLM_REASON_PREFIX", "LOCAL_LEARNER", "NEEDS_LLM", "REMOVED_FOLDER", "RUBRICS",
    # helpers: pure functions of their arguments (and the resources the app caches across reruns)
    "FrameResampler", "auth_configured", "auth_problem", "counted", "criterion_progress", "english_kind_label",
    "english_markdown", "escape_md", "first_try_skills", "format_seconds", "habits_markdown", "lacked_markdown",
    "line_around", "load_library", "load_settings", "local_iso", "markdown_files", "model_markdown", "open_store",
    "practise_markdown", "questions_from", "result_markdown", "retell_markdown", "rubric_of", "session_label",
    "signed_in", "since_last", "since_last_markdown", "since_last_text", "spec_of", "weak_skills", "when",
    "word_clip", "words_to_practise", "yours_markdown", "zone",
    # the live meeting's views and its learner's name
    "LEARNER", "LiveMeeting", "MeetingNow", "MeetingResult", "SceneView",
    # the hands-free conversation's views
    "Call", "ConversationNow", "LiveConversation", "Said",
]


def english_kind_label(kind: str, korean: bool = False) -> str:
    """A grammar correction kind as learners read it ('Verb tense / 시제')."""
    label, label_ko = KIND_LABELS.get(kind, KIND_LABELS["other"])
    return f"{label} / {label_ko}" if korean else label


@dataclass(frozen=True)
class Feedback:
    """What one scored answer did: its scorecard, what it added to the session, and its English."""

    index: int  # in the session's turns
    number: int  # the learner's answer number (1, 2, …)
    scorecard: Scorecard
    delta: TurnDelta | None
    headline: TurnHeadline | None = None  # what the answer did, as every front end says it
    text: str = ""  # the answer as scored
    turn: Turn | None = None  # the answered turn as stored

    @cached_property
    def english(self) -> Review:
        """The corrections of the answer's English (made when first shown)."""
        return english_of(self.text)

    @property
    def spoken(self) -> bool:
        """A recorded answer: its transcript can be corrected and re-scored."""
        return self.turn is not None and bool(self.turn.transcript_json or self.turn.audio_path)

    @cached_property
    def pronunciation(self) -> PronunciationStatus:
        """Which words of a spoken answer came through, or that the result is still being made."""
        return pronunciation_status(self.turn)


PRONUNCIATION_PENDING_FOR = timedelta(minutes=2)  # a background result not stored by then is not coming


@dataclass(frozen=True)
class PronunciationStatus:
    """A spoken answer's pronunciation: its result once stored; `pending` while it is being made
    in the background (a one-piece recording) and recently enough asked for that it is still coming
    (a process that died leaves the flag behind)."""

    result: Pronunciation | None = None
    pending: bool = False


def pronunciation_status(turn: Turn | None) -> PronunciationStatus:
    if turn is None or not turn.transcript_json:
        return PronunciationStatus()
    data = json.loads(turn.transcript_json)
    if data.get("pronunciation"):
        return PronunciationStatus(Pronunciation.model_validate(data["pronunciation"]))
    answered = turn.answered_at
    if answered is not None and answered.tzinfo is None:
        answered = answered.replace(tzinfo=timezone.utc)
    pending = (bool(data.get("pronunciation_pending")) and answered is not None
               and datetime.now(timezone.utc) - answered < PRONUNCIATION_PENDING_FOR)
    return PronunciationStatus(pending=pending)


@dataclass(frozen=True)
class Transcribed:
    """A recording kept and transcribed for the pending turn but not sent: its transcript goes to
    the answer box, beside what the learner typed (and is kept with the turn for a reload)."""

    text: str
    transcript_json: str
    duration: float


@dataclass(frozen=True)
class PracticeView:
    """One session as every front end shows it, after one gesture."""

    id: str
    row: PracticeSession
    card: Card
    persona: Persona
    turns: tuple[Turn, ...]
    result: SessionResult
    finished: bool
    feedback: Mapping[int, Feedback]  # by turn index, every scored answer
    newest: int | None  # index of the newest scored answer while the session runs
    next_steps: tuple[PracticeItem, ...] = ()  # after the newest answer
    retell: RetellComparison | None = None
    summary: Summary | None = None  # once finished
    notes: tuple[str, ...] = ()
    hints: tuple[str, ...] = ()  # "did you mean …?" for the spoken answer just sent (or the newest)
    transcript: object | None = None  # the coach.stt.Transcript of the answer just sent, if spoken

    def with_notes(self, *notes: str) -> PracticeView:
        """The view with more notes for the learner (said once, under the newest exchange)."""
        return replace(self, notes=(*self.notes, *notes))

    @property
    def pending(self) -> Turn | None:
        if self.finished:
            return None
        if self.turns and self.turns[-1].status not in CLOSED:
            return self.turns[-1]
        return None

    @property
    def answered(self) -> int:
        return len(self.feedback)

    @property
    def newest_refused(self) -> Turn | None:
        """The newest answer kept but refused (in Korean, or too long): the one to say again."""
        return next((t for t in reversed(self.turns) if t.answer_text and t.status == TurnStatus.REFUSED), None)

    @property
    def met(self) -> int:
        return self.result.met

    def answer_number(self, index: int | None) -> int | None:
        return self.feedback[index].number if index is not None and index in self.feedback else None

    @property
    def spoken(self) -> str:
        """The text of the pending turn's saved recording transcript ("" when none)."""
        pending = self.pending
        if pending is None or not pending.transcript_json:
            return ""
        return json.loads(pending.transcript_json).get("text") or ""

    def label(self, tz=None) -> str:
        """'1 Dec 15:53 · A quick status update · 2 of 4 · in progress', as History lists it."""
        record = session_record(self.row, list(self.turns), self.card)
        return session_label(record, Library(cards={self.card.id: self.card}), tz)

    def first_and_retell(self) -> tuple[Feedback | None, Feedback | None]:
        """The first answer (before any follow-up) and the retell, shown side by side (History)."""
        first = next(iter(self.feedback.values()), None)
        retell = next((f for f in self.feedback.values() if self.turns[f.index].kind == TurnKind.RETELL), None)
        return first, (retell if retell is not first else None)

    def korean_hint(self, turn: Turn) -> str | None:
        return korean_hint(self.card, turn.kind, turn.turn_id, turn.criterion)

    def report(self, korean: bool = True, tz=None) -> str:
        """The session's Markdown report (the summary in the app's words), its times in the
        learner's zone `tz` (None: this machine's)."""
        session = self._session()
        return markdown_report(session, self.summary or summarise(session), korean, tz)

    def _session(self) -> SessionView:
        return SessionView(self.row, self.card, self.persona, list(self.turns))


def present(session: SessionView, result: TurnResult | None = None) -> PracticeView:
    """The view of a session as loaded (or kept current by the gesture that just ran)."""
    outcome = session.result()
    feedback: dict[int, Feedback] = {}
    for index, turn in enumerate(session.turns):
        if turn.scorecard_json:
            scorecard = Scorecard.model_validate_json(turn.scorecard_json)
            delta = outcome.deltas.get(index)
            evidence = {cid: list(v.evidence) for cid, v in scorecard.criteria.items() if v.met}
            # the scorer judged it impolite: only then is the answer read again for how it sounds
            impolite = any(c.detector.type == "politeness" and not scorecard.criteria[c.id].met
                           for c in session.card.criteria if c.id in scorecard.criteria)
            headline = (outcome.headline(delta, evidence, turn.answer_text or "", impolite)
                        if delta is not None else None)
            feedback[index] = Feedback(index, len(feedback) + 1, scorecard, delta, headline,
                                       turn.answer_text or "", turn)
    finished = session.finished or session.pending is None
    newest = max(feedback) if feedback and not finished else None
    return PracticeView(
        id=session.id, row=session.row, card=session.card, persona=session.persona, turns=tuple(session.turns),
        result=outcome, finished=finished, feedback=MappingProxyType(feedback), newest=newest,
        next_steps=tuple(next_steps(session, limit=1)) if newest is not None else (),
        retell=retell_comparison(session),
        summary=summarise(session) if finished else None,
        notes=tuple(result.notes) if result else (),
        hints=_hints(session, result, newest),
        transcript=result.transcript if result else None,
    )


def _hints(session: SessionView, result: TurnResult | None, newest: int | None) -> tuple[str, ...]:
    """"Did you mean …?" for the card's terms that the transcript of the answer just sent (or of the
    newest answer, when the session is only loaded) probably misheard; none for a typed answer."""
    if result is not None and result.transcript is not None:  # a recording just sent: its own hints
        return tuple(s.message() for s in result.suggestions)
    if result is not None and result.turn_pk is not None:
        heard = next((t for t in session.turns if t.id == result.turn_pk), None)
    else:
        heard = session.turns[newest] if newest is not None else None
    if heard is None or not heard.transcript_json or not heard.answer_text:
        return ()
    return tuple(s.message() for s in stored_turn_hints(heard, card_vocabulary(session.card)))


@dataclass
class Coach:
    """The gestures, each one engine call returning one view. The front ends call these and nothing
    of the engine: `engine` is for the application API itself (and tests)."""

    engine: PracticeEngine

    @classmethod
    def of(cls, library: Library, store: Store, settings: Settings | None = None) -> Coach:
        """The application API over this content and this learner's store."""
        return cls(PracticeEngine(library, store, settings))

    @property
    def library(self) -> Library:
        return self.engine.library

    @property
    def settings(self) -> Settings:
        return self.engine.settings

    def check_storage(self) -> None:
        """CoachError (one line) when the database cannot be used (deleted, damaged, unreachable)."""
        self.engine.store.check_file()

    def history(self, limit: int = 200) -> list[dict]:
        """The learner's sessions, newest first, as `coach history --format json` lists them."""
        return history(self.engine.store, limit=limit, library=self.library)

    def open(self, session_id: str) -> PracticeView:
        """A session as stored, to read (History, `coach report`)."""
        return self._with_progress(present(self.engine.load(session_id)))

    def resume(self, session_id: str) -> PracticeView:
        """A session to practise in: a turn interrupted between its steps is completed first
        (the prompt that should have come next is asked, or the session is finished)."""
        return self._with_progress(present(self.engine.resume(session_id)))

    def first_try_skills(self, tz=None) -> list[dict]:
        """Across all cards, how often each skill was met on the first try, weakest first."""
        return first_try_skills(self.progress(tz=tz), self.library)

    def progress(self, card: str | None = None, tz=None) -> dict:
        """`coach progress`: first try per criterion and card over the finished sessions (oldest
        first), and per session the first answer, the retell and how it sounded; times ISO 8601 in
        the learner's zone `tz` (None: this machine's)."""
        records = history(self.engine.store, limit=10**9, library=self.library)
        return progress(records, self.library, tz, card)

    def _with_progress(self, view: PracticeView, data: dict | None = None) -> PracticeView:
        """A finished session's summary says plainly whether the first answer was better than last
        time on this card (coach.progress.since_last). `data`: `progress` over all the learner's
        sessions when the caller has it (the export), else it is made for this card."""
        if view.summary is None:
            return view
        if data is None:
            records = history(self.engine.store, limit=10**9, library=self.library)
            # which criteria the first answers met is all it compares: no grammar pass over every session
            data = progress(records, self.library, card=view.card.id, kinds_of=lambda _text: [])
        change = since_last(data, view.id)
        if change is None:
            return view
        return replace(view, summary=view.summary.model_copy(update={"since_last": change}))

    def start(self, card_id: str, persona_id: str | None = None) -> PracticeView:
        return present(self.engine.start(card_id, persona_id))

    def send_text(self, session_id: str, text: str, *, turn_pk: int | None = None,
                  transcript_json: str | None = None, timing=None) -> PracticeView:
        """`turn_pk` is the turn the learner was shown: when another window or process answered
        it meanwhile, the answer is refused (ConcurrentAnswerError) and its text kept."""
        return self._after(self.engine.submit(session_id, text, transcript_json=transcript_json, timing=timing,
                                              turn_pk=turn_pk))

    def send_audio(self, session_id: str, audio, *, turn_pk: int | None = None, transcript=None,
                   suffix: str = ".wav", pronounce_later: bool = False) -> PracticeView:
        """The voice turn in one piece (a file, or the bytes of the app's one-piece recorder):
        kept, transcribed, scored and followed up; `pronounce_later`: the scorecard does not wait
        for the pronunciation result (`Feedback.pronunciation` is pending until it is stored)."""
        return self._after(self.engine.answer_with_audio(session_id, audio, transcript=transcript, suffix=suffix,
                                                         turn_pk=turn_pk, pronounce_later=pronounce_later))

    # --- the live voice turn: the recording streams to disk and is transcribed while spoken ---------

    def prepare_speech(self) -> None:
        """Load the speech model (once per process) and decode a second of silence, so that the
        first real segment is not slowed by lazy initialisation (measured: 0.94 s for the first
        sentence, 0.4-0.5 s after), the hands-free turn-end check and the natural voice. CoachError
        when the model cannot be loaded."""
        import numpy as np

        from coach import tts
        from coach.stt import load_model

        model = load_model(self.settings)
        try:
            model.decode_window(np.zeros(16000, dtype=np.float32))
            model.sentence_end_probability(np.zeros(16000, dtype=np.float32), "Hello")  # the turn-end check
        except Exception:  # noqa: BLE001 - warming up is only an optimisation
            pass
        tts.warm_up(self.settings)  # the persona's and the model line's voice, before the first line

    def start_live(self, session_id: str):
        """A `coach.live.LiveAnswer` for the pending turn, fed with the microphone's frames: its
        recording file is attached to the turn now, so a dropped stream or a reload loses nothing;
        the browser hands over its own recording of the opening words (`LiveAnswer.add_head`)."""
        return self.engine.start_live_answer(session_id, await_head=True)

    def send_live(self, session_id: str, live, *, turn_pk: int) -> PracticeView:
        """Stop was pressed: the last segment is transcribed and the turn runs (as `send_audio`)."""
        started = time.perf_counter()
        try:
            transcript = live.finish()
        except AudioError as exc:
            raise self.engine.not_english_help(self.engine.load(session_id), exc) from exc
        finished = time.perf_counter()
        view = self.send_audio(session_id, live.path, transcript=transcript, turn_pk=turn_pk)
        log.info("live answer of %.1f s: last segment %.2f s, turn %.2f s", live.seconds,
                 finished - started, time.perf_counter() - finished)
        return view

    def talk_hands_free(self, session_id: str, model) -> LiveConversation:
        """The session spoken hands-free (`coach.conversation`): the persona says the pending
        prompt in its voice, hears the learner's turn to its end, runs it as `send_audio` does (the
        recording kept first, then the same scoring, follow-ups and stored turn; the transcript made
        while waiting for the turn to end is the one stored) and says its next line, until the
        session is done. Its `bridge()` is the WebRTC audio callback, its `now()` what the page
        shows. CoachError when the session has no question open or text-to-speech is missing."""
        import numpy as np

        from coach import audio as audio_mod

        view = self.resume(session_id)
        if view.pending is None:
            raise CoachError("This session is finished: start a new one to talk again.")
        voice = view.persona.voice
        asked = {"turn": view.pending.id}

        def speak(text: str):
            return audio_mod.decode(self.speak(text, voice)).samples.astype(np.float32)

        def answer(samples, transcript, continued: bool = False) -> conversation.Reply:
            previous = asked.get("answered")
            if continued and previous is not None:
                # the learner went on after a pause the turn was taken as over at: the answer
                # is taken back and this recording (all of it, from its first word) answers again
                try:
                    self.engine.take_back(session_id, previous)
                    asked["turn"] = previous
                except CoachError:  # no longer possible: these words answer what is open
                    pass
            answered = asked["turn"]
            try:
                after = self.send_audio(session_id, audio_mod.wav_bytes(samples), turn_pk=answered,
                                        transcript=transcript, pronounce_later=True)
            except CoachError as exc:  # kept (the recording is attached to the turn); asked again
                asked["answered"] = None
                now = self.resume(session_id)
                if now.pending is None:
                    return conversation.Reply(now.persona.closing, done=True, note=str(exc))
                asked["turn"] = now.pending.id
                return conversation.Reply(conversation.SAY_AGAIN, note=str(exc))
            heard = next((t.answer_text or "" for t in after.turns if t.id == answered), "")
            asked["answered"] = answered
            if after.pending is None:
                return conversation.Reply(after.persona.closing, heard=heard, done=True)
            asked["turn"] = after.pending.id
            return conversation.Reply(after.pending.prompt, heard=heard)

        options = self.engine.decode_options(self.engine.load(session_id))
        return LiveConversation(view.pending.prompt, speak, conversation.hearing(model, options), answer)

    def hold_live(self, session_id: str, live) -> Transcribed:
        """Stop was pressed while a typed draft is in the box: the answer is transcribed and kept
        for the box, not sent."""
        return self.transcribe(session_id, live.path, transcript=live.finish())

    def transcribe(self, session_id: str, audio, *, transcript=None, suffix: str = ".wav") -> Transcribed:
        """A recording kept and transcribed (with the card's vocabulary) for the pending turn, not
        sent; the transcript is kept with the turn, so a reload finds it and a send keeps it."""
        kept = self.engine.transcribe_only(session_id, audio, transcript=transcript, suffix=suffix)
        return Transcribed(kept.text, kept.model_dump_json(), kept.duration)

    def recovered_recording(self, view: PracticeView, quiet_seconds: float = 3.0) -> str | None:
        """The pending turn's recording that was saved but never sent (the page reloaded or the
        stream dropped mid-answer), once nothing has written to it for `quiet_seconds`."""
        path = self.engine.recovered_recording(view._session(), quiet_seconds=quiet_seconds)
        return str(path) if path is not None else None

    def keep_transcript(self, session_id: str, transcript_json: str) -> None:
        """Not a gesture: a recording's transcript is kept with the pending turn (a reload brings it back)."""
        self.engine.save_transcript(session_id, transcript_json)

    def correct(self, session_id: str, turn_pk: int, text: str) -> PracticeView:
        """"Correct the transcript and re-score": the corrected text replaces the answer (the earlier
        version is kept); the view's first note says what the corrected answer meets on its own."""
        result = self.engine.rescore(session_id, turn_pk, text)
        met = sum(r.met for r in result.scorecard.criteria.values())
        result.notes.insert(0, f"Re-scored your corrected answer: on its own it meets {met} of "
                               f"{len(result.scorecard.criteria)} criteria.")
        return self._after(result)

    def pronunciation(self, turn_pk: int) -> PronunciationStatus:
        """A spoken answer's pronunciation as stored now (a result made in the background shows up here)."""
        return pronunciation_status(self.engine.store.get_turn(turn_pk))

    def score_again(self, session_id: str) -> PracticeView:
        return self._after(self.engine.retry_scoring(session_id))

    def save_draft(self, turn_pk: int, text: str) -> None:
        """Not a gesture: the typed draft is kept with its turn as it changes (no session load)."""
        self.engine.save_draft(turn_pk, text)

    def skip(self, session_id: str) -> PracticeView:
        return self._with_progress(present(self.engine.skip_retry(session_id)))

    def end(self, session_id: str) -> PracticeView:
        return self._with_progress(present(self.engine.finish(session_id)))

    def forget_me(self) -> int:
        """Delete all the learner's data (sessions, recordings; see PracticeEngine.forget_learner)."""
        return self.engine.forget_learner()

    def export(self, korean: bool = True, tz=None) -> bytes:
        """The learner's data to take away: a zip of `history.json` (as `coach history --format
        json`, each session with its local time `at` and each spoken turn with its `recording` in the
        zip), `progress.json` (as `coach progress`), each session's Markdown report under `reports/`
        and the recordings under `recordings/`; every time in the learner's zone `tz` (None: this
        machine's), as the app shows them."""
        import io
        import zipfile

        records = history(self.engine.store, limit=10**9, library=self.library)
        data = progress(records, self.library, tz)
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
            for record in records:
                record["at"] = local_iso(record["started_at"], tz)
                folder = f"{record['at'][:10]}-{record['card']}-{record['id'][:8]}"
                for number, turn in enumerate(record["turns"], start=1):
                    path = Path(turn["audio_path"]) if turn.get("audio_path") else None
                    if path is None or not path.is_file():  # deleted since: the turn is still exported
                        continue
                    turn["recording"] = f"recordings/{folder}/{number:02d}-{path.name}"
                    archive.write(path, turn["recording"])
                try:
                    markdown = self._with_progress(present(self.engine.load(record["id"])), data).report(korean, tz)
                except CoachError:  # a card no longer loads: its history entry is still exported
                    continue
                archive.writestr(f"reports/{folder}.md", markdown)
            archive.writestr("history.json", json.dumps(records, ensure_ascii=False, indent=2))
            archive.writestr("progress.json", json.dumps(data, ensure_ascii=False, indent=2))
        return out.getvalue()

    def natural_rewrite(self, text: str) -> Rewrite:
        """The answer in natural spoken English with its changes, from the configured LLM; refused
        (RewriteError, one line) when there is none or when it adds a number or a technical term."""
        return natural_rewrite(self.settings, text)

    # --- speech: the persona's lines, lines to read aloud, a word said again ------------------------

    def speak(self, text: str, voice: Voice) -> bytes:
        """A line in this voice (WAV); CoachError when text-to-speech is not available."""
        from coach import tts  # looked up when called (tests replace the synthesizer)

        return tts.synthesize(text, voice, self.settings)

    def line_ready(self, text: str, voice: Voice) -> bool:
        """Whether `speak` has this line made already (on disk: it returns at once)."""
        from coach import tts

        return tts.is_made(text, voice, self.settings)

    def speak_ahead(self, text: str, voice: Voice) -> None:
        """Start making a line in the background (kept on disk), so that `speak` for it, called
        next, finds it made or being made beside another line (a line and its slower replay)."""

        def make() -> None:
            try:
                self.speak(text, voice)
            except CoachError:
                pass  # `speak` says so when the line is asked for

        threading.Thread(target=make, name="speak-ahead", daemon=True).start()

    def drill_lines(self, card_id: str) -> list[DrillLine]:
        """A card's lines to read aloud (coach.drills): key phrases, then model-answer sentences
        with the card's terms."""
        return lines_for(self.library.card(card_id))

    def read_aloud(self, audio, line: str) -> Pronunciation:
        """One reading of a drill line: each word and whether it came through."""
        return read_aloud(audio, line, self.settings)

    def line_audio(self, line: str, slow: bool = False) -> bytes:
        """A drill line (or a word) to copy, in the reference voice's settings (WAV): natural where
        a natural voice is installed (the readings are measured against espeak-ng's)."""
        return self.speak(line, slow_voice() if slow else REFERENCE_VOICE)

    def line_audio_ready(self, line: str, slow: bool = False) -> bool:
        """Whether `line_audio` has this line made already (it returns at once)."""
        return self.line_ready(line, slow_voice() if slow else REFERENCE_VOICE)

    def say_again(self, audio, line: str, word: str) -> WordScore | None:
        """"Say it again": a new recording of the line with a flagged word, read against that line;
        the result for the word, or None when the word is not in the line."""
        return say_again(audio, line, word, self.settings)

    # --- the learner's own cards ---------------------------------------------------------------------

    def own_cards(self) -> list[CardSummary]:
        """The learner's own cards, as listed (from their folder's index: none is built)."""
        return [c for c in self.library.summaries() if c.personal]

    def _private_library(self) -> Library:
        """`coach.personal` adds, changes and removes cards in the library it is given, and the app's
        libraries are cached (shared by every visitor): a gesture works on a copy, which this coach
        then uses (so a card just made can be practised at once); the next run reads the files afresh."""
        library = self.engine.library
        self.engine.library = replace(library, cards=_copied(library.cards), removed=_copied(library.removed))
        return self.engine.library

    def create_cards(self, rubric: str, questions: list[str], *, terms: str | None = None,
                     outline: list[str] | tuple[str, ...] = ()) -> list[Card]:
        """Cards of the learner's own questions (one per question), ready to practise with `start`;
        a question they already have a card for is refused (DuplicateTitleError names that card)."""
        made = create_card(self._private_library(), self.settings, rubric, list(questions), terms=terms,
                           unique_titles=True, outline=list(outline))
        return [m.card for m in made]

    def edit_card(self, card_id: str, *, question: str, title: str, terms: str | None) -> Card:
        return edit_card(self._private_library(), self.settings, card_id, question=question, title=title,
                         terms=terms, unique_titles=True).card

    def remove_card(self, card_id: str) -> None:
        """The card is removed; its past sessions stay readable (History)."""
        remove_card(self._private_library(), self.settings, card_id)

    def can_suggest(self) -> bool:
        """A language model is configured for the suggestions (else NEEDS_LLM says what to set)."""
        return llm_available(self.settings)

    def suggest_concept(self, question: str) -> ConceptSuggestion:
        """The model's key terms and answer outline for a concept question."""
        return suggest_concept(self.settings, question)

    def suggest_questions(self, posting: str) -> list[SuggestedQuestion]:
        """Up to five likely interview questions from a job posting."""
        return questions_from_posting(self.settings, posting)

    def latest_active(self, kind: str | None = None) -> PracticeView | None:
        session = self.engine.latest_active(kind)
        return present(session) if session is not None else None

    def _after(self, result: TurnResult) -> PracticeView:
        assert result.session is not None  # every gesture returns the session it kept current
        return self._with_progress(present(result.session, result))

    # --- meeting scenes (the Meeting page; `coach meeting` plays them with coach.meeting too) --------

    def meeting_scenes(self) -> tuple[SceneView, ...]:
        """The multi-party meeting scenes, as the Meeting page offers them (by id)."""
        library = self.library
        return tuple(meeting.scene_view(library.scenes[sid], library.personas) for sid in sorted(library.scenes))

    def _scene(self, scene_id: str):
        if scene_id not in self.library.scenes:
            raise ContentError(f"unknown scene {scene_id!r}")
        return self.library.scenes[scene_id]

    def speech_model(self):
        """The speech model the live meeting hears the learner with (the page keeps it loaded)."""
        from coach.stt import load_model

        return load_model(self.settings)

    def join_meeting(self, scene_id: str, model) -> LiveMeeting:
        """A scene to play live: every persona line spoken in its persona's voice, ready to step;
        its `bridge()` is the WebRTC audio callback, its `now()` what the page shows.
        SpeechSynthesisError when text-to-speech is missing."""
        scene = self._scene(scene_id)
        voices = meeting.line_samples(scene, self.library.personas, self.settings)
        return LiveMeeting(scene, self.library.personas, voices, meeting.hearing(model))

    def meeting_result(self, live: LiveMeeting, model) -> MeetingResult:
        """A live meeting judged on the timeline as it was played (`coach meeting`'s judging)."""
        lines, windows = live.played()
        live.close()
        data = meeting.judge_samples(live.scene, lines, windows, live.recording(), model)
        return meeting.result_view(live.scene, self.library.personas, data)

    def meeting_audio(self, scene_id: str) -> bytes:
        """The personas' side of a scene as one WAV, to play while recording it in one piece."""
        return meeting.personas_audio(self._scene(scene_id), self.library.personas, self.settings)

    def play_meeting(self, scene_id: str, audio) -> MeetingResult:
        """A recording of the whole scene (silence where the learner listens) judged as
        `coach meeting --scene ID --audio FILE` judges it."""
        scene = self._scene(scene_id)
        data = meeting.play(scene, self.library.personas, audio, self.settings)
        return meeting.result_view(scene, self.library.personas, data)


def _copied(cards: MutableMapping[str, Card]) -> MutableMapping[str, Card]:
    """A copy of a library's cards; the learner's own not yet read stay unread (LazyCards)."""
    return cards.copy() if isinstance(cards, LazyCards) else dict(cards)
