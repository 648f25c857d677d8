"""`multipart/form-data` request bodies, read into the JSON values a JSON body would give.

An operation declared with `multipart=True` takes its body class either as JSON or as a form (SPEC
1.2: file uploads use `multipart/form-data`), and both go through the same converter. Each part
names a field of the body class:

- a text field (`str`, or a `Literal` of strings) takes the part's text, whether the part is a
  plain field or an uploaded file. The bytes are decoded with the charset the part's
  `Content-Type` names, UTF-8 by default;
- any other field (numbers, booleans, arrays, objects) takes the part's text read as JSON, which
  is how OpenAPI encodes such properties (`application/json`). An array field may also come as
  repeated parts, each holding one item or an array of items. A blank part counts as not given,
  as an empty input of an HTML form does;
- an `Upload` field (or a tuple of them) takes the part's bytes and file name as they are; an
  array of uploads also takes the parts named with a trailing `[]` (`files[]`, as HTML forms and
  PHP clients send them);
- parts that name no field are ignored, like unknown keys of a JSON body. A field given twice
  is a 422.

The body is already in memory, with its size checked, so parsing is synchronous. It runs in the
worker thread with the rest of the request, after authentication.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping, Sequence
from typing import Any, get_args, get_type_hints

import attrs
from python_multipart.exceptions import FormParserError
from python_multipart.multipart import MultipartParser, parse_options_header

from engage_core.kernel.errors import ValidationFailed
from engage_http.converter import BODY, is_list, is_literal, is_union, union_members
from engage_http.uploads import Upload

FORM = "multipart/form-data"
JSON_PART = "application/json"

MEDIA_TYPE = "media_type"
"""Field metadata key: the `Content-Type` a text field's part is documented with (`text/csv`)."""

_NOT_A_FORM = "The request body is not valid multipart/form-data."


@attrs.frozen
class Part:
    """One part of a form: the field it names, its bytes, and how they are labelled."""

    name: str
    data: bytes
    filename: str | None = None
    charset: str | None = None


@attrs.frozen
class _Kind:
    text: bool
    array: bool
    file: bool = False


def is_form(content_type: str | None) -> bool:
    """Whether a `Content-Type` header announces a `multipart/form-data` body."""
    media_type, _ = parse_options_header(content_type)
    return media_type == FORM.encode()


def form_values(content_type: str, raw: bytes, cls: type) -> dict[str, Any]:
    """The JSON object a form stands for, for `cls`. Raises ValidationFailed (422) for a body that
    is not a well-formed form, and for parts that cannot be read as their field's value."""
    return values_for(read_parts(content_type, raw), cls)


def read_parts(content_type: str, raw: bytes) -> list[Part]:
    """Every part of the body, in order."""
    _, params = parse_options_header(content_type)
    boundary = params.get(b"boundary")
    if not boundary:
        raise ValidationFailed.on(BODY, "The multipart/form-data Content-Type needs a boundary.")
    reader = _PartReader()
    try:
        parser = MultipartParser(boundary, reader.callbacks())
        parser.write(raw)
        parser.finalize()
    except FormParserError:
        raise ValidationFailed.on(BODY, _NOT_A_FORM) from None
    if not reader.ended or reader.invalid:
        raise ValidationFailed.on(BODY, _NOT_A_FORM)
    return reader.parts


def values_for(parts: Sequence[Part], cls: type) -> dict[str, Any]:
    """The JSON object the parts stand for, for the fields of `cls`."""
    by_name: dict[str, list[Part]] = {}
    for part in parts:
        by_name.setdefault(part.name, []).append(part)
    values: dict[str, Any] = {}
    errors: dict[str, list[str]] = {}
    for name, kind in _kinds(cls).items():
        given = by_name.get(name, [])
        try:
            if kind.file:
                given = given + by_name.get(f"{name}[]", []) if kind.array else given
                uploads = [Upload(part.filename or "", part.data) for part in given]
                if kind.array:
                    if uploads:
                        values[name] = uploads
                elif len(uploads) > 1:
                    raise ValidationFailed.on(name, f"The {name} may be given only once.")
                elif uploads:
                    values[name] = uploads[0]
                continue
            if kind.text:
                if len(given) > 1:
                    raise ValidationFailed.on(name, f"The {name} may be given only once.")
                if given:
                    values[name] = _text(given[0])
                continue
            read = [value for value in (_json(part) for part in given) if value is not _BLANK]
            if kind.array:
                if read:
                    values[name] = [item for value in read for item in (value if isinstance(value, list) else [value])]
            elif len(read) > 1:
                raise ValidationFailed.on(name, f"The {name} may be given only once.")
            elif read:
                values[name] = read[0]
        except ValidationFailed as exc:
            errors.update(exc.errors)
    if errors:
        raise ValidationFailed(errors)
    return values


def encoding(cls: type) -> dict[str, dict[str, str]]:
    """The OpenAPI `encoding` of the form variant of `cls`: the `Content-Type` of each part that is
    not plain text."""
    found: dict[str, dict[str, str]] = {}
    kinds = _kinds(cls)
    for field in attrs.fields(cls):
        media_type = field.metadata.get(MEDIA_TYPE)
        if media_type is not None:
            found[field.name] = {"contentType": media_type}
        elif kinds[field.name].file:
            found[field.name] = {"contentType": "application/octet-stream"}
        elif not kinds[field.name].text:
            found[field.name] = {"contentType": JSON_PART}
    return found


# -- reading parts ---------------------------------------------------------------------------------

_BLANK = object()


def _text(part: Part) -> str:
    try:
        return part.data.decode(part.charset or "utf-8")
    except (LookupError, UnicodeDecodeError):
        charset = part.charset or "UTF-8"
        raise ValidationFailed.on(part.name, f"The {part.name} must be {charset} text.") from None


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _json(part: Part) -> Any:
    text = _text(part)
    if not text.strip():
        return _BLANK
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except (ValueError, RecursionError):
        raise ValidationFailed.on(part.name, f"The {part.name} part must hold JSON.") from None


@attrs.frozen
class PartLabels:
    """What a part's headers say: the form field it names, its file name and its charset."""

    name: str
    filename: str | None
    charset: str | None


class PartHeaders:
    """The parser's header callbacks, shared by the buffered reader here and the streamed one
    (`engage_http.form_stream`): collects a part's headers and reads its labels. A part naming no
    field makes the form `invalid`."""

    def __init__(self) -> None:
        self.invalid = False
        self._headers: dict[bytes, bytes] = {}
        self._field = b""
        self._value = b""

    def header_callbacks(self) -> dict[str, Any]:
        return {
            "on_header_field": self._header_field,
            "on_header_value": self._header_value,
            "on_header_end": self._header_end,
        }

    def _header_field(self, data: bytes, start: int, end: int) -> None:
        self._field += data[start:end]

    def _header_value(self, data: bytes, start: int, end: int) -> None:
        self._value += data[start:end]

    def _header_end(self) -> None:
        self._headers[self._field.strip().lower()] = self._value.strip()
        self._field = self._value = b""

    def take_labels(self) -> PartLabels | None:
        """The labels of the part whose headers were collected (None, and `invalid`, when it names
        no field); the next part starts afresh."""
        headers, self._headers = self._headers, {}
        _, disposition = parse_options_header(headers.get(b"content-disposition"))
        name = disposition.get(b"name")
        if name is None:
            self.invalid = True
            return None
        _, content_type = parse_options_header(headers.get(b"content-type"))
        filename = disposition.get(b"filename")
        charset = content_type.get(b"charset")
        return PartLabels(
            _header_text(name),
            None if filename is None else _header_text(filename),
            None if charset is None else _header_text(charset),
        )


class _PartReader(PartHeaders):
    """The parser's callbacks, collecting each part's headers and bytes."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[Part] = []
        self.ended = False
        self._data: list[bytes] = []

    def callbacks(self) -> Any:
        return {
            "on_part_begin": self._begin,
            **self.header_callbacks(),
            "on_part_data": self._part_data,
            "on_part_end": self._part_end,
            "on_end": self._end,
        }

    def _begin(self) -> None:
        self._data = []

    def _part_data(self, data: bytes, start: int, end: int) -> None:
        self._data.append(data[start:end])

    def _part_end(self) -> None:
        labels = self.take_labels()
        if labels is not None:
            self.parts.append(Part(labels.name, b"".join(self._data), labels.filename, labels.charset))

    def _end(self) -> None:
        self.ended = True


def _header_text(value: bytes) -> str:
    """Header parameters arrive as latin-1 bytes; browsers send UTF-8 names in them."""
    return value.decode("utf-8", errors="replace")


# -- field kinds -----------------------------------------------------------------------------------


@functools.cache
def _kinds(cls: type) -> Mapping[str, _Kind]:
    hints = get_type_hints(cls, include_extras=True)
    return {field.name: _kind(hints[field.name]) for field in attrs.fields(cls)}


def _kind(tp: Any) -> _Kind:
    inner = union_members(tp)[0][0] if is_union(tp) else tp
    base = inner.__origin__ if hasattr(inner, "__metadata__") else inner
    text = base is str or (is_literal(base) and all(isinstance(c, str) for c in get_args(base)))
    array = is_list(base)
    item = get_args(base)[0] if array else base
    item = item.__origin__ if hasattr(item, "__metadata__") else item
    return _Kind(text=text, array=array, file=item is Upload)


__all__ = ["FORM", "MEDIA_TYPE", "Part", "encoding", "form_values", "is_form", "read_parts", "values_for"]
