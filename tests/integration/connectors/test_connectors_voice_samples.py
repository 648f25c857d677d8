"""Clone samples checked by content with PyAV: every accepted format (made here by PyAV from
espeak-ng speech), measured by decoding; renamed executables and other files refused."""

from __future__ import annotations

import io

import pytest
from voice_notes import require_espeak, speak, transcode

from engage_connectors.voice.samples import AvSampleProber
from engage_core.voice.ports import SampleRefused

FORMATS = {
    "wav": None,
    "mp3": ("mp3", "libmp3lame", 22050),
    "flac": ("flac", "flac", 22050),
    "aac": ("adts", "aac", 22050),
    "m4a": ("ipod", "aac", 22050),
    "mp4": ("mp4", "aac", 22050),
    "webm": ("webm", "libopus", 48000),
    "ogg": ("ogg", "libopus", 48000),
}


@pytest.fixture(scope="module")
def wav() -> bytes:
    require_espeak()
    return speak("This is a recording of my voice for cloning, spoken clearly and slowly.")


@pytest.mark.parametrize("name", FORMATS)
def test_each_accepted_format_is_identified_and_measured(wav: bytes, name: str) -> None:
    """The format is read from the content and the duration decoded."""
    spec = FORMATS[name]
    data = wav if spec is None else transcode(wav, *spec)
    probe = AvSampleProber().probe(io.BytesIO(data))
    expected = AvSampleProber().probe(io.BytesIO(wav)).duration_seconds
    assert (probe.format, probe.duration_seconds) == (name, pytest.approx(expected, abs=0.15))


def test_a_renamed_executable_is_refused() -> None:
    """An ELF binary called voice.mp3 is not audio."""
    with pytest.raises(SampleRefused):
        AvSampleProber().probe(io.BytesIO(b"\x7fELF\x02\x01\x01" + bytes(500)))


def test_a_damaged_file_is_refused(wav: bytes) -> None:
    """A WAV header followed by garbage is refused, not measured."""
    with pytest.raises(SampleRefused):
        AvSampleProber().probe(io.BytesIO(wav[:12] + b"garbage" * 50))


def test_decoding_stops_past_the_maximum(wav: bytes) -> None:
    """A recording longer than the limit is measured only a little past it."""
    probe = AvSampleProber(max_seconds=1.0).probe(io.BytesIO(wav))
    assert 1.0 < probe.duration_seconds < 2.0
