"""Reading voice notes with PyAV (FFmpeg): what a note is, and its sound as 16 kHz mono PCM.

`probe_audio` opens the container with the demuxer its signature names (`formats`), and requires an
audio stream and no video (a cover picture in an M4A is fine). `decode_pcm` decodes the first audio
stream and resamples it to signed 16-bit little-endian mono at 16 kHz, what speech models take. It
stops as soon as the decoded sound passes `max_seconds` (a declared duration may lie, and a small
Opus file can hold hours) or the decoding passes its time budget, so neither memory nor time grows
with what a note claims. Files are read whole: a voice note is at most 10 MB.
"""

from __future__ import annotations

import io
import time
from collections.abc import Iterator
from contextlib import contextmanager

import attrs
import av
import av.container

from engage_connectors.speech.formats import Container, detect_container
from engage_core.knowledge.transcription import (
    VOICE_NOTE_MAX_BYTES,
    AudioInput,
    AudioProbe,
    TranscriptionFailed,
)

SAMPLE_RATE = 16_000
BYTES_PER_SAMPLE = 2
DEFAULT_DECODE_SECONDS = 30.0


@attrs.frozen
class Pcm:
    """Signed 16-bit little-endian mono samples at `SAMPLE_RATE`."""

    samples: bytes

    @property
    def duration_seconds(self) -> float:
        return len(self.samples) / (SAMPLE_RATE * BYTES_PER_SAMPLE)


def read_audio(audio: AudioInput, max_bytes: int = VOICE_NOTE_MAX_BYTES) -> bytes:
    """The note's bytes; `TranscriptionFailed` past `max_bytes` (a path is read no further)."""
    if isinstance(audio, bytes):
        data = audio
    else:
        with audio.open("rb") as file:
            data = file.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise TranscriptionFailed.too_large(max_bytes)
    return data


@contextmanager
def _open(data: bytes, container: Container) -> Iterator[av.container.InputContainer]:
    """The container opened with its own demuxer; any FFmpeg refusal means "not audio"."""
    try:
        opened = av.open(io.BytesIO(data), mode="r", format=container.demuxer)
    except (av.FFmpegError, ValueError, OSError) as exc:
        raise TranscriptionFailed.not_audio() from exc
    try:
        yield opened
    finally:
        opened.close()


def _audio_stream(opened: av.container.InputContainer) -> av.AudioStream:
    """The first audio stream; refuses a file without one, or with a real video stream."""
    for stream in opened.streams.video:
        if not stream.disposition & av.stream.Disposition.attached_pic:
            raise TranscriptionFailed.has_video()
    if not opened.streams.audio:
        raise TranscriptionFailed.not_audio()
    return opened.streams.audio[0]


def probe_audio(audio: AudioInput, max_bytes: int = VOICE_NOTE_MAX_BYTES) -> AudioProbe:
    """What the note is, from its content. Raises `TranscriptionFailed` (see `AudioProber`)."""
    data = read_audio(audio, max_bytes)
    container = detect_container(data)
    with _open(data, container) as opened:
        stream = _audio_stream(opened)
        context = stream.codec_context
        return AudioProbe(
            format=container.format,
            codec=context.name,
            duration_seconds=_declared_duration(opened, stream),
            sample_rate=context.sample_rate,
            channels=context.layout.nb_channels,
        )


class AvAudioProber:
    """`AudioProber` over PyAV; stateless, so thread-safe."""

    def __init__(self, max_bytes: int = VOICE_NOTE_MAX_BYTES) -> None:
        self._max_bytes = max_bytes

    def probe(self, audio: AudioInput) -> AudioProbe:
        return probe_audio(audio, self._max_bytes)


def decode_pcm(
    audio: AudioInput,
    *,
    max_seconds: float,
    decode_seconds: float = DEFAULT_DECODE_SECONDS,
    max_bytes: int = VOICE_NOTE_MAX_BYTES,
) -> Pcm:
    """The note as 16 kHz mono PCM. `TranscriptionFailed` when it is not audio, longer than
    `max_seconds` (declared or decoded), or takes longer than `decode_seconds` to decode."""
    data = read_audio(audio, max_bytes)
    container = detect_container(data)
    limit = int(max_seconds * SAMPLE_RATE * BYTES_PER_SAMPLE)
    deadline = time.monotonic() + decode_seconds
    with _open(data, container) as opened:
        stream = _audio_stream(opened)
        declared = _declared_duration(opened, stream)
        if declared is not None and declared > max_seconds:
            raise TranscriptionFailed.too_long(max_seconds)
        resampler = av.AudioResampler(format="s16", layout="mono", rate=SAMPLE_RATE)
        pcm = bytearray()
        try:
            for frame in opened.decode(stream):
                for out in resampler.resample(frame):
                    pcm += bytes(out.planes[0])[: out.samples * BYTES_PER_SAMPLE]
                if len(pcm) > limit:
                    raise TranscriptionFailed.too_long(max_seconds)
                if time.monotonic() > deadline:
                    raise TranscriptionFailed.decoding_too_slow()
            for out in resampler.resample(None):
                pcm += bytes(out.planes[0])[: out.samples * BYTES_PER_SAMPLE]
        except (av.FFmpegError, ValueError) as exc:
            raise TranscriptionFailed.not_audio() from exc
    if len(pcm) > limit:
        raise TranscriptionFailed.too_long(max_seconds)
    if not pcm:
        raise TranscriptionFailed.not_audio()
    return Pcm(bytes(pcm))


def _declared_duration(opened: av.container.InputContainer, stream: av.AudioStream) -> float | None:
    """The duration the stream or container declares, in seconds, if any."""
    if stream.duration is not None and stream.time_base is not None:
        return float(stream.duration * stream.time_base)
    if opened.duration is not None:
        return opened.duration / av.time_base
    return None
