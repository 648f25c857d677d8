"""The accepted media formats (SPEC 4 `POST /media`: jpg, jpeg, png, gif, mp4, avi, mov, wmv, flv,
webm), and which of them a file is, read from its first bytes.

The format comes from the content, never from the file name: `sniff` matches the signature of each
accepted container and nothing else, so an executable named `photo.jpg` matches none. A match is a
claim the decoder then checks (`MediaProber`): an image must open in Pillow, a video must parse in
PyAV with the demuxer its signature names (FFmpeg is never left to guess among every demuxer it has,
which include playlist formats that open further files named inside the upload) and hold a video
stream.
"""

from __future__ import annotations

from collections.abc import Mapping

import attrs

from engage_core.kernel.signatures import EBML_MAGIC, ebml_doctype

HEAD_BYTES = 64
"""How much of a file `sniff` needs."""

IMAGE = "image"
VIDEO = "video"


@attrs.frozen
class MediaFormat:
    """One accepted format: its extension (and the other extensions naming it), its type and MIME
    type, and the FFmpeg demuxer that reads it (None for images, which Pillow reads)."""

    extension: str
    file_type: str
    mime_type: str
    demuxer: str | None = None
    aliases: tuple[str, ...] = ()

    @property
    def extensions(self) -> tuple[str, ...]:
        return (self.extension, *self.aliases)

    def extension_for(self, filename: str) -> str:
        """The extension to record: the file name's, when it names this format (`jpeg` stays
        `jpeg`), else this format's own (a PNG sent as `photo.jpg` is a `png`)."""
        given = extension_of(filename)
        return given if given in self.extensions else self.extension


JPEG = MediaFormat("jpg", IMAGE, "image/jpeg", aliases=("jpeg",))
PNG = MediaFormat("png", IMAGE, "image/png")
GIF = MediaFormat("gif", IMAGE, "image/gif")
MP4 = MediaFormat("mp4", VIDEO, "video/mp4", "mp4")
MOV = MediaFormat("mov", VIDEO, "video/quicktime", "mov")
AVI = MediaFormat("avi", VIDEO, "video/x-msvideo", "avi")
WMV = MediaFormat("wmv", VIDEO, "video/x-ms-wmv", "asf")
FLV = MediaFormat("flv", VIDEO, "video/x-flv", "flv")
WEBM = MediaFormat("webm", VIDEO, "video/webm", "webm")

FORMATS: tuple[MediaFormat, ...] = (JPEG, PNG, GIF, MP4, AVI, MOV, WMV, FLV, WEBM)
"""In the order SPEC lists them."""

BY_EXTENSION: Mapping[str, MediaFormat] = {ext: fmt for fmt in FORMATS for ext in fmt.extensions}
"""Every accepted extension, for the content type of a stored object."""

ACCEPTED = ", ".join(ext.upper() for fmt in FORMATS for ext in fmt.extensions)
"""`JPG, JPEG, PNG, ...` for messages."""

_ASF_GUID = bytes.fromhex("3026b2758e66cf11a6d900aa0062ce6c")
_QUICKTIME_ATOMS = (b"moov", b"mdat", b"wide", b"free", b"skip", b"pnot")
"""Top-level atoms an old QuickTime file (without `ftyp`) may start with."""
_AUDIO_BRANDS = (b"M4A ", b"M4B ", b"M4P ", b"F4A ", b"F4B ")


def extension_of(filename: str) -> str:
    """The lower-case extension of a file name, without the dot (empty when it has none)."""
    base = filename.replace("\\", "/").rsplit("/", 1)[-1]
    return base.rsplit(".", 1)[1].lower() if "." in base.strip(".") else ""


def sniff(head: bytes) -> MediaFormat | None:
    """The accepted format whose signature `head` (the file's first `HEAD_BYTES`) starts with, or None."""
    if head[:3] == b"\xff\xd8\xff":
        return JPEG
    if head[:8] == b"\x89PNG\r\n\x1a\n":
        return PNG
    if head[:6] in (b"GIF87a", b"GIF89a"):
        return GIF
    if head[4:8] == b"ftyp":
        brand = head[8:12]
        if brand in _AUDIO_BRANDS:
            return None  # an audio file in an MP4 container
        return MOV if brand == b"qt  " else MP4
    if head[4:8] in _QUICKTIME_ATOMS:
        return MOV
    if head[:4] == b"RIFF" and head[8:12] == b"AVI ":
        return AVI
    if head[:16] == _ASF_GUID:
        return WMV
    if head[:3] == b"FLV":
        return FLV
    if head[:4] == EBML_MAGIC and ebml_doctype(head) == "webm":
        return WEBM
    return None
