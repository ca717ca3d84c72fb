"""Technical terms heard right: term recall with and without the card's vocabulary.

    .venv/bin/python benchmarks/vocabulary.py [--cards N] [--chars N]

For each interview card, the start of its first model answer (about `--chars` characters,
cut at a sentence) is spoken by espeak-ng in two voices (en-us, en-gb), then transcribed by
the bundled tiny.en three ways:

- none      the default decoder (verbatim prompt only);
- prompt    the card's vocabulary as a glossary before the verbatim prompt (the default
            of the app and `coach practice --audio`);
- hotwords  the same terms as faster-whisper ``hotwords``.

Printed: term recall (the card's terms that were spoken and are in the transcript), terms
inserted that were not spoken, fillers invented, WER against the spoken text, and WER of
the human clip (assets/audio/jfk.flac) with each card's vocabulary. Asserts nothing.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import jiwer  # noqa: E402

from coach import stt  # noqa: E402
from coach.config import load_settings  # noqa: E402
from coach.errors import AudioError  # noqa: E402
from coach.library import default_library  # noqa: E402
from coach.vocabulary import card_vocabulary, misheard_terms  # noqa: E402
from scoring.delivery import measure  # noqa: E402
from scoring.text import Answer  # noqa: E402

VOICES = ("en-us", "en-gb")
VARIANTS = ("none", "prompt", "hotwords")


def normalise(text: str) -> str:
    text = text.lower().replace("’", "'")
    text = re.sub(r"[^\w\s']", " ", text)
    return " ".join(text.split())


def squash(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def spoken_terms(text: str, terms: list[str]) -> list[str]:
    words = " " + normalise(text) + " "
    return [t for t in terms if f" {normalise(t)} " in words]


def excerpt(text: str, chars: int) -> str:
    sentences = re.split(r"(?<=[.!?])\s+", " ".join(text.split()))
    out = ""
    for sentence in sentences:
        if out and len(out) + len(sentence) > chars:
            break
        out = f"{out} {sentence}".strip()
    return out


def speak(text: str, voice: str, folder: Path, name: str) -> Path:
    path = folder / f"{name}.wav"
    subprocess.run(["espeak-ng", "-v", voice, "-s", "150", "-w", str(path), text], check=True)
    return path


def options_for(variant: str, terms: list[str]) -> stt.DecodeOptions:
    if variant == "none":
        return stt.DecodeOptions()
    return stt.DecodeOptions(vocabulary=tuple(terms), bias=variant)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cards", type=int, default=15)
    parser.add_argument("--chars", type=int, default=450)
    args = parser.parse_args()
    if shutil.which("espeak-ng") is None:
        sys.exit("espeak-ng is needed (apt-get install espeak-ng)")
    settings = load_settings()
    model = stt.load_model(settings)
    library = default_library()
    cards = [c for c in library.cards_of_kind("interview") if c.model_answers][: args.cards]
    totals = {v: {"spoken": 0, "heard": 0, "inserted": 0, "fillers": 0, "wer": [], "seconds": 0.0,
                  "audio": 0.0, "suggested": 0, "suggested_right": 0, "refused": 0} for v in VARIANTS}
    misses: dict[str, dict[str, int]] = {v: {} for v in VARIANTS}
    print(f"model {model.name} on {model.device}/{model.compute_type}; voices {', '.join(VOICES)}; "
          f"{len(cards)} cards")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for card in cards:
            terms = card_vocabulary(card)
            text = excerpt(card.model_answers[0].text, args.chars)
            said = spoken_terms(text, terms)
            for voice in VOICES:
                wav = speak(text, voice, folder, f"{card.id}-{voice}")
                line = []
                for variant in VARIANTS:
                    started = time.perf_counter()
                    try:
                        transcript = stt.transcribe(wav, settings, options_for(variant, terms))
                    except AudioError as exc:
                        totals[variant]["refused"] += 1
                        totals[variant]["spoken"] += len(said)
                        line.append(f"{variant} refused ({str(exc)[:30]}…)")
                        continue
                    took = time.perf_counter() - started
                    heard = squash(transcript.text)
                    row = totals[variant]
                    row["seconds"] += took
                    row["audio"] += transcript.duration
                    row["spoken"] += len(said)
                    got = [t for t in said if squash(t) in heard]
                    row["heard"] += len(got)
                    line.append(f"{variant} {len(got)}/{len(said)}")
                    for term in said:
                        if term not in got:
                            misses[variant][term] = misses[variant].get(term, 0) + 1
                    not_said = [t for t in terms if t not in said and squash(t) not in squash(text)]
                    row["inserted"] += sum(1 for t in not_said if squash(t) in heard and len(squash(t)) > 2)
                    row["fillers"] += measure(Answer(transcript.text)).filler_count
                    row["wer"].append(jiwer.wer(normalise(text), normalise(transcript.text)))
                    suggestions = misheard_terms(transcript.text, terms)
                    row["suggested"] += len(suggestions)
                    row["suggested_right"] += sum(1 for s in suggestions if s.term in said and s.term not in got)
                print(f"  {card.id:<36} {voice:<14} " + "  ".join(line), flush=True)
        print()
        print("| decoder | term recall | terms inserted (not spoken) | fillers invented | WER vs spoken text "
              "(mean) | RTF | 'did you mean' shown / right | refused |")
        print("|---|---|---|---|---|---|---|---|")
        for variant in VARIANTS:
            row = totals[variant]
            recall = row["heard"] / max(row["spoken"], 1)
            wer = sum(row["wer"]) / max(len(row["wer"]), 1)
            print(f"| {variant} | **{recall:.2f}** ({row['heard']}/{row['spoken']}) | {row['inserted']} | "
                  f"{row['fillers']} | {wer:.3f} | {row['seconds'] / max(row['audio'], 1):.3f} | "
                  f"{row['suggested']} / {row['suggested_right']} | {row['refused']} |")
        for variant in VARIANTS:
            worst = sorted(misses[variant].items(), key=lambda kv: -kv[1])[:10]
            print(f"  missed ({variant}): " + ", ".join(f"{t} x{n}" for t, n in worst))

        reference = normalise((ROOT / "assets/audio/jfk.txt").read_text(encoding="utf-8"))
        human = ROOT / "assets/audio/jfk.flac"
        base = jiwer.wer(reference, normalise(stt.transcribe(human, settings).text))
        biased = []
        for card in cards:
            options = options_for("prompt", card_vocabulary(card))
            biased.append(jiwer.wer(reference, normalise(stt.transcribe(human, settings, options).text)))
        print(f"\nWER, human clip (JFK): without vocabulary {base:.3f}; with each card's vocabulary "
              f"(glossary prompt) mean {sum(biased) / len(biased):.3f}, worst {max(biased):.3f} "
              f"over {len(biased)} cards")


if __name__ == "__main__":
    main()
