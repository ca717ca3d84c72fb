"""`coach transcribe` (speech-to-text), `coach pronounce` (which words came through) and
`coach speak` (text-to-speech)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from coach.errors import FileAccessError


def _in_range(low: int, high: int):
    def parse(value: str) -> int:
        number = int(value)
        if not low <= number <= high:
            raise argparse.ArgumentTypeError(f"must be between {low} and {high}")
        return number

    return parse


def register(subparsers) -> None:
    transcribe = subparsers.add_parser(
        "transcribe",
        help="transcribe a recording (WAV, FLAC, MP3, OGG) with the local model",
        description="Local speech-to-text with word timings.",
    )
    transcribe.add_argument("audio", type=Path, help="the recording")
    transcribe.add_argument("--format", choices=["json", "text"], default="text")
    transcribe.set_defaults(handler=run_transcribe)

    pronounce = subparsers.add_parser(
        "pronounce",
        help="which words of a recording a listener probably did not understand, with tips",
        description=(
            "Which words a listener probably did not understand: `{\"text\", \"score\", \"words\": "
            "[{\"word\", \"start\", \"end\", \"score\", \"flag\", \"heard\"?, \"sound\"?, \"tip\"?, \"tip_ko\"?, "
            "\"phones\"?, \"heard_phones\"?}]}`; "
            "`text` is `--text` (a line read aloud, at most 30 s) or the recording's transcript; each word "
            "as written, checked sound by sound (`phones`: the meant pronunciation; `heard_phones`: the "
            "Korean-L1 variant the audio supported better, `sound` names the change); numbers and "
            "punctuation are not words to pronounce. A line read aloud is scored however strong the "
            "accent; unreadable audio and silence get one message, as `coach transcribe` (and another "
            "language, without `--text`)."
        ),
    )
    pronounce.add_argument("audio", type=Path, help="the recording")
    pronounce.add_argument("--text", help="the line that was read aloud (default: the recording's own transcript)")
    pronounce.add_argument("--format", choices=["json", "text"], default="text")
    pronounce.set_defaults(handler=run_pronounce)

    speak = subparsers.add_parser(
        "speak",
        help="say a line with text-to-speech into a WAV file",
        description="A line in a persona's voice into a WAV file (stage directions in `[…]` are not read).",
    )
    speak.add_argument("text", help="the line to say")
    speak.add_argument("--out", type=Path, required=True, help="the WAV file to write")
    who = speak.add_mutually_exclusive_group()
    who.add_argument("--persona", help="speak with this persona's voice")
    who.add_argument("--voice", help="an espeak-ng voice, e.g. en-us or en-gb+f2 (a man's voice is "
                     "said in the natural voice where one is installed)")
    speak.add_argument("--rate", type=_in_range(80, 300), help="words per minute (80-300)")
    speak.add_argument("--pitch", type=_in_range(0, 99), help="0-99")
    speak.set_defaults(handler=run_speak)


def run_transcribe(args) -> int:
    from coach import stt
    from coach.config import load_settings

    transcript = stt.transcribe(args.audio, load_settings())
    for warning in transcript.warnings:
        print(f"coach: warning: {warning}", file=sys.stderr)
    if args.format == "json":
        print(json.dumps(transcript.contract_dict(), ensure_ascii=False))
    else:
        print(transcript.text)
    return 0


def run_pronounce(args) -> int:
    from coach import pronunciation
    from coach.config import load_settings

    result = pronunciation.pronounce(args.audio, args.text, load_settings())
    if args.format == "json":
        print(json.dumps(result.contract_dict(), ensure_ascii=False))
        return 0
    if not any(pronunciation.is_content_word(w.word) for w in result.words):  # nothing was checked
        print(f"{result.text}\nNo content words to check: say a line with a few content words "
              "(nouns, verbs, names) to get feedback.")
        return 0
    print(f"{result.text}\nCame through: {result.score:.0%} of the content words")
    for word in result.flagged:
        heard = f' (heard "{word.heard}")' if word.heard else ""
        print(f"- {word.word}{heard}: {word.tip}\n  {word.tip_ko}")
    return 0


def run_speak(args) -> int:
    from coach import tts
    from coach.config import load_settings
    from coach.content.schema import Voice
    from coach.library import default_library

    settings = load_settings()
    voice = Voice()
    if args.persona:
        voice = default_library().persona(args.persona).voice
    elif args.voice:
        voice = Voice(voice=args.voice)
    changes = {k: v for k, v in (("rate", args.rate), ("pitch", args.pitch)) if v is not None}
    if changes:
        voice = Voice(**{**voice.model_dump(), **changes})
    data = tts.synthesize(args.text, voice, settings)
    write_output(args.out, data, "--out")
    print(f"{args.out}: {tts.wav_duration(data):.1f} s", file=sys.stderr)
    return 0


def write_output(path: Path, data: bytes, option: str) -> None:
    """Write a file the command was asked to make; one line naming `option` when it cannot be."""
    try:
        path.write_bytes(data)
    except OSError as exc:
        why = f"cannot be written ({exc.strerror}); give {option} a writable path"
        raise FileAccessError(path, None, why) from None
