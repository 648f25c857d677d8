"""`LocalBlobStore`: objects as files under one directory, served by `engage serve` (`/files/...`).

An object's path is its key under the root (`media/Qx/Qx3v...9A.jpg`): the key's token makes it
unguessable, and `KEY_PATTERN` leaves no way out of the root. A put writes a private temporary file
under `.incoming/`, counting the bytes as they come, flushes it to disk, and renames it into place:
a reader never sees a partial object, a put that fails or passes the limit leaves nothing, and once
`put` returns the object survives a crash (the file and its directory are fsynced).
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import BinaryIO

from engage_core.kernel.blobs import CHUNK_SIZE, BlobNotFound, BlobTooLarge, check_key

INCOMING = ".incoming"


class LocalBlobStore:
    """:class:`.BlobStore` in the directory `root`, whose objects clients fetch under `public_base_url`."""

    def __init__(self, root: Path, public_base_url: str) -> None:
        self.root = root
        self.public_base_url = public_base_url.rstrip("/")
        self._incoming = root / INCOMING  # made by the first put: a store never written to leaves no trace

    def path_of(self, key: str) -> Path:
        """Where the object `key` is (or would be) kept; ValueError for a malformed key."""
        return self.root / check_key(key)

    def local_path(self, key: str) -> Path | None:
        """The file of the object `key`, or None when there is none (or the key is malformed): what the
        file route serves."""
        try:
            path = self.path_of(key)
        except ValueError:
            return None
        return path if path.is_file() else None

    def put(self, key: str, chunks: Iterable[bytes], *, max_bytes: int, content_type: str) -> int:
        """Stream into a temporary file, then rename it into place (:meth:`.BlobStore.put`)."""
        target = self.path_of(key)
        temporary = self._incoming / f"{secrets.token_hex(16)}.part"
        size = 0
        self._incoming.mkdir(parents=True, exist_ok=True)
        try:
            with temporary.open("xb") as file:
                for chunk in chunks:
                    size += len(chunk)
                    if size > max_bytes:
                        raise BlobTooLarge(max_bytes)
                    file.write(chunk)
                file.flush()
                os.fsync(file.fileno())
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(temporary, target)
            _fsync_directory(target.parent)
        finally:
            temporary.unlink(missing_ok=True)
        return size

    def open(self, key: str) -> BinaryIO:
        """The file, opened for reading (:meth:`.BlobStore.open`)."""
        try:
            return self.path_of(key).open("rb")
        except FileNotFoundError:
            raise BlobNotFound(key) from None

    def chunks(self, key: str, start: int = 0, end: int | None = None) -> Iterator[bytes]:
        """The range, read a piece at a time (:meth:`.BlobStore.chunks`)."""
        file = self.open(key)
        return _read_range(file, start, end)

    def size(self, key: str) -> int | None:
        """The file's size (:meth:`.BlobStore.size`)."""
        try:
            return self.path_of(key).stat().st_size
        except FileNotFoundError:
            return None

    def delete(self, key: str) -> None:
        """Remove the file, if any (:meth:`.BlobStore.delete`)."""
        self.path_of(key).unlink(missing_ok=True)

    def public_url(self, key: str) -> str:
        """`public_base_url/key` (:meth:`.BlobStore.public_url`)."""
        return f"{self.public_base_url}/{key}"


def _read_range(file: BinaryIO, start: int, end: int | None) -> Iterator[bytes]:
    with file:
        file.seek(start)
        left = None if end is None else max(end - start, 0)
        while left is None or left > 0:
            piece = file.read(CHUNK_SIZE if left is None else min(CHUNK_SIZE, left))
            if not piece:
                return
            if left is not None:
                left -= len(piece)
            yield piece


def _fsync_directory(directory: Path) -> None:
    """Make a rename into `directory` durable (POSIX: the directory entry is the directory's data)."""
    descriptor = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
