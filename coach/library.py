"""The library as the app, the command line and `coach validate` load it: the content loader
(coach.content.loader) given scoring's check of each detector's type and params (coach.validation).

This module and coach.validation sit above both the content layer and `scoring`: the content
layer never imports scoring, and scoring reads only the card schema.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from coach.content import loader
from coach.content.schema import Library
from coach.validation import detector_problems


def load_library(
    content_paths: Iterable[Path], persona_paths: Iterable[Path], check_paths: Iterable[Path] = (),
    personal_paths: Iterable[Path] = (),
) -> Library:
    """Every card, persona and scene of these folders, each detector checked by scoring (see
    `coach.content.loader.load_library`)."""
    return loader.load_library(content_paths, persona_paths, check_paths, personal_paths,
                               check_detector=detector_problems)


def library_for(settings) -> Library:
    """The built-in packs and personas of these settings, then the learner's own cards."""
    return load_library(settings.content_dirs, settings.persona_dirs, personal_paths=(settings.cards_dir,))


def default_library() -> Library:
    from coach.config import load_settings

    return library_for(load_settings())
