"""Encoding synthesised speech to m4a (AAC in an MP4 container) with PyAV, measuring it as it goes.

The input is any audio container FFmpeg's demuxer for it reads (WAV from espeak-ng, WAV or MP3 from a
speech service); the demuxer is named, never guessed, so a service's answer cannot make FFmpeg open
a playlist. The duration returned is the number of samples decoded over the sample rate: the real
length of what was said, which is what voice minutes count.
"""

from __future__ import annotations

import io

import attrs
import av
import av.container

from engage_core.voice.ports import SynthesisFailed

AAC_BIT_RATE = 64_000


@attrs.frozen
class Encoded:
    """m4a bytes and the audio's duration in seconds."""

    audio: bytes
    duration_seconds: float


def to_m4a(data: bytes, demuxer: str) -> Encoded:
    """`data` (a `demuxer` file: `wav`, `mp3`, ...) re-encoded as m4a. Raises SynthesisFailed when
    it holds no decodable audio."""
    try:
        source = av.open(io.BytesIO(data), mode="r", format=demuxer)
    except (av.FFmpegError, ValueError, OSError) as exc:
        raise SynthesisFailed("The speech engine returned no readable audio.") from exc
    output = io.BytesIO()
    with source:
        if not source.streams.audio:
            raise SynthesisFailed("The speech engine returned no audio.")
        stream = source.streams.audio[0]
        rate = stream.codec_context.sample_rate or 22_050
        samples = 0
        with av.open(output, mode="w", format="ipod") as sink:
            encoder = sink.add_stream("aac", rate=rate)
            encoder.bit_rate = AAC_BIT_RATE
            encoder.layout = "mono"
            resampler = av.AudioResampler(format="fltp", layout="mono", rate=rate)
            try:
                for frame in source.decode(stream):
                    samples += frame.samples
                    for converted in resampler.resample(frame):
                        sink.mux(encoder.encode(converted))
                for converted in resampler.resample(None):
                    sink.mux(encoder.encode(converted))
                sink.mux(encoder.encode(None))
            except (av.FFmpegError, ValueError) as exc:
                raise SynthesisFailed("The speech engine's audio could not be decoded.") from exc
    if samples == 0:
        raise SynthesisFailed("The speech engine returned silence without samples.")
    return Encoded(output.getvalue(), samples / rate)


def m4a_duration(data: bytes) -> float:
    """The decoded duration of an m4a file (for checks and tests)."""
    with av.open(io.BytesIO(data), mode="r", format="mp4") as opened:
        stream = opened.streams.audio[0]
        samples = sum(frame.samples for frame in opened.decode(stream))
        return samples / (stream.codec_context.sample_rate or 1)
