"""The local blob store: objects written whole or not at all, read back and in ranges, deleted, and
kept inside their directory."""

from __future__ import annotations

from pathlib import Path

import pytest

from engage_connectors.blobs import LocalBlobStore
from engage_core.kernel.blobs import BlobNotFound, BlobTooLarge, new_key

DATA = bytes(range(256)) * 1000


@pytest.fixture
def store(tmp_path: Path) -> LocalBlobStore:
    return LocalBlobStore(tmp_path / "files", "http://127.0.0.1:8000/files/")


def _pieces(data: bytes, size: int = 4096) -> list[bytes]:
    return [data[i : i + size] for i in range(0, len(data), size)]


def test_a_put_object_reads_back_whole(store: LocalBlobStore) -> None:
    """The bytes streamed in come back, their count is returned, and the size agrees."""
    key = new_key("media", "mp4")

    size = store.put(key, _pieces(DATA), max_bytes=len(DATA), content_type="video/mp4")

    with store.open(key) as file:
        assert (size, file.read(), store.size(key)) == (len(DATA), DATA, len(DATA))


def test_a_range_reads_only_its_bytes(store: LocalBlobStore) -> None:
    """`chunks(key, start, end)` is `data[start:end]`."""
    key = new_key("media", "mp4")
    store.put(key, _pieces(DATA), max_bytes=len(DATA), content_type="video/mp4")

    assert b"".join(store.chunks(key, 1000, 200_000)) == DATA[1000:200_000]


def test_an_object_past_the_limit_leaves_nothing(store: LocalBlobStore) -> None:
    """One byte over `max_bytes` raises BlobTooLarge, and no file is left, not even a temporary one."""
    key = new_key("media", "png")

    with pytest.raises(BlobTooLarge):
        store.put(key, _pieces(DATA), max_bytes=len(DATA) - 1, content_type="image/png")

    assert [p for p in store.root.rglob("*") if p.is_file()] == []
    assert store.size(key) is None


def test_a_put_that_fails_midway_leaves_nothing(store: LocalBlobStore) -> None:
    """A stream that breaks off (a client gone) leaves no file."""
    key = new_key("media", "png")

    def broken() -> list[bytes]:
        yield DATA[:1000]
        raise ConnectionError("client went away")

    with pytest.raises(ConnectionError):
        store.put(key, broken(), max_bytes=len(DATA), content_type="image/png")
    assert [p for p in store.root.rglob("*") if p.is_file()] == []


def test_delete_removes_the_file_and_may_repeat(store: LocalBlobStore) -> None:
    """After a delete the object is gone; deleting it again is no error."""
    key = new_key("media", "gif")
    store.put(key, [b"GIF89a"], max_bytes=100, content_type="image/gif")

    store.delete(key)
    store.delete(key)

    assert (store.size(key), store.local_path(key)) == (None, None)
    with pytest.raises(BlobNotFound):
        store.open(key)


def test_the_public_url_is_the_key_under_the_base(store: LocalBlobStore) -> None:
    """`public_url` joins the base (its trailing slash dropped) and the key."""
    assert store.public_url("media/ab/abc.png") == "http://127.0.0.1:8000/files/media/ab/abc.png"


@pytest.mark.parametrize(
    "key", ["../etc/passwd.txt", "/etc/passwd.txt", "media/../../x.png", "media/a b.png", ".incoming/x.part"]
)
def test_a_key_cannot_name_a_file_outside_the_objects(store: LocalBlobStore, key: str) -> None:
    """Keys with `..`, a leading `/`, spaces or a dot-directory name no file (and cannot be written)."""
    assert store.local_path(key) is None
    with pytest.raises(ValueError, match="not a blob key"):
        store.put(key, [b"x"], max_bytes=10, content_type="text/plain")
