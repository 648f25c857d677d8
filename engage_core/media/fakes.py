"""In-memory fakes of the media library's ports: its rows, its removal records, and a prober that
trusts the signature (`engage_core.testing.InMemoryBlobStore` holds the objects)."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from datetime import datetime
from typing import BinaryIO

import attrs

from engage_core.kernel.memory import FakeArea, Repo, Tables
from engage_core.kernel.pagination import Page, PageRequest, paginate
from engage_core.media.formats import VIDEO, MediaFormat
from engage_core.media.model import MediaDraft, MediaFilter, MediaProbe, StoredMedia
from engage_core.media.ports import ProbeFailed


@attrs.define
class MediaTables(Tables):
    """The media area's rows, by table: files by id, removal records by key."""

    media_files: dict[int, tuple[int, StoredMedia]] = attrs.Factory(dict)
    media_blob_removals: dict[str, tuple[int, datetime]] = attrs.Factory(dict)


class _Repo(Repo):
    @property
    def _t(self) -> MediaTables:
        """This area's tables, as the transaction sees them."""
        return self._state.of(MediaTables)


class InMemoryMediaRepository(_Repo):
    """The in-memory :class:`.MediaRepository`."""

    def add(self, draft: MediaDraft, now: datetime) -> StoredMedia:
        """In memory, as :meth:`.MediaRepository.add`."""
        media = StoredMedia(
            id=self._store.next_id(),
            name=draft.name,
            original_name=draft.original_name,
            storage_key=draft.storage_key,
            file_type=draft.file_type,
            mime_type=draft.mime_type,
            extension=draft.extension,
            file_size=draft.file_size,
            metadata=None if draft.metadata is None else dict(draft.metadata),
            uploaded_by=draft.uploaded_by,
            is_active=True,
            created_at=now,
            updated_at=now,
        )
        self._t.media_files[media.id] = (self._account, media)
        return media

    def get(self, media_id: int) -> StoredMedia | None:
        """In memory, as :meth:`.MediaRepository.get`."""
        row = self._t.media_files.get(media_id)
        return None if row is None or row[0] != self._account else row[1]

    def get_many(self, media_ids: Collection[int]) -> Mapping[int, StoredMedia]:
        """In memory, as :meth:`.MediaRepository.get_many`."""
        return {i: media for i in media_ids if (media := self.get(i)) is not None}

    def find(self, filters: MediaFilter, page: PageRequest) -> Page[StoredMedia]:
        """In memory, as :meth:`.MediaRepository.find`."""
        found = sorted(
            (m for account, m in self._t.media_files.values() if account == self._account and filters.matches(m)),
            key=lambda m: (m.created_at, m.id),
            reverse=True,
        )
        return paginate(found, page)

    def rename(self, media_id: int, name: str, now: datetime) -> StoredMedia | None:
        """In memory, as :meth:`.MediaRepository.rename`."""
        media = self.get(media_id)
        if media is None:
            return None
        renamed = attrs.evolve(media, name=name, updated_at=now)
        self._t.media_files[media_id] = (self._account, renamed)
        return renamed

    def delete(self, media_id: int) -> bool:
        """In memory, as :meth:`.MediaRepository.delete`."""
        if self.get(media_id) is None:
            return False
        del self._t.media_files[media_id]
        return True

    def count(self) -> int:
        """In memory, as :meth:`.MediaRepository.count`."""
        return sum(1 for account, _ in self._t.media_files.values() if account == self._account)


class InMemoryBlobRemovalRepository(_Repo):
    """The in-memory :class:`.BlobRemovalRepository`."""

    def schedule(self, key: str, remove_after: datetime) -> None:
        """In memory, as :meth:`.BlobRemovalRepository.schedule`."""
        self._t.media_blob_removals[key] = (self._account, remove_after)

    def cancel(self, key: str, now: datetime) -> bool:
        """In memory, as :meth:`.BlobRemovalRepository.cancel`."""
        row = self._t.media_blob_removals.get(key)
        if row is None or row[0] != self._account or row[1] <= now:
            return False
        del self._t.media_blob_removals[key]
        return True

    def due(self, now: datetime, limit: int) -> Sequence[str]:
        """In memory, as :meth:`.BlobRemovalRepository.due`."""
        mine = sorted(
            (when, key)
            for key, (account, when) in self._t.media_blob_removals.items()
            if account == self._account and when <= now
        )
        return [key for _, key in mine[:limit]]

    def remove(self, keys: Sequence[str]) -> None:
        """In memory, as :meth:`.BlobRemovalRepository.remove`."""
        for key in keys:
            row = self._t.media_blob_removals.get(key)
            if row is not None and row[0] == self._account:
                del self._t.media_blob_removals[key]

    def next_due(self) -> datetime | None:
        """In memory, as :meth:`.BlobRemovalRepository.next_due`."""
        return min(
            (when for account, when in self._t.media_blob_removals.values() if account == self._account), default=None
        )


class FakeMediaProber:
    """A :class:`.MediaProber` that believes the signature: every image is `image_size`, every video
    `video_size` lasting `video_seconds`; a name in `refused` (matched against the file's first bytes
    by `refuse(head)`) fails. `probed` lists the formats it was asked about."""

    def __init__(
        self,
        image_size: tuple[int, int] = (640, 480),
        video_size: tuple[int, int] = (1280, 720),
        video_seconds: float = 2.0,
    ) -> None:
        self.image_size = image_size
        self.video_size = video_size
        self.video_seconds = video_seconds
        self.refused: list[bytes] = []
        self.probed: list[str] = []

    def refuse(self, head: bytes) -> None:
        """Fail every file that starts with `head`, as a damaged file would."""
        self.refused.append(head)

    def probe(self, source: BinaryIO, media_format: MediaFormat) -> MediaProbe:
        """The configured size (:meth:`.MediaProber.probe`); ProbeFailed for a refused file."""
        self.probed.append(media_format.extension)
        start = source.read(64)
        if any(start.startswith(head) for head in self.refused):
            raise ProbeFailed(f"The file is not a readable {media_format.extension.upper()} file.")
        if media_format.file_type == VIDEO:
            return MediaProbe(*self.video_size, self.video_seconds)
        return MediaProbe(*self.image_size)


AREA = FakeArea(
    MediaTables,
    workspace={
        "media": InMemoryMediaRepository,
        "blob_removals": InMemoryBlobRemovalRepository,
    },
)
