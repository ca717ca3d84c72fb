"""The detector registry is filled by `@detector(...)` where each detector is defined: every
concrete Detector class of the detector modules is registered under its type, and a card naming
an unknown type gets the same message as before."""

from __future__ import annotations

import inspect

import pytest

from scoring.detectors import DETECTOR_MODULES, REGISTRY, check_detector_spec
from scoring.detectors.base import Detector, detector

BEFORE = {  # the hand-kept list this registry replaced (issue 30)
    "self_action", "process", "measured_result", "teamwork", "options_rejected", "reflection",
    "key_concepts", "meeting_move", "phrases", "politeness", "tradeoff", "generic_reason", "quantity",
}


def _detector_classes():
    for module in DETECTOR_MODULES:
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if issubclass(cls, Detector) and cls is not Detector and cls.__module__ == module.__name__:
                yield cls


def test_every_detector_class_of_the_detector_modules_is_registered_under_its_type():
    classes = [cls for cls in _detector_classes() if not cls.__name__.startswith("_")]  # _SentencePhrases: a base
    assert classes
    for cls in classes:
        assert type(REGISTRY.get(cls.type)) is cls, cls.__name__
    assert {type(d) for d in REGISTRY.values()} == set(classes)
    assert set(REGISTRY) == BEFORE


def test_an_unknown_type_gets_the_same_message():
    known = ", ".join(sorted(REGISTRY))
    assert check_detector_spec("measured_results", {}) == [
        f"unknown detector type 'measured_results' (known: {known})"
    ]
    assert "measured_result, meeting_move, options_rejected, phrases, politeness" in known


def test_a_type_registered_twice_or_misspelled_is_refused():
    with pytest.raises(ValueError, match="registered twice"):

        @detector("measured_result")
        class Again(Detector):
            pass

    with pytest.raises(TypeError, match="declares type"):

        @detector("spelled_one_way")
        class Other(Detector):
            type = "spelled_another"
