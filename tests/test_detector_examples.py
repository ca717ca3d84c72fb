"""Every registered detector declares examples it must meet and must not meet (the detector
reference in content/README.md shows them); this runs them all."""

from __future__ import annotations

import pytest

from scoring.detectors import REGISTRY
from scoring.text import Answer

CASES = [(kind, example, text, expected)
         for kind, detector in REGISTRY.items()
         for example in detector.examples
         for expected, texts in ((True, example.met), (False, example.not_met))
         for text in texts]


def test_every_detector_declares_what_it_meets_and_what_it_does_not():
    for kind, detector in REGISTRY.items():
        assert detector.description, kind
        assert any(e.met for e in detector.examples) and any(e.not_met for e in detector.examples), kind


@pytest.mark.parametrize("kind, example, text, expected", CASES, ids=[f"{c[0]}:{c[2][:40]}" for c in CASES])
def test_detector_example(kind, example, text, expected):
    detector = REGISTRY[kind]
    hit = detector.detect(Answer(text), detector.Params.model_validate(example.params), example.turn)
    assert hit.met is expected, hit.reason
