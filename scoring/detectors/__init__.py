"""The detector registry: criteria in content packs name a detector `type` and its params.

Each detector registers itself where it is defined (`@detector("measured_result")`,
scoring.detectors.base); importing the detector modules here fills the registry."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from scoring.detectors import concepts, experience, meeting, reasoning  # each registers its detectors
from scoring.detectors.base import Detector, Hit, registered

DETECTOR_MODULES = (concepts, experience, meeting, reasoning)

REGISTRY: dict[str, Detector] = registered()

__all__ = ["DETECTOR_MODULES", "REGISTRY", "Detector", "Hit", "check_detector_spec", "detector_for"]


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
