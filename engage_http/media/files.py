"""The files of the local blob store, served at their public URLs (`/files/<key>`).

Served by `engage serve` when the media are kept in a local directory (`LocalBlobStore`); with S3 the
URLs point at the bucket instead. A key's random token is what makes a file private to those given
its URL, so the route needs no key, and an unknown key is a plain 404. The content type comes from
the key's extension, which the upload set from the content (`engage_core.media.formats`); files are
served with `X-Content-Type-Options: nosniff` and a sandboxing `Content-Security-Policy`, and cached
for a year (a key is never reused). Range requests are answered with 206 (Starlette's `FileResponse`),
so a video player can seek.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from starlette.requests import Request
from starlette.responses import FileResponse, Response
from starlette.routing import Route

from engage_core.kernel.errors import NotFound
from engage_core.media.formats import BY_EXTENSION, extension_of
from engage_http.errors import engage_error_response

FILES_PREFIX = "/files"
CACHE_CONTROL = "public, max-age=31536000, immutable"
_HEADERS = {
    "Cache-Control": CACHE_CONTROL,
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": "default-src 'none'; sandbox",
}


class LocalFiles(Protocol):
    """Where the local blob store keeps each object (`engage_connectors.blobs.LocalBlobStore`)."""

    def local_path(self, key: str) -> Path | None:
        """The file of the object `key`, or None when there is none."""


AUDIO_TYPES = {"m4a": "audio/mp4"}
"""Stored objects that are not media uploads: synthesised speech (`engage_core.voice`)."""


def content_type(key: str) -> str:
    """The MIME type of a stored object, by its key's extension."""
    extension = extension_of(key)
    known = BY_EXTENSION.get(extension)
    if known is not None:
        return known.mime_type
    return AUDIO_TYPES.get(extension, "application/octet-stream")


def file_routes(files: LocalFiles) -> list[Route]:
    """`GET` and `HEAD /files/{key}`."""

    async def serve(request: Request) -> Response:
        key: str = request.path_params["key"]
        path = files.local_path(key)
        if path is None:
            return engage_error_response(NotFound("File"))
        return FileResponse(path, media_type=content_type(key), headers=_HEADERS)

    return [Route(FILES_PREFIX + "/{key:path}", serve, methods=["GET", "HEAD"], name="files")]
