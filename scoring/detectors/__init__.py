"""The detector registry: criteria in content packs name a detector `type` and its params."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from scoring.detectors.base import Detector, Hit
from scoring.detectors.concepts import KeyConcepts
from scoring.detectors.experience import (
    MeasuredResult,
    OptionsRejected,
    Process,
    Reflection,
    SelfAction,
    Teamwork,
)
from scoring.detectors.meeting import MeetingMove, Phrases, Politeness
from scoring.detectors.reasoning import GenericReason, Quantity, Tradeoff

REGISTRY: dict[str, Detector] = {
    detector.type: detector
    for detector in (
        SelfAction(),
        Process(),
        MeasuredResult(),
        Teamwork(),
        OptionsRejected(),
        Reflection(),
        KeyConcepts(),
        MeetingMove(),
        Phrases(),
        Politeness(),
        Tradeoff(),
        GenericReason(),
        Quantity(),
    )
}

__all__ = ["REGISTRY", "Detector", "Hit", "check_detector_spec", "detector_for"]


def check_detector_spec(detector_type: str, params: dict[str, Any]) -> list[str]:
    """Problems with a criterion's detector spec, as messages (empty when valid)."""
    detector = REGISTRY.get(detector_type)
    if detector is None:
        known = ", ".join(sorted(REGISTRY))
        return [f"unknown detector type {detector_type!r} (known: {known})"]
    try:
        detector.Params.model_validate(params or {})
    except ValidationError as exc:
        return [
            f"bad detector params: {'.'.join(map(str, e['loc'])) or 'params'}: {e['msg']}"
            for e in exc.errors()
        ]
    except ValueError as exc:
        return [f"bad detector params: {exc}"]
    return []


def detector_for(detector_type: str) -> Detector:
    return REGISTRY[detector_type]
