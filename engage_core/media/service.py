"""The media library's use cases (SPEC 4 Media): list, upload, show, rename, delete, and the sweep
that removes stored objects no row refers to.

An upload is streamed into the `BlobStore` as it arrives (never held whole in memory); its first
bytes name its format (`formats.sniff`), and a decoder checks it and reads its size
(`MediaProber`) before its row is added. The object and the row cannot be written in one
transaction, so each gap between them is covered by a record in the database
(`BlobRemovalRepository`), written before the object is touched:

- upload: a record of the new key, due after `UPLOAD_GRACE`, is committed before the object is
  stored; the transaction that adds the row cancels it. A crash between the two leaves the record,
  and the sweep removes the object once the grace has passed. An upload still unfinished then is
  refused (its record is the sweep's).
- delete: the transaction that deletes the row records the key, due at once; after the commit the
  object is removed and the record with it. A failed commit loses no file (the object is removed
  only once the row is gone for good); a crash after it leaves the record, and the sweep finishes.

Each such transaction also queues the account's sweep job (`media.sweep`, one at a time per
account) for when its record falls due, so the worker finds every record again.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from datetime import datetime, timedelta
from types import TracebackType
from typing import Self

from engage_core.jobs.model import JobRequest
from engage_core.kernel.blobs import BlobStore, BlobTooLarge, new_key
from engage_core.kernel.clock import Clock
from engage_core.kernel.errors import Forbidden, NotFound, Unavailable, ValidationFailed
from engage_core.kernel.pagination import Page, PageRequest
from engage_core.media.formats import ACCEPTED, HEAD_BYTES, MediaFormat, sniff
from engage_core.media.model import (
    ADMIN,
    CLIENT,
    KEY_PREFIX,
    MAX_MEDIA_BYTES,
    UPLOADERS,
    MediaDraft,
    MediaFile,
    MediaFilter,
    MediaProbe,
    MediaUpload,
    StoredMedia,
    check_filter,
    clean_name,
    formatted_size,
    original_name_of,
)
from engage_core.media.ports import MediaProber, ProbeFailed
from engage_core.plans.entitlements import Entitlements, PlanLimits
from engage_core.plans.model import MEDIA_FILES, Plan
from engage_core.unit_of_work import UnitOfWorkFactory, WorkspaceUnitOfWork

log = logging.getLogger("engage.media")

SWEEP_JOB = "media.sweep"
SWEEP_KEY = "blobs"
UPLOAD_GRACE = timedelta(hours=1)
"""How long an upload may take from its first byte to its row: its object is an orphan after that."""
SWEEP_BATCH = 100

FILE = "file"
_NOT_MEDIA = f"The file must be one of {ACCEPTED} (read from its content, not its name)."


class MediaService:
    """The media library of a workspace."""

    def __init__(
        self,
        uow: UnitOfWorkFactory,
        clock: Clock,
        blobs: BlobStore,
        prober: MediaProber,
        entitlements: Entitlements | None = None,
        *,
        max_bytes: int = MAX_MEDIA_BYTES,
        grace: timedelta = UPLOAD_GRACE,
    ) -> None:
        self._uow = uow
        self._clock = clock
        self._blobs = blobs
        self._prober = prober
        self._limits = PlanLimits(entitlements)
        self._max_bytes = max_bytes
        self._grace = grace

    # -- reading ------------------------------------------------------------------------------------

    def list(self, account_id: int, filters: MediaFilter, page: PageRequest) -> Page[MediaFile]:
        """`GET /media`: one page, newest first, of the files of a type and whose display or original
        name holds `search` (case-insensitive)."""
        checked = check_filter(filters)
        with self._uow.workspace(account_id, readonly=True) as uow:
            found = uow.media.find(checked, page)
        return found.map(self._served)

    def get(self, account_id: int, media_id: int) -> MediaFile:
        """`GET /media/{id}` (:class:`.NotFound` for an unknown file or another account's)."""
        with self._uow.workspace(account_id, readonly=True) as uow:
            return self._served(_media_of(uow, media_id))

    def many(self, account_id: int, media_ids: Collection[int]) -> Mapping[int, MediaFile]:
        """The account's files among `media_ids`, by id, in one read (products render their linked
        files with it: one lookup per page of products)."""
        if not media_ids:
            return {}
        with self._uow.workspace(account_id, readonly=True) as uow:
            found = uow.media.get_many(media_ids)
        return {media_id: self._served(stored) for media_id, stored in found.items()}

    # -- uploading ----------------------------------------------------------------------------------

    def upload(
        self, account_id: int, data: MediaUpload, *, uploaded_by: str = CLIENT, plan: Plan | None = None
    ) -> MediaFile:
        """`POST /media`: store the file and add it to the library. Raises :class:`.ValidationFailed`
        on `file` (not an accepted format by its content, larger than 50 MB, unreadable) or `name`,
        and :class:`.PlanLimitReached` (403) when the library is full; nothing is then kept.
        `plan`: the plan in force, when the caller has just read it."""
        name = None if data.name is None else clean_name(data.name)
        with self.stage(account_id, data.filename, data.chunks, uploaded_by=uploaded_by, plan=plan) as staged:
            return staged.publish(name)

    def stage(
        self,
        account_id: int,
        filename: str,
        chunks: Iterable[bytes],
        *,
        uploaded_by: str = CLIENT,
        plan: Plan | None = None,
    ) -> StagedMedia:
        """Stream one file into the store and check it, without adding it yet: the first half of
        `upload`, for callers that learn the display name after the file (a form whose `name` part
        follows its `file`). Use the result in a `with` block and `publish` it there; leaving the
        block without publishing removes the object."""
        if uploaded_by not in UPLOADERS:
            raise ValueError(f"uploaded_by must be one of {', '.join(UPLOADERS)}, not {uploaded_by!r}")
        plan = self._limits.plan_of(account_id, plan)
        if plan is not None:  # refuse a full library before reading 50 MB of it
            with self._uow.workspace(account_id, readonly=True) as uow:
                plan.check_room(MEDIA_FILES, uow.media.count())
        pieces = iter(chunks)
        head = _head(pieces)
        if not head:
            raise ValidationFailed.on(FILE, "The file is empty.")
        media_format = sniff(head)
        if media_format is None:
            raise ValidationFailed.on(FILE, _NOT_MEDIA)
        key = new_key(KEY_PREFIX, media_format.extension)
        now = self._clock.now()
        with self._uow.workspace(account_id) as uow:
            self._schedule_removal(uow, key, now + self._grace)
            uow.commit()
        staged = StagedMedia(self, account_id, key, media_format, filename, uploaded_by, plan)
        with staged.discarded_on_error():
            try:
                staged.size = self._blobs.put(
                    key, itertools.chain([head], pieces), max_bytes=self._max_bytes, content_type=media_format.mime_type
                )
            except BlobTooLarge:
                too_large = f"The file may not be larger than {formatted_size(self._max_bytes)}."
                raise ValidationFailed.on(FILE, too_large) from None
            staged.probe = self._probe(key, media_format)
        return staged

    def _probe(self, key: str, media_format: MediaFormat) -> MediaProbe:
        try:
            with self._blobs.open(key) as source:
                return self._prober.probe(source, media_format)
        except ProbeFailed as failure:
            raise ValidationFailed.on(FILE, failure.reason) from None

    def _publish(self, staged: StagedMedia, name: str | None) -> MediaFile:
        """Add the staged file's row, cancelling its removal record in the same transaction."""
        media_format = staged.media_format
        original = original_name_of(staged.filename, media_format.extension)
        draft = MediaDraft(
            name=clean_name(name) if name is not None else clean_name(original),
            original_name=original,
            storage_key=staged.key,
            file_type=media_format.file_type,
            mime_type=media_format.mime_type,
            extension=media_format.extension_for(original),
            file_size=staged.size,
            metadata=staged.probe.metadata(media_format.file_type),
            uploaded_by=staged.uploaded_by,
        )
        now = self._clock.now()
        with self._uow.workspace(staged.account_id) as uow:
            self._limits.reserve(uow, staged.plan, MEDIA_FILES, now)
            if not uow.blob_removals.cancel(staged.key, now):
                raise Unavailable("The upload took too long and was discarded. Send it again.")
            stored = uow.media.add(draft, now)
            uow.commit()
        return self._served(stored)

    def _discard(self, account_id: int, key: str) -> None:
        """Remove a staged object that will not be published, and its record; best effort: what is
        left is the sweep's."""
        try:
            self._blobs.delete(key)
            with self._uow.workspace(account_id) as uow:
                uow.blob_removals.cancel(key, self._clock.now())
                uow.commit()
        except Exception:
            log.warning("The discarded upload %s could not be removed; the sweep will.", key, exc_info=True)

    # -- changing -----------------------------------------------------------------------------------

    def rename(self, account_id: int, media_id: int, name: str) -> MediaFile:
        """`PUT /media/{id}`: a new display name; the stored file is untouched."""
        cleaned = clean_name(name)
        with self._uow.workspace(account_id) as uow:
            renamed = uow.media.rename(media_id, cleaned, self._clock.now())
            if renamed is None:
                raise NotFound("Media file")
            uow.commit()
        return self._served(renamed)

    def delete(self, account_id: int, media_id: int, *, deleted_by: str = CLIENT) -> None:
        """`DELETE /media/{id}`: the row, then the stored object; products linking the file lose the
        link in the same transaction. A client may not delete an administrator's upload
        (:class:`.Forbidden`, code `media_uploaded_by_admin`)."""
        now = self._clock.now()
        with self._uow.workspace(account_id) as uow:
            media = _media_of(uow, media_id)
            if media.uploaded_by == ADMIN and deleted_by != ADMIN:
                raise Forbidden(
                    "This media file was uploaded by an administrator and cannot be deleted.",
                    code="media_uploaded_by_admin",
                )
            uow.media.delete(media_id)
            uow.products.unlink_media(media_id, now)
            self._schedule_removal(uow, media.storage_key, now)
            uow.commit()
        # Committed: the row is gone for good, so the object may go. A failure here is the sweep's.
        try:
            self._remove_objects(account_id, [media.storage_key])
        except Exception:
            log.warning(
                "The object of deleted media %d could not be removed yet; the sweep will.", media_id, exc_info=True
            )

    # -- the sweep ----------------------------------------------------------------------------------

    def sweep(self, account_id: int) -> timedelta | None:
        """Remove the account's objects whose removal is due (orphans of crashed uploads and deletes),
        then their records. Returns how long until the next record falls due, or None when none is
        left."""
        while True:
            now = self._clock.now()
            with self._uow.workspace(account_id, readonly=True) as uow:
                due = list(uow.blob_removals.due(now, SWEEP_BATCH))
            if due:
                self._remove_objects(account_id, due)
            if len(due) < SWEEP_BATCH:
                break
        with self._uow.workspace(account_id, readonly=True) as uow:
            next_due = uow.blob_removals.next_due()
        return None if next_due is None else max(next_due - self._clock.now(), timedelta(0))

    def _remove_objects(self, account_id: int, keys: Sequence[str]) -> None:
        for key in keys:
            self._blobs.delete(key)
        with self._uow.workspace(account_id) as uow:
            uow.blob_removals.remove(keys)
            uow.commit()

    def _schedule_removal(self, uow: WorkspaceUnitOfWork, key: str, remove_after: datetime) -> None:
        """Record the removal, and make sure the account's sweep job is queued (one at a time: an
        earlier one defers itself to the next record when it runs)."""
        uow.blob_removals.schedule(key, remove_after)
        uow.jobs.enqueue(JobRequest(SWEEP_JOB, key=SWEEP_KEY, run_at=remove_after), self._clock.now())

    def _served(self, stored: StoredMedia) -> MediaFile:
        return stored.served_at(self._blobs.public_url(stored.storage_key))


class StagedMedia:
    """A file stored and checked but not yet in the library (`MediaService.stage`)."""

    def __init__(
        self,
        service: MediaService,
        account_id: int,
        key: str,
        media_format: MediaFormat,
        filename: str,
        uploaded_by: str,
        plan: Plan | None,
    ) -> None:
        self._service = service
        self.account_id = account_id
        self.key = key
        self.media_format = media_format
        self.filename = filename
        self.uploaded_by = uploaded_by
        self.plan = plan
        self.size = 0
        self.probe = MediaProbe()
        self.published: MediaFile | None = None

    def publish(self, name: str | None = None) -> MediaFile:
        """Add the file to the library under `name` (None: its original file name). Raises
        :class:`.PlanLimitReached` when the library filled up meanwhile."""
        if self.published is None:
            self.published = self._service._publish(self, name)
        return self.published

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self.published is None:
            self._service._discard(self.account_id, self.key)

    @contextlib.contextmanager
    def discarded_on_error(self) -> Iterator[None]:
        """Discard the object when the block raises."""
        try:
            yield
        except BaseException:
            self._service._discard(self.account_id, self.key)
            raise


def _head(pieces: Iterator[bytes]) -> bytes:
    """The first `HEAD_BYTES` of the stream (or all of a shorter one), and whatever more the piece
    that completed them held."""
    head = b""
    for piece in pieces:
        head += piece
        if len(head) >= HEAD_BYTES:
            break
    return head


def _media_of(uow: WorkspaceUnitOfWork, media_id: int) -> StoredMedia:
    media = uow.media.get(media_id)
    if media is None:
        raise NotFound("Media file")
    return media
