"""Request politeness as strategies: `coach politeness`, scoring.politeness and the `politeness`
detector (Danescu-Niculescu-Mizil et al., ACL 2013; strategies in scoring/patterns/politeness.yaml)."""

from __future__ import annotations

import json
import re

import pytest

from scoring import politeness
from scoring.detectors.base import pattern_data
from scoring.detectors.meeting import Politeness
from scoring.text import Answer
from tests.coach_cli import run
from tests.conftest import REPO
from tests.politeness_corpus import corpus_path, load, quartile_task, split

# Measured on the test part (648 top/bottom-quartile requests): 0.812 (2026-12-04, with what makes a
# request impolite named and no marker needed; 0.796 on 2026-12-01, 0.813 before that). The floor leaves two
# standard errors (about 0.03) for a deliberate change of the strategies or a refit.
TEST_ACCURACY = 0.812
MARGIN = 0.03

needs_corpus = pytest.mark.skipif(
    corpus_path() is None,
    reason="the Stanford Politeness Corpus CSV is not found (../shared/data/politeness/wikipedia.annotated.csv "
    "or $COACH_POLITENESS_CSV)",
)


def coach(*args, input=None):
    return run(*args, input=input)  # in this process (tests/coach_cli.py)


def one_line_error(result):
    assert result.returncode != 0
    assert result.stdout == ""
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr


# --- CLI contract -------------------------------------------------------------------------------


def test_text_contract():
    result = coach("politeness", "--text", "Thanks! Could you send me the logs?", "--format", "json")
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert set(out) == {"score", "polite", "strategies"}
    assert out["polite"] is True and 0.5 <= out["score"] <= 1
    names = [s["name"] for s in out["strategies"]]
    assert {"gratitude", "counterfactual_modal"} <= set(names)
    for strategy in out["strategies"]:
        assert set(strategy) == {"name", "evidence"}
        assert strategy["evidence"] in "Thanks! Could you send me the logs?"


def test_impolite_text_has_a_suggestion_and_says_how_it_sounds():
    out = json.loads(coach("politeness", "--text", "Send me the logs.", "--format", "json").stdout)
    assert out["polite"] is False and out["score"] < 0.5
    assert out["strategies"] == [{"name": "bare_command", "evidence": "Send"}, {"name": "imperative_start", "evidence": "Send"}]
    assert [i["name"] for i in out["impolite"]] == ["bare_command"]
    assert "order" in out["impolite"][0]["sounds"] and out["impolite"][0]["sounds_ko"]
    assert out["suggestion"] == "Could you send me the logs?"


def test_rude_lines_are_named_and_ordinary_lines_are_polite_in_a_moment():
    """Issue 26: "What? Say it again." is called rude and why; "Can you see the dashboard now?" is
    polite and gets no "Could you see …" rewording."""
    rude = json.loads(coach("politeness", "--moment", "--text", "What? Say it again.", "--format", "json").stdout)
    assert rude["polite"] is False
    assert [i["name"] for i in rude["impolite"]] == ["bare_what", "bare_command"]
    assert rude["suggestion"] == "Could you say it again?"
    plain = json.loads(coach("politeness", "--moment", "--text",
                             "Sure, let me share my screen. Can you see the dashboard now?", "--format", "json").stdout)
    assert plain["polite"] is True and "suggestion" not in plain and "impolite" not in plain


@pytest.mark.parametrize("line", [
    "Sure, let me share my screen. Can you see the dashboard now?",
    "Sorry, can I ask a question? When you say production-ready, do you mean load-tested?",
    "Can you hear me?",
    "Go ahead.",
    "Sorry, you cut out, what was the date?",
    "And can everyone see it now?",
    "Give me a second, I'll pull it up.",
    "Wait, one thing about the east region.",
])
def test_ordinary_direct_lines_are_polite_in_a_moment(line):
    verdict = politeness.assess(line, moment=True)
    assert verdict.polite and not verdict.impolite, [(f.name, f.evidence) for f in verdict.strategies]


@pytest.mark.parametrize("line, named", [
    ("What? Say it again.", "bare_what"),
    ("Repeat.", "bare_command"),
    ("Your internet is terrible again.", "blame"),
    ("Whatever, that's wrong.", "dismissal"),
    ("Stop, my turn now.", "cutting_off"),
    ("Hurry up, I don't have all day.", "impatience"),
    ("Why did you delete my slide?", "blame"),
    ("Nobody asked you.", "dismissal"),
])
def test_what_makes_a_line_impolite_is_named(line, named):
    verdict = politeness.assess(line, moment=True)
    assert not verdict.polite and verdict.impolite[0].name == named
    english, korean = politeness.sounds(named)
    assert english and korean


CUE_CASES = [(cue.name, text, True) for cue in politeness.parsed_cues() for text in cue.spec["match"]] + [
    (cue.name, text, False) for cue in politeness.parsed_cues() for text in cue.spec["no_match"]]


@pytest.mark.parametrize("name, text, fires", CUE_CASES, ids=[f"{c[0]}-{c[2]}-{i}" for i, c in enumerate(CUE_CASES)])
def test_each_parsed_cue_holds_its_examples(name, text, fires):
    """politeness.yaml `parsed_cues`: each cue names its `match` lines (softeners counted) and not
    its `no_match` lines, so another wording of the same move is found and its look-alikes are not."""
    assert (name in politeness.cue_names(text)) == fires, (name, text, politeness.cue_names(text))


def test_every_parsed_cue_says_what_it_is_for():
    for cue in politeness.parsed_cues():
        assert cue.spec.get("about") and cue.spec.get("match") and cue.spec.get("no_match"), cue.name
        english, korean = politeness.sounds(cue.reports)
        assert english and korean


@pytest.mark.parametrize("line", [
    "Wow, great, just decide everything without us then.",
    "Ugh. Sharing. Happy?",
    "Yeah, you always do that.",
    "It's working. Your speakers are the problem.",
    "Did you even open it?",
    "No, I was talking.",
])
def test_impoliteness_the_parse_finds_is_named(line):
    verdict = politeness.assess(line, moment=True)
    assert not verdict.polite and verdict.impolite, [(f.name, f.evidence) for f in verdict.strategies]


def test_file_contract(tmp_path):
    path = tmp_path / "request.txt"
    path.write_text("Sorry to bother you, but would you mind reviewing my PR?\n", encoding="utf-8")
    result = coach("politeness", "--file", str(path), "--format", "json")
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["polite"] is True and "id" not in out
    assert {"apologizing", "counterfactual_modal", "indirect_request"} <= {s["name"] for s in out["strategies"]}


def test_jsonl_contract_echoes_ids_in_order(tmp_path):
    items = [
        {"id": "a", "text": "Could you please check the dashboard? Thank you!"},
        {"id": 7, "text": "Fix the build."},
        {"id": "c", "text": "Why did you revert my change?"},
    ]
    path = tmp_path / "requests.jsonl"
    path.write_text("\n".join(json.dumps(i) for i in items) + "\n", encoding="utf-8")
    result = coach("politeness", "--jsonl", str(path), "--format", "json")
    assert result.returncode == 0, result.stderr
    outputs = [json.loads(line) for line in result.stdout.splitlines()]
    assert [o["id"] for o in outputs] == ["a", 7, "c"]
    assert [o["polite"] for o in outputs] == [True, False, False]
    assert all({"id", "score", "polite", "strategies"} <= set(o) for o in outputs)


@pytest.mark.parametrize("args", [("--text", ""), ("--text", "   \n")], ids=["empty", "blank"])
def test_empty_text_is_one_clear_error(args):
    one_line_error(coach("politeness", *args, "--format", "json"))


def test_missing_file_and_empty_jsonl_are_one_clear_error(tmp_path):
    one_line_error(coach("politeness", "--file", str(tmp_path / "nope.txt"), "--format", "json"))
    one_line_error(coach("politeness", "--jsonl", str(tmp_path / "nope.jsonl"), "--format", "json"))
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n\n", encoding="utf-8")
    one_line_error(coach("politeness", "--jsonl", str(empty), "--format", "json"))


def test_a_bad_jsonl_line_fails_alone(tmp_path):
    path = tmp_path / "requests.jsonl"
    path.write_text('{"id": 1, "text": "Thanks a lot!"}\nnot json\n{"id": 3, "text": ""}\n', encoding="utf-8")
    result = coach("politeness", "--jsonl", str(path), "--format", "json")
    assert result.returncode == 2
    assert [json.loads(line)["id"] for line in result.stdout.splitlines()] == [1]
    assert [line.split(":")[1] for line in result.stderr.splitlines()] == ["2", "3"]


# --- strategies ---------------------------------------------------------------------------------

STRATEGY_CASES = [
    ("gratitude", "Thanks for the quick review.", "Thanks"),
    ("gratitude", "I really appreciate the help with the migration.", "I really appreciate"),
    ("deference", "Nice work on the rewrite, it reads much better.", "Nice work"),
    ("greeting", "Hi Minji, do you have the numbers?", "Hi Minji"),
    ("apologizing", "Excuse me, is this seat taken?", "Excuse me"),
    ("please", "Could you please send the agenda?", "please"),
    ("please_start", "Please send the agenda.", "Please"),
    ("indirect_btw", "By the way, where is the design doc?", "By the way"),
    ("direct_question", "What is the deadline?", "What"),
    ("direct_start", "So is the release still on?", "So"),
    ("counterfactual_modal", "Would you look at my change?", "Would you"),
    ("indicative_modal", "Will you look at my change?", "Will you"),
    ("indirect_request", "I was wondering if the demo could move to Friday.", "I was wondering"),
    ("asks_opinion", "The plan is ready. What do you think?", "What do you think"),
    ("reassurance", "No worries, the report can wait.", "No worries"),
    ("first_person_start", "I have just put the article up for review.", "I"),
    ("first_person", "Is it fine if my team joins?", "my"),
    ("first_person_plural", "Could we find a simpler name?", "we"),
    ("second_person_start", "You've reverted the edit again.", "You've"),
    ("second_person", "Is this your branch?", "your"),
    ("hedges", "Maybe the cache is stale.", "Maybe"),
    ("factuality", "In fact the test never ran.", "In fact"),
    ("positive_sentiment", "The new dashboard is really helpful.", "helpful"),
    ("negative_sentiment", "This config is useless.", "useless"),
    ("imperative_start", "Send me the file.", "Send"),
    ("bare_what", "What?", "What?"),
    ("blame", "Fix your mic.", "Fix your mic"),
    ("dismissal", "Whatever.", "Whatever."),
    ("cutting_off", "Shut up and listen.", "Shut up"),
    ("impatience", "Hurry up.", "Hurry up"),
]


@pytest.mark.parametrize("name, text, evidence", STRATEGY_CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(STRATEGY_CASES)])
def test_each_strategy_is_found_with_verbatim_evidence(name, text, evidence):
    found = {f.name: f for f in politeness.find(text)}
    assert name in found, f"{name} not found in {text!r}: {sorted(found)}"
    hit = found[name]
    assert hit.evidence == evidence
    assert text[hit.start : hit.start + len(hit.evidence)] == hit.evidence


def test_every_strategy_with_patterns_has_a_case():
    with_patterns = {s.name for s in politeness.strategies() if s.patterns}
    assert with_patterns == {name for name, _, _ in STRATEGY_CASES}


@pytest.mark.parametrize(
    "text, absent",
    [
        ("Please send the agenda.", "please"),  # at the start it is please_start
        ("Could you please send it?", "please_start"),
        ("Can I say something?", "first_person_start"),  # "I" is not the first word
        ("Hello? Is this thing on?", "greeting"),  # a call for attention, not a greeting
        ("Sorry, you broke up for a second.", "reassurance"),
        ("Do whatever you think is best.", "dismissal"),  # "whatever" is rude only as a retort
        ("Could you check your mic?", "blame"),  # the bare command is rude, the request is not
        ("Could you send me the file?", "bare_command"),  # a softened request is not a bare command
        ("Give me a second.", "bare_command"),  # an ordinary pause in a meeting
    ],
)
def test_strategies_count_only_where_they_should(text, absent):
    assert absent not in {f.name for f in politeness.find(text)}


def test_evidence_is_verbatim_in_a_long_messy_request():
    text = "hey team,\n\nthx for the fix!!  BTW — could u re-run the job?\tI think it's flaky."
    found = politeness.find(text)
    assert {"gratitude", "indirect_btw", "counterfactual_modal", "hedges"} <= {f.name for f in found}
    for item in found:
        assert text[item.start : item.start + len(item.evidence)] == item.evidence


def test_a_rude_phrase_outweighs_every_polite_strategy():
    text = "Hi, thanks so much, sorry to bother you, could you please help? Shut up and listen."
    for moment in (False, True):
        verdict = politeness.assess(text, moment=moment)
        assert {"greeting", "gratitude", "apologizing", "counterfactual_modal", "please"} <= verdict.names
        assert "cutting_off" in verdict.names and not verdict.polite


def test_pronouns_do_not_hide_impatience():
    verdict = politeness.assess("I told you we fixed my bug.")
    assert not verdict.markers and verdict.impolite[0].name == "blame"
    assert not verdict.polite and not politeness.assess("I told you we fixed my bug.", moment=True).polite


def test_score_is_the_logistic_function_of_the_weights():
    verdict = politeness.assess("Thanks, could you take a look?")
    logit = politeness.model()["intercept"] + sum(f.weight for f in verdict.strategies)
    assert verdict.score == pytest.approx(1 / (1 + 2.718281828459045 ** -logit), abs=1e-4)


# RE2 syntax only: no lookaround, no backreferences; and no nested quantifiers
_LOOKAROUND = re.compile(r"\(\?<?[=!]|\(\?P?<\w+>|\\[1-9]|\(\?P=")
_NESTED = re.compile(r"\((?:\?:)?[^()]*[+*}][^()]*\)[+*{]")


def test_patterns_are_safe_re2_syntax():
    patterns = [p for s in pattern_data("politeness")["strategies"] for p in s["patterns"] or ()]
    assert len(patterns) > 100
    try:
        import re2
    except ImportError:
        re2 = None
    for pattern in patterns:
        assert not _LOOKAROUND.search(pattern), f"not RE2 syntax: {pattern!r}"
        assert not _NESTED.search(pattern), f"nested quantifier: {pattern!r}"
        re.compile(pattern)
        if re2 is not None:
            re2.compile(pattern)


def test_the_safety_check_itself_catches_bad_patterns():
    assert _LOOKAROUND.search(r"(?<!x)please") and _LOOKAROUND.search(r"(a)\1")
    assert _NESTED.search(r"(a+)+") and _NESTED.search(r"(?:ab*)*")
    assert not _NESTED.search(r"(?:just |now,? )?send")


# --- the detector makes the same decision --------------------------------------------------------

AGREEMENT = [
    "Sorry, could you repeat that, please?",
    "Can you hear me?",
    "Thank you, that's all from me.",
    "Send me the file.",
    "Fix your mic.",
    "Would you mind if I shared my screen?",
    "Why did you delete my slide?",
    "Hi everyone, can you see my screen?",
    "I told you we fixed my bug.",
    "I was wondering if we could push the demo to Friday.",
    "So what is the deadline?",
    "Excuse me, may I come in on that point?",
]


def test_detector_and_cli_agree_on_polite(tmp_path, library):
    path = tmp_path / "requests.jsonl"
    path.write_text("\n".join(json.dumps({"id": i, "text": t}) for i, t in enumerate(AGREEMENT)), encoding="utf-8")
    result = coach("politeness", "--moment", "--jsonl", str(path), "--format", "json")
    assert result.returncode == 0, result.stderr
    cli = {o["id"]: o["polite"] for o in map(json.loads, result.stdout.splitlines())}
    detector = Politeness()
    card = library.card("video-call-essentials")
    import scoring

    for i, text in enumerate(AGREEMENT):
        hit = detector.detect(Answer(text), detector.Params(), "ask-repeat")
        assert hit.met is cli[i], text
        assert scoring.score(card, "ask-repeat", text).criteria["polite"].met is cli[i], text
    assert 3 <= sum(cli.values()) <= len(AGREEMENT) - 3  # both verdicts are exercised


def test_detector_params_still_work():
    detector = Politeness()
    plain = Answer("Okay, ready to start the demo on my side.")
    hit = detector.detect(plain, detector.Params(), "t")
    assert hit.met and hit.reason == "a plain, friendly line: nothing in it sounds impolite"
    marked = detector.detect(plain, detector.Params(extra_markers=["on my side"]), "t")
    assert marked.met and 'author marker ("on my side")' in marked.reason
    polite = Answer("Sorry, could you say it again?")
    assert detector.detect(polite, detector.Params(), "t").met
    hit = detector.detect(polite, detector.Params(extra_blunt=["say it again"]), "t")
    assert not hit.met and hit.reason.startswith('sounds impolite: author blunt ("say it again")')
    assert hit.evidence == ["Sorry, could you say it again?"]


def test_detector_feedback_says_how_it_sounds_and_a_softer_wording():
    detector = Politeness()
    hit = detector.detect(Answer("Send me the deck."), detector.Params(), "t")
    assert not hit.met
    assert hit.reason.startswith('sounds impolite: bare command ("Send"). A bare command sounds like an order')
    assert hit.reason.endswith('try "Could you send me the deck?"')
    assert hit.evidence == ["Send me the deck."]
    polite = detector.detect(Answer("Thanks, Jun."), detector.Params(), "t")
    assert polite.met and 'gratitude ("Thanks")' in polite.reason


# --- softer rewording ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "request_text, expected",
    [
        ("Send me the file.", "Could you send me the file?"),
        ("Just tell me the number.", "Could you tell me the number?"),
        ("Review my PR", "Could you review my PR?"),
        ("Please stop reverting my edits.", "Could you please stop reverting my edits?"),
        ("Don't touch the config.", "Could you please not touch the config?"),
        ("Can you send me the file?", "Could you send me the file?"),
        ("You need to update the docs.", "Could you update the docs?"),
        ("Fix your mic.", "Could you fix your mic?"),
        ("What? I didn't catch that.", "Sorry, I didn't catch that."),
        ("So what is the deadline?", "Sorry to bother you, but what is the deadline?"),
    ],
)
def test_suggestion_softens_an_impolite_request(request_text, expected):
    assert not politeness.assess(request_text).polite
    suggestion = politeness.suggest(request_text)
    assert suggestion == expected
    assert politeness.assess(suggestion).polite


def test_no_suggestion_for_a_polite_request_or_pure_rudeness():
    assert politeness.suggest("Could you send me the file, please?") is None
    assert politeness.suggest("Shut up.") is None
    out = json.loads(coach("politeness", "--text", "Thanks, that helps.", "--format", "json").stdout)
    assert out["polite"] and "suggestion" not in out


@pytest.mark.parametrize("line", ["Can you see the dashboard now?", "Can you hear me now?", "Can everyone see my screen?",
                                  "Can you all still hear me?"])
def test_a_check_of_the_call_gets_no_could_you_rewording(line):
    """Issue 26: "Could you see the dashboard now?" is what no one says; a written request's "Can
    you send …" still becomes "Could you send …"."""
    assert politeness.suggest(line) is None
    assert "suggestion" not in json.loads(coach("politeness", "--text", line, "--format", "json").stdout)
    assert politeness.suggest("Can you see my screen? Click share.") == "Can you see my screen? Could you click share?"


def test_no_softer_version_when_only_the_rude_point_would_be_left_out():
    """Dropping "Absolutely not." leaves "Next topic.", which is not a softer way of saying it; a bare
    "What?" may go, since the rest still asks."""
    for line in ("Absolutely not. Next topic.", "If I have to. One sec."):
        assert not politeness.assess(line, moment=True).polite
        assert politeness.suggest(line, moment=True) is None, line
    assert politeness.suggest("What? I didn't catch that.", moment=True) == "I didn't catch that."


def test_a_cut_off_is_not_made_a_request():
    """"Wait, let me finish." made "Could you wait, let me finish?" is still a cut-off, said as a
    question: no softer version is offered, and what is said instead names both ways to take the floor."""
    assert politeness.assess("Wait, let me finish.", moment=True).impolite[0].name == "cutting_off"
    assert politeness.suggest("Wait, let me finish.", moment=True) is None
    assert "finish this thought" in politeness.sounds("cutting_off")[0]
    assert politeness.suggest("Speak louder.", moment=True) == "Could you speak louder?"


@pytest.mark.parametrize("line, softer", [
    ("Say again.", "Could you say that again?"),
    ("Mute your mic.", "Could you mute your mic?"),
    ("Stop sharing, I want to show mine.", "Could you stop sharing? I want to show mine."),
])
def test_a_bare_command_becomes_what_a_colleague_would_ask(line, softer):
    assert politeness.suggest(line, moment=True) == softer


@pytest.mark.parametrize("line, kind", [
    ("You are wrong.", "dismissal"),
    ("Can you not interrupt me?", "cutting_off"),
    ("Stop interrupting, please.", "cutting_off"),
    ("I already said that.", "impatience"),
    ("Are you done yet?", "impatience"),
    ("Why is this not done yet?", "impatience"),
    ("That's not my job.", "dismissal"),
    ("Okay, whatever you say.", "dismissal"),
    ("Nice try.", "dismissal"),
    ("This code is garbage.", "dismissal"),
    ("Honestly, this is a mess.", "dismissal"),
])
def test_plain_rudeness_in_other_words_is_named(line, kind):
    assert kind in {f.name for f in politeness.find(line)}


@pytest.mark.parametrize("line", ["I think you are right about the cache.", "If I am wrong, tell me.",
                                  "I already said that in the doc, but to recap: we shard the states.",
                                  "Are you done with the laptop?",
                                  "The cleanup is a mess we inherited, so I made a plan."])
def test_the_same_words_in_an_ordinary_line_are_not_rude(line):
    assert not politeness.assess(line).impolite


def test_a_cue_says_how_its_own_kind_of_rudeness_sounds():
    """Mocking is named as a dismissal, but the learner reads what mocking sounds like, not the
    dismissal's "disagree with the idea"; a cue without its own words falls back to its strategy's."""
    out = json.loads(coach("politeness", "--moment", "--text", "Hello? Is everyone asleep?", "--format", "json").stdout)
    [found] = out["impolite"]
    assert found["name"] == "dismissal" and found["sounds"].startswith("It mocks")
    assert found["sounds"] != politeness.sounds("dismissal")[0] and found["sounds_ko"]
    assert politeness.sounds("dismissal", "no-such-cue") == politeness.sounds("dismissal")
    for cue in politeness.parsed_cues():
        assert ("sounds" in cue.spec) == ("sounds_ko" in cue.spec), cue.name


# --- measured on the Stanford Politeness Corpus (Wikipedia half) ---------------------------------


def test_split_is_fixed_and_disjoint():
    parts = split()
    dev, test = set(parts["dev"]), set(parts["test"])
    assert not dev & test and len(dev) == 3047 and len(test) == 1306 and parts["seed"] == 20130804


@pytest.mark.slow
@needs_corpus
def test_held_out_accuracy_on_the_test_part():
    requests = load(corpus_path())
    assert set(split()["dev"]) | set(split()["test"]) == set(requests)
    _, test = quartile_task(requests)
    assert len(test) == 648
    correct = sum(politeness.assess(r.text).polite == label for r, label in test)
    accuracy = correct / len(test)
    assert accuracy >= TEST_ACCURACY - MARGIN, f"test-part accuracy {accuracy:.3f}"


@pytest.mark.slow
@needs_corpus
def test_weights_are_reproduced_by_the_fit_script():
    import importlib.util

    spec = importlib.util.spec_from_file_location("fit_politeness", REPO / "scripts" / "fit_politeness.py")
    fit_script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fit_script)
    dev, _ = quartile_task(load(corpus_path()))
    fitted = [s.name for s in politeness.strategies() if s.fit]
    x, offset, y, _ = fit_script.design(dev, fitted)
    lam = float(re.search(r"L2 ([\d.]+)", politeness.model()["fitted_on"]).group(1))
    weights, intercept = fit_script.fit(x, offset, y, lam)
    stored = {s.name: s.weight for s in politeness.strategies()}
    for name, weight in zip(fitted, weights, strict=True):
        assert stored[name] == pytest.approx(weight, abs=2e-3), name
    assert politeness.model()["intercept"] == pytest.approx(intercept, abs=2e-3)


WORKPLACE = REPO / "tests" / "corpus" / "politeness"


@pytest.mark.parametrize("community,part,floor", [("workplace", "dev", 0.891 - 0.09), ("workplace", "test", 0.837 - 0.11),
                                                   ("se", "dev", 0.873 - 0.09), ("se", "test", 0.813 - 0.09)])
def test_requests_from_other_communities_hold_up(community, part, floor):
    """Workplace requests (engineering meetings and wikis) and Stack Exchange comments (four sites
    the Stanford corpus does not hold), two raters each: polite (mean ≥ 5) against impolite
    (≤ 3.5). The floors leave two standard errors of each half (55 / 49 and 79 / 75 requests)."""
    rows = [json.loads(line)
            for line in (WORKPLACE / f"politeness-{community}.{part}.jsonl").read_text().splitlines()]
    labelled = [r for r in rows if r["polite"] is not None]
    correct = sum(politeness.assess(Answer(r["text"])).polite == r["polite"] for r in labelled)
    assert correct / len(labelled) >= floor, f"{part}: {correct}/{len(labelled)}"


def _moments_benchmark():
    import importlib.util

    spec = importlib.util.spec_from_file_location("moments_benchmark", REPO / "benchmarks" / "moments.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("split, polite_floor, fits_floor", [
    ("dev", 0.968 - 0.03, 0.947 - 0.03), ("dev2", 0.952 - 0.03, 0.864 - 0.03), ("test", 0.786 - 0.07, 0.769 - 0.07),
])
def test_lines_said_in_meeting_moments_hold_their_floor(library, split, polite_floor, fits_floor):
    """Lines two readers judged in video-call and meeting moments (benchmarks/README.md, "Politeness
    in a meeting moment"): the figures measured 2026-12-04, less a margin (two standard errors on
    the test half's 121–131 agreed lines)."""
    benchmark = _moments_benchmark()
    name = "moments2.dev.jsonl" if split == "dev2" else f"moments.{split}.jsonl"
    rows = [json.loads(line) for line in (benchmark.MOMENTS / name).read_text().splitlines()]
    agree = {"polite": [0, 0], "fits": [0, 0]}
    for row in rows:
        verdict = dict(zip(("polite", "fits"), benchmark.verdicts(library, row), strict=True))
        for key, tally in agree.items():
            if row[key][0] == row[key][1]:
                tally[0] += verdict[key] == row[key][0]
                tally[1] += 1
    assert agree["polite"][0] / agree["polite"][1] >= polite_floor, agree
    assert agree["fits"][0] / agree["fits"][1] >= fits_floor, agree
