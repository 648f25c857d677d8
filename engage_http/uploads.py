"""`Upload`: a file part of a `multipart/form-data` body, as a body field's value.

A body class declares a file field as `Upload` (or a tuple of them); the form reader
(`engage_http.multipart`) hands it the part's bytes and file name, the converter passes it through,
and the OpenAPI document describes it as binary content. A JSON body cannot carry one, so an
operation with such a field takes forms only (`Operation.form_only`).
"""

from __future__ import annotations

UPLOAD_SCHEMA = {"type": "string", "contentMediaType": "application/octet-stream"}
"""An uploaded file in the OpenAPI document (3.1: binary content of a form part)."""


class Upload:
    """An uploaded file: the name it was sent under (empty when the part named none) and its bytes.

    A plain class rather than an attrs one: the converter structures attrs classes from JSON
    objects, and an upload never is one."""

    __slots__ = ("data", "filename")

    def __init__(self, filename: str, data: bytes) -> None:
        self.filename = filename
        self.data = data

    def __repr__(self) -> str:
        return f"Upload({self.filename!r}, {len(self.data)} bytes)"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Upload) and (self.filename, self.data) == (other.filename, other.data)

    def __hash__(self) -> int:
        return hash((self.filename, self.data))
