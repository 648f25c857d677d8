"""Forms read as they arrive (`engage_http.form_stream`): parts in order, file bytes piece by piece
however the body is cut, text parts bounded, and malformed forms refused."""

from __future__ import annotations

import pytest

from engage_core.kernel.errors import ValidationFailed
from engage_http.form_stream import StreamedForm

BOUNDARY = "stream-test"
CONTENT_TYPE = f"multipart/form-data; boundary={BOUNDARY}"


def body(*parts: tuple[str, str | None, bytes]) -> bytes:
    out = b""
    for name, filename, data in parts:
        disposition = f'form-data; name="{name}"' + (f'; filename="{filename}"' if filename else "")
        out += f"--{BOUNDARY}\r\nContent-Disposition: {disposition}\r\n\r\n".encode() + data + b"\r\n"
    return out + f"--{BOUNDARY}--\r\n".encode()


def cut(data: bytes, size: int) -> list[bytes]:
    return [data[i : i + size] for i in range(0, len(data), size)]


@pytest.mark.parametrize("size", [1, 7, 64, 100_000])
def test_parts_come_in_order_whatever_the_pieces(size: int) -> None:
    """A text part and a file part read back exactly, with the file's name, however the body arrives."""
    payload = bytes(range(256)) * 40
    form = StreamedForm(CONTENT_TYPE, cut(body(("name", None, "Café".encode()), ("file", "a.png", payload)), size))

    read = []
    for part in form.parts():
        read.append((part.name, part.filename, part.text() if part.name == "name" else b"".join(part.chunks())))

    assert read == [("name", None, "Café"), ("file", "a.png", payload)]


def test_a_part_left_unread_is_skipped() -> None:
    """Asking for the next part skips what the handler did not read of the previous one."""
    form = StreamedForm(CONTENT_TYPE, [body(("file", "a.png", b"x" * 1000), ("name", None, b"Logo"))])

    names = [part.name for part in form.parts()]

    assert names == ["file", "name"]


def test_a_text_part_past_its_limit_is_refused() -> None:
    """`text(limit)` refuses a longer part with a 422 on its field."""
    part = next(StreamedForm(CONTENT_TYPE, [body(("name", None, b"x" * 11))]).parts())

    with pytest.raises(ValidationFailed) as refused:
        part.text(10)
    assert list(refused.value.errors) == ["name"]


@pytest.mark.parametrize(
    ("content_type", "data"),
    [
        (CONTENT_TYPE, b"not a form at all"),
        (CONTENT_TYPE, body(("file", "a.png", b"abc"))[:-20]),  # cut before its end
        ("multipart/form-data", body(("name", None, b"x"))),  # no boundary
    ],
)
def test_a_malformed_form_is_a_422(content_type: str, data: bytes) -> None:
    """Garbage, a form cut short, or no boundary: a 422 on the body."""
    with pytest.raises(ValidationFailed):
        list(StreamedForm(content_type, [data]).parts())
