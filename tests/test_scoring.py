"""Detector units and the scorer's promises: verbatim evidence, nothing for trivial answers,
never a crash on odd input."""

from __future__ import annotations

import pytest

import scoring


@pytest.fixture(scope="module")
def gpu(library):
    return library.card("gpu-cluster-optimization")


def met(card, text, turn=None):
    return {cid for cid, r in scoring.score(card, turn, text).criteria.items() if r.met}


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Scaling efficiency went from 78% to 91%.", True),
        ("Throughput improved 2.1x after the change.", True),
        ("scaling efficiency went from seventy eight percent to ninety one percent", True),
        ("throughput went up two point one x", True),
        ("Step time dropped from 410 ms to 290 ms.", True),
        ("We trained a 70B model on 256 GPUs in 2023 with a team of 8 engineers.", False),
        ("It became much faster and everyone was happy.", False),
        ("We never measured it, so I can't say 30% or anything.", False),
        ("We expect a 30% gain next quarter.", False),
        ("I upgraded from PyTorch 1.13 to PyTorch 2.1.", False),
    ],
)
def test_measured_result(gpu, text, expected):
    assert ("measured_results" in met(gpu, text)) is expected


@pytest.mark.parametrize(
    "text, expected",
    [
        ("I rewrote the jit boundaries to remove dynamic shapes.", True),
        ("I wrote an NCCL topology file and implemented hierarchical AllReduce.", True),
        ("My colleague rewrote the kernels.", False),
        ("The vendor tuned NCCL for us.", False),
        ("We enabled ZeRO-3.", False),
        ("I have a lot of optimization experience.", False),
        ("I will implement activation checkpointing next month.", False),
    ],
)
def test_self_action(gpu, text, expected):
    assert ("optimization_experience" in met(gpu, text)) is expected


@pytest.mark.parametrize(
    "text, expected",
    [
        ("I did the profiling while my teammate Jisoo handled the NCCL tuning.", True),
        ("We split the work: I owned memory, and my partner owned communication.", True),
        ("We did it together and we were a great team.", False),
        ("My colleague Junho did most of the kernel work.", False),
    ],
)
def test_teamwork(gpu, text, expected):
    assert ("teamwork" in met(gpu, text)) is expected


@pytest.mark.parametrize(
    "text, criterion, expected",
    [
        ("We considered pipeline parallelism, but the bubble was too costly.", "options_rejected", True),
        ("We didn't consider any alternatives.", "options_rejected", False),
        ("If I did it again, I would add a recompile check to CI from day one.", "reflection", True),
        ("I wouldn't change anything.", "reflection", False),
        ("I profiled the job and the trace showed the all-gather was not overlapped.", "problem_solving", True),
        ("We never profiled anything.", "problem_solving", False),
    ],
)
def test_experience_detectors(gpu, text, criterion, expected):
    assert (criterion in met(gpu, text)) is expected


def test_polite_words_do_not_hide_a_blunt_phrase(library):
    card = library.card("polite-disagreement")
    rude = "I appreciate the effort, thanks, but with respect that's a terrible plan. What do you think?"
    assert "softened_disagreement" not in met(card, rude)
    soft = "I see your point, but I'm not sure it will work because the team is small. Could we pilot it first? What do you think?"
    assert met(card, soft) == {c.id for c in card.criteria}


@pytest.mark.parametrize(
    "turn, good, wrong_situation",
    [
        ("check-connection", "Can everyone hear me okay?", "Could you share your screen, please?"),
        ("ask-repeat", "Sorry, could you repeat that, please?", "Can you hear me?"),
        ("share-screen", "Let me share my screen. Can you all see it?", "Sorry, could you repeat that?"),
    ],
)
def test_video_call_phrase_must_fit_the_situation(library, turn, good, wrong_situation):
    card = library.card("video-call-essentials")
    assert "appropriate" in met(card, good, turn)
    assert "appropriate" not in met(card, wrong_situation, turn)


def test_status_update_structure_order(library):
    card = library.card("status-update")
    ordered = scoring.score(card, "main", "I'm working on the billing migration. I've finished the schema changes. Next week I'll move the jobs. No blockers.")
    assert ordered.structure.in_order is True
    shuffled = scoring.score(card, "main", "Next week I'll move the jobs. I've finished the schema changes. I'm working on the billing migration.")
    assert shuffled.structure.in_order is False


@pytest.mark.parametrize("text", ["fine", "I don't know", "yes", "Fine.", "I don't know."])
def test_trivial_answers_score_nothing(library, text):
    for card in library.cards.values():
        for turn in card.turns:
            result = scoring.score(card, turn.id, text)
            assert result.overall == 0
            assert not any(r.met for r in result.criteria.values()), (card.id, turn.id)


def test_one_word_is_a_whole_move_only_in_a_meeting_moment(library):
    """"Sorry?" asks for a repeat and "Sharing." shares (two readers called both polite and
    fitting); an interview answer of one word still says nothing, and "Go." is still a bare command."""
    video_call = library.card("video-call-essentials")
    assert met(video_call, "Sorry?", "ask-repeat") >= {"appropriate", "polite"}
    assert met(video_call, "Sharing.", "share-screen") >= {"appropriate", "polite"}
    assert not met(video_call, "Go.", "yield-floor")
    interview = library.card("gpu-cluster-optimization")
    assert not any(r.met for r in scoring.score(interview, interview.turns[0].id, "Profiling.").criteria.values())


@pytest.mark.slow
def test_evidence_is_always_verbatim(library):
    texts = [a.text for c in library.cards.values() for a in c.model_answers]
    texts += ["so i profiled it and utilization went from forty to eighty three percent, my teammate did the rest"]
    for card in library.cards.values():
        for turn in card.turns:
            for text in texts:
                for result in scoring.score(card, turn.id, text).criteria.values():
                    for quote in result.evidence:
                        assert quote and quote in text


@pytest.mark.parametrize(
    "text",
    [
        "저는 GPU 클러스터 최적화를 했습니다. 활용률이 40%에서 83%로 올랐습니다.",
        "🚀🚀 I rewrote the kernels 🚀 and latency dropped from 200 ms to 120 ms 🎉",
        "<script>alert(1)</script> I rewrote the <b>jit</b> boundaries; utilization went from 40% to 83%.",
        "word " * 25_000,
        "\x00\x01 weird control chars \u200b and zero width",
    ],
)
def test_odd_input_never_crashes(gpu, text):
    result = scoring.score(gpu, None, text)
    assert 0 <= result.overall <= 1
    for r in result.criteria.values():
        assert all(q in text for q in r.evidence)


@pytest.mark.slow
def test_long_answer_is_scored_on_a_prefix_and_says_so(gpu):
    text = "I rewrote the jit boundaries and utilization went from 40% to 83%. " + "x " * 60_000
    result = scoring.score(gpu, None, text)
    assert result.criteria["measured_results"].met
    assert any("first" in note for note in result.notes)


def test_feedback_gives_tip_and_follow_up_for_missing(gpu):
    result = scoring.score(gpu, None, "I rewrote the jit boundaries and utilization went from 40% to 83%.")
    missing = {f.criterion for f in result.feedback}
    assert missing == {"problem_solving", "teamwork", "options_rejected", "reflection"}
    item = next(f for f in result.feedback if f.criterion == "teamwork")
    assert item.tip_ko and item.follow_up.endswith("?")


def test_delivery_counts_fillers_and_hedges_and_timing(gpu):
    from scoring.models import SpeechTiming, TimedWord

    text = "Um, I think, uh, we maybe made it, like, faster. You know, it was hard."
    words = [TimedWord(word=w, start=i * 0.4, end=i * 0.4 + 0.3, probability=0.9) for i, w in enumerate(text.split())]
    words[5] = TimedWord(word=words[5].word, start=words[5].start + 3.0, end=words[5].end + 3.0, probability=0.2)
    result = scoring.score(gpu, None, text, timing=SpeechTiming(duration=10.0, words=words))
    d = result.delivery
    assert d.filler_count >= 4 and d.fillers.get("um") == 1 and d.fillers.get("uh") == 1
    assert d.hedge_count >= 2
    assert d.words_per_minute and d.long_pauses and d.long_pauses[0].duration >= 3.0
    assert d.unclear_words == [words[5].word]
    assert d.filler_note


def _lexicon_entries():
    """(file, path, entry) for every entry of scoring/patterns/*.yaml."""
    from scoring.detectors.base import PATTERNS_DIR, is_entry, pattern_data

    def walk(node, where):
        if is_entry(node):
            yield where, node
        elif isinstance(node, dict):
            for key, value in node.items():
                yield from walk(value, (*where, key))

    for path in sorted(PATTERNS_DIR.glob("*.yaml")):
        for where, node in walk(pattern_data(path.stem), ()):
            yield path.stem, where, node


LEXICON_ENTRIES = list(_lexicon_entries())


@pytest.mark.parametrize("name,where,node", LEXICON_ENTRIES, ids=lambda v: "/".join(v) if isinstance(v, tuple) else v if isinstance(v, str) else "")
def test_every_lexicon_entry_shows_what_it_is_for(name, where, node):
    """Each entry says what it is for and carries examples it must and must not match, so the
    next author sees what an entry does (and a change that breaks one fails here)."""
    from scoring.detectors.base import lexicon, regex

    assert node.get("about"), f"{name}:{'/'.join(where)} has no `about`"
    assert node.get("match") and node.get("no_match"), f"{name}:{'/'.join(where)} needs match and no_match examples"
    matcher = lexicon(name, *where) if "patterns" in node else regex(name, *where)
    for example in node["match"]:
        assert matcher.search(example), f"{name}:{'/'.join(where)} should match {example!r}"
    for example in node["no_match"]:
        assert not matcher.search(example), f"{name}:{'/'.join(where)} should not match {example!r}"
    if "patterns" in node:
        assert all(isinstance(p, str) for p in node["patterns"]), "quote every pattern in the YAML"
        assert len(set(node["patterns"])) == len(node["patterns"]), f"{name}:{'/'.join(where)} repeats a pattern"


def _sense_cases():
    from scoring.detectors.base import pattern_data

    for move, node in pattern_data("meeting")["moves"].items():
        if node.get("senses"):
            assert node.get("sense_examples", {}).get("match") and node["sense_examples"].get("no_match"), move
            for text in node["sense_examples"]["match"]:
                yield move, text, True
            for text in node["sense_examples"]["no_match"]:
                yield move, text, False


SENSE_CASES = list(_sense_cases())


@pytest.mark.parametrize("move,text,met", SENSE_CASES, ids=[f"{c[0]}-{c[2]}-{i}" for i, c in enumerate(SENSE_CASES)])
def test_each_move_sense_holds_its_examples(move, text, met):
    """meeting.yaml: a move's `senses` (word classes matched on lemmas) find its `sense_examples`
    `match` lines and not its `no_match` lines."""
    from scoring.detectors.base import pattern_data
    from scoring.detectors.meeting import _concept_matches
    from scoring.text import Answer

    node = pattern_data("meeting")["moves"][move]
    assert bool(_concept_matches(Answer(text), node)) == met, (move, text)


def test_every_sense_names_known_word_classes():
    from scoring.detectors.base import pattern_data

    data = pattern_data("meeting")
    for move, node in data["moves"].items():
        for rule in node.get("senses") or ():
            assert set(rule) <= {"all", "none", "question", "max_words", "scope"}, (move, rule)
            for name in (*rule.get("all", ()), *rule.get("none", ())):
                assert name in data["word_classes"], (move, name)


STATUS_PLAIN = ("For context, I'm on the billing export so finance can close the month. So far the CSV job "
                "runs nightly. Next I will add alerts by Friday. I'm blocked on access to the replica, can you help?")


@pytest.mark.parametrize("space", ["\u00a0", "\u200b", "\u200b ", "\u202f", "\ufeff"],
                         ids=["no-break", "zero-width", "zero-width+space", "narrow-no-break", "bom"])
def test_a_unicode_space_after_a_period_ends_the_sentence(library, space):
    """Pasted from a web page or a chat app: the answer scores as with plain spaces, each
    criterion's evidence one sentence, never the whole answer."""
    card = library.card("status-update")
    text = STATUS_PLAIN.replace(". ", "." + space)
    plain, pasted = scoring.score(card, None, STATUS_PLAIN), scoring.score(card, None, text)
    assert {c for c, r in pasted.criteria.items() if r.met} == {c for c, r in plain.criteria.items() if r.met}
    assert len([c for c, r in plain.criteria.items() if r.met]) == 4
    for result in pasted.criteria.values():
        assert all(e in text and len(e) < len(text) / 2 for e in result.evidence), result.evidence
