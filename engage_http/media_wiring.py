"""The composition root's media wiring: the blob store of `ENGAGE_MEDIA_STORE` and the checker of uploads.

Uploaded media are kept by a local directory by default (`ENGAGE_MEDIA_DIR`, else `<database
file>.media` beside a SQLite database), whose files the app serves at `ENGAGE_MEDIA_URL` (by default
`<ENGAGE_APP_URL>/files`), or by an S3-compatible bucket (`ENGAGE_S3_*`, the `s3` extra). Uploads are
checked by Pillow and PyAV (the `media` extra), imported at the first upload; without them every
service but media uploads works. Part of the composition root (`bootstrap.py`): it imports the
adapters.
"""

from __future__ import annotations

import importlib.util
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

from engage_connectors.blobs import LocalBlobStore
from engage_core.kernel.errors import EngageError
from engage_core.media.formats import MediaFormat
from engage_core.media.model import MediaProbe
from engage_core.settings import Settings
from engage_http.media.files import FILES_PREFIX
from engage_sql import Database

if TYPE_CHECKING:  # imported where used: optional extras
    from engage_connectors.blobs.s3 import S3BlobStore
    from engage_connectors.media_probe import PillowAvMediaProber

logger = logging.getLogger("engage.media_wiring")


class MediaMisconfigured(EngageError):
    """The `ENGAGE_MEDIA_*` and `ENGAGE_S3_*` settings do not make a working blob store."""


MEDIA_STORES = ("local", "s3")


def check_media_settings(settings: Settings) -> None:
    """Refuse an unknown `ENGAGE_MEDIA_STORE`, and S3 without its bucket or without boto3."""
    if settings.media_store not in MEDIA_STORES:
        raise MediaMisconfigured(f"ENGAGE_MEDIA_STORE must be local or s3, not {settings.media_store!r}.")
    if settings.media_store == "s3":
        if not settings.s3_bucket:
            raise MediaMisconfigured("ENGAGE_MEDIA_STORE=s3 needs ENGAGE_S3_BUCKET.")
        try:
            import boto3  # noqa: F401
        except ImportError as exc:
            raise MediaMisconfigured(
                "ENGAGE_MEDIA_STORE=s3 needs the boto3 package: pip install 'engage-platform[s3]'"
            ) from exc


def media_directory(settings: Settings, database: Database) -> Path:
    """`ENGAGE_MEDIA_DIR`; else `<database file>.media` beside a SQLite database (as its development
    key), or `./engage-media` (PostgreSQL, or an in-memory SQLite)."""
    if settings.media_dir:
        return Path(settings.media_dir)
    url = database.engine.url
    if url.get_backend_name() == "sqlite" and url.database and url.database != ":memory:":
        return Path(url.database + ".media")
    directory = Path("engage-media").resolve()
    logger.info(
        "ENGAGE_MEDIA_DIR is not set: media files are kept in %s. Every engage process of this deployment "
        "(servers and workers) must use the same directory: set ENGAGE_MEDIA_DIR, or ENGAGE_MEDIA_STORE=s3.",
        directory,
    )
    return directory


def blob_store(settings: Settings, database: Database) -> LocalBlobStore | S3BlobStore:
    """The blob store of `ENGAGE_MEDIA_STORE`: the local directory (served at `ENGAGE_MEDIA_URL`, by
    default `<ENGAGE_APP_URL>/files`), or the S3 bucket of `ENGAGE_S3_*`."""
    check_media_settings(settings)
    if settings.media_store == "local":
        base = settings.media_url or settings.app_url.rstrip("/") + FILES_PREFIX
        return LocalBlobStore(media_directory(settings, database), base)
    from engage_connectors.blobs.s3 import S3BlobStore, default_public_url, s3_client

    assert settings.s3_bucket is not None
    client = s3_client(
        endpoint_url=settings.s3_endpoint_url,
        region=settings.s3_region,
        access_key_id=settings.s3_access_key_id,
        secret_access_key=settings.s3_secret_access_key,
    )
    public = settings.s3_public_url or default_public_url(
        settings.s3_bucket, settings.s3_endpoint_url, settings.s3_region
    )
    return S3BlobStore(client, settings.s3_bucket, public)


class DeferredMediaProber:
    """The checker of media uploads (Pillow and PyAV), imported at the first upload: a server
    process (or a CLI command) that never receives one does not pay for loading them."""

    def __init__(self) -> None:
        self._prober: PillowAvMediaProber | None = None

    def probe(self, source: BinaryIO, media_format: MediaFormat) -> MediaProbe:
        if self._prober is None:
            from engage_connectors.media_probe import PillowAvMediaProber

            self._prober = PillowAvMediaProber()
        return self._prober.probe(source, media_format)


def media_prober() -> DeferredMediaProber | None:
    """The checker of media uploads, or None when the `media` extra (Pillow, PyAV) is not installed
    (then every service but media uploads works). Found without importing either."""
    if importlib.util.find_spec("PIL") is None or importlib.util.find_spec("av") is None:
        return None
    return DeferredMediaProber()


def media_ports(settings: Settings, database: Database) -> dict[str, Any]:
    """The blob store and, when installed, the media prober, as `Services.build` takes them."""
    ports: dict[str, Any] = {"blobs": blob_store(settings, database)}
    prober = media_prober()
    if prober is not None:
        ports["media_prober"] = prober
    return ports
