"""Reading voice notes with PyAV: the format from the content, refusals, and 16 kHz mono PCM."""

from __future__ import annotations

from pathlib import Path

import pytest
from voice_notes import ENGLISH_SENTENCE, encode, speak, transcode, video_only

from engage_connectors.speech.decoding import SAMPLE_RATE, AvAudioProber, decode_pcm, probe_audio
from engage_core.knowledge.transcription import AudioFormat, TranscriptionFailed

# espeak-ng says the sentence in about 3.6 s.
SPOKEN_SECONDS = (3.0, 4.5)


@pytest.mark.parametrize("fmt", list(AudioFormat))
def test_probe_tells_the_format_from_the_content(fmt: AudioFormat) -> None:
    """Each accepted format is recognised from its bytes, with its codec and declared duration."""
    probe = probe_audio(encode(speak(ENGLISH_SENTENCE), fmt))
    assert probe.format is fmt
    assert probe.channels == 1
    assert probe.duration_seconds is not None
    assert SPOKEN_SECONDS[0] < probe.duration_seconds < SPOKEN_SECONDS[1]


def test_probe_ignores_the_file_name(tmp_path: Path) -> None:
    """An Ogg file named `.mp3` is reported as Ogg."""
    path = tmp_path / "note.mp3"
    path.write_bytes(encode(speak(ENGLISH_SENTENCE), AudioFormat.OGG))
    assert AvAudioProber().probe(path).format is AudioFormat.OGG


def test_a_text_file_named_mp3_is_not_audio(tmp_path: Path) -> None:
    """A text file with an `.mp3` name is refused as not audio."""
    path = tmp_path / "note.mp3"
    path.write_text("Meeting notes: call the supplier on Monday.\n" * 20)
    with pytest.raises(TranscriptionFailed, match="The file is not audio that can be decoded"):
        probe_audio(path)


def test_a_wav_header_over_garbage_is_not_audio() -> None:
    """A file that only starts like a WAV is refused as not audio."""
    data = b"RIFF\x24\x00\x00\x00WAVE" + bytes(range(256)) * 8
    with pytest.raises(TranscriptionFailed, match="not audio"):
        decode_pcm(data, max_seconds=60)


def test_a_video_is_refused() -> None:
    """A WebM holding video is refused, however it sounds."""
    with pytest.raises(TranscriptionFailed, match="holds video"):
        probe_audio(video_only())


def test_an_audio_format_outside_the_list_is_named() -> None:
    """A FLAC file is refused by name, with the accepted formats."""
    flac = transcode(speak(ENGLISH_SENTENCE), "flac", "flac", 22050)
    with pytest.raises(TranscriptionFailed, match=r"FLAC, which is not accepted \(use MP3, WAV, M4A, OGG, WEBM\)"):
        probe_audio(flac)


def test_a_note_over_the_size_limit_is_refused() -> None:
    """More bytes than the limit are refused before decoding."""
    with pytest.raises(TranscriptionFailed, match="larger than 1 MB"):
        probe_audio(b"\0" * (1024 * 1024 + 1), max_bytes=1024 * 1024)


@pytest.mark.parametrize("fmt", [AudioFormat.MP3, AudioFormat.WEBM])
def test_decoding_gives_16khz_mono_of_the_whole_note(fmt: AudioFormat) -> None:
    """The PCM holds the whole note at 16 kHz mono, 16-bit."""
    pcm = decode_pcm(encode(speak(ENGLISH_SENTENCE), fmt), max_seconds=60)
    assert SAMPLE_RATE == 16_000
    assert len(pcm.samples) % 2 == 0
    assert SPOKEN_SECONDS[0] < pcm.duration_seconds < SPOKEN_SECONDS[1]


def test_a_note_longer_than_the_cap_is_refused() -> None:
    """A note longer than `max_seconds` is refused, naming the limit."""
    with pytest.raises(TranscriptionFailed, match="The voice note is longer than 2 seconds"):
        decode_pcm(encode(speak(ENGLISH_SENTENCE), AudioFormat.OGG), max_seconds=2)


def test_decoding_past_its_time_budget_is_refused() -> None:
    """Decoding that outlasts its budget stops with a failure instead of running on."""
    with pytest.raises(TranscriptionFailed, match="took too long to decode"):
        decode_pcm(encode(speak(ENGLISH_SENTENCE), AudioFormat.MP3), max_seconds=60, decode_seconds=1e-9)
