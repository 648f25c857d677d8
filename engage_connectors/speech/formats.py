"""Which container a voice note is, from its first bytes: the FFmpeg demuxer to open it with.

FFmpeg's own probing would pick among every demuxer it has, including playlist formats (HLS,
concat) that open further files or URLs named inside the upload. So the demuxer is chosen here, from
the signatures of the five accepted containers only, and FFmpeg is told to use it: a text file
named `.mp3` matches none and is refused before FFmpeg sees it. The demuxer then has to parse the
whole container, which is the real check.
"""

from __future__ import annotations

import attrs

from engage_core.kernel.signatures import EBML_MAGIC, ebml_doctype
from engage_core.knowledge.transcription import AudioFormat, TranscriptionFailed

HEAD_BYTES = 64

# Audio containers we recognise but do not accept: named in the refusal instead of "not audio".
_REFUSED_SIGNATURES: tuple[tuple[int, bytes, str], ...] = (
    (0, b"fLaC", "FLAC"),
    (0, b"#!AMR", "AMR"),
    (8, b"AIFF", "AIFF"),
    (0, b"caff", "CAF"),
)


@attrs.frozen
class Container:
    """The accepted format a voice note claims by its signature, and the demuxer that reads it."""

    format: AudioFormat
    demuxer: str


def detect_container(data: bytes) -> Container:
    """The container of `data`, by signature; `TranscriptionFailed` when it is none we accept."""
    head = data[:HEAD_BYTES]
    if head[:4] == b"RIFF" and head[8:12] == b"WAVE":
        return Container(AudioFormat.WAV, "wav")
    if head[4:8] == b"ftyp":
        return Container(AudioFormat.M4A, "mp4")
    if head[:4] == b"OggS":
        return Container(AudioFormat.OGG, "ogg")
    if head[:4] == EBML_MAGIC:
        doctype = ebml_doctype(head)
        if doctype == "webm":
            return Container(AudioFormat.WEBM, "webm")
        raise TranscriptionFailed.unsupported_format("Matroska" if doctype == "matroska" else "an EBML file")
    if head[:3] == b"ID3" or _mpeg_audio_sync(head):
        return Container(AudioFormat.MP3, "mp3")
    for offset, signature, name in _REFUSED_SIGNATURES:
        if head[offset : offset + len(signature)] == signature:
            raise TranscriptionFailed.unsupported_format(name)
    raise TranscriptionFailed.not_audio()


def _mpeg_audio_sync(head: bytes) -> bool:
    """An MPEG audio frame header (MP3 without ID3 tag): 11 sync bits, then a layer that is not the
    reserved 00 (which ADTS AAC uses)."""
    return len(head) >= 2 and head[0] == 0xFF and head[1] & 0xE0 == 0xE0 and (head[1] >> 1) & 0x03 != 0
