"""Bytes of a text file (TXT, CSV) to text, without guessing wildly.

Order: a byte-order mark (UTF-8, UTF-16, UTF-32) decides; then UTF-16 without a mark when every
other byte is NUL (ASCII-heavy UTF-16); then strict UTF-8; then Windows-1252, which is what most
"ANSI" files of Western Europe are; then Latin-1, which decodes any byte. A statistical detector
(charset-normalizer) was tried and turned plain Latin-1 French into Central European mojibake, so
this order is deliberately simple and predictable.
"""

from __future__ import annotations

import codecs

_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),  # before UTF-16 LE: it starts with the same two bytes
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


def bom_encoding(data: bytes) -> tuple[str, int] | None:
    """The encoding a byte-order mark announces, and the mark's length; None without one."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return encoding, len(bom)
    return None


def utf16_without_bom(data: bytes) -> str | None:
    """`utf-16-le` or `-be` when the NULs of `data` sit on one parity (mostly-ASCII UTF-16)."""
    sample = data[:4096]
    if len(sample) < 2 or b"\x00" not in sample:
        return None
    even, odd = sample[0::2].count(0), sample[1::2].count(0)
    half = len(sample) // 2
    if odd >= half * 0.6 and even == 0:
        return "utf-16-le"
    if even >= half * 0.6 and odd == 0:
        return "utf-16-be"
    return None


def decode_text(data: bytes) -> str:
    """The text of `data`, with universal newlines and no NUL characters."""
    announced = bom_encoding(data)
    if announced is not None:
        encoding, skip = announced
        text = data[skip:].decode(encoding, errors="replace")
    elif (utf16 := utf16_without_bom(data)) is not None:
        text = data.decode(utf16, errors="replace")
    else:
        text = _first_strict(data, ("utf-8", "cp1252")) or data.decode("latin-1")
    return text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "")


def _first_strict(data: bytes, encodings: tuple[str, ...]) -> str | None:
    for encoding in encodings:
        try:
            return data.decode(encoding)
        except UnicodeDecodeError:
            continue
    return None
