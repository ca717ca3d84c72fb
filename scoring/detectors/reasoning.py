"""Reasoning about designs: a trade-off weighed between options (conceptual interview cards)."""

from __future__ import annotations

from scoring.detectors.base import Detector, Example, Hit, detector, first_sentences, lexicon, regex
from scoring.detectors.experience import ExtraPatterns


@detector("tradeoff")
class Tradeoff(Detector):
    Params = ExtraPatterns
    description = (
        "What one design gives up for another: an explicit trade-off or cost ('the downside is', "
        "'trades compute for memory'), a choice of one option over another ('rather than', 'keep "
        "it inside the node'), or a contrast that names a cost ('simple, but every step waits for "
        "the slowest GPU')."
    )

    examples = (
        Example(
            params={},
            met=("Recomputation trades compute for memory.",),
            not_met=("Recomputation is good.",),
        ),
    )

    def detect(self, answer, params, turn_id):
        explicit = lexicon("reasoning", "tradeoff_explicit", extra=tuple(params.extra_patterns))
        choice = lexicon("reasoning", "tradeoff_choice")
        contrast = lexicon("reasoning", "tradeoff_contrast")
        cost = lexicon("reasoning", "tradeoff_cost")
        found = []
        for sentence in answer.sentences:
            match = explicit.search(sentence.text) or choice.search(sentence.text)
            if match is None and contrast.search(sentence.text):
                match = cost.search(sentence.text)
            if match:
                found.append((sentence, sentence.start + match.start()))
        if not found:
            return Hit.none("does not say what one option costs or gives up against another")
        return Hit(True, 1.0, first_sentences(answer, found), "weighs what each option costs")


@detector("generic_reason")
class GenericReason(Detector):
    """A pitfall detector: met when the answer gives a reason that would fit any project."""

    description = (
        "A pitfall: a reason given without any condition of the speaker's own project (their "
        "traffic, model size, constraint or a measured number), e.g. 'we chose FSDP because it "
        "performs well'. Met (the pitfall is present) with the sentence that shows it."
    )

    examples = (
        Example(
            params={},
            met=("We chose FSDP because it performs well.",),
            not_met=("We chose FSDP because our 70B model did not fit in 80 GB per GPU.",),
        ),
    )

    def detect(self, answer, params, turn_id):
        cue = lexicon("pitfalls", "reason_cue")
        generic = lexicon("pitfalls", "generic_reason")
        own = lexicon("pitfalls", "own_condition")
        found = []
        for sentence in answer.sentences:
            if own.search(sentence.text) or not cue.search(sentence.text):
                continue
            if match := generic.search(sentence.text):
                found.append((sentence, sentence.start + match.start()))
        if not found:
            return Hit.none("every reason is tied to the project")
        return Hit(True, 1.0, first_sentences(answer, found), "a reason that would fit any project")


@detector("quantity")
class Quantity(Detector):
    """For conceptual questions: a number put on the concept itself (the traffic, the memory,
    the bubble), which needs no before/after, unlike a measured result."""

    Params = ExtraPatterns
    description = (
        "A number put on the concept: bytes per parameter, how many times the gradient each GPU "
        "sends, a bubble fraction, a share of the compute, a latency or a duration. Spoken numbers "
        "count; numbers that only describe the setup (8 GPUs, a 7B model, 2023) do not."
    )

    examples = (
        Example(
            params={},
            met=("With Adam in mixed precision, each parameter costs about 16 bytes.",),
            not_met=("We trained a 7B model on 8 GPUs.",),
        ),
    )

    def detect(self, answer, params, turn_id):
        words = lexicon("reasoning", "quantity_words", extra=tuple(params.extra_patterns))
        setup = regex("experience", "measured_result", "setup_units")
        year = regex("experience", "measured_result", "year")
        names = regex("reasoning", "name_with_digits")
        found = []
        for sentence in answer.sentences:
            text = names.sub(" ", year.sub(" ", setup.sub(" ", sentence.numeric)))
            if _has_number(text) and words.search(text):
                found.append((sentence, None))
        if not found:
            return Hit.none("no number put on it (bytes, a share, a rate, a formula)")
        return Hit(True, 1.0, first_sentences(answer, found), "puts a number on it")


def _has_number(text: str) -> bool:
    return any(ch.isdigit() for ch in text) or lexicon("reasoning", "number_words").search(text) is not None
