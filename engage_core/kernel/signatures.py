"""File signatures shared by the areas that tell formats apart by their first bytes (media uploads,
voice notes)."""

from __future__ import annotations

EBML_MAGIC = b"\x1a\x45\xdf\xa3"
"""The first four bytes of an EBML file (WebM, Matroska)."""


def ebml_doctype(head: bytes) -> str | None:
    """The DocType of an EBML header (`webm`, `matroska`): element 0x4282 with a one-byte size; None
    when `head` holds no readable one."""
    at = head.find(b"\x42\x82")
    if at < 0 or at + 3 > len(head):
        return None
    size_byte = head[at + 2]
    if not size_byte & 0x80:
        return None
    size = size_byte & 0x7F
    return head[at + 3 : at + 3 + size].decode("ascii", errors="replace")
