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
from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import cached_property
from types import MappingProxyType

from coach import access, interviewer, llm_rewrite, llm_suggest, meeting, personal, report, stt, tts
from coach.access import Learner
from coach.audio import FrameResampler, format_seconds
from coach.config import Settings, load_settings
from coach.content import REMOVED_FOLDER, Card, Library, Persona, Voice, load_library, markdown_files
from coach.drills import DrillLine, lines_for, read_aloud
from coach.errors import CoachError, ContentError
from coach.llm_judge import LLM_REASON_PREFIX
from coach.meeting import LEARNER, LiveMeeting, MeetingNow, MeetingResult, SceneView
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
from coach.report import escape_md, history, markdown_report, session_record
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
from scoring.english import KIND_LABELS, Review
from scoring.models import Scorecard

# What the front ends use besides the gestures is re-exported here too, so that the pages depend
# on the application API (and coach.errors) alone: pyproject.toml's import contract holds them to it.
__all__ = [
    "Coach", "Feedback", "PracticeView", "SessionResult", "Turn", "TurnKind", "TurnStatus", "present",
    # re-exported for the front ends
    "LLM_REASON_PREFIX", "REMOVED_FOLDER", "Card", "FrameResampler", "Learner", "Library", "Persona",
    "PracticeEngine", "Pronunciation", "Scorecard", "SessionView", "Settings", "Store", "Summary", "TurnDelta",
    "TurnHeadline",
    "Voice", "WordScore", "access", "counted", "criterion_progress", "escape_md", "format_seconds", "history",
    "line_around", "llm_suggest", "local_iso", "since_last_text", "first_try_skills", "since_last", "when",
    "english_kind_label",
    "load_library", "load_settings", "markdown_files", "open_store", "personal",
    "report", "say_again", "session_label", "slow_voice", "stt", "tts", "weak_skills", "word_clip",
    "words_to_practise", "zone",
    "LEARNER", "LiveMeeting", "MeetingNow", "MeetingResult", "SceneView",
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

    @cached_property
    def english(self) -> Review:
        """The corrections of the answer's English (made when first shown)."""
        return english_of(self.text)


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
    hints: tuple[str, ...] = ()  # "did you mean …?" for the newest spoken answer
    transcript: object | None = None  # the coach.stt.Transcript of the answer just sent, if spoken

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
        return interviewer.korean_hint(self.card, turn.kind, turn.turn_id, turn.criterion)

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
                                       turn.answer_text or "")
    finished = session.finished or session.pending is None
    newest = max(feedback) if feedback and not finished else None
    hints: tuple[str, ...] = ()
    if result is not None and result.suggestions:
        hints = tuple(s.message() for s in result.suggestions)
    return PracticeView(
        id=session.id, row=session.row, card=session.card, persona=session.persona, turns=tuple(session.turns),
        result=outcome, finished=finished, feedback=MappingProxyType(feedback), newest=newest,
        next_steps=tuple(next_steps(session, limit=1)) if newest is not None else (),
        retell=retell_comparison(session),
        summary=summarise(session) if finished else None,
        notes=tuple(result.notes) if result else (),
        hints=hints,
        transcript=result.transcript if result else None,
    )


@dataclass
class Coach:
    """The gestures, each one engine call returning one view."""

    engine: PracticeEngine

    @property
    def library(self):
        return self.engine.library

    @property
    def settings(self):
        return self.engine.settings

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
                   suffix: str = ".wav") -> PracticeView:
        return self._after(self.engine.answer_with_audio(session_id, audio, transcript=transcript, suffix=suffix,
                                                         turn_pk=turn_pk))

    def correct(self, session_id: str, turn_pk: int, text: str) -> PracticeView:
        return self._after(self.engine.rescore(session_id, turn_pk, text))

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
        from pathlib import Path

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

    def turn(self, turn_pk: int) -> Turn:
        """One turn as stored now (a result made in the background shows up here)."""
        return self.engine.store.get_turn(turn_pk)

    def natural_rewrite(self, text: str) -> llm_rewrite.Rewrite:
        """The answer in natural spoken English with its changes, from the configured LLM; refused
        (RewriteError, one line) when there is none or when it adds a number or a technical term."""
        return llm_rewrite.natural_rewrite(self.settings, text)

    def drill_lines(self, card_id: str) -> list[DrillLine]:
        """A card's lines to read aloud (coach.drills): key phrases, then model-answer sentences
        with the card's terms."""
        return lines_for(self.library.card(card_id))

    def read_aloud(self, audio, line: str) -> Pronunciation:
        """One reading of a drill line: each word and whether it came through."""
        return read_aloud(audio, line, self.settings)

    def line_audio(self, line: str, slow: bool = False) -> bytes:
        """A drill line in the clear reference voice the readings are measured against (WAV)."""
        return tts.synthesize(line, slow_voice() if slow else REFERENCE_VOICE, self.settings)

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
        return stt.load_model(self.settings)

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
