"""Voice notes made by the tests: speech from Debian's espeak-ng, re-encoded with PyAV.

`speak(text)` is a WAV of espeak-ng saying `text`. Its `en-us+klatt2` voice is the one pocketsphinx's
English model understands best (the default voice came out mostly wrong). `encode(wav, fmt)` turns a
WAV into one of the accepted formats the way phones and browsers record them: MP3, M4A (AAC), Ogg
Opus and WebM Opus. Everything is cached per process: each clip is made once.
"""

from __future__ import annotations

import functools
import io
import shutil
import subprocess
from fractions import Fraction

import av
import pytest

from engage_core.knowledge.transcription import AudioFormat

ENGLISH_SENTENCE = "Please call me tomorrow morning about the delivery."
# Words of the sentence a transcript should mostly contain.
ENGLISH_WORDS = ("please", "call", "tomorrow", "morning", "delivery")
ARABIC_SENTENCE = "مرحبا، أريد أن أعرف موعد وصول الطلب"

# (container, codec, sample rate) per format; Opus only runs at 48 kHz.
_ENCODINGS = {
    AudioFormat.MP3: ("mp3", "libmp3lame", 22050),
    AudioFormat.M4A: ("ipod", "aac", 22050),
    AudioFormat.OGG: ("ogg", "libopus", 48000),
    AudioFormat.WEBM: ("webm", "libopus", 48000),
}


def require_espeak() -> None:
    """Skip the test where espeak-ng is missing (`.ci/run` installs it)."""
    if shutil.which("espeak-ng") is None:
        pytest.skip("espeak-ng is not installed (apt-get install espeak-ng)")


@functools.cache
def speak(text: str, voice: str = "en-us+klatt2") -> bytes:
    """A WAV (22.05 kHz mono) of espeak-ng saying `text`."""
    require_espeak()
    done = subprocess.run(["espeak-ng", "-v", voice, "-s", "140", "--stdout", text], capture_output=True, check=True)
    return done.stdout


@functools.cache
def encode(wav: bytes, fmt: AudioFormat) -> bytes:
    """`wav` in `fmt`; WAV itself is returned as it is."""
    if fmt is AudioFormat.WAV:
        return wav
    container, codec, rate = _ENCODINGS[fmt]
    return transcode(wav, container, codec, rate)


def transcode(wav: bytes, container: str, codec: str, rate: int) -> bytes:
    """`wav` re-encoded as mono `codec` at `rate` in a `container` (any FFmpeg muxer)."""
    out = io.BytesIO()
    with av.open(io.BytesIO(wav), format="wav") as source, av.open(out, mode="w", format=container) as target:
        stream = target.add_stream(codec, rate=rate, layout="mono")
        resampler = av.AudioResampler(format=stream.codec_context.codec.audio_formats[0].name, layout="mono", rate=rate)
        for frame in source.decode(audio=0):
            for resampled in resampler.resample(frame):
                target.mux(stream.encode(resampled))
        for resampled in resampler.resample(None):
            target.mux(stream.encode(resampled))
        target.mux(stream.encode(None))
    return out.getvalue()


def video_only(container: str = "webm", codec: str = "libvpx") -> bytes:
    """A short silent video (ten 32x32 frames) in `container`."""
    out = io.BytesIO()
    with av.open(out, mode="w", format=container) as target:
        stream = target.add_stream(codec, rate=10)
        stream.width = stream.height = 32
        stream.pix_fmt = "yuv420p"
        for index in range(10):
            frame = av.VideoFrame(32, 32, "yuv420p")
            frame.pts = index
            frame.time_base = Fraction(1, 10)
            target.mux(stream.encode(frame))
        target.mux(stream.encode(None))
    return out.getvalue()
