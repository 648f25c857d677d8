"""The media service over the fakes: uploads streamed in pieces and checked by content, the 50 MB
limit while streaming, the plan's limit, names, listing, renames, deletes (an administrator's
upload is kept from clients), and the removal records that leave no orphan."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

import pytest

from engage_core.kernel.errors import Forbidden, NotFound, PlanLimitReached, Unavailable, ValidationFailed
from engage_core.kernel.pagination import PageRequest
from engage_core.media.model import ADMIN, MediaFilter, MediaUpload
from engage_core.media.service import UPLOAD_GRACE, MediaService
from engage_core.plans.model import MEDIA_FILES
from engage_core.plans.plan_service import PlanPatch
from engage_core.services import Services
from engage_core.testing import FakeClock, FakeMediaProber, InMemoryBlobStore, InMemoryUnitOfWorkFactory

PNG = b"\x89PNG\r\n\x1a\n" + bytes(200)
MP4 = b"\x00\x00\x00\x18ftypisom" + bytes(200)
EVERYTHING = PageRequest(1, 100)
LIMIT = 4096


@pytest.fixture
def blobs() -> InMemoryBlobStore:
    return InMemoryBlobStore()


@pytest.fixture
def prober() -> FakeMediaProber:
    return FakeMediaProber()


@pytest.fixture
def media(
    uow: InMemoryUnitOfWorkFactory,
    clock: FakeClock,
    blobs: InMemoryBlobStore,
    prober: FakeMediaProber,
    services: Services,
) -> MediaService:
    """The service with a 4 KiB limit, so the tests can pass it cheaply."""
    return MediaService(uow, clock, blobs, prober, services.entitlements, max_bytes=LIMIT)


def pieces(data: bytes, size: int = 16) -> Iterator[bytes]:
    return (data[i : i + size] for i in range(0, len(data), size))


def removal_due(uow: InMemoryUnitOfWorkFactory, account_id: int) -> object:
    with uow.workspace(account_id, readonly=True) as unit:
        return unit.blob_removals.next_due()


def test_an_upload_is_stored_in_the_pieces_it_came_in(
    media: MediaService, blobs: InMemoryBlobStore, account_id: int
) -> None:
    """The service hands the store the pieces as they come (the first ones joined to read the signature):
    it never gathers the file."""
    uploaded = media.upload(account_id, MediaUpload("logo.png", pieces(PNG)))

    assert (blobs.objects[uploaded.storage_key], blobs.largest_chunk <= 64 + 16) == (PNG, True)


def test_an_upload_has_every_field(media: MediaService, account_id: int, clock: FakeClock) -> None:
    """Name, types, size, metadata from the prober, uploader, and the public URL of its key."""
    uploaded = media.upload(account_id, MediaUpload("clip.mp4", [MP4], name="Intro"))

    assert (uploaded.name, uploaded.original_name, uploaded.file_type, uploaded.mime_type, uploaded.extension) == (
        "Intro",
        "clip.mp4",
        "video",
        "video/mp4",
        "mp4",
    )
    assert (uploaded.file_size, uploaded.formatted_size, dict(uploaded.metadata or {})) == (
        len(MP4),
        "212 B",
        {"width": 1280, "height": 720, "duration": 2.0},
    )
    assert (uploaded.uploaded_by, uploaded.is_active, uploaded.created_at) == ("client", True, clock.now())
    assert uploaded.url == f"https://files.example.com/{uploaded.storage_key}"
    assert uploaded.storage_key.startswith("media/") and uploaded.storage_key.endswith(".mp4")


def test_two_uploads_of_one_file_have_different_keys(media: MediaService, account_id: int) -> None:
    """Keys are random: the same bytes uploaded twice are two objects at two URLs."""
    first, second = (media.upload(account_id, MediaUpload("a.png", [PNG])) for _ in range(2))

    assert first.url != second.url


def test_a_file_one_byte_over_the_limit_is_refused_while_streaming(
    media: MediaService, blobs: InMemoryBlobStore, uow: InMemoryUnitOfWorkFactory, account_id: int
) -> None:
    """A 422 on `file` naming the limit; the rest of the stream is never read, nothing is kept."""
    read: list[int] = []

    def endless() -> Iterator[bytes]:
        yield PNG
        while True:
            read.append(1)
            yield bytes(1024)

    with pytest.raises(ValidationFailed) as refused:
        media.upload(account_id, MediaUpload("huge.png", endless()))

    assert refused.value.errors == {"file": ["The file may not be larger than 4 KB."]}
    assert (len(read) <= LIMIT // 1024 + 1, blobs.objects, removal_due(uow, account_id)) == (True, {}, None)


def test_a_file_the_decoder_refuses_leaves_nothing(
    media: MediaService,
    prober: FakeMediaProber,
    blobs: InMemoryBlobStore,
    uow: InMemoryUnitOfWorkFactory,
    account_id: int,
) -> None:
    """A signature the decoder does not confirm is a 422 with its reason; the stored object is removed."""
    prober.refuse(PNG[:8])

    with pytest.raises(ValidationFailed, match="not a readable PNG"):
        media.upload(account_id, MediaUpload("logo.png", [PNG]))

    assert (blobs.objects, removal_due(uow, account_id)) == ({}, None)


def test_content_that_is_no_accepted_format_is_never_stored(
    media: MediaService, blobs: InMemoryBlobStore, prober: FakeMediaProber, account_id: int
) -> None:
    """A program named `.png` is refused from its first bytes: nothing reaches the store or the decoder."""
    with pytest.raises(ValidationFailed, match="read from its content"):
        media.upload(account_id, MediaUpload("cat.png", [b"\x7fELF\x02\x01\x01" + bytes(100)]))

    assert (blobs.objects, prober.probed) == ({}, [])


def test_a_bad_name_is_refused_before_the_file_is_read(
    media: MediaService, blobs: InMemoryBlobStore, account_id: int
) -> None:
    """A blank display name is a 422 on `name`, before any byte is stored."""
    with pytest.raises(ValidationFailed) as refused:
        media.upload(account_id, MediaUpload("logo.png", [PNG], name="  "))

    assert (list(refused.value.errors), blobs.objects) == (["name"], {})


def test_a_full_library_is_refused_before_the_file_is_read(
    media: MediaService, services: Services, blobs: InMemoryBlobStore, account_id: int
) -> None:
    """At the plan's media file limit an upload is a 403 naming it, and nothing is read or stored."""
    services.plans.update("business", PlanPatch(limits={MEDIA_FILES: 1}))
    media.upload(account_id, MediaUpload("one.png", [PNG]))

    def unread() -> Iterator[bytes]:
        raise AssertionError("the file was read")
        yield b""

    with pytest.raises(PlanLimitReached) as refused:
        media.upload(account_id, MediaUpload("two.png", unread()))

    assert (refused.value.limit, refused.value.maximum, len(blobs.objects)) == (MEDIA_FILES, 1, 1)


def test_a_library_filled_meanwhile_refuses_at_publish_and_keeps_nothing(
    media: MediaService, services: Services, blobs: InMemoryBlobStore, account_id: int
) -> None:
    """Two uploads staged at once for the last place: the second to publish is refused, its object removed."""
    services.plans.update("business", PlanPatch(limits={MEDIA_FILES: 1}))
    first = media.stage(account_id, "a.png", [PNG])
    second = media.stage(account_id, "b.png", [PNG])
    with first:
        first.publish()

    with pytest.raises(PlanLimitReached), second:
        second.publish()

    assert list(blobs.objects) == [first.key]


def test_an_upload_that_outlived_the_grace_is_refused(
    media: MediaService, blobs: InMemoryBlobStore, account_id: int, clock: FakeClock
) -> None:
    """An upload whose object was staged more than the grace ago belongs to the sweep: a 503 to retry."""
    staged = media.stage(account_id, "a.png", [PNG])
    clock.advance(seconds=UPLOAD_GRACE.total_seconds())

    with pytest.raises(Unavailable, match="took too long"), staged:
        staged.publish()

    assert blobs.objects == {}


def test_the_list_is_newest_first_and_filtered(media: MediaService, account_id: int, clock: FakeClock) -> None:
    """Newest first; `type` and `search` (either name, any case) narrow it."""
    logo = media.upload(account_id, MediaUpload("logo.png", [PNG], name="Brand"))
    clock.advance(seconds=1)
    clip = media.upload(account_id, MediaUpload("summer-intro.mp4", [MP4]))

    def ids(filters: MediaFilter) -> list[int]:
        return [m.id for m in media.list(account_id, filters, EVERYTHING).items]

    assert ids(MediaFilter()) == [clip.id, logo.id]
    assert (ids(MediaFilter(type="image")), ids(MediaFilter(search="SUMMER")), ids(MediaFilter(search="bra"))) == (
        [logo.id],
        [clip.id],
        [logo.id],
    )


def test_a_rename_keeps_the_object(
    media: MediaService, blobs: InMemoryBlobStore, account_id: int, clock: FakeClock
) -> None:
    """The name and `updated_at` change; the key, URL and object stay."""
    uploaded = media.upload(account_id, MediaUpload("logo.png", [PNG]))
    clock.advance(minutes=1)

    renamed = media.rename(account_id, uploaded.id, "Brand")

    assert (renamed.name, renamed.url, renamed.updated_at, list(blobs.objects)) == (
        "Brand",
        uploaded.url,
        clock.now(),
        [uploaded.storage_key],
    )


def test_another_accounts_file_is_not_found(media: MediaService, account_id: int, new_account: object) -> None:
    """Reading, renaming or deleting another account's file is NotFound."""
    other = new_account("Other")  # type: ignore[operator]
    theirs = media.upload(other, MediaUpload("logo.png", [PNG]))

    for attempt in (
        lambda: media.get(account_id, theirs.id),
        lambda: media.rename(account_id, theirs.id, "Mine"),
        lambda: media.delete(account_id, theirs.id),
    ):
        with pytest.raises(NotFound):
            attempt()
    assert media.get(other, theirs.id).name == "logo.png"


def test_a_client_cannot_delete_an_administrators_upload(
    media: MediaService, blobs: InMemoryBlobStore, account_id: int
) -> None:
    """403 `media_uploaded_by_admin` for a client; the operator (`deleted_by=admin`) may."""
    uploaded = media.upload(account_id, MediaUpload("terms.png", [PNG]), uploaded_by=ADMIN)

    with pytest.raises(Forbidden) as refused:
        media.delete(account_id, uploaded.id)
    assert (refused.value.code, list(blobs.objects)) == ("media_uploaded_by_admin", [uploaded.storage_key])

    media.delete(account_id, uploaded.id, deleted_by=ADMIN)
    assert blobs.objects == {}


def test_a_failed_commit_of_a_delete_keeps_the_file(
    media: MediaService, blobs: InMemoryBlobStore, uow: InMemoryUnitOfWorkFactory, account_id: int
) -> None:
    """When the row's deletion is not committed, the object is untouched: the file is still whole."""
    uploaded = media.upload(account_id, MediaUpload("logo.png", [PNG]))
    real_commit = type(uow.workspace(account_id)).commit

    def failing_commit(self: object) -> None:
        raise OSError("disk full")

    type(uow.workspace(account_id)).commit = failing_commit  # type: ignore[method-assign]
    try:
        with pytest.raises(OSError, match="disk full"):
            media.delete(account_id, uploaded.id)
    finally:
        type(uow.workspace(account_id)).commit = real_commit  # type: ignore[method-assign]

    assert (media.get(account_id, uploaded.id).id, blobs.objects[uploaded.storage_key]) == (uploaded.id, PNG)


def test_the_sweep_waits_for_the_grace_of_a_crashed_upload(
    media: MediaService, blobs: InMemoryBlobStore, account_id: int, clock: FakeClock
) -> None:
    """An object staged and never published (the process died) is kept through the grace, then swept."""
    media.stage(account_id, "a.png", [PNG])
    clock.advance(minutes=59)
    assert (media.sweep(account_id), len(blobs.objects)) == (timedelta(minutes=1), 1)

    clock.advance(minutes=1)
    assert (media.sweep(account_id), blobs.objects) == (None, {})
