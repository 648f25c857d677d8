"""What the media library needs: storage of its rows and of the objects waiting to be removed, and a
decoder that checks what an upload is."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from datetime import datetime
from typing import BinaryIO, Protocol

from engage_core.kernel.pagination import Page, PageRequest
from engage_core.media.formats import MediaFormat
from engage_core.media.model import MediaDraft, MediaFilter, MediaProbe, StoredMedia


class MediaRepository(Protocol):
    """The media files of one account."""

    def add(self, draft: MediaDraft, now: datetime) -> StoredMedia:
        """Store a new file (`is_active` true, `created_at` = `updated_at` = `now`)."""

    def get(self, media_id: int) -> StoredMedia | None:
        """The file `media_id`, or None."""

    def get_many(self, media_ids: Collection[int]) -> Mapping[int, StoredMedia]:
        """The files among `media_ids` that are the account's, by id (one query; others left out)."""

    def find(self, filters: MediaFilter, page: PageRequest) -> Page[StoredMedia]:
        """One page of the files `filters` matches, newest first (`created_at`, then `id`, descending)."""

    def rename(self, media_id: int, name: str, now: datetime) -> StoredMedia | None:
        """Set the display name (and `updated_at`); the file as it is now, or None when there is none."""

    def delete(self, media_id: int) -> bool:
        """Remove the row (not the object); False when there was none."""

    def count(self) -> int:
        """How many files the account keeps (the `media_files` plan limit)."""


class BlobRemovalRepository(Protocol):
    """Stored objects to remove once due, unless cancelled first: the record that makes every object
    without a row found again after a crash (`engage_core.media.service`).

    An upload records its object's key, due after a grace period, before storing it, and cancels the
    record in the transaction that adds the file's row; a delete records the key, due at once, in the
    transaction that deletes the row. The sweep removes the due objects and then their records."""

    def schedule(self, key: str, remove_after: datetime) -> None:
        """Record that the object `key` is to be removed from `remove_after` on."""

    def cancel(self, key: str, now: datetime) -> bool:
        """Forget the record of `key` while it is not yet due (`remove_after > now`): the object is
        kept. False when there is no such record (none, or already due: the sweep owns it)."""

    def due(self, now: datetime, limit: int) -> Sequence[str]:
        """Up to `limit` keys due by `now`, earliest first."""

    def remove(self, keys: Sequence[str]) -> None:
        """Forget the records of `keys` (their objects are gone)."""

    def next_due(self) -> datetime | None:
        """When the earliest record is due, or None when there is none."""


class MediaRepositories(Protocol):
    """What a workspace unit of work hands out for the media library."""

    @property
    def media(self) -> MediaRepository:
        """The account's media files."""

    @property
    def blob_removals(self) -> BlobRemovalRepository:
        """The account's objects waiting to be removed."""


class ProbeFailed(Exception):
    """The file is not what its signature claims, or cannot be read; `reason` is for the uploader."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class MediaProber(Protocol):
    """Checks an upload with a decoder and reads its dimensions (`engage_connectors.media_probe`:
    Pillow for images, PyAV for videos)."""

    def probe(self, source: BinaryIO, media_format: MediaFormat) -> MediaProbe:
        """Open `source` (seekable) as `media_format` and read its displayed width and height (and a
        video's duration). Raises ProbeFailed when it is not such a file."""
