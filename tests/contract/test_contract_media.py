"""The media library on every adapter: its rows (round trip, newest first, type and name filters,
pages, renames, deletes, counts, all scoped to the account), the removal records, and the service
over them: no object outlives its row, whichever step a crash interrupts."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import pytest
from support import NOW

from engage_core.jobs.ports import JobQueue
from engage_core.jobs.runner import JobRunner
from engage_core.kernel.blobs import new_key
from engage_core.kernel.errors import PlanLimitReached
from engage_core.kernel.pagination import PageRequest
from engage_core.media.model import MediaDraft, MediaFilter, MediaUpload
from engage_core.media.service import SWEEP_JOB, UPLOAD_GRACE, MediaService
from engage_core.media.sweep import sweep_job
from engage_core.plans.model import MEDIA_FILES
from engage_core.plans.plan_service import PlanPatch
from engage_core.services import Services
from engage_core.testing import FakeClock, FakeMediaProber, InMemoryBlobStore
from engage_core.unit_of_work import UnitOfWorkFactory

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 200
MP4 = b"\x00\x00\x00\x18ftypisom" + b"\x00" * 200
EVERYTHING = PageRequest(1, 100)


@pytest.fixture
def other(make_account: Callable[..., int]) -> int:
    return make_account("Other")


@pytest.fixture
def blobs() -> InMemoryBlobStore:
    return InMemoryBlobStore()


@pytest.fixture
def media(uow: UnitOfWorkFactory, clock: FakeClock, blobs: InMemoryBlobStore, services: Services) -> MediaService:
    return MediaService(uow, clock, blobs, FakeMediaProber(), services.entitlements)


def _draft(name: str = "Logo", original: str = "logo.png", file_type: str = "image") -> MediaDraft:
    return MediaDraft(
        name=name,
        original_name=original,
        storage_key=new_key("media", "png"),
        file_type=file_type,
        mime_type="image/png" if file_type == "image" else "video/mp4",
        extension="png" if file_type == "image" else "mp4",
        file_size=2048,
        metadata={"width": 640, "height": 480},
    )


def _add(uow: UnitOfWorkFactory, account: int, *drafts: MediaDraft, clock: FakeClock | None = None) -> list[int]:
    ids = []
    for draft in drafts:
        with uow.workspace(account) as unit:
            ids.append(unit.media.add(draft, clock.advance(seconds=1) if clock else NOW).id)
            unit.commit()
    return ids


def _names(uow: UnitOfWorkFactory, account: int, filters: MediaFilter, page: PageRequest = EVERYTHING) -> list[str]:
    with uow.workspace(account, readonly=True) as unit:
        return [m.name for m in unit.media.find(filters, page).items]


# -- the rows ------------------------------------------------------------------------------------


def test_a_media_file_reads_back_with_every_field(uow: UnitOfWorkFactory, account: int) -> None:
    """Every field of a stored file survives the round trip, `metadata` included."""
    draft = _draft()
    with uow.workspace(account) as unit:
        stored = unit.media.add(draft, NOW)
        unit.commit()

    with uow.workspace(account, readonly=True) as unit:
        read = unit.media.get(stored.id)
    assert read == stored
    assert read is not None
    assert (read.name, read.original_name, read.storage_key, read.file_size, dict(read.metadata or {})) == (
        "Logo",
        "logo.png",
        draft.storage_key,
        2048,
        {"width": 640, "height": 480},
    )
    assert (read.uploaded_by, read.is_active, read.created_at, read.updated_at) == ("client", True, NOW, NOW)


def test_files_are_listed_newest_first(uow: UnitOfWorkFactory, account: int, clock: FakeClock) -> None:
    """The latest upload comes first."""
    _add(uow, account, _draft("First"), _draft("Second"), _draft("Third"), clock=clock)

    assert _names(uow, account, MediaFilter()) == ["Third", "Second", "First"]


def test_the_type_filter_keeps_one_type(uow: UnitOfWorkFactory, account: int, clock: FakeClock) -> None:
    """`type=video` lists videos only."""
    _add(uow, account, _draft("Photo"), _draft("Clip", "clip.mp4", "video"), clock=clock)

    assert _names(uow, account, MediaFilter(type="video")) == ["Clip"]


@pytest.mark.parametrize(("search", "expected"), [("BANNER", ["Banner"]), ("holiday", ["Banner"]), ("%", [])])
def test_search_matches_the_display_or_original_name(
    uow: UnitOfWorkFactory, account: int, clock: FakeClock, search: str, expected: list[str]
) -> None:
    """Search is a case-insensitive substring of either name; `%` matches itself only."""
    _add(uow, account, _draft("Banner", "holiday-sale.png"), _draft("Logo", "logo.png"), clock=clock)

    assert _names(uow, account, MediaFilter(search=search)) == expected


def test_pages_slice_the_list_and_count_every_match(uow: UnitOfWorkFactory, account: int, clock: FakeClock) -> None:
    """Page 2 of size 2 holds the third and fourth newest; the total counts all five."""
    _add(uow, account, *(_draft(f"File {n}") for n in range(5)), clock=clock)

    with uow.workspace(account, readonly=True) as unit:
        page = unit.media.find(MediaFilter(), PageRequest(2, 2))
    assert ([m.name for m in page.items], page.total, page.last_page) == (["File 2", "File 1"], 5, 3)


def test_a_rename_changes_the_name_and_the_update_time(uow: UnitOfWorkFactory, account: int) -> None:
    """Only `name` and `updated_at` change; the search finds the new name."""
    [media_id] = _add(uow, account, _draft("Old"))
    later = NOW + timedelta(minutes=5)
    with uow.workspace(account) as unit:
        renamed = unit.media.rename(media_id, "Spring banner", later)
        unit.commit()

    assert renamed is not None
    assert (renamed.name, renamed.original_name, renamed.updated_at, renamed.created_at) == (
        "Spring banner",
        "logo.png",
        later,
        NOW,
    )
    assert _names(uow, account, MediaFilter(search="spring")) == ["Spring banner"]


def test_another_accounts_file_is_invisible(uow: UnitOfWorkFactory, account: int, other: int) -> None:
    """Another account's file is not read, listed, counted, renamed or deleted."""
    [theirs] = _add(uow, other, _draft())

    with uow.workspace(account) as unit:
        seen = (
            unit.media.get(theirs),
            unit.media.find(MediaFilter(), EVERYTHING).total,
            unit.media.count(),
            unit.media.rename(theirs, "Mine", NOW),
            unit.media.delete(theirs),
        )
        unit.commit()
    assert seen == (None, 0, 0, None, False)
    with uow.workspace(other, readonly=True) as unit:
        assert unit.media.get(theirs) is not None


def test_a_deleted_file_is_gone(uow: UnitOfWorkFactory, account: int) -> None:
    """The first delete says True, the row is gone, and a second delete says False."""
    [media_id] = _add(uow, account, _draft())
    with uow.workspace(account) as unit:
        first = unit.media.delete(media_id)
        second = unit.media.delete(media_id)
        unit.commit()

    with uow.workspace(account, readonly=True) as unit:
        assert (first, second, unit.media.get(media_id), unit.media.count()) == (True, False, None, 0)


# -- removal records ----------------------------------------------------------------------------------


def test_a_record_cancelled_before_it_is_due_is_gone(uow: UnitOfWorkFactory, account: int) -> None:
    """`cancel` before `remove_after` forgets it; nothing is due later."""
    with uow.workspace(account) as unit:
        unit.blob_removals.schedule("media/ab/abc.png", NOW + timedelta(hours=1))
        cancelled = unit.blob_removals.cancel("media/ab/abc.png", NOW)
        unit.commit()

    with uow.workspace(account, readonly=True) as unit:
        assert (cancelled, unit.blob_removals.due(NOW + timedelta(days=1), 10)) == (True, [])


def test_a_due_record_cannot_be_cancelled(uow: UnitOfWorkFactory, account: int) -> None:
    """Once due the record is the sweep's: `cancel` says False and leaves it."""
    with uow.workspace(account) as unit:
        unit.blob_removals.schedule("media/ab/abc.png", NOW)
        cancelled = unit.blob_removals.cancel("media/ab/abc.png", NOW)
        unit.commit()

    with uow.workspace(account, readonly=True) as unit:
        assert (cancelled, unit.blob_removals.due(NOW, 10)) == (False, ["media/ab/abc.png"])


def test_due_records_come_earliest_first_up_to_the_limit(uow: UnitOfWorkFactory, account: int) -> None:
    """Only records due by `now`, earliest first, at most `limit`; `next_due` is the earliest of all."""
    with uow.workspace(account) as unit:
        unit.blob_removals.schedule("media/b/late.png", NOW - timedelta(minutes=1))
        unit.blob_removals.schedule("media/a/early.png", NOW - timedelta(minutes=5))
        unit.blob_removals.schedule("media/c/mid.png", NOW - timedelta(minutes=3))
        unit.blob_removals.schedule("media/d/later.png", NOW + timedelta(minutes=5))
        unit.commit()

    with uow.workspace(account, readonly=True) as unit:
        assert unit.blob_removals.due(NOW, 2) == ["media/a/early.png", "media/c/mid.png"]
        assert unit.blob_removals.next_due() == NOW - timedelta(minutes=5)


def test_removed_records_are_forgotten(uow: UnitOfWorkFactory, account: int) -> None:
    """`remove` drops the named records and keeps the others; `next_due` is None once all are gone."""
    with uow.workspace(account) as unit:
        unit.blob_removals.schedule("media/a/one.png", NOW)
        unit.blob_removals.schedule("media/b/two.png", NOW)
        unit.blob_removals.remove(["media/a/one.png"])
        unit.commit()
    with uow.workspace(account) as unit:
        left = unit.blob_removals.due(NOW, 10)
        unit.blob_removals.remove(left)
        unit.commit()

    with uow.workspace(account, readonly=True) as unit:
        assert (left, unit.blob_removals.next_due()) == (["media/b/two.png"], None)


def test_another_accounts_records_are_not_seen(uow: UnitOfWorkFactory, account: int, other: int) -> None:
    """Another account's record is neither due, cancelled nor removed here."""
    with uow.workspace(other) as unit:
        unit.blob_removals.schedule("media/a/theirs.png", NOW + timedelta(hours=1))
        unit.commit()
    with uow.workspace(account) as unit:
        seen = (unit.blob_removals.due(NOW + timedelta(days=1), 10), unit.blob_removals.next_due())
        cancelled = unit.blob_removals.cancel("media/a/theirs.png", NOW)
        unit.blob_removals.remove(["media/a/theirs.png"])
        unit.commit()

    assert (seen, cancelled) == (([], None), False)
    with uow.workspace(other, readonly=True) as unit:
        assert unit.blob_removals.next_due() == NOW + timedelta(hours=1)


# -- the service: no orphan, whichever step fails --------------------------------------------------------


def test_an_upload_keeps_its_object_and_no_record(
    media: MediaService, blobs: InMemoryBlobStore, uow: UnitOfWorkFactory, account: int
) -> None:
    """After an upload the object is stored under the row's key, and nothing is left to remove."""
    uploaded = media.upload(account, MediaUpload("logo.png", [PNG]))

    assert blobs.objects == {uploaded.storage_key: PNG}
    with uow.workspace(account, readonly=True) as unit:
        assert unit.blob_removals.next_due() is None


def test_a_delete_removes_the_row_and_the_object(
    media: MediaService, blobs: InMemoryBlobStore, uow: UnitOfWorkFactory, account: int
) -> None:
    """Both are gone, and no record is left."""
    uploaded = media.upload(account, MediaUpload("clip.mp4", [MP4]))

    media.delete(account, uploaded.id)

    with uow.workspace(account, readonly=True) as unit:
        assert (unit.media.get(uploaded.id), unit.blob_removals.next_due(), blobs.objects) == (None, None, {})


def test_an_object_the_store_could_not_delete_is_swept_later(
    media: MediaService, blobs: InMemoryBlobStore, uow: UnitOfWorkFactory, account: int
) -> None:
    """A delete whose object removal fails still succeeds; once the store answers, the sweep removes it."""
    uploaded = media.upload(account, MediaUpload("logo.png", [PNG]))
    blobs.fail_deletes()
    media.delete(account, uploaded.id)
    assert list(blobs.objects) == [uploaded.storage_key]

    blobs.recover()
    wait = media.sweep(account)

    assert (blobs.objects, wait) == ({}, None)


def test_a_crashed_uploads_object_is_swept_after_the_grace(
    media: MediaService, blobs: InMemoryBlobStore, uow: UnitOfWorkFactory, account: int, clock: FakeClock
) -> None:
    """An upload that stored its object but died before its row: kept through the grace, then swept."""
    staged = media.stage(account, "logo.png", [PNG])  # the process dies here: never published nor discarded
    assert media.sweep(account) == UPLOAD_GRACE
    assert list(blobs.objects) == [staged.key]

    clock.advance(seconds=UPLOAD_GRACE.total_seconds())
    assert (media.sweep(account), blobs.objects) == (None, {})


def test_the_sweep_job_removes_what_a_failed_delete_left(
    media: MediaService, blobs: InMemoryBlobStore, account: int, job_queue: JobQueue, clock: FakeClock
) -> None:
    """The delete queued the account's sweep job; the worker running it removes the object."""
    uploaded = media.upload(account, MediaUpload("logo.png", [PNG]))
    clock.advance(seconds=UPLOAD_GRACE.total_seconds())  # the upload's own sweep job is due as well
    blobs.fail_deletes()
    media.delete(account, uploaded.id)
    blobs.recover()

    runner = JobRunner(job_queue, {SWEEP_JOB: sweep_job(media)}, clock)
    ran = runner.run_once()

    assert (ran, blobs.objects) == (1, {})


def test_an_upload_past_the_plan_limit_keeps_nothing(
    media: MediaService, blobs: InMemoryBlobStore, services: Services, uow: UnitOfWorkFactory, account: int
) -> None:
    """With the plan's media files taken, an upload is refused (403) and leaves no object or record."""
    services.plans.update("business", PlanPatch(limits={MEDIA_FILES: 1}))
    media.upload(account, MediaUpload("logo.png", [PNG]))

    with pytest.raises(PlanLimitReached):
        media.upload(account, MediaUpload("banner.png", [PNG]))

    assert len(blobs.objects) == 1
    with uow.workspace(account, readonly=True) as unit:
        assert (unit.media.count(), unit.blob_removals.next_due()) == (1, None)
