"""`coach meeting`: the meeting scenes, and one played against a recording of the learner."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from coach.cli.voice_cmds import write_output
from coach.errors import ContentError


def register(subparsers) -> None:
    meeting = subparsers.add_parser(
        "meeting",
        help="list the meeting scenes, or play one against a recording of the learner",
        description=(
            "Multi-party meeting scenes. `--list`: `[{\"id\", \"title\", \"moments\": [{\"id\", \"label\", "
            "\"t\", \"closes\", \"move\", \"criteria\"}]}]`. `--scene ID --audio FILE` plays the scene "
            "against the learner's recording (silence where they listen): `{\"scene\", \"events\": [{\"t\", "
            "\"speaker\", \"text\"}], \"moments\": [{\"id\", \"t\", \"waited_s\", \"overlap_s\", \"said\", "
            "\"criteria\": {\"<id>\": {\"met\", \"evidence\"}}}]}`; times in seconds from the scene's start. "
            "`--personas-out FILE` writes the personas' side of the scene as a WAV, to play in headphones "
            "while recording."
        ),
    )
    what = meeting.add_mutually_exclusive_group(required=True)
    what.add_argument("--list", action="store_true", help="list the scenes and their moments")
    what.add_argument("--scene", help="the scene to play (an id from --list)")
    meeting.add_argument("--audio", type=Path, help="the learner's recording, from the scene's start")
    meeting.add_argument("--personas-out", type=Path,
                         help="write the personas' lines, spoken on the timeline, to this WAV")
    meeting.add_argument("--format", choices=["json", "text"], default="text")
    meeting.set_defaults(handler=run_meeting)


def run_meeting(args) -> int:
    from coach import meeting
    from coach.config import load_settings
    from coach.library import library_for

    settings = load_settings()
    library = library_for(settings)
    if args.list:
        ordered = sorted(library.scenes.values(), key=lambda s: s.id)
        scenes = [meeting.scene_summary(s, library.personas) for s in ordered]
        if args.format == "json":
            print(json.dumps(scenes, ensure_ascii=False, indent=2))
        else:
            for scene in scenes:
                print(f"{scene['id']}  {scene['title']}  (moments: {', '.join(m['id'] for m in scene['moments'])})")
        return 0
    if args.scene not in library.scenes:
        known = ", ".join(sorted(library.scenes)) or "none"
        raise ContentError(f"unknown scene {args.scene!r} (scenes: {known}); see `coach meeting --list`")
    scene = library.scenes[args.scene]
    if args.personas_out is not None:
        data = meeting.personas_audio(scene, library.personas, settings)
        write_output(args.personas_out, data, "--personas-out")
        print(f"{args.personas_out}: the personas' side of {scene.id}", file=sys.stderr)
        if args.audio is None:
            return 0
    if args.audio is None:
        print("coach: give --audio FILE, the learner's recording of the scene", file=sys.stderr)
        return 2
    result = meeting.play(scene, library.personas, args.audio, settings)
    if args.format == "json":
        print(json.dumps(result, ensure_ascii=False))
        return 0
    for event in result["events"]:
        print(f"{event['t']:6.1f}  {event['speaker']}: {event['text']}")
    for moment in result["moments"]:
        met = ", ".join(f"{cid} {'met' if v['met'] else 'not met'}" for cid, v in moment["criteria"].items())
        waited = "silent" if moment["waited_s"] is None else f"after {moment['waited_s']:.1f} s"
        print(f"- {moment['id']}: {waited}, over someone {moment['overlap_s']:.1f} s; {met}; said: {moment['said']!r}")
    return 0
