"""Speech-to-text figures on this machine: prints them, asserts nothing.

    .venv/bin/python benchmarks/stt.py [--repeat N]

1. model load time (digest check + load) of the default model, in a fresh process;
2. real-time factor (decode seconds / audio seconds) of faster-whisper on a ~60 s answer
   (espeak-ng speech made here) and on the 11 s of real human speech of assets/audio
   (JFK), for beam 1 and beam 2 (the default);
3. faster-whisper against openai-whisper on the same audio (the 60 s answer) and the same
   tiny.en weights, both on the CPU with the same thread count, when openai-whisper is
   installed: the checkpoint is COACH_BENCH_OPENAI_CHECKPOINT (a tiny.en .pt) or else the
   bundled CTranslate2 tiny.en converted into a temporary directory
   (scripts/convert_ct2_to_openai_whisper.py); otherwise it says why it was skipped;
4. "recording stopped" to "scorecard shown" for a 60 s answer: WAV bytes ->
   stt.transcribe -> scoring.score(card 'gpu-cluster-optimization', 'main', text, timing);
5. WER of the human clip, and the filler count kept on tests/fixtures/audio/fillers.ogg.

Needs espeak-ng (apt-get install espeak-ng) for the synthetic answer.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from coach import audio, stt  # noqa: E402
from coach.config import load_settings  # noqa: E402

ANSWER_60S = (
    "In my last role I owned the training platform for a cluster of about five hundred GPUs. "
    "When I joined, scaling efficiency at full size was only seventy eight percent, so, um, "
    "the first thing I did was profile a few hundred steps on one node and then on sixty four "
    "nodes. The profile showed that the all reduce of the gradients was not overlapping with "
    "the backward pass, and the network links between racks were saturated. We considered "
    "buying a faster interconnect, but that would have taken six months, so we rejected it. "
    "Instead, uh, I bucketed the gradients, overlapped communication with computation, and "
    "moved to a hierarchical all reduce inside each rack first. I worked with two engineers "
    "from the network team to tune the collective settings. After three weeks, scaling "
    "efficiency went from seventy eight percent to ninety one percent, and a full training "
    "run finished two days earlier. If I did it again, I would add the scaling test to our "
    "nightly checks from the start."
)


def espeak_answer() -> bytes | None:
    exe = shutil.which("espeak-ng")
    if exe is None:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "answer.wav"
        subprocess.run([exe, "-v", "en-us", "-s", "150", "-w", str(path), ANSWER_60S], check=True)
        return audio.wav_bytes(audio.decode(path).samples)


def human_clip() -> bytes:
    """The only real human recording at hand (11 s). Repeating it to a minute would make
    the decoder see one sentence over and over, which is not how an answer sounds (it
    trips Whisper's repetition fallback), so it is timed as it is."""
    return (ROOT / "assets" / "audio" / "jfk.flac").read_bytes()


def fresh_load_seconds() -> str:
    code = (
        "import time; t=time.perf_counter(); from coach import stt; "
        "t1=time.perf_counter(); stt.verify_model_dir(stt.bundled_model_path()); "
        "t2=time.perf_counter(); m=stt.load_model(); t3=time.perf_counter(); "
        "print(f'{t3-t:.2f} {t2-t1:.2f} {m.load_seconds:.2f} {m.device} {m.compute_type}')"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, check=True).stdout.split()
    total, digest, load, device, compute = out
    return (f"{total} s in all (import + sha256 check {digest} s + load {load} s; the check "
            f"runs again inside load_model) on {device}/{compute}")


def timed_transcribe(data: bytes, settings, repeat: int, options=None) -> tuple[float, stt.Transcript]:
    times = []
    transcript = None
    for _ in range(repeat):
        started = time.perf_counter()
        transcript = stt.transcribe(data, settings, options)
        times.append(time.perf_counter() - started)
    return statistics.median(times), transcript


def normalise(text: str) -> str:
    text = re.sub(r"[^\w\s']", " ", text.lower().replace("’", "'"))
    return " ".join(text.split())


def openai_checkpoint(tmp: Path) -> tuple[Path | None, str]:
    """(tiny.en .pt, where it came from), or (None, why not)."""
    missing = [name for name in ("torch", "whisper") if importlib.util.find_spec(name) is None]
    if missing:
        return None, (f"skipped: {', '.join(missing)} not installed (openai-whisper without "
                      "triton: see benchmarks/README.md)")
    given = os.environ.get("COACH_BENCH_OPENAI_CHECKPOINT")
    if given:
        if not Path(given).is_file():
            return None, f"skipped: COACH_BENCH_OPENAI_CHECKPOINT={given} is not a file"
        return Path(given), "COACH_BENCH_OPENAI_CHECKPOINT"
    sys.path.insert(0, str(ROOT / "scripts"))
    import convert_ct2_to_openai_whisper as converter

    out = tmp / "tiny.en-openai.pt"
    started = time.perf_counter()
    converter.convert(stt.bundled_model_path(), out)
    return out, f"bundled tiny.en converted in {time.perf_counter() - started:.1f} s"


def compare_engines(data: bytes, settings, repeat: int) -> None:
    """Time of stt.transcribe (VAD + decode with word times) with each engine, both warmed
    up first (openai-whisper compiles its numba DTW on the first word-timed decode)."""
    with tempfile.TemporaryDirectory(prefix="rehearse-openai-") as tmp:
        checkpoint, origin = openai_checkpoint(Path(tmp))
        if checkpoint is None:
            print(f"   {origin}")
            return
        import torch

        fw_settings = dataclasses.replace(settings, stt_device="cpu")
        ow_settings = dataclasses.replace(settings, stt_engine="openai-whisper",
                                          stt_model=str(checkpoint), stt_device="cpu")
        fw_model = stt.load_model(fw_settings)
        ow_model = stt.load_model(ow_settings)
        print(f"   checkpoint: {checkpoint.name} ({origin}); torch {torch.__version__}, "
              f"{torch.get_num_threads()} threads; ctranslate2 cpu_threads "
              f"{stt._cpu_threads()}; beam {stt.BEAM_SIZE}, word times, verbatim prompt")
        print(f"   load: faster-whisper {fw_model.compute_type} {fw_model.load_seconds:.2f} s, "
              f"openai-whisper {ow_model.compute_type} {ow_model.load_seconds:.2f} s")
        stt.transcribe(data, fw_settings)
        stt.transcribe(data, ow_settings)
        # Interleaved runs, so that anything else running on the machine slows both alike;
        # the ratio is the median of the per-pair ratios.
        pairs = []
        for _ in range(repeat):
            fw, fw_transcript = timed_transcribe(data, fw_settings, 1)
            ow, ow_transcript = timed_transcribe(data, ow_settings, 1)
            pairs.append((fw, ow))
        fw = statistics.median(p[0] for p in pairs)
        ow = statistics.median(p[1] for p in pairs)
        ratios = sorted(p[1] / p[0] for p in pairs)
        duration = fw_transcript.duration
        print(f"   {duration:.1f} s of audio, median of {repeat}: faster-whisper {fw:.2f} s "
              f"(RTF {fw / duration:.3f}), openai-whisper {ow:.2f} s (RTF {ow / duration:.3f})")
        print(f"   openai-whisper / faster-whisper = {statistics.median(ratios):.2f}x "
              f"(runs: {', '.join(f'{r:.2f}' for r in ratios)}; target: faster-whisper "
              f">= 1.5x faster)")
        import jiwer

        apart = jiwer.wer(normalise(fw_transcript.text), normalise(ow_transcript.text))
        print(f"   word difference between the two transcripts (WER of one against the other): "
              f"{apart:.3f}; openai-whisper: {ow_transcript.text!r}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="speech-to-text figures")
    parser.add_argument("--repeat", type=int, default=3, help="runs per figure (median)")
    args = parser.parse_args(argv)
    os.environ.setdefault("COACH_DATA_DIR", tempfile.mkdtemp(prefix="rehearse-bench-"))
    settings = load_settings()
    print(f"machine: {platform.processor() or platform.machine()}, "
          f"{len(os.sched_getaffinity(0))} CPU cores available")
    import ctranslate2
    import faster_whisper

    print(f"faster-whisper {faster_whisper.__version__}, ctranslate2 {ctranslate2.__version__}, "
          f"CUDA devices: {ctranslate2.get_cuda_device_count()}")

    print(f"\n1. model load (fresh process): {fresh_load_seconds()}")
    model = stt.load_model(settings)
    print(f"   model: {model.name} on {model.device}/{model.compute_type}")

    recordings = {}
    synthetic = espeak_answer()
    if synthetic is not None:
        recordings["espeak 60 s answer"] = synthetic
    recordings["human JFK clip"] = human_clip()
    print("\n2. real-time factor (median of %d runs; lower is faster)" % args.repeat)
    for beam in (1, 2):
        options = stt.DecodeOptions(beam_size=beam)
        for name, data in recordings.items():
            seconds, transcript = timed_transcribe(data, settings, args.repeat, options)
            print(f"   beam {beam}, {name}: {transcript.duration:.1f} s of audio in "
                  f"{seconds:.2f} s -> RTF {seconds / transcript.duration:.3f} "
                  f"(decode only: {transcript.transcribe_seconds:.2f} s)")

    print("\n3. faster-whisper vs openai-whisper (same audio, same tiny.en, CPU)")
    compare_engines(synthetic or recordings["human JFK clip"], settings, args.repeat)

    print("\n4. recording stopped -> scorecard shown (60 s answer, model already loaded)")
    import scoring
    from coach.library import default_library

    card = default_library().card("gpu-cluster-optimization")
    data = synthetic or recordings["human JFK clip"]
    runs = []
    for _ in range(args.repeat):
        started = time.perf_counter()
        transcript = stt.transcribe(data, settings)
        after_stt = time.perf_counter()
        scorecard = scoring.score(card, "main", transcript.text, transcript.to_timing())
        done = time.perf_counter()
        runs.append((done - started, after_stt - started, done - after_stt))
    total, stt_part, score_part = (statistics.median(r[i] for r in runs) for i in range(3))
    print(f"   {total:.2f} s (transcribe {stt_part:.2f} s + score {score_part * 1000:.0f} ms) "
          f"for {transcript.duration:.1f} s of audio; overall {scorecard.overall}, "
          f"{scorecard.delivery.words_per_minute} wpm, fillers "
          f"{scorecard.delivery.filler_count}, long pauses {len(scorecard.delivery.long_pauses)}")
    with tempfile.NamedTemporaryFile(suffix=".wav") as recording:
        recording.write(data)
        recording.flush()
        code = (
            "import sys, time; t=time.perf_counter(); import scoring; from coach import stt; "
            "from coach.library import default_library; "
            "card=default_library().card('gpu-cluster-optimization'); "
            "tr=stt.transcribe(sys.argv[1]); scoring.score(card, 'main', tr.text, tr.to_timing()); "
            "print(f'{time.perf_counter()-t:.2f}')"
        )
        cold = subprocess.run([sys.executable, "-c", code, recording.name], capture_output=True,
                              text=True, cwd=ROOT, check=True).stdout.strip()
    print(f"   first answer of a fresh process (imports, model load, transcribe, score): {cold} s")
    met = [cid for cid, result in scorecard.criteria.items() if result.met]
    print(f"   criteria met: {', '.join(met) or 'none'}")
    print(f"   transcript: {transcript.text}")

    print("\n5. accuracy")
    import jiwer

    reference = (ROOT / "assets" / "audio" / "jfk.txt").read_text(encoding="utf-8")
    clip = stt.transcribe(ROOT / "assets" / "audio" / "jfk.flac", settings)
    print(f"   WER on the human JFK clip: {jiwer.wer(normalise(reference), normalise(clip.text)):.3f}"
          f" ({clip.text!r})")
    from scoring.delivery import measure
    from scoring.text import Answer

    fillers = stt.transcribe(ROOT / "tests" / "fixtures" / "audio" / "fillers.ogg", settings)
    kept = measure(Answer(fillers.text)).filler_count
    print(f"   fillers kept on fillers.ogg: {kept} of 5 ({fillers.text!r})")
    if synthetic is not None:
        said = measure(Answer(ANSWER_60S)).filler_count
        got = measure(Answer(transcript.text)).filler_count
        print(f"   fillers kept in the 60 s answer: {got} of {said}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
