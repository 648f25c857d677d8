"""`AvSampleProber`: checks a voice-clone recording by its content (SPEC 4: mp3, wav, ogg, m4a,
webm, mp4, aac, flac) and measures it by decoding.

The container is chosen from the file's signature among the accepted ones only and FFmpeg is told to
use that demuxer (never its own probing, which could open playlists naming other files). The
duration is what decodes, counted in samples, and decoding stops once past `max_seconds`: a file
that claims one length and holds another cannot pass, and a long one costs no more than the limit.
"""

from __future__ import annotations

from typing import BinaryIO

import av
import av.container

from engage_core.kernel.signatures import EBML_MAGIC, ebml_doctype
from engage_core.voice.ports import SampleProbe, SampleRefused

ACCEPTED = "MP3, WAV, OGG, M4A, WEBM, MP4, AAC or FLAC"
_NOT_AUDIO = f"The file must be an audio recording: {ACCEPTED} (read from its content, not its name)."


def sniff(head: bytes) -> tuple[str, str] | None:
    """(format name, FFmpeg demuxer) of an accepted recording, by its first bytes; None otherwise."""
    if head[:4] == b"RIFF" and head[8:12] == b"WAVE":
        return "wav", "wav"
    if head[4:8] == b"ftyp":
        return ("m4a" if head[8:11] == b"M4A" else "mp4"), "mp4"
    if head[:4] == b"OggS":
        return "ogg", "ogg"
    if head[:4] == b"fLaC":
        return "flac", "flac"
    if head[:4] == EBML_MAGIC and ebml_doctype(head) == "webm":
        return "webm", "webm"
    if len(head) >= 2 and head[0] == 0xFF and head[1] & 0xF6 == 0xF0:  # ADTS: sync, layer 00
        return "aac", "aac"
    if head[:3] == b"ID3" or (len(head) >= 2 and head[0] == 0xFF and head[1] & 0xE0 == 0xE0):
        return "mp3", "mp3"
    return None


class AvSampleProber:
    """`SampleProber` over PyAV; stateless, so thread-safe."""

    def __init__(self, max_seconds: float = 300.0) -> None:
        self._max_seconds = max_seconds

    def probe(self, source: BinaryIO) -> SampleProbe:
        head = source.read(64)
        found = sniff(head)
        if found is None:
            raise SampleRefused(_NOT_AUDIO)
        name, demuxer = found
        source.seek(0)
        try:
            opened = av.open(source, mode="r", format=demuxer)
        except (av.FFmpegError, ValueError, OSError):
            raise SampleRefused(f"The file is not a readable {name.upper()} recording.") from None
        with opened:
            if not opened.streams.audio:
                raise SampleRefused("The file holds no audio.")
            stream = opened.streams.audio[0]
            rate = stream.codec_context.sample_rate or 0
            samples = 0
            try:
                for frame in opened.decode(stream):
                    rate = rate or frame.sample_rate
                    samples += frame.samples
                    if rate and samples / rate > self._max_seconds:
                        break
            except (av.FFmpegError, ValueError):
                raise SampleRefused(f"The file is not a readable {name.upper()} recording.") from None
        if not rate or samples == 0:
            raise SampleRefused("The recording holds no sound.")
        return SampleProbe(name, samples / rate)
