"""Wording a follow-up question with the LLM, checked, with the built-in question as fallback.

The session engine has already chosen WHICH criterion to probe; the model only words the
question in the persona's voice (the persona's instructions are its system prompt), tied to
what the candidate said. Its output is used only when it is one short English question that
was not asked before; otherwise the criterion's own follow-up from the content pack is used.

    word_follow_up(settings, persona, card, criterion, answer_text, asked) -> FollowUp
"""

from __future__ import annotations

import difflib
import logging
import re
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel

from coach.errors import LLMInvalidReplyError, LLMUnavailableError
from coach.llm import LLMInfo, complete_text, is_configured

if TYPE_CHECKING:
    from coach.config import Settings
    from coach.content.schema import Card, Criterion, Persona

log = logging.getLogger(__name__)

PROMPT_VERSION = "followup-1"
MAX_WORDS = 40
MAX_TOKENS = 80
MAX_ANSWER_CHARS = 4000  # what the model sees of a long answer
REPEAT_SIMILARITY = 0.85

NOTE_UNAVAILABLE = "the interviewer model did not answer; using the built-in interviewer"
NOTE_INVALID = "the interviewer model's question was not usable ({why}); using the built-in interviewer"


class FollowUp(BaseModel):
    text: str
    source: Literal["llm", "content"]
    # set whenever the model answered (also when its question was rejected), else None
    llm: LLMInfo | None = None
    note: str | None = None


def normalise(text: str) -> str:
    text = text.lower().replace("’", "'")
    text = re.sub(r"[^a-z0-9' ]+", " ", text)
    return " ".join(text.split())


def is_repeat(question: str, asked: list[str]) -> bool:
    """True when `question` says (nearly) the same as one already asked."""
    mine = normalise(question)
    if not mine:
        return False
    for earlier in asked:
        theirs = normalise(earlier)
        if not theirs:
            continue
        if mine == theirs or difflib.SequenceMatcher(None, mine, theirs).ratio() >= REPEAT_SIMILARITY:
            return True
    return False


def content_follow_up(card: Card, criterion: Criterion, asked: list[str]) -> str:
    """The criterion's first follow-up not asked yet (then the card's; then the first)."""
    for candidate in [*criterion.follow_ups, *card.follow_ups]:
        if not is_repeat(candidate, asked):
            return candidate
    return criterion.follow_ups[0]


_HANGUL_CJK = re.compile(r"[\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff]")
_LABEL = re.compile(r"^\s*(?:\*\*)?(?:interviewer|question|follow[- ]?up|q)(?:\*\*)?\s*:\s*", re.IGNORECASE)


_MARKUP = re.compile(r"\]\(|!\[|https?://|www\.|<[a-z/!]|\[[^\]]*\]\[", re.IGNORECASE)


def clean_question(text: str) -> str:
    """Trim what models wrap around a question: whitespace, quotes, a 'Question:' label."""
    text = " ".join(text.split())
    text = _LABEL.sub("", text)
    if len(text) >= 2 and text[0] in "\"'“‘" and text[-1] in "\"'”’":
        text = text[1:-1].strip()
    return text


def question_problem(text: str, asked: list[str]) -> str | None:
    """Why this text cannot be asked as the follow-up, or None when it can."""
    if not text.strip():
        return "empty"
    letters = [ch for ch in text if ch.isalpha()]
    if _HANGUL_CJK.search(text) or not letters:
        return "not English"
    ascii_letters = sum(1 for ch in letters if ch.isascii())
    if ascii_letters / len(letters) < 0.95:
        return "not English"
    if _MARKUP.search(text):  # the line is rendered as Markdown: nothing a browser would fetch or follow
        return "holds a link, image or markup"
    count = text.count("?")
    if count == 0 or not text.endswith("?"):
        return "not a question"
    if count > 1:
        return "more than one question"
    if len(text.split()) > MAX_WORDS:
        return f"longer than {MAX_WORDS} words"
    if is_repeat(text, asked):
        return "repeats an earlier question"
    return None


def _messages(persona: Persona, card: Card, criterion: Criterion, answer_text: str, asked: list[str]) -> list[dict]:
    last_question = asked[-1] if asked else card.turns[0].prompt
    answer = " ".join(answer_text.split())[:MAX_ANSWER_CHARS]
    earlier = "\n".join(f"- {q}" for q in asked) or "- (none)"
    user = (
        f"You asked: {last_question}\n\n"
        f'The candidate answered:\n"""\n{answer}\n"""\n\n'
        f"What the answer is missing: {criterion.label}. {criterion.definition.strip()}\n"
        f"A plain version of the question you need: {criterion.follow_ups[0]}\n\n"
        f"Questions already asked (do not repeat them):\n{earlier}\n\n"
        "Write your next follow-up question, in English. Refer to something the candidate "
        "said, quoting a few of their words, and ask only for what is missing. One question, "
        f"at most {MAX_WORDS - 10} words, ending with a question mark. Reply with the question only."
    )
    return [
        {"role": "system", "content": persona.instructions},
        {"role": "user", "content": user},
    ]


def word_follow_up(
    settings: Settings,
    persona: Persona,
    card: Card,
    criterion: Criterion,
    answer_text: str,
    asked: list[str],
) -> FollowUp:
    """The follow-up for `criterion`, worded by the LLM when one is configured and usable."""
    asked = list(asked or [])
    if not is_configured(settings):
        return FollowUp(text=content_follow_up(card, criterion, asked), source="content")
    try:
        reply, info = complete_text(
            settings,
            _messages(persona, card, criterion, answer_text, asked),
            prompt_version=PROMPT_VERSION,
            max_tokens=MAX_TOKENS,
        )
    except LLMUnavailableError as exc:
        log.info("follow-up from content (%s): %s", criterion.id, exc)
        return FollowUp(text=content_follow_up(card, criterion, asked), source="content", note=NOTE_UNAVAILABLE)
    except LLMInvalidReplyError as exc:
        return FollowUp(
            text=content_follow_up(card, criterion, asked),
            source="content",
            llm=getattr(exc, "info", None),
            note=NOTE_INVALID.format(why=getattr(exc, "why", "unusable reply")),
        )
    question = clean_question(reply)
    problem = question_problem(question, asked)
    if problem:
        log.warning("follow-up from %s rejected (%s): %r", info.model, problem, reply[:300])
        return FollowUp(
            text=content_follow_up(card, criterion, asked),
            source="content",
            llm=info,
            note=NOTE_INVALID.format(why=problem),
        )
    return FollowUp(text=question, source="llm", llm=info)
