"""Blob storage: the `BlobStore` port that keeps uploaded files (media now, synthesised audio later).

An object is named by a key the caller makes (`new_key`): a prefix, a random token of 192 bits and
an extension, `media/Qx/Qx3v...9A.jpg`. The token makes an object's public URL unguessable, and a
key is never reused, so an object never changes once stored (it may be cached forever).

- `put` streams the chunks it is given into the store, counting as they come: past `max_bytes`
  it stops reading, keeps nothing and raises `BlobTooLarge`; a put that fails for any reason
  leaves nothing under the key. It never holds the whole object in memory.
- `open` reads an object back as a seekable binary stream (the decoders that probe an upload
  seek to its end); `chunks` streams a byte range of it.
- `delete` removes an object; deleting an absent one is not an error (a sweep may repeat it).
- `public_url` is where clients fetch the object.

Adapters: `engage_connectors.blobs.LocalBlobStore` (a directory, served by `engage serve`) and
`engage_connectors.blobs.S3BlobStore` (S3-compatible storage); `engage_core.testing.InMemoryBlobStore`
for tests.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterable, Iterator
from typing import BinaryIO, Protocol

KEY_PATTERN = re.compile(r"[A-Za-z0-9_-]+(/[A-Za-z0-9_-]+)*\.[a-z0-9]{1,8}")
"""What every key looks like: path segments of URL-safe characters and an extension (no `..`,
no leading `/`, nothing a file system or a URL would read specially)."""

TOKEN_BYTES = 24
"""Randomness of a key: 192 bits, 32 URL-safe characters."""

CHUNK_SIZE = 256 * 1024
"""How much `chunks` reads at a time."""


class BlobTooLarge(Exception):
    """More than `max_bytes` were given to `BlobStore.put`; nothing was kept."""

    def __init__(self, max_bytes: int) -> None:
        super().__init__(f"The object is larger than {max_bytes} bytes.")
        self.max_bytes = max_bytes


class BlobNotFound(Exception):
    """No object is stored under the key."""

    def __init__(self, key: str) -> None:
        super().__init__(f"No object is stored under {key!r}.")
        self.key = key


def new_key(prefix: str, extension: str) -> str:
    """A fresh key under `prefix` (`media`): a two-character shard directory, then the token, so that
    no directory of a local store grows past a few thousand entries."""
    token = secrets.token_urlsafe(TOKEN_BYTES)
    key = f"{prefix}/{token[:2]}/{token}.{extension}"
    check_key(key)
    return key


def check_key(key: str) -> str:
    """`key` when it is well formed (`KEY_PATTERN`); ValueError otherwise."""
    if not KEY_PATTERN.fullmatch(key):
        raise ValueError(f"not a blob key: {key!r}")
    return key


class BlobStore(Protocol):
    """Where uploaded files are kept. Every method may block on I/O: call it outside any database
    transaction."""

    def put(self, key: str, chunks: Iterable[bytes], *, max_bytes: int, content_type: str) -> int:
        """Store the chunks under `key` as they come, and return how many bytes they held. Raises
        :class:`BlobTooLarge` as soon as more than `max_bytes` arrived; whatever it raises, nothing is
        left under `key`. Once it returns, the object is durable."""

    def open(self, key: str) -> BinaryIO:
        """The object as a seekable binary stream (close it when done); :class:`BlobNotFound`."""

    def chunks(self, key: str, start: int = 0, end: int | None = None) -> Iterator[bytes]:
        """The bytes `[start, end)` of the object (to its end when `end` is None), a piece at a time;
        :class:`BlobNotFound`."""

    def size(self, key: str) -> int | None:
        """The object's size in bytes, or None when there is none."""

    def delete(self, key: str) -> None:
        """Remove the object; nothing happens when there is none."""

    def public_url(self, key: str) -> str:
        """The address clients fetch the object from."""
