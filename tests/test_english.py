"""English corrections (scoring/english.py, scoring/patterns/english.yaml) and `coach english`."""

from __future__ import annotations

import json

import pytest

from scoring import english

RULES = english.phrase_rules()


@pytest.mark.parametrize("rule", RULES, ids=[r.id for r in RULES])
def test_phrase_rule_examples(rule):
    """Every declared rule corrects its examples and leaves its counter-examples alone."""
    assert rule.kind in english.KINDS
    for text, corrected in rule.examples:
        assert english.review(text).corrected == corrected, text
    for text in rule.no_match:
        assert english.review(text).corrections == (), text


COLLOCATIONS = english.collocations()


def test_rule_ids_are_unique():
    """A correction names its rule by id (the benchmark's false flags, these tests' ids): two rules
    with one id could not be told apart."""
    ids = [rule.id for rule in (*RULES, *COLLOCATIONS)]
    assert sorted(i for i in set(ids) if ids.count(i) > 1) == []


@pytest.mark.parametrize("rule", COLLOCATIONS, ids=[r.id for r in COLLOCATIONS])
def test_collocation_examples(rule):
    """Every collocation read from the parse corrects its examples and leaves its counter-examples alone."""
    assert rule.kind in english.KINDS
    assert rule.examples and rule.no_match, rule.id
    for text, corrected in rule.examples:
        assert english.review(text).corrected == corrected, text
    for text in rule.no_match:
        assert english.review(text).corrections == (), text


# Errors read from the parse: (text, the text corrected, the kind)
PARSED = [
    ("The job fail every night.", "The job fails every night.", "agreement"),
    ("The results shows a gain.", "The results show a gain.", "agreement"),
    ("He don't know the answer.", "He doesn't know the answer.", "agreement"),
    ("Both jobs was killed by the OOM killer.", "Both jobs were killed by the OOM killer.", "agreement"),
    ("The researchers was not happy at first.", "The researchers were not happy at first.", "agreement"),
    ("Two of my teammates was working on storage.", "Two of my teammates were working on storage.", "agreement"),
    ("Each team get a fixed GPU quota.", "Each team gets a fixed GPU quota.", "agreement"),
    ("My manager say that I should present more.", "My manager says that I should present more.", "agreement"),
    ("Yesterday I fix the memory leak.", "Yesterday I fixed the memory leak.", "tense"),
    ("I have finished it two days ago.", "I finished it two days ago.", "tense"),
    ("Since 2021 I am working on the cache.", "Since 2021 I have been working on the cache.", "tense"),
    ("I didn't went to the meeting.", "I didn't go to the meeting.", "tense"),
    ("Next week we upgraded the drivers.", "Next week we will upgrade the drivers.", "tense"),
    ("Since last year I work on the inference team.", "Since last year I have worked on the inference team.", "tense"),
    ("I didn't knew about the limit.", "I didn't know about the limit.", "tense"),
    ("We bought two GPU for the team.", "We bought two GPUs for the team.", "number"),
    ("We need an GPU with more memory.", "We need a GPU with more memory.", "article"),
    ("One of the biggest problem is memory.", "One of the biggest problems is memory.", "number"),
    ("It is good idea.", "It is a good idea.", "article"),
    ("We had a error in the parser.", "We had an error in the parser.", "article"),
    ("This is best option for us.", "This is the best option for us.", "article"),
    ("We have less errors now.", "We have fewer errors now.", "comparison"),
    ("Can you tell me what is the problem?", "Can you tell me what the problem is?", "word-order"),
    ("I don't know why did the job fail.", "I don't know why the job failed.", "word-order"),
    ("Do you know when will the new GPUs arrive?", "Do you know when the new GPUs will arrive?", "word-order"),
    ("The partition is not enough big.", "The partition is not big enough.", "word-order"),
    ("We got a good results from the new kernel.", "We got good results from the new kernel.", "article"),
    ("Most of engineers here use Python.", "Most of the engineers here use Python.", "article"),
    ("I never saw such problem before.", "I never saw such a problem before.", "article"),
    ("I work as software engineer at Naver.", "I work as a software engineer at Naver.", "article"),
    ("Our team uses the PyTorch for training.", "Our team uses PyTorch for training.", "article"),
    ("We had same problem last year.", "We had the same problem last year.", "article"),
    ("Our cluster is biggest one in the company.", "Our cluster is the biggest one in the company.", "article"),
    ("These file are missing.", "These files are missing.", "number"),
    ("It took a few day to fix.", "It took a few days to fix.", "number"),
    ("The rack has two power supply for redundancy.", "The rack has two power supplies for redundancy.", "number"),
    ("We talked to two GPU vendor last week.", "We talked to two GPU vendors last week.", "number"),
    ("I have been to the Seoul office last month.", "I went to the Seoul office last month.", "tense"),
    ("I have seen the same error yesterday.", "I saw the same error yesterday.", "tense"),
    ("Each nodes has eight GPUs.", "Each node has eight GPUs.", "number"),
    ("The number of user grew fast.", "The number of users grew fast.", "number"),
    ("It takes about a hour to build the container.", "It takes about an hour to build the container.", "article"),
    (
        "The logs from last night shows a lot of timeouts.",
        "The logs from last night show a lot of timeouts.",
        "agreement",
    ),
    ("One of the switches are overheating again.", "One of the switches is overheating again.", "agreement"),
    (
        "Everyone in the infra team know about this issue.",
        "Everyone in the infra team knows about this issue.",
        "agreement",
    ),
    (
        "The model weights and the optimizer state takes about 200 GB.",
        "The model weights and the optimizer state take about 200 GB.",
        "agreement",
    ),
    ("The nodes in rack 3 was rebooted last night.", "The nodes in rack 3 were rebooted last night.", "agreement"),
    ("Does the new drivers fix the hang?", "Do the new drivers fix the hang?", "agreement"),
    ("Did you already restarted the scheduler?", "Did you already restart the scheduler?", "tense"),
    ("Last week we have upgraded the driver.", "Last week we upgraded the driver.", "tense"),
    (
        "Can you open the camera so we can see the rack?",
        "Can you turn on the camera so we can see the rack?",
        "word-choice",
    ),
    ("If the job will fail again, I'll open a ticket.", "If the job fails again, I'll open a ticket.", "tense"),
    ("When the build will finish, I will deploy it.", "When the build finishes, I will deploy it.", "tense"),
    ("Can you send me link to the dashboard?", "Can you send me the link to the dashboard?", "article"),
    ("We need to buy new switch for the rack.", "We need to buy a new switch for the rack.", "article"),
    (
        "If I knew about the quota, I would have asked for more.",
        "If I had known about the quota, I would have asked for more.",
        "tense",
    ),
    (
        "If the check had worked, we would not lose the checkpoint.",
        "If the check had worked, we would not have lost the checkpoint.",
        "tense",
    ),
    (
        "If we would have more GPUs, we could run it in parallel.",
        "If we had more GPUs, we could run it in parallel.",
        "tense",
    ),
    (
        "When I was a student, I have used PyTorch for my research.",
        "When I was a student, I used PyTorch for my research.",
        "tense",
    ),
    ("The second run was slower as the first one.", "The second run was slower than the first one.", "comparison"),
    ("Latency is more important as throughput.", "Latency is more important than throughput.", "comparison"),
    ("During incident, nobody was sure who owned it.", "During the incident, nobody was sure who owned it.", "article"),
    ("This is very good question.", "This is a very good question.", "article"),
    ("It is a single node, which is rare case for us.", "It is a single node, which is a rare case for us.", "article"),
    ("I was responsible for building internal tool.", "I was responsible for building an internal tool.", "article"),
    ("Both of the solution have pros and cons.", "Both of the solutions have pros and cons.", "number"),
    ("Last year I am working on the platform team.", "Last year I was working on the platform team.", "tense"),
    (
        "Why the GPU is idle? Because the loader is slow.",
        "Why is the GPU idle? Because the loader is slow.",
        "word-order",
    ),
    ("Why the job is still pending?", "Why is the job still pending?", "word-order"),
    ("What you did change in the config?", "What did you change in the config?", "word-order"),
    ("Where the logs are?", "Where are the logs?", "word-order"),
    ("He writes very well CUDA kernels.", "He writes CUDA kernels very well.", "word-order"),
    ("Let me check first the logs.", "Let me check the logs first.", "word-order"),
    (
        "We need to check also the network configuration.",
        "We need to also check the network configuration.",
        "word-order",
    ),
    ("How long it takes to restore the checkpoint?", "How long does it take to restore the checkpoint?", "word-order"),
    ("What kind of GPUs your team is using?", "What kind of GPUs is your team using?", "word-order"),
    ("Why the scheduler didn't pick up the nodes?", "Why didn't the scheduler pick up the nodes?", "word-order"),
    ("What you think about using Ray?", "What do you think about using Ray?", "word-order"),
    (
        "The team decided using Kubernetes for inference.",
        "The team decided to use Kubernetes for inference.",
        "verb-pattern",
    ),
    # 2026-12-06, the sixth writer's development set
    (
        "We tested thoroughly the new driver on staging.",
        "We tested the new driver thoroughly on staging.",
        "word-order",
    ),
    ("He speaks very well Korean and English.", "He speaks Korean and English very well.", "word-order"),
    (
        "I'm not sure how many GPUs does this job actually need.",
        "I'm not sure how many GPUs this job actually needs.",
        "word-order",
    ),
    (
        "Nobody knows exactly how long will the migration take.",
        "Nobody knows exactly how long the migration will take.",
        "word-order",
    ),
    ("There aren't much free GPUs today.", "There aren't many free GPUs today.", "comparison"),
    ("Right now we have less GPUs than we need.", "Right now we have fewer GPUs than we need.", "comparison"),
    ("I have a few more question about the handoff.", "I have a few more questions about the handoff.", "number"),
    ("I managed around 3,000 server in two regions.", "I managed around 3,000 servers in two regions.", "number"),
    (
        "Each rack has two top-of-rack switch, so we have redundancy.",
        "Each rack has two top-of-rack switches, so we have redundancy.",
        "number",
    ),
    (
        "One of the GPU in node 17 keeps falling off the bus.",
        "One of the GPUs in node 17 keeps falling off the bus.",
        "number",
    ),
    ("Two of our engineer are on vacation this week.", "Two of our engineers are on vacation this week.", "number"),
    (
        "The cluster is down since 2 a.m., so the jobs are stuck.",
        "The cluster has been down since 2 a.m., so the jobs are stuck.",
        "tense",
    ),
    ("I'm on this project for six months now.", "I've been on this project for six months now.", "tense"),
    (
        "I have seen this error for the first time last night.",
        "I saw this error for the first time last night.",
        "tense",
    ),
    ("Each of the alerts were a false positive.", "Each of the alerts was a false positive.", "agreement"),
    (
        "We need to file a ticket with vendor because the switch drops packets.",
        "We need to file a ticket with the vendor because the switch drops packets.",
        "article",
    ),
]


@pytest.mark.parametrize(("text", "corrected", "kind"), PARSED, ids=[p[0] for p in PARSED])
def test_parsed_corrections(text, corrected, kind):
    review = english.review(text)
    assert review.corrected == corrected
    assert [c.kind for c in review.corrections] == [kind]


CORRECT = [
    "A few of our users have reported slow container startup since Monday.",
    "The team say that it works.",
    "The data was clean and the news was good.",
    "Three weeks was enough for the migration.",
    "The number of GPUs was small.",
    "Please page me if an alert fires after midnight.",
    "When I saw the NCCL logs more closely, I noticed it.",
    "On paper, the new interconnect was better than the old one.",
    "I finished the migration script, so it's ready for review.",
    "How often does the cron job run?",
    "Two hours is enough time to run the full benchmark.",
    "I saw the job fail twice last night.",
    "Let the job run overnight.",
    "For example, we moved the cache to Redis.",
    "We made the most of it.",
    "A SLURM job runs on an H100 node.",
    "What do you think about this plan?",
    "I know what is wrong with the build.",
    "The team has been working on it since March.",
    "We will fix the bugs until Friday and then stop.",
    "How did distributed training jobs get all their GPUs?",
    "This chart shows average GPU utilization for our cluster last month.",
    "Over the next quarter energy dropped 22%.",
    "Sharding the parameters over several servers helps.",
    "We need a NIC per node, and it is an SLA issue.",
    "The median wait for urgent jobs went from two hours to ten minutes.",
    "We keep an FP32 master copy and an Nsight profile.",
    "He stepped down as lead developer in 2011.",
    "The Linux build files need to be produced on Windows.",
    "All nodes responded with the exact same network throughput.",
    "There is plenty of opportunity for growth.",
    "We run a few experiments every week.",
    "One of a great many reasons is cost.",
    "Most of our engineers use Python.",
    "We served it as a service to other teams.",
    "It handles speech recognition, spoken language identification, and translation.",
    "The Python package is small.",
    "I wrote the Slurm and Kubernetes configs for both.",
    "These are all the regions Hyperping has probes in.",
    "We run three node clusters in each region.",
    "The error rate this week is lower than last week.",
    "Every node and every switch has been checked.",
    "Monitoring and alerting is handled by the SRE team.",
    "A number of nodes were down.",
    "In 2023 we have pushed three releases.",
    "It takes a workshop to learn it.",
    "What the team did was great.",
    "Why we chose FSDP? Because it was simpler.",
    "I know well the people in the team.",
    "We need to check first.",
    "How is the job scheduled?",
    "If you would like, I can share my screen.",
    "It is more useful as a library.",
    "Each worker restarts during startup.",
    "Our error rate this week is twice as high as last week.",
    "The queue wait time on weekends is shorter than on weekdays.",
    "Our GPU utilization was around 60 percent last month, which is too low.",
    "We had an incident last night, and the postmortem is tomorrow.",
    "Would it help if I took the on-call shift next week?",
    "This can vary from model to model.",
    "It belongs to the same queue as the preemptor and the preemptee has a lower priority.",
    "We merged it after review.",
    "It became more important as the team grew.",
    "It runs faster as a batch job.",
    "If it was up to me, I would use Slurm.",
    "I have worked here for three years.",
    "Where the bottleneck is? Probably the storage layer.",
    "How we fixed it? We pinned the driver.",
    "How many jobs are still pending?",
    "Which nodes failed?",
    "How come it works on staging?",
    "I will tell you if it will be late.",
    "If it will help, I can share my screen.",
    "If you'll excuse me, I'll drop off now.",
    "The inference server was crashing every few hours.",
    "The lab equipment arrived this morning, but the cables are missing.",
    "If someone were to ask, I would say no.",
    "We are comparing it to last week's run now.",
    "I'm here for a week.",
    "I have worked here for the last two years.",
    "The results were good.",
    "I wish the cluster were bigger.",
]


@pytest.mark.parametrize("text", CORRECT)
def test_correct_english_is_left_alone(text):
    assert english.review(text).corrections == ()


def test_each_correction_quotes_the_text_and_gives_reasons():
    text = "Yesterday we discuss about the plan, and the job fail every night. I am agree."
    review = english.review(text)
    assert len(review.corrections) == 3  # "discuss about" and its tense are one correction
    for c in review.corrections:
        assert c.wrong == text[c.start : c.end]
        assert c.why and c.why_ko and c.kind in english.KINDS
    assert review.corrected == "Yesterday we discussed the plan, and the job failed every night. I agree."


def test_two_errors_of_one_sentence_are_both_corrected_in_their_time():
    review = english.review("The training become unstable when we increase the learning rate yesterday.")
    assert review.corrected == "The training became unstable when we increased the learning rate yesterday."
    assert {c.kind for c in review.corrections} == {"tense"}


def test_an_unreal_if_with_will_gets_both_clauses_corrected():
    review = english.review("If I would do it again, I will set up profiling.")
    assert review.corrected == "If I did it again, I would set up profiling."
    assert [c.kind for c in review.corrections] == ["tense", "tense"]


def test_korean_text_gets_no_corrections():
    review = english.review("제 팀원 지훈이 네트워크 쪽을 맡았고 저는 NCCL 튜닝을 했습니다.")
    assert review.language == "ko" and review.corrections == ()
    assert review.to_json_dict()["language"] == "ko"
    assert english.review("We use 쿠버네티스 for the cluster and it works well.").language == "en"


def test_the_parse_is_shared_with_the_scorer():
    from scoring import grammar

    text = "The job fail every night because the cache is full."
    assert grammar.parse(text) is grammar.parse(text)
    assert english.review(text, parse=grammar.parse(text)).corrections


# --- `coach english` (in process) ---


def _coach(capsys, *argv):
    from coach.cli import main

    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_text_contract(capsys):
    text = "The job fail every night and we discuss about it."
    code, out, err = _coach(capsys, "english", "--text", text, "--format", "json")
    assert code == 0, err
    result = json.loads(out)
    assert set(result) == {"text", "corrections", "corrected"}
    assert result["text"] == text
    assert result["corrected"] == "The job fails every night and we discuss it."
    for c in result["corrections"]:
        assert set(c) == {"start", "end", "wrong", "right", "kind", "why", "why_ko"}
        assert c["wrong"] == text[c["start"] : c["end"]]


def test_cli_korean_text(capsys):
    code, out, _ = _coach(capsys, "english", "--text", "제 팀원 지훈이 네트워크 쪽을 맡았습니다.")
    assert code == 0
    assert json.loads(out) == {
        "text": "제 팀원 지훈이 네트워크 쪽을 맡았습니다.",
        "corrections": [],
        "corrected": "제 팀원 지훈이 네트워크 쪽을 맡았습니다.",
        "language": "ko",
    }


def test_cli_file_and_jsonl(capsys, tmp_path):
    one = tmp_path / "one.txt"
    one.write_text("I am agree with you.", encoding="utf-8")
    code, out, _ = _coach(capsys, "english", "--file", str(one))
    assert code == 0 and json.loads(out)["corrected"] == "I agree with you."
    batch = tmp_path / "batch.jsonl"
    batch.write_text(
        '{"id": 1, "text": "We bought two GPU."}\nnot json\n{"id": "b", "text": ""}\n'
        '{"id": "c", "text": "All good here."}\n',
        encoding="utf-8",
    )
    code, out, err = _coach(capsys, "english", "--jsonl", str(batch))
    assert code == 2  # bad lines are named, the others go on
    lines = [json.loads(line) for line in out.splitlines()]
    assert [line["id"] for line in lines] == [1, "c"]
    assert lines[0]["corrected"] == "We bought two GPUs."
    assert err.count(f"{batch}:") == 2 and f"{batch}:2:" in err and f"{batch}:3:" in err


@pytest.mark.parametrize("argv", [("--text", ""), ("--text", "   "), ("--file", "/nonexistent/answer.txt")])
def test_cli_bad_input_is_one_line(capsys, argv):
    code, out, err = _coach(capsys, "english", *argv)
    assert code != 0 and out == ""
    assert len(err.strip().splitlines()) == 1 and err.startswith("coach: ")
