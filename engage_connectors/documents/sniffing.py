"""What a file is, by its content rather than its name.

PDF by `%PDF-` (in the first kilobyte, where readers look for it); DOCX and XLSX as ZIP packages with
`[Content_Types].xml` and a `word/` or `xl/` part; OLE2 compound files (`D0 CF 11 E0`) as legacy Word;
RTF (which Word also saves under `.doc`); common images, archives, audio and programs by their magic
bytes, so that a mismatch can be named ("The file is a PNG image, not a PDF"); anything else without
NUL bytes (or with a UTF-16/32 byte-order mark) as text.

Opening a ZIP package is also where its declared sizes are checked: a package that unpacks to more
than `max_unpacked_bytes` (a zip bomb, or a document no upload limit meant) is refused before any
reader inflates it. Python's zipfile never inflates a member past its declared size, so the declared
sizes are a bound one can trust.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

import attrs

from engage_connectors.documents.text_decoding import bom_encoding, utf16_without_bom
from engage_core.knowledge.extraction import ExtractionFailed

MAX_UNPACKED_BYTES = 200 * 1024 * 1024
"""Ten times the upload limit: real DOCX/XLSX compress text about 5-10 times."""
MAX_ZIP_MEMBERS = 10_000

_HEAD_BYTES = 8192

_MAGIC: tuple[tuple[int, bytes, str], ...] = (
    (0, b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (0, b"\xff\xd8\xff", "a JPEG image"),
    (0, b"GIF87a", "a GIF image"),
    (0, b"GIF89a", "a GIF image"),
    (0, b"BM", "a BMP image"),
    (0, b"II*\x00", "a TIFF image"),
    (0, b"MM\x00*", "a TIFF image"),
    (8, b"WEBP", "a WebP image"),
    (8, b"WAVE", "a WAV audio file"),
    (0, b"ID3", "an MP3 audio file"),
    (0, b"OggS", "an Ogg audio file"),
    (0, b"fLaC", "a FLAC audio file"),
    (4, b"ftyp", "an MP4 or M4A media file"),
    (0, b"\x1a\x45\xdf\xa3", "a WebM or Matroska video"),
    (0, b"\x1f\x8b", "a gzip archive"),
    (0, b"Rar!\x1a\x07", "a RAR archive"),
    (0, b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"),
    (0, b"BZh", "a bzip2 archive"),
    (0, b"\xfd7zXZ\x00", "an XZ archive"),
    (0, b"MZ", "a Windows program"),
    (0, b"\x7fELF", "a Linux program"),
)


@attrs.frozen
class Sniffed:
    """`format`: `pdf`, `docx`, `xlsx`, `doc` (OLE2), `rtf` or `text`, or None for a kind no
    extractor reads; `label` names the kind in a sentence ("a ZIP archive")."""

    format: str | None
    label: str


def sniff(path: Path, max_unpacked_bytes: int = MAX_UNPACKED_BYTES) -> Sniffed:
    """What the file at `path` is. `ExtractionFailed` for a ZIP package past the size limits."""
    with path.open("rb") as file:
        head = file.read(_HEAD_BYTES)
    if not head:
        return Sniffed(None, "empty")
    if b"%PDF-" in head[:1024]:
        return Sniffed("pdf", "a PDF")
    if head.startswith((b"PK\x03\x04", b"PK\x05\x06")):
        return _sniff_zip(path, max_unpacked_bytes)
    if head.startswith(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"):
        return Sniffed("doc", "a legacy Office document (DOC, XLS or PPT, or a password-protected DOCX/XLSX)")
    if head.startswith(b"{\\rtf"):
        return Sniffed("rtf", "an RTF document")
    for offset, magic, label in _MAGIC:
        if head[offset : offset + len(magic)] == magic:
            return Sniffed(None, label)
    if bom_encoding(head) is not None or utf16_without_bom(head) is not None or b"\x00" not in head:
        return Sniffed("text", "a text file")
    return Sniffed(None, "a binary file of an unknown kind")


def _sniff_zip(path: Path, max_unpacked_bytes: int) -> Sniffed:
    try:
        with zipfile.ZipFile(path) as archive:
            members = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError):
        return Sniffed(None, "a damaged ZIP archive")
    if len(members) > MAX_ZIP_MEMBERS:
        raise ExtractionFailed(f"The file is a ZIP package of more than {MAX_ZIP_MEMBERS} parts; it is refused.")
    if sum(member.file_size for member in members) > max_unpacked_bytes:
        raise ExtractionFailed(
            f"The file unpacks to more than {max_unpacked_bytes // (1024 * 1024)} MB, far more than a "
            "document of its size should; it is refused."
        )
    names = {member.filename for member in members}
    if "[Content_Types].xml" not in names:
        return Sniffed(None, "a ZIP archive")
    if "word/document.xml" in names:
        return Sniffed("docx", "a Word document (DOCX)")
    if "xl/workbook.xml" in names:
        return Sniffed("xlsx", "an Excel workbook (XLSX)")
    if any(name.startswith("ppt/") for name in names):
        return Sniffed(None, "a PowerPoint presentation (PPTX)")
    return Sniffed(None, "an Office package of another kind")
