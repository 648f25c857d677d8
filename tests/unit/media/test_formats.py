"""Which accepted format a file is, from its first bytes only."""

from __future__ import annotations

import pytest

from engage_core.media.formats import AVI, FLV, GIF, JPEG, MOV, MP4, PNG, WEBM, WMV, MediaFormat, extension_of, sniff

ASF = bytes.fromhex("3026b2758e66cf11a6d900aa0062ce6c")


@pytest.mark.parametrize(
    ("head", "expected"),
    [
        (b"\xff\xd8\xff\xe0\x00\x10JFIF", JPEG),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", PNG),
        (b"GIF89a\x01\x00", GIF),
        (b"GIF87a\x01\x00", GIF),
        (b"\x00\x00\x00\x20ftypisom\x00\x00\x02\x00", MP4),
        (b"\x00\x00\x00\x14ftypqt  \x00\x00\x00\x00", MOV),
        (b"\x00\x00\x00\x08wide\x00\x00\x00\x00mdat", MOV),
        (b"RIFF\x00\x10\x00\x00AVI LIST", AVI),
        (ASF + b"\x00" * 8, WMV),
        (b"FLV\x01\x05\x00\x00\x00\x09", FLV),
        (b"\x1a\x45\xdf\xa3\x9f\x42\x86\x81\x01\x42\x82\x84webm", WEBM),
    ],
)
def test_each_accepted_format_is_known_by_its_signature(head: bytes, expected: MediaFormat) -> None:
    """The signature of each accepted container names its format."""
    assert sniff(head) is expected


@pytest.mark.parametrize(
    "head",
    [
        b"\x7fELF\x02\x01\x01\x00",  # a Linux program
        b"MZ\x90\x00\x03\x00\x00\x00",  # a Windows program
        b"%PDF-1.7\n",
        b"\x00\x00\x00\x1cftypM4A \x00\x00\x02\x00",  # audio in an MP4 container
        b"\x1a\x45\xdf\xa3\x9f\x42\x86\x81\x01\x42\x82\x88matroska",  # Matroska is not WebM
        b"RIFF\x00\x10\x00\x00WAVEfmt ",  # audio in RIFF
        b"",
    ],
)
def test_anything_else_is_no_accepted_format(head: bytes) -> None:
    """Programs, documents, audio-only containers and Matroska match no accepted signature."""
    assert sniff(head) is None


@pytest.mark.parametrize(
    ("filename", "expected"),
    [("photo.JPEG", "jpeg"), ("C:\\fakepath\\clip.mp4", "mp4"), ("archive.tar.gz", "gz"), ("README", ""), (".png", "")],
)
def test_the_extension_is_the_last_one_in_lower_case(filename: str, expected: str) -> None:
    """The extension is what follows the last dot of the last path segment; a dot file has none."""
    assert extension_of(filename) == expected


def test_a_jpeg_keeps_the_extension_it_was_sent_with() -> None:
    """`jpeg` and `jpg` both name JPEG: the file's own is kept; a wrong one gives way to the format's."""
    assert (JPEG.extension_for("a.jpeg"), JPEG.extension_for("a.JPG"), JPEG.extension_for("a.png")) == (
        "jpeg",
        "jpg",
        "jpg",
    )
