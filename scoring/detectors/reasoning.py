"""Reasoning about designs: a trade-off weighed between options (conceptual interview cards)."""

from __future__ import annotations

from scoring.detectors.base import Detector, Hit, first_sentences, lexicon
from scoring.detectors.experience import ExtraPatterns


class Tradeoff(Detector):
    type = "tradeoff"
    Params = ExtraPatterns
    description = (
        "What one design gives up for another: an explicit trade-off or cost ('the downside is', "
        "'trades compute for memory'), a choice of one option over another ('rather than', 'keep "
        "it inside the node'), or a contrast that names a cost ('simple, but every step waits for "
        "the slowest GPU')."
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


class GenericReason(Detector):
    """A pitfall detector: met when the answer gives a reason that would fit any project."""

    type = "generic_reason"
    description = (
        "A pitfall: a reason given without any condition of the speaker's own project (their "
        "traffic, model size, constraint or a measured number), e.g. 'we chose FSDP because it "
        "performs well'. Met (the pitfall is present) with the sentence that shows it."
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
