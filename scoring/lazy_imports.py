"""The scorer's two heavy libraries, imported without what they would drag in for nothing.

- lemminflect's package `__init__` imports spaCy, if installed, only to register two token
  extensions the scorer never uses; spaCy (with thinc and, where installed, torch) costs 0.5-2 s
  and 100-300 MiB, while the inflection tables the pattern expansions need cost 50 ms. So
  lemminflect is imported with spaCy hidden, unless spaCy is already loaded.
- spaCy imports thinc, whose `thinc.compat` imports torch when it is installed (the optional
  openai-whisper engine installs it): about 1.1 s and 230 MiB, although the small English
  pipeline runs on thinc's numpy ops and never touches torch. So spaCy is imported with torch
  hidden, unless torch is already loaded (then thinc uses it, as before).

Hiding is per thread and only for that one import: another thread importing torch meanwhile
(the openai-whisper engine) is not affected, and a later `import torch` anywhere works.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import importlib.abc
import sys
import threading
from collections.abc import Iterator
from types import ModuleType

_lock = threading.Lock()

class _Hide(importlib.abc.MetaPathFinder):
    """Makes `import NAME` (and its submodules) fail with ImportError in one thread."""

    def __init__(self, names: tuple[str, ...]):
        self.names = names
        self.thread = threading.get_ident()

    def find_spec(self, fullname, path=None, target=None):
        if threading.get_ident() == self.thread and fullname.split(".")[0] in self.names:
            raise ImportError(f"{fullname} is not needed here (scoring.lazy_imports)", name=fullname)
        return None


@contextlib.contextmanager
def _hidden(*names: str) -> Iterator[None]:
    names = tuple(n for n in names if n not in sys.modules)
    if not names:
        yield
        return
    finder = _Hide(names)
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        sys.meta_path.remove(finder)


def _import(name: str, hide: str) -> ModuleType:
    if name in sys.modules:  # import_module waits for another thread's import of it to finish
        return importlib.import_module(name)
    with _hidden(hide):
        return importlib.import_module(name)


def lemminflect() -> ModuleType:
    """The lemminflect package (getLemma, getInflection, …), without spaCy, its lemma and
    inflection tables read a word at a time (`LazyLemmaTable`, `LazyInflectionTable`)."""
    module = _import("lemminflect", hide="spacy")
    with _lock:
        lemmatizer = module.Lemmatizer()
        if not hasattr(lemmatizer, "lemma_dict") and hasattr(lemmatizer, "lemma_lu_fn"):
            lemmatizer.lemma_dict = LazyLemmaTable(lemmatizer.lemma_lu_fn)
        inflections = module.Inflections()
        if not hasattr(inflections, "infl_dict") and hasattr(inflections, "infl_lu_fn"):
            inflections.infl_dict = LazyInflectionTable(inflections.infl_lu_fn)
    return module


class _SortedTable:
    """One of lemminflect's gzipped tables, whose lines begin with their word and are sorted by
    it, looked up a word at a time: building the whole dict takes 0.2-0.5 s at the first lookup
    (each table), of which an answer needs a few dozen words. A word's lines are found by binary
    search in the decompressed text and read as lemminflect's own codec reads them (`_entry`)."""

    def __init__(self, path: str):
        import gzip

        with open(path, "rb") as handle:
            self._text = "\n" + gzip.decompress(handle.read()).decode()
        self._found: dict[str, dict] = {}

    def get(self, word: str, default=None):
        found = self._found.get(word)
        if found is None:
            found = self._found[word] = self._entry(word, self._lines(word))
        return found if found else default

    def __contains__(self, word: str) -> bool:
        return bool(self.get(word))

    def _entry(self, word: str, lines: list[str]) -> dict:
        raise NotImplementedError

    def _lines(self, word: str) -> list[str]:
        text, key = self._text, f"\n{word},"
        lo, hi = 0, len(text)  # binary search for the newline before the first line of `word` or after it
        while lo < hi:
            start = text.rfind("\n", 0, (lo + hi) // 2 + 1)
            if text[start + 1 : text.find(",", start)] < word:
                following = text.find("\n", start + 1)
                lo = following if following >= 0 else len(text)
            else:
                hi = start
        at, lines = lo, []
        while at >= 0 and text.startswith(key, at):
            end = text.find("\n", at + 1)
            lines.append(text[at + 1 : end if end >= 0 else len(text)])
            at = end
        return lines


class LazyLemmaTable(_SortedTable):
    """lemminflect's lemma table (`Lemmatizer.lemma_dict`: word -> {upos: lemmas})."""

    def _entry(self, word: str, lines: list[str]) -> dict:
        from lemminflect.codecs.LemmaLUCodec import LemmaLUCodec
        from lemminflect.core.LexicalUtils import categoryToUPos

        out: dict = {}
        for line in lines:
            _, category, forms = LemmaLUCodec.fromString(line)
            out[categoryToUPos(category)] = forms
        return out


class LazyInflectionTable(_SortedTable):
    """lemminflect's inflection table (`Inflections.infl_dict`: lemma -> {Penn tag: spellings}):
    a lemma's lines merged in order, and the modal and auxiliary verbs its loader hard-codes."""

    def _entry(self, word: str, lines: list[str]) -> dict:
        from lemminflect.codecs.InflectionLUCodec import InflectionLUCodec

        if word in (hard_coded := _hard_coded_inflections()):
            return hard_coded[word]
        out: dict = {}
        for line in lines:
            out.update(InflectionLUCodec.fromString(line)[2])
        return out


@functools.cache
def _hard_coded_inflections() -> dict:
    """The modal and auxiliary verbs lemminflect's inflection loader sets by hand, over its table."""
    from lemminflect.codecs.InflectionLUCodec import InflectionLUCodec

    return InflectionLUCodec.updateForAuxMod({})


def spacy() -> ModuleType:
    """The spaCy package, without torch and without its command line (`spacy.cli`)."""
    if "spacy" in sys.modules:
        return importlib.import_module("spacy")
    with _without_spacy_cli():
        return _import("spacy", hide="torch")


@contextlib.contextmanager
def _without_spacy_cli() -> Iterator[None]:
    """spaCy's `__init__` imports `spacy.cli.info` for the name `spacy.info` alone, and with it the
    whole command line (typer, weasel, requests, httpx): 0.3-0.6 s of the 1 s a scored answer
    that needs the parse takes. While spaCy is imported, `spacy.cli.info` is a stand-in whose
    `info` imports the real one when called; afterwards `import spacy.cli` imports the real
    package, as before."""
    if "spacy.cli" in sys.modules:
        yield
        return
    package, module = ModuleType("spacy.cli"), ModuleType("spacy.cli.info")
    package.__path__ = []

    def info(*args, **kwargs):
        return importlib.import_module("spacy.cli.info").info(*args, **kwargs)

    module.info = info  # type: ignore[attr-defined]
    sys.modules["spacy.cli"], sys.modules["spacy.cli.info"] = package, module
    try:
        yield
    finally:
        for name, stand_in in (("spacy.cli", package), ("spacy.cli.info", module)):
            if sys.modules.get(name) is stand_in:
                del sys.modules[name]
