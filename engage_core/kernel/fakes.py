"""Fakes of the kernel's ports: a clock tests can move, a mailer that records, and blob storage in
memory."""

from __future__ import annotations

import io
import threading
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime, timedelta
from typing import BinaryIO

from engage_core.kernel.blobs import BlobNotFound, BlobTooLarge, check_key
from engage_core.kernel.mail import MailMessage, MailUndelivered


class FakeClock:
    """A clock that stands still until told to move."""

    def __init__(self, start: datetime | None = None) -> None:
        self._now = start or datetime(2026, 1, 1, 12, 0, tzinfo=UTC)

    def now(self) -> datetime:
        """The moment the clock stands at (:meth:`.Clock.now`)."""
        return self._now

    def advance(self, **delta: float) -> datetime:
        """Move the clock forward by `timedelta(**delta)` (`minutes=5`, ...) and return the new moment."""
        self._now += timedelta(**delta)
        return self._now

    def set(self, moment: datetime) -> None:
        """Stand the clock at `moment`."""
        self._now = moment


class FakeMailer:
    """Records every message in `sent` until told to `fail()`; then raises `MailUndelivered`."""

    def __init__(self) -> None:
        self.sent: list[MailMessage] = []
        self.failing: str | None = None

    def fail(self, reason: str = "The mail server could not be reached.") -> None:
        """Make every later `send` raise :class:`.MailUndelivered` with `reason`, until :meth:`recover`."""
        self.failing = reason

    def recover(self) -> None:
        """Deliver again: undo :meth:`fail`."""
        self.failing = None

    def send(self, message: MailMessage) -> None:
        """Record the message, or raise :class:`.MailUndelivered` while failing (:meth:`.Mailer.send`)."""
        if self.failing is not None:
            raise MailUndelivered(self.failing)
        self.sent.append(message)


class InMemoryBlobStore:
    """:class:`.BlobStore` in a dict. `objects` maps each key to its bytes and `content_types` to its
    type; `largest_chunk` is the largest piece a `put` was given (what a streaming caller held at
    once); `fail_deletes()` makes `delete` raise until `recover()`, as a store that cannot be reached."""

    def __init__(self, base_url: str = "https://files.example.com") -> None:
        self.base_url = base_url.rstrip("/")
        self.objects: dict[str, bytes] = {}
        self.content_types: dict[str, str] = {}
        self.largest_chunk = 0
        self.deletes_fail = False
        self._lock = threading.Lock()

    def fail_deletes(self) -> None:
        """Make every later `delete` raise OSError, until :meth:`recover`."""
        self.deletes_fail = True

    def recover(self) -> None:
        """Delete again: undo :meth:`fail_deletes`."""
        self.deletes_fail = False

    def put(self, key: str, chunks: Iterable[bytes], *, max_bytes: int, content_type: str) -> int:
        """Collect the chunks, counting (:meth:`.BlobStore.put`); keeps nothing when it raises."""
        check_key(key)
        pieces: list[bytes] = []
        size = 0
        for chunk in chunks:
            size += len(chunk)
            self.largest_chunk = max(self.largest_chunk, len(chunk))
            if size > max_bytes:
                raise BlobTooLarge(max_bytes)
            pieces.append(chunk)
        with self._lock:
            self.objects[key] = b"".join(pieces)
            self.content_types[key] = content_type
        return size

    def open(self, key: str) -> BinaryIO:
        """The object in a `BytesIO` (:meth:`.BlobStore.open`)."""
        return io.BytesIO(self._get(key))

    def chunks(self, key: str, start: int = 0, end: int | None = None) -> Iterator[bytes]:
        """The range in one piece (:meth:`.BlobStore.chunks`)."""
        data = self._get(key)
        return iter([data[start:end]])

    def size(self, key: str) -> int | None:
        """The object's length, or None (:meth:`.BlobStore.size`)."""
        with self._lock:
            data = self.objects.get(key)
        return None if data is None else len(data)

    def delete(self, key: str) -> None:
        """Drop the object, if any (:meth:`.BlobStore.delete`); raises OSError while failing."""
        if self.deletes_fail:
            raise OSError("The blob store cannot be reached.")
        with self._lock:
            self.objects.pop(key, None)
            self.content_types.pop(key, None)

    def public_url(self, key: str) -> str:
        """`base_url/key` (:meth:`.BlobStore.public_url`)."""
        return f"{self.base_url}/{key}"

    def _get(self, key: str) -> bytes:
        with self._lock:
            data = self.objects.get(key)
        if data is None:
            raise BlobNotFound(key)
        return data
