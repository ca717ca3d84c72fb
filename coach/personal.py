"""The learner's own cards: a question of theirs practised with a built-in rubric.

A personal card is a markdown file with front matter in the data dir's `cards/` folder
(`Settings.cards_dir`), written here and read back by the same loader as the built-in packs
(`coach.content.loader.parse_card`), so `coach validate` covers it and a broken one is reported and
skipped like any other. It is made from a rubric kind:

- `story`: the flagship experience rubric (the criteria, detectors and pitfalls of
  `gpu-cluster-optimization`);
- `concept`: an explanation: the learner's `terms` as key concepts, a trade-off, a number;
- a meeting move (`status-update`, `disagreement`, `clarifying`, `summary`, `speaking-up`):
  the criteria and detectors of that built-in meeting card.

The learner's own question (or, for a meeting move, the colleague's line or the situation in
their words) is the turn's prompt, and the interview follow-ups quote it. Learner text is only
ever in the YAML front matter (dumped by PyYAML, so any Markdown or HTML in it stays a plain
string); the body holds the rubric's own text and the terms, escaped.
"""

from __future__ import annotations

import os
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from coach.config import Settings
from coach.content.loader import REMOVED_FOLDER, LazyCards, parse_card
from coach.content.schema import Card, CardSummary, Library, Problem
from coach.content.text_input import text_problem
from coach.errors import DuplicateTitleError, PersonalCardError, UnknownCardError
from coach.validation import detector_problems, scoring_problem


@dataclass(frozen=True)
class Rubric:
    name: str
    kind: str  # meeting | interview
    label: str
    label_ko: str
    template: str | None  # the built-in card whose criteria it reuses
    aliases: tuple[str, ...] = ()


RUBRICS: dict[str, Rubric] = {r.name: r for r in (
    Rubric("story", "interview", "a story from experience", "경험 이야기", "gpu-cluster-optimization", ("experience",)),
    Rubric("concept", "interview", "an explanation of a concept", "개념 설명", None),
    Rubric("status-update", "meeting", "a status update", "진행 상황 보고", "status-update"),
    Rubric("disagreement", "meeting", "disagreeing politely", "정중한 반대", "polite-disagreement",
           ("polite-disagreement",)),
    Rubric("clarifying", "meeting", "a clarifying question", "확인 질문", "clarifying-question",
           ("clarifying-question",)),
    Rubric("summary", "meeting", "a summary of decisions and owners", "회의 정리", "meeting-summary",
           ("meeting-summary",)),
    Rubric("speaking-up", "meeting", "speaking up first", "먼저 말 꺼내기", "speaking-up-first",
           ("speaking-up-first",)),
)}
_BY_NAME = {alias: r for r in RUBRICS.values() for alias in (r.name, *r.aliases)}

PERSONAL_TAG = "personal"
ID_PREFIX = "my-"
MAX_QUESTION_CHARS = 2_000
MAX_TITLE_CHARS = 120
MAX_TERMS = 20
MAX_TERM_CHARS = 60
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029]")


def rubric(name: str) -> Rubric:
    try:
        return _BY_NAME[name.strip().lower()]
    except KeyError:
        names = ", ".join(RUBRICS)
        raise PersonalCardError(f"unknown rubric {name!r}; use one of: {names}") from None


# --- the learner's input ---------------------------------------------------------------


def clean_question(text: str, what: str = "the question") -> str:
    """The question as given, outer whitespace dropped and line ends made `\\n`; PersonalCardError
    (one line) when it cannot be a card's prompt. Any language is accepted (the answer is
    practised in English)."""
    if problem := text_problem(text):
        raise PersonalCardError(f"{what} {problem}")
    text = text.replace("\r\n", "\n").replace("\r", "\n").strip()
    if not text:
        raise PersonalCardError(f"{what} is empty; type the question you want to practise")
    if len(text) > MAX_QUESTION_CHARS:
        raise PersonalCardError(f"{what} is {len(text):,} characters; a question may have at most "
                                f"{MAX_QUESTION_CHARS:,} (paste several questions as separate ones)")
    if match := _CONTROL.search(text):
        raise PersonalCardError(f"{what} holds a control character (U+{ord(match.group()):04X}); type it as plain text")
    return text


def clean_title(text: str) -> str:
    if problem := text_problem(text):
        raise PersonalCardError(f"the title {problem}")
    title = " ".join(text.split())
    if not title:
        raise PersonalCardError("the title is empty; leave --title out to take it from the question")
    if match := _CONTROL.search(title):
        raise PersonalCardError(f"the title holds a control character (U+{ord(match.group()):04X})")
    if len(title) > MAX_TITLE_CHARS:
        raise PersonalCardError(f"the title is {len(title):,} characters; at most {MAX_TITLE_CHARS}")
    return title


def parse_terms(text: str | None) -> list[str]:
    """`"a, b, c"` (commas, semicolons or new lines) as terms, de-duplicated in order."""
    if text is None:
        return []
    if problem := text_problem(text):
        raise PersonalCardError(f"--terms {problem}")
    terms: list[str] = []
    for part in re.split(r"[,;\n]", text):
        term = " ".join(part.split())
        if not term or term.lower() in (t.lower() for t in terms):
            continue
        if _CONTROL.search(term):
            raise PersonalCardError(f"the term {term!r} holds a control character; type it as plain text")
        if len(term) > MAX_TERM_CHARS:
            raise PersonalCardError(f"the term {term[:30]!r}… is {len(term)} characters; at most {MAX_TERM_CHARS}")
        if not any(ch.isalnum() for ch in term):
            raise PersonalCardError(f"the term {term!r} has no letter or digit")
        terms.append(term)
    if len(terms) > MAX_TERMS:
        raise PersonalCardError(f"{len(terms)} terms given; at most {MAX_TERMS}")
    return terms


def questions_from(text: str) -> list[str]:
    """Pasted text as questions, one per non-empty line (the app's box: several at once)."""
    if problem := text_problem(text):
        raise PersonalCardError(f"the text {problem}")
    questions = [line.strip() for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    questions = [q for q in questions if q]
    if not questions:
        raise PersonalCardError("the question is empty; type the question you want to practise")
    return questions


def title_from(question: str) -> str:
    """A title from the question: its first line, cut at a word near MAX_TITLE_CHARS."""
    return _shorten(" ".join(question.splitlines()[0].split()) if question else question, 80)


def _shorten(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(" ", 1)[0] if " " in text[:limit] else text[:limit]
    return cut.rstrip(" ,.;:") + "…"


_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_URL = re.compile(r"\b(?:https?|ftp|file)://\S*|\bwww\.\S+", re.IGNORECASE)
_MARKUP = re.compile(r"<[^>]*>|[`*_#|~\\\[\]<>!]")


def plain(text: str) -> str:
    """Text as a follow-up may say it: one line, no Markdown or HTML marks, links or URLs."""
    text = _URL.sub("", _LINK.sub(r"\1", text))
    return re.sub(r" ([?.!,;:])", r"\1", " ".join(_MARKUP.sub(" ", text).split()))


def quoted(question: str) -> str | None:
    """The question as follow-ups quote it: plain (see `plain`), short; None when it is mostly
    not in English (the follow-up says "your question" instead)."""
    text = plain(question)
    letters = [ch for ch in text if ch.isalpha()]
    if not letters or sum(ch.isascii() for ch in letters) / len(letters) < 0.8:
        return None
    return f'"{_shorten(text, 80).rstrip(".?!。？！ ")}"'


# --- rendering ----------------------------------------------------------------------------

# The first follow-up of each interview criterion, quoting the learner's question ({q}); the
# built-in card's own follow-ups come after it.
_STORY_FOLLOW_UPS = {
    "optimization_experience": "Coming back to {q}: what exactly did you do yourself, not the team?",
    "measured_results": "What was the result, in numbers? Give me the one figure that proves your answer to {q}.",
    "problem_solving": "In the story you told for {q}, how did you find out where the problem was?",
    "teamwork": "In that project, who did what? What was your part, and what did your teammates own?",
    "options_rejected": "Which other option did you consider for that problem, and why did you reject it?",
    "reflection": "If you faced that problem again, what would you do differently?",
}
_CONCEPT_FOLLOW_UPS = {
    "key_concepts": "In your explanation of {q}, where do {terms} come in?",
    "tradeoffs": "What does it cost? For {q}, when would you choose something else?",
    "quantifies": "Can you put a number on it? For {q}, how big is the effect?",
}
_STORY_DEPTH = [
    "What was the biggest challenge along the way?",
    "In the end, what did you achieve, and who noticed?",
    "Why was this the right problem to work on at the time?",
]
_CONCEPT_DEPTH = [
    "Where have you seen this in a real system?",
    "What goes wrong when people get this wrong?",
    "How would you explain it to a new teammate in one minute?",
]


def _concept_criteria(terms: list[str], q: str) -> list[dict]:
    criteria = []
    if terms:
        named = ", ".join(plain(t) for t in terms[:3])
        criteria.append({
            "id": "key_concepts",
            "label": "The terms a good answer names",
            "label_ko": "좋은 답이 짚어야 할 용어",
            "definition": ("Names and explains the terms you listed for this question: "
                           + ", ".join(plain(t) for t in terms)
                           + ". At least half of them count; a term only dropped without saying what it "
                           "does is weaker."),
            "detector": {"type": "key_concepts",
                         "params": {"concepts": [{"name": term} for term in terms]}},
            "tip": f"Use the terms and say what each does: {named}.",
            "tip_ko": f"용어를 말하고 각각이 하는 일을 설명하세요: {named}.",
            "follow_ups": [_CONCEPT_FOLLOW_UPS["key_concepts"].format(q=q, terms=named),
                           f"Which of these would you explain first: {named}?"],
            "weight": 3,
        })
    criteria += [
        {
            "id": "quantifies",
            "label": "A number on it",
            "label_ko": "숫자로 말하기",
            "definition": ("Puts a number on the effect, the cost or the size of it (a ratio, a percentage, "
                           "a latency, a memory or throughput figure). Vague words like \"much faster\" do "
                           "not count."),
            "detector": {"type": "quantity"},
            "tip": 'Give one figure: "about 2x the throughput", "roughly 30% less memory".',
            "tip_ko": '"처리량이 약 2배", "메모리 약 30% 절감"처럼 숫자 하나를 말하세요.',
            "follow_ups": [_CONCEPT_FOLLOW_UPS["quantifies"].format(q=q),
                           "How much does it save or cost, roughly?"],
            "weight": 1.5,
        },
        {
            "id": "tradeoffs",
            "label": "What it costs",
            "label_ko": "트레이드오프",
            "definition": ("Names what is paid for the benefit and when one would choose otherwise: an "
                           "explicit cost, a choice over another option, or a contrast that names a cost."),
            "detector": {"type": "tradeoff"},
            "tip": 'Name the cost and the alternative: "it saves X, but costs Y, so when Z I would use W".',
            "tip_ko": '"X를 얻는 대신 Y를 치른다, 그래서 Z일 때는 W를 쓴다"처럼 대가와 대안을 말하세요.',
            "follow_ups": [_CONCEPT_FOLLOW_UPS["tradeoffs"].format(q=q),
                           "What is the downside, compared with the alternative?"],
            "weight": 2,
        },
    ]
    return criteria


_STORY_ANSWER = """### The shape of a strong answer

In my last project, … was too slow (or too costly), and it mattered because … . I profiled …
and found that the real cause was … . I changed … myself. We considered …, but rejected it
because … . I did …, while my teammate handled … . As a result, … went from … to … . If I
did it again, I would … .

> An outline, not an answer: fill each gap with your own project. One action of yours, how
> you found the problem, one number before and after, your part in the team, the option you
> dropped, and one thing you would change.
"""

_CONCEPT_ANSWER = """### The shape of a strong answer

In one sentence, it is … . It works like this: first …, then … . The key terms are … and
… . It helps because …, typically by about … . The cost is …, so when … I would rather
use … .

> An outline, not an answer: a one-line definition, the mechanism with the right terms, a
> number on the effect, and what it costs compared with the alternative.
"""

_SITUATION = {
    "story": ("An interviewer asks the question you chose. Answer with one real project from your own "
              "experience: what you did yourself, how you found the problem, the number that proves it, "
              "your part in the team, the option you rejected, and what you would do differently.\n\n"
              "내가 고른 질문에 실제 경험 하나로 답하세요: 직접 한 일, 문제를 찾은 과정, 성과 숫자, 팀 안의 역할, "
              "버린 선택지, 다시 한다면."),
    "concept": ("An interviewer asks the question you chose. Explain the concept: the mechanism with the "
                "right terms, a number on it, and what it costs compared with the alternative.\n\n"
                "내가 고른 질문에 개념 설명으로 답하세요: 핵심 용어로 동작 원리를, 숫자 하나를, 그리고 대안과 "
                "비교한 트레이드오프를."),
}
_MEETING_SITUATION = ("A meeting of your own: your colleague opens with the line you wrote, and you answer "
                      "with {label}, as the built-in card of that move teaches.\n\n"
                      "내가 쓴 상황으로 연습하는 회의입니다. 동료의 첫 말에 {label_ko}(으)로 답하세요.")

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+!|<>~$&])")
OUTLINE_TITLE = "The outline you kept for this question"
OUTLINE_MARK = "→"  # starts each point of the outline (a model answer's lines are read as one text)
MAX_OUTLINE_POINTS = 8
MAX_OUTLINE_CHARS = 240



_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)  # libyaml's emitter: about 10 times as fast


def _escape_md(text: str) -> str:
    return _MD_SPECIAL.sub(r"\\\1", text)


@dataclass
class CardSpec:
    """What a personal card is made from (and what `coach card edit` changes)."""

    rubric: str
    question: str
    title: str
    terms: list[str] = field(default_factory=list)
    outline: list[str] = field(default_factory=list)  # concept: a model-answer outline the learner accepted


def _template(library: Library, rub: Rubric) -> Card | None:
    if rub.template is None:
        return None
    card = library.cards.get(rub.template)
    if card is None:
        raise PersonalCardError(f"the rubric {rub.name!r} reuses the built-in card {rub.template!r}, which "
                                "does not load; run `coach validate`")
    return card


def render(card_id: str, spec: CardSpec, library: Library) -> str:
    """The markdown file of a personal card."""
    rub = rubric(spec.rubric)
    template = _template(library, rub)
    q = quoted(spec.question) or "your question"
    front: dict = {
        "id": card_id,
        "kind": rub.kind,
        "title": spec.title,
        "title_ko": f"나의 질문 · {rub.label_ko}",
        "level": template.level if template else "upper-intermediate",
        "tags": [PERSONAL_TAG, rub.name],
        "persona": template.persona if template else "ai-research-interviewer",
        "estimated_seconds": (template.estimated_seconds if template else None) or 120,
    }
    if template is None:  # concept
        criteria = _concept_criteria(spec.terms, q)
        pitfalls = [{"text": "Only a definition, with no number and no cost. It sounds memorised.",
                     "text_ko": "정의만 말하고 숫자와 대가가 없으면 외운 답처럼 들립니다.", "criterion": "tradeoffs"}]
        follow_ups = _CONCEPT_DEPTH
    else:
        main = template.turns[0]
        criteria = []
        for criterion in template.criteria_for(main.id):
            data = criterion.model_dump(exclude_defaults=False)
            if rub.name == "story" and criterion.id in _STORY_FOLLOW_UPS:
                data["follow_ups"] = [_STORY_FOLLOW_UPS[criterion.id].format(q=q), *criterion.follow_ups]
            criteria.append(data)
        kept = {c["id"] for c in criteria}
        pitfalls = [p.model_dump(exclude_none=True) for p in template.pitfalls if p.criterion in (None, *kept)]
        follow_ups = _STORY_DEPTH if rub.name == "story" else list(template.follow_ups)
        if template.structure:
            front["structure"] = [c for c in template.structure if c in kept]
    front["turns"] = [{"id": "main", "prompt": spec.question, "criteria": [c["id"] for c in criteria]}]
    front["criteria"] = criteria
    front["follow_ups"] = follow_ups
    front["pitfalls"] = pitfalls
    body = ["## Situation", "", _SITUATION.get(rub.name) or _MEETING_SITUATION.format(
        label=rub.label, label_ko=rub.label_ko), ""]
    if rub.kind == "meeting" and template is not None:  # every meeting rubric reuses a built-in card
        body += ["## Key phrases", "", template.sections.get("Key phrases", ""), ""]
    else:
        body += ["## Key concepts", ""]
        if spec.terms:
            body += [f"- **{_escape_md(term)}**" for term in spec.terms]
        elif rub.name == "story":
            body += ["- Your own action, told with \"I\" and a verb.",
                     "- How you found the problem: a profile, a trace, a hypothesis you checked.",
                     "- One number for the result, before and after."]
        else:
            body += ["- The mechanism, a number on it, and what it costs (no terms were listed)."]
        body += ["", "## Model answers", "", _STORY_ANSWER if rub.name == "story" else _CONCEPT_ANSWER]
        if spec.outline:
            body += [f"### {OUTLINE_TITLE}", "", *(f"{OUTLINE_MARK} {_escape_md(point)}" for point in spec.outline),
                     "", "> Suggested by the language model and kept by you: an outline, not an answer.", ""]
    dumped = yaml.dump(front, Dumper=_DUMPER, sort_keys=False, allow_unicode=True, width=100,
                       default_flow_style=False)
    return f"---\n{dumped}---\n\n" + "\n".join(body).rstrip() + "\n"


def _check(path: Path, text: str, library: Library) -> Card:
    """The card as the loader reads it back; PersonalCardError when it would be refused."""
    problems: list[Problem] = []
    parsed = parse_card(path, text, problems, check_detector=detector_problems, personal=True)
    if parsed is not None and parsed[0].persona not in library.personas:
        problems.append(Problem(str(path), 1, f"persona {parsed[0].persona!r} does not exist"))
    if parsed is not None and not problems and (message := scoring_problem(parsed[0])):
        problems.append(Problem(str(path), parsed[1].line(("criteria",)), message))
    if problems or parsed is None:
        raise PersonalCardError(f"the card would not load: {problems[0] if problems else path}")
    return parsed[0]


def spec_of(card: Card) -> CardSpec:
    """What a personal card was made from, read back from the card."""
    name = next((t for t in card.tags if t in RUBRICS), None)
    if not card.personal or name is None:
        raise PersonalCardError(f"card {card.id!r} was not made by `coach card new`; edit {card.path} by hand")
    terms = []
    for criterion in card.criteria:
        if criterion.detector.type == "key_concepts":
            terms = [str(c.get("name")) for c in criterion.detector.params.get("concepts", [])]
    outline: list[str] = []
    for answer in card.model_answers:
        if answer.title == OUTLINE_TITLE:
            points = (re.sub(r"\\(.)", r"\1", p).strip() for p in answer.text.split(OUTLINE_MARK))
            outline = [p for p in points if p]
    return CardSpec(name, card.turns[0].prompt, card.title, terms, outline)


def clean_outline(points: list[str]) -> list[str]:
    """Outline points as one plain line each (no Markdown, no links), empty ones dropped."""
    cleaned = []
    for point in points:
        text = plain(point).replace(OUTLINE_MARK, "-")
        if not text:
            continue
        if len(text) > MAX_OUTLINE_CHARS:
            raise PersonalCardError(f"an outline point is {len(text)} characters; at most {MAX_OUTLINE_CHARS}")
        cleaned.append(text)
    if len(cleaned) > MAX_OUTLINE_POINTS:
        raise PersonalCardError(f"{len(cleaned)} outline points; at most {MAX_OUTLINE_POINTS}")
    return cleaned


# --- files -------------------------------------------------------------------------------


def _slug(title: str) -> str:
    words = re.findall(r"[a-z0-9]+", title.lower())
    slug = ""
    for word in words:
        if len(slug) + len(word) + 1 > 40:
            break
        slug = f"{slug}-{word}" if slug else word
    return ID_PREFIX + (slug or "question")


def _taken(library: Library, folder: Path) -> set[str]:
    files = {p.stem for p in folder.glob("*.md")} if folder.is_dir() else set()
    removed = {p.stem for p in (folder / REMOVED_FOLDER).glob("*.md")} if (folder / REMOVED_FOLDER).is_dir() else set()
    known = {*_ids(library.cards), *_ids(library.removed)}  # the own cards' files are not read for this
    return known | files | removed


def _ids(cards) -> set[str]:
    return cards.ids() if isinstance(cards, LazyCards) else set(cards)


def unique_id(title: str, taken: set[str]) -> str:
    """An id from the title, with -2, -3 … when it is taken (a built-in card, another personal
    card, a removed one whose sessions still name it, or a file that does not load)."""
    base = _slug(title)
    card_id, number = base, 1
    while card_id in taken:
        number += 1
        card_id = f"{base}-{number}"
    return card_id


def _ensure_folder(folder: Path) -> None:
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as exc:
        raise PersonalCardError(f"cannot write your cards to {folder}: {exc.strerror or exc}; "
                                "set COACH_DATA_DIR to a folder you can write") from None
    if not os.access(folder, os.W_OK | os.X_OK):
        raise PersonalCardError(f"cannot write your cards to {folder}: permission denied; "
                                "set COACH_DATA_DIR to a folder you can write")


def _write(path: Path, text: str) -> None:
    """Write the file whole or not at all (a temporary file renamed over it), for its owner only."""
    try:
        handle, temp = tempfile.mkstemp(prefix=".", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                out.write(text)
            os.chmod(temp, 0o600)
            os.replace(temp, path)
        except BaseException:
            Path(temp).unlink(missing_ok=True)
            raise
    except OSError as exc:
        raise PersonalCardError(f"cannot write {path}: {exc.strerror or exc}") from None


@dataclass
class Created:
    card: Card
    path: Path
    rubric: str

    def to_json(self) -> dict:
        return {"id": self.card.id, "path": str(self.path), "kind": self.card.kind, "rubric": self.rubric,
                "title": self.card.title, "criteria": [c.id for c in self.card.criteria], "personal": True}


def mine(library: Library) -> list[Card]:
    """The learner's own cards, as the library lists them."""
    return [c for c in library.cards.values() if c.personal]


def rubric_of(card: Card) -> Rubric | None:
    return next((RUBRICS[t] for t in card.tags if t in RUBRICS), None)


def _refuse_same_titles(library: Library, titles: list[str], other_than: str | None = None) -> None:
    seen: set[str] = set()
    have: dict[str, CardSummary] = {}
    for card in library.summaries():  # once, not once per title; from the own cards' index, none built
        if card.personal and card.id != other_than:
            have.setdefault(card.title.casefold(), card)
    for title in titles:
        same = have.get(title.casefold())
        if same is not None:
            raise DuplicateTitleError(f"you already have a card titled {title!r} ({same.id}); practise that one, "
                                      "or word this one differently", same.id)
        if title.casefold() in seen:
            raise DuplicateTitleError(f"the question {title!r} is given twice; keep one of them")
        seen.add(title.casefold())


def create(library: Library, settings: Settings, rubric_name: str, questions: list[str],
           title: str | None = None, terms: str | None = None, unique_titles: bool = False,
           outline: list[str] | None = None) -> list[Created]:
    """One personal card per question. Every input is checked before anything is written, so a
    bad one leaves no card behind; the new cards are added to `library`. With `unique_titles`
    (the app), a title another of the learner's cards has is refused instead of given a new id."""
    rub = rubric(rubric_name)
    if not questions:
        raise PersonalCardError("give the question to practise with --question")
    cleaned = [clean_question(q, "the question" if len(questions) == 1 else f"question {i}")
               for i, q in enumerate(questions, 1)]
    if title is not None and len(cleaned) > 1:
        raise PersonalCardError("--title names one card; give it with a single --question")
    term_list = parse_terms(terms)
    if term_list and rub.name != "concept":
        raise PersonalCardError(f"--terms is for the concept rubric; {rub.name!r} does not use them")
    outline_points = clean_outline(outline or [])
    if outline_points and rub.name != "concept":
        raise PersonalCardError(f"a model-answer outline is for the concept rubric; {rub.name!r} has its own")
    titles = [clean_title(title)] if title is not None else [title_from(q) for q in cleaned]
    if unique_titles:
        _refuse_same_titles(library, titles)
    folder = settings.cards_dir
    taken = _taken(library, folder)
    planned = []
    for question, card_title in zip(cleaned, titles, strict=True):
        card_id = unique_id(card_title, taken)
        taken.add(card_id)
        path = folder / f"{card_id}.md"
        text = render(card_id, CardSpec(rub.name, question, card_title, term_list, outline_points), library)
        planned.append((path, text, _check(path, text, library)))
    _ensure_folder(folder)
    created = []
    for path, text, card in planned:
        _write(path, text)
        library.cards[card.id] = card
        created.append(Created(card, path, rub.name))
    return created


def _personal(library: Library, card_id: str) -> Card:
    card = library.cards.get(card_id)
    if card is None:
        raise UnknownCardError(f"unknown card {card_id!r}; see `coach card list`")
    if not card.personal:
        raise PersonalCardError(f"{card_id!r} is a built-in card; only your own cards (`coach card list`) "
                                "can be changed or removed")
    return card


def edit(library: Library, settings: Settings, card_id: str, question: str | None = None,
         title: str | None = None, terms: str | None = None, unique_titles: bool = False) -> Created:
    """The card re-made with a new question, title or terms; its id (and so its past sessions)
    stay the same. `unique_titles` as for `create`."""
    card = _personal(library, card_id)
    spec = spec_of(card)
    if question is not None:
        spec.question = clean_question(question)
    if title is not None:
        spec.title = clean_title(title)
    if terms is not None:
        if spec.rubric != "concept":
            raise PersonalCardError(f"--terms is for the concept rubric; {card_id!r} is {spec.rubric!r}")
        spec.terms = parse_terms(terms)
    if unique_titles:
        _refuse_same_titles(library, [spec.title], other_than=card.id)
    path = Path(card.path)
    text = render(card.id, spec, library)
    new = _check(path, text, library)
    _write(path, text)
    library.cards[card.id] = new
    return Created(new, path, spec.rubric)


def remove(library: Library, settings: Settings, card_id: str) -> Path:
    """Take a personal card off the list. Its file moves to cards/.removed/, so the sessions
    practised on it still load and read (History, reports); its id is never given again."""
    folder = settings.cards_dir
    card = library.cards.get(card_id)
    if card is None:  # a file of the learner's that does not load can still be removed
        stray = folder / f"{card_id}.md"
        if re.fullmatch(r"[a-z0-9][a-z0-9_-]*", card_id) and stray.is_file():
            path = stray
        else:
            raise UnknownCardError(f"unknown card {card_id!r}; see `coach card list`")
    else:
        path = Path(_personal(library, card_id).path)
    target = folder / REMOVED_FOLDER / path.name
    _ensure_folder(target.parent)
    number = 1
    while target.exists():
        number += 1
        target = target.with_name(f"{path.stem}.{number}.md")
    try:
        os.replace(path, target)
    except OSError as exc:
        raise PersonalCardError(f"cannot remove {path}: {exc.strerror or exc}") from None
    if card is not None:
        library.removed[card_id] = library.cards.pop(card_id)
    return target
