"""`S3BlobStore`: objects in a bucket of S3 or any S3-compatible storage (MinIO, Ceph, R2, ...), through
boto3. Needs the `s3` extra.

A put reads the chunks into one part of `part_size` bytes at a time (8 MiB: S3's parts are at least
5 MiB), so at most one part is ever in memory. An object that fits in one part is a single
`PutObject`; a larger one a multipart upload, aborted (its parts discarded) when the put fails or
passes its limit, so nothing is left under the key. An object is read back with ranged `GetObject`s
(`S3Reader`, seekable: the video decoder reads a file's index at its end).

Clients fetch objects at `public_base_url/key`: the bucket made readable to all (or a CDN in front
of it), since a key's random token is what keeps it private (as with the local store).
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Iterator
from typing import Any, BinaryIO

from engage_core.kernel.blobs import CHUNK_SIZE, BlobNotFound, BlobTooLarge, check_key

PART_SIZE = 8 * 1024 * 1024
READ_BUFFER = 1024 * 1024
"""What `S3Reader` fetches at once: a decoder's small reads are served from it."""
_MISSING = frozenset({"404", "NoSuchKey", "NotFound"})


def s3_client(
    *,
    endpoint_url: str | None = None,
    region: str | None = None,
    access_key_id: str | None = None,
    secret_access_key: str | None = None,
    timeout: float = 30.0,
) -> Any:
    """A boto3 S3 client: the given endpoint (an S3-compatible server) or AWS, the given keys or
    boto3's usual sources (environment, profile, instance role); path-style addressing with an
    endpoint, which every S3-compatible server understands."""
    import boto3
    from botocore.config import Config

    config = Config(
        connect_timeout=timeout,
        read_timeout=timeout,
        retries={"max_attempts": 3, "mode": "standard"},
        s3={"addressing_style": "path" if endpoint_url else "auto"},
    )
    return boto3.client(
        "s3",
        endpoint_url=endpoint_url,
        region_name=region,
        aws_access_key_id=access_key_id,
        aws_secret_access_key=secret_access_key,
        config=config,
    )


def default_public_url(bucket: str, endpoint_url: str | None, region: str | None) -> str:
    """Where a public bucket's objects are: under the endpoint, path-style, or AWS's virtual host."""
    if endpoint_url:
        return f"{endpoint_url.rstrip('/')}/{bucket}"
    return f"https://{bucket}.s3.{region or 'us-east-1'}.amazonaws.com"


class S3BlobStore:
    """:class:`.BlobStore` in `bucket`, through the boto3 S3 `client`."""

    def __init__(self, client: Any, bucket: str, public_base_url: str, *, part_size: int = PART_SIZE) -> None:
        if part_size < 5 * 1024 * 1024:
            raise ValueError("S3 parts are at least 5 MiB")
        self.client = client
        self.bucket = bucket
        self.public_base_url = public_base_url.rstrip("/")
        self.part_size = part_size

    def put(self, key: str, chunks: Iterable[bytes], *, max_bytes: int, content_type: str) -> int:
        """One part in memory at a time (:meth:`.BlobStore.put`)."""
        check_key(key)
        upload_id: str | None = None
        parts: list[dict[str, Any]] = []
        buffer = bytearray()
        size = 0
        try:
            for chunk in chunks:
                size += len(chunk)
                if size > max_bytes:
                    raise BlobTooLarge(max_bytes)
                buffer += chunk
                while len(buffer) >= self.part_size:
                    if upload_id is None:
                        upload_id = self._start(key, content_type)
                    parts.append(self._part(key, upload_id, len(parts) + 1, bytes(buffer[: self.part_size])))
                    del buffer[: self.part_size]
            if upload_id is None:
                self.client.put_object(Bucket=self.bucket, Key=key, Body=bytes(buffer), ContentType=content_type)
                return size
            if buffer:
                parts.append(self._part(key, upload_id, len(parts) + 1, bytes(buffer)))
            self.client.complete_multipart_upload(
                Bucket=self.bucket, Key=key, UploadId=upload_id, MultipartUpload={"Parts": parts}
            )
            upload_id = None
            return size
        finally:
            if upload_id is not None:
                self.client.abort_multipart_upload(Bucket=self.bucket, Key=key, UploadId=upload_id)

    def _start(self, key: str, content_type: str) -> str:
        created = self.client.create_multipart_upload(Bucket=self.bucket, Key=key, ContentType=content_type)
        return str(created["UploadId"])

    def _part(self, key: str, upload_id: str, number: int, data: bytes) -> dict[str, Any]:
        sent = self.client.upload_part(Bucket=self.bucket, Key=key, UploadId=upload_id, PartNumber=number, Body=data)
        return {"PartNumber": number, "ETag": sent["ETag"]}

    def open(self, key: str) -> BinaryIO:
        """A buffered, seekable reader over ranged gets (:meth:`.BlobStore.open`)."""
        size = self.size(key)
        if size is None:
            raise BlobNotFound(key)
        return io.BufferedReader(S3Reader(self, key, size), buffer_size=READ_BUFFER)

    def chunks(self, key: str, start: int = 0, end: int | None = None) -> Iterator[bytes]:
        """One ranged get, streamed (:meth:`.BlobStore.chunks`)."""
        if end is not None and end <= start:
            return iter(())
        body = self.get_range(key, start, end)
        return _streamed(body)

    def get_range(self, key: str, start: int, end: int | None) -> Any:
        """The streaming body of the bytes `[start, end)` of the object; BlobNotFound."""
        wanted = f"bytes={start}-" if end is None else f"bytes={start}-{end - 1}"
        try:
            return self.client.get_object(Bucket=self.bucket, Key=check_key(key), Range=wanted)["Body"]
        except Exception as exc:
            if _missing(exc):
                raise BlobNotFound(key) from None
            raise

    def size(self, key: str) -> int | None:
        """`HeadObject`'s length (:meth:`.BlobStore.size`)."""
        try:
            head = self.client.head_object(Bucket=self.bucket, Key=check_key(key))
        except Exception as exc:
            if _missing(exc):
                return None
            raise
        return int(head["ContentLength"])

    def delete(self, key: str) -> None:
        """`DeleteObject`, which S3 answers alike for an absent object (:meth:`.BlobStore.delete`)."""
        self.client.delete_object(Bucket=self.bucket, Key=check_key(key))

    def public_url(self, key: str) -> str:
        """`public_base_url/key` (:meth:`.BlobStore.public_url`)."""
        return f"{self.public_base_url}/{key}"


class S3Reader(io.RawIOBase):
    """An object read by ranged gets, seekable; wrap it in a `BufferedReader` (`S3BlobStore.open`)."""

    def __init__(self, store: S3BlobStore, key: str, size: int) -> None:
        self._store = store
        self._key = key
        self._size = size
        self._position = 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._position

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self._position, io.SEEK_END: self._size}[whence]
        self._position = max(0, base + offset)
        return self._position

    def readinto(self, buffer: Any) -> int:
        view = memoryview(buffer).cast("B")
        if self._position >= self._size or not len(view):
            return 0
        end = min(self._position + len(view), self._size)
        body = self._store.get_range(self._key, self._position, end)
        try:
            data = body.read()
        finally:
            body.close()
        view[: len(data)] = data
        self._position += len(data)
        return len(data)


def _streamed(body: Any) -> Iterator[bytes]:
    try:
        yield from body.iter_chunks(CHUNK_SIZE)
    finally:
        body.close()


def _missing(exc: Exception) -> bool:
    """Whether a botocore error says the object is not there."""
    response = getattr(exc, "response", None)
    code = str(response.get("Error", {}).get("Code", "")) if isinstance(response, dict) else ""
    return code in _MISSING
