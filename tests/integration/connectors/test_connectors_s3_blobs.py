"""The S3 blob store against a local S3-compatible server (moto's, started by the test on
127.0.0.1): single and multipart puts, the limit with nothing left behind, ranged and seekable
reads, deletes, and public URLs of a public bucket."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator

import httpx
import pytest

pytest.importorskip("boto3", reason="the s3 extra (boto3) is not installed")
moto_server = pytest.importorskip("moto.server", reason="moto[server] is not installed")

from engage_connectors.blobs.s3 import S3BlobStore, default_public_url, s3_client  # noqa: E402
from engage_core.kernel.blobs import BlobNotFound, BlobTooLarge, new_key  # noqa: E402

BUCKET = "engage-media"
PART = 5 * 1024 * 1024
DATA = bytes(range(256)) * (12 * 4096)  # 12 MiB: three parts


@pytest.fixture(scope="module")
def endpoint() -> Iterator[str]:
    """A moto S3 server on a free port of 127.0.0.1, for this module."""
    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    yield f"http://{host}:{port}"
    server.stop()


@pytest.fixture
def store(endpoint: str) -> S3BlobStore:
    client = s3_client(endpoint_url=endpoint, region="us-east-1", access_key_id="test", secret_access_key="test")
    if BUCKET not in {b["Name"] for b in client.list_buckets()["Buckets"]}:
        client.create_bucket(Bucket=BUCKET)
        public = {
            "Version": "2012-10-17",
            "Statement": [
                {"Effect": "Allow", "Principal": "*", "Action": "s3:GetObject", "Resource": f"arn:aws:s3:::{BUCKET}/*"}
            ],
        }
        client.put_bucket_policy(Bucket=BUCKET, Policy=json.dumps(public))
    return S3BlobStore(client, BUCKET, default_public_url(BUCKET, endpoint, None), part_size=PART)


def _pieces(data: bytes, size: int = 64 * 1024) -> Iterator[bytes]:
    return (data[i : i + size] for i in range(0, len(data), size))


def _uploads(store: S3BlobStore) -> list[object]:
    return list(store.client.list_multipart_uploads(Bucket=BUCKET).get("Uploads", []))


def test_a_small_object_is_one_put(store: S3BlobStore) -> None:
    """An object under one part reads back whole, with its content type."""
    key = new_key("media", "png")

    size = store.put(key, [b"\x89PNG", b"\r\n\x1a\n"], max_bytes=100, content_type="image/png")

    head = store.client.head_object(Bucket=BUCKET, Key=key)
    with store.open(key) as file:
        assert (size, file.read(), head["ContentType"]) == (8, b"\x89PNG\r\n\x1a\n", "image/png")


def test_a_large_object_goes_up_in_parts(store: S3BlobStore) -> None:
    """12 MiB streamed in 64 KiB pieces arrive whole, as a completed multipart upload."""
    key = new_key("media", "mp4")

    size = store.put(key, _pieces(DATA), max_bytes=50 * 1024 * 1024, content_type="video/mp4")

    assert (size, store.size(key), b"".join(store.chunks(key)) == DATA, _uploads(store)) == (
        len(DATA),
        len(DATA),
        True,
        [],
    )


def test_an_object_past_the_limit_is_aborted(store: S3BlobStore) -> None:
    """Passing the limit after a part went up aborts the upload: no object, no upload left open."""
    key = new_key("media", "mp4")

    with pytest.raises(BlobTooLarge):
        store.put(key, _pieces(DATA), max_bytes=PART + 1, content_type="video/mp4")

    assert (store.size(key), _uploads(store)) == (None, [])


def test_the_reader_seeks_like_a_file(store: S3BlobStore) -> None:
    """`open` reads any range after a seek, from the end too (what a video decoder does)."""
    key = new_key("media", "mp4")
    store.put(key, _pieces(DATA), max_bytes=len(DATA), content_type="video/mp4")

    with store.open(key) as file:
        file.seek(-16, 2)
        tail = file.read()
        file.seek(1_000_000)
        middle = file.read(10)
    assert (tail, middle) == (DATA[-16:], DATA[1_000_000:1_000_010])


def test_a_range_reads_only_its_bytes(store: S3BlobStore) -> None:
    """`chunks(key, start, end)` is `data[start:end]`."""
    key = new_key("media", "mp4")
    store.put(key, _pieces(DATA), max_bytes=len(DATA), content_type="video/mp4")

    assert b"".join(store.chunks(key, 10, 70_000)) == DATA[10:70_000]


def test_delete_removes_the_object_and_may_repeat(store: S3BlobStore) -> None:
    """After a delete the object is gone; deleting it again is no error."""
    key = new_key("media", "gif")
    store.put(key, [b"GIF89a"], max_bytes=100, content_type="image/gif")

    store.delete(key)
    store.delete(key)

    assert store.size(key) is None
    with pytest.raises(BlobNotFound):
        store.open(key)


def test_the_public_url_serves_the_object(store: S3BlobStore) -> None:
    """The object is fetched without credentials at its public URL (a public bucket)."""
    key = new_key("media", "png")
    store.put(key, [b"\x89PNG\r\n\x1a\n"], max_bytes=100, content_type="image/png")

    response = httpx.get(store.public_url(key))

    assert (response.status_code, response.content, response.headers["content-type"]) == (
        200,
        b"\x89PNG\r\n\x1a\n",
        "image/png",
    )
