"""`multipart/form-data` bodies read as they arrive, for uploads too large to hold (`Operation.streamed`).

Every other operation gets its body read whole on the event loop, then parsed (`multipart.py`). A
streamed operation's handler gets a `StreamedForm` instead (`Call.form`), in its worker thread:

- `BodyStream` yields the body's pieces as the client sends them, each fetched from the event loop
  (`receive`) by the worker thread. Past `limit` bytes it raises a 413; a client that sends
  nothing for `READ_TIMEOUT_SECONDS` gets a 408; a client that goes away ends the request.
- `StreamedForm.parts()` yields the form's parts in order. A file part's bytes are read with
  `StreamedPart.chunks()` while it is the current part, so a handler can pass them on (to the blob
  store) without ever holding the file; a text part is read whole with `StreamedPart.text()`, which
  refuses one longer than its limit. What a handler leaves unread of a part is skipped.

So at most one batch of the body (`BATCH_BYTES`, 1 MiB) is in memory at a time, whatever the
file's size.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable, Iterable, Iterator

from python_multipart.exceptions import FormParserError
from python_multipart.multipart import MultipartParser, parse_options_header
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect
from starlette.types import Message, Receive

from engage_core.kernel.errors import ValidationFailed
from engage_http.converter import BODY
from engage_http.multipart import PartHeaders, PartLabels

READ_TIMEOUT_SECONDS = 60.0
"""How long a client may send nothing in the middle of a body."""

BATCH_BYTES = 1024 * 1024
"""What one hop from the worker thread to the event loop gathers at most (the pieces as they came)."""

TEXT_PART_MAX = 64 * 1024
"""The largest text part a streamed form takes (a name, a description)."""

_NOT_A_FORM = "The request body is not valid multipart/form-data."


class BodyStream:
    """The request body as it arrives, read from a worker thread (see the module docstring).

    Each hop to the event loop gathers what has arrived, up to `BATCH_BYTES`: one hop per 64 KiB
    message would cost more than parsing it."""

    def __init__(
        self,
        receive: Receive,
        loop: asyncio.AbstractEventLoop,
        limit: int,
        *,
        timeout: float = READ_TIMEOUT_SECONDS,
    ) -> None:
        self._receive = receive
        self._loop = loop
        self._limit = limit
        self._timeout = timeout
        self.received = 0
        self._over_limit = False

    def __iter__(self) -> Iterator[bytes]:
        while True:
            future = asyncio.run_coroutine_threadsafe(self._gather(), self._loop)
            pieces, more = future.result()
            yield from pieces
            # The reader sees every byte up to the limit before the 413, so a limit of its own (a file
            # part's) that falls below the body's is the one reported, however far ahead a batch ran.
            if self._over_limit:
                raise HTTPException(413)
            if not more:
                return

    async def _gather(self) -> tuple[list[bytes], bool]:
        """The pieces that arrive until `BATCH_BYTES` are gathered or the body ends; whether more follow."""
        pieces: list[bytes] = []
        gathered = 0
        while True:
            try:
                message: Message = await asyncio.wait_for(self._receive(), self._timeout)
            except TimeoutError:
                raise HTTPException(408, "The client sent no data for too long.") from None
            if message["type"] == "http.disconnect":
                raise ClientDisconnect()
            chunk: bytes = message.get("body", b"")
            self.received += len(chunk)
            if chunk:
                pieces.append(chunk)
                gathered += len(chunk)
            if self.received > self._limit:
                self._over_limit = True
                return pieces, True
            if not message.get("more_body", False):
                return pieces, False
            if gathered >= BATCH_BYTES:
                return pieces, True


class StreamedPart:
    """One part of a streamed form: the field it names, its file name and charset, and its bytes."""

    def __init__(self, form: StreamedForm, name: str, filename: str | None, charset: str | None) -> None:
        self._form = form
        self.name = name
        self.filename = filename
        self.charset = charset
        self.finished = False

    def chunks(self) -> Iterator[bytes]:
        """The part's bytes as they arrive (once; only while it is the current part)."""
        while not self.finished:
            event = self._form.next_event()
            if event is _END:
                self.finished = True
                return
            assert isinstance(event, bytes)
            yield event

    def text(self, limit: int = TEXT_PART_MAX) -> str:
        """The part's bytes as text, in its charset (UTF-8 by default); 422 past `limit` bytes or for
        bytes that are not text in that charset."""
        data = bytearray()
        for chunk in self.chunks():
            data += chunk
            if len(data) > limit:
                raise ValidationFailed.on(self.name, f"The {self.name} may not be longer than {limit} bytes.")
        try:
            return bytes(data).decode(self.charset or "utf-8")
        except (LookupError, UnicodeDecodeError):
            raise ValidationFailed.on(self.name, f"The {self.name} must be {self.charset or 'UTF-8'} text.") from None

    def skip(self) -> None:
        """Read the rest of the part and drop it."""
        for _ in self.chunks():
            pass


class StreamedForm:
    """A `multipart/form-data` body read part by part as it arrives."""

    def __init__(self, content_type: str, body: Iterable[bytes]) -> None:
        _, params = parse_options_header(content_type)
        boundary = params.get(b"boundary")
        if not boundary:
            raise ValidationFailed.on(BODY, "The multipart/form-data Content-Type needs a boundary.")
        self._body = iter(body)
        self._events: deque[object] = deque()
        self._reader = _EventReader(self._events)
        self._parser = MultipartParser(boundary, self._reader.callbacks())  # type: ignore[arg-type]
        self._done = False

    def parts(self) -> Iterator[StreamedPart]:
        """Every part, in order; the previous one is skipped when the next is asked for."""
        while True:
            event = self.next_event()
            if event is _FORM_END:
                return
            if not isinstance(event, PartLabels):  # data of a part already skipped
                continue
            part = StreamedPart(self, event.name, event.filename, event.charset)
            yield part
            part.skip()

    def next_event(self) -> object:
        """The next thing the parser found (a part's headers, a piece of its data, its end, or the form's
        end), feeding it the body as needed."""
        while not self._events:
            if self._done:
                return _FORM_END
            self._feed()
        return self._events.popleft()

    def _feed(self) -> None:
        try:
            chunk = next(self._body, None)
            if chunk is None:
                self._parser.finalize()
                self._done = True
                if not self._reader.ended:
                    raise ValidationFailed.on(BODY, _NOT_A_FORM)
                self._events.append(_FORM_END)
                return
            self._parser.write(chunk)
        except FormParserError:
            raise ValidationFailed.on(BODY, _NOT_A_FORM) from None
        if self._reader.invalid:
            raise ValidationFailed.on(BODY, _NOT_A_FORM)


_END = object()
"""The end of a part."""
_FORM_END = object()
"""The end of the form."""


class _EventReader(PartHeaders):
    """The parser's callbacks, turning what it finds into events in order."""

    def __init__(self, events: deque[object]) -> None:
        super().__init__()
        self._events = events
        self.ended = False

    def callbacks(self) -> dict[str, Callable[..., None]]:
        return {
            **self.header_callbacks(),
            "on_headers_finished": self._headers_finished,
            "on_part_data": self._part_data,
            "on_part_end": self._part_end,
            "on_end": self._end,
        }

    def _headers_finished(self) -> None:
        labels = self.take_labels()
        if labels is not None:
            self._events.append(labels)

    def _part_data(self, data: bytes, start: int, end: int) -> None:
        if end > start:
            self._events.append(data[start:end])

    def _part_end(self) -> None:
        self._events.append(_END)

    def _end(self) -> None:
        self.ended = True
