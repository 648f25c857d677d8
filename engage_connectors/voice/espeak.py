"""`EspeakSynthesizer`: the offline `SpeechSynthesizer`, espeak-ng (the Debian package).

Each built-in voice is an espeak-ng voice variant (`catalogue.BuiltinVoice.variant`) with its own
pitch and speed, spoken with the language's espeak voice: `ar` (Modern Standard Arabic) or `en-us`.
espeak-ng has no Arabic dialect voices, so any dialect but `arb`/`msa` is spoken in MSA and the
result says so (`dialect_fallback`). The text goes to espeak-ng on stdin, never as an argument, and
SSML and phoneme input stay off, so no text can act as an option or markup. The WAV it writes is
encoded to m4a by `encoding.to_m4a`.

Piper (`piper-tts`) would sound better in English, but its only packaged voice model is a
third-party repackaging whose licence could not be confirmed against upstream, and it needs
onnxruntime: it is not a default (docs/voice.md).
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

from engage_connectors.voice.encoding import to_m4a
from engage_core.voice.catalogue import MSA, VOICES
from engage_core.voice.ports import Speech, SpeechRequest, SynthesisFailed

ENGINE = "espeak-ng"
LANGUAGE_VOICES = {"ar": "ar", "en": "en-us"}
OFFLINE_DIALECTS = frozenset({MSA, "msa", "en"})
TIMEOUT_SECONDS = 120.0


def espeak_available(binary: str = "espeak-ng") -> bool:
    return shutil.which(binary) is not None


class EspeakSynthesizer:
    """Text to speech with espeak-ng. Thread-safe: each call runs its own process."""

    engine = ENGINE

    def __init__(self, binary: str = "espeak-ng", timeout: float = TIMEOUT_SECONDS) -> None:
        self._binary = binary
        self._timeout = timeout

    def synthesize(self, request: SpeechRequest) -> Speech:
        voice = request.voice or VOICES[0]
        language = LANGUAGE_VOICES.get(request.language)
        if language is None:
            raise SynthesisFailed(f"No offline voice speaks {request.language!r}.")
        fallback = request.language == "ar" and request.dialect not in OFFLINE_DIALECTS
        with tempfile.TemporaryDirectory(prefix="engage-tts-") as directory:
            wav = Path(directory) / "speech.wav"
            command = [
                self._binary,
                "-v",
                f"{language}+{voice.variant}",
                "-p",
                str(voice.pitch),
                "-s",
                str(voice.speed),
                "-w",
                str(wav),
                "--stdin",
            ]
            try:
                completed = subprocess.run(  # noqa: S603 - fixed arguments, the text on stdin
                    command, input=request.text.encode(), capture_output=True, timeout=self._timeout, check=False
                )
            except FileNotFoundError:
                raise SynthesisFailed("espeak-ng is not installed.", unavailable=True) from None
            except subprocess.TimeoutExpired:
                raise SynthesisFailed(f"espeak-ng took longer than {self._timeout:g} s.", unavailable=True) from None
            if completed.returncode != 0 or not wav.exists():
                raise SynthesisFailed("espeak-ng could not speak the text.", unavailable=True)
            encoded = to_m4a(wav.read_bytes(), "wav")
        dialect = MSA if fallback else request.dialect
        return Speech(encoded.audio, encoded.duration_seconds, dialect, fallback, ENGINE)
