"""Media (SPEC 4): list, upload, show, rename and delete the images and videos of the library.

`POST /media` is `streamed`: its form is read as it arrives, the file part passed on to the blob
store piece by piece (`MediaService.stage`), so an upload never sits whole in memory, and a file
past 50 MB is refused while it streams. Its parts may come in any order: a `name` after the file is
applied when the form ends.
"""

from __future__ import annotations

import contextlib

from engage_core.kernel.errors import ValidationFailed
from engage_core.kernel.pagination import Page
from engage_core.media import model as domain
from engage_core.media.service import FILE, StagedMedia
from engage_http.form_stream import StreamedForm
from engage_http.media.schemas import Media, MediaFilters, MediaRename, MediaUploadForm
from engage_http.operations import Call, Operation, Shape, declare

TAG = "Media"

RULES = frozenset({422})
"""Declared in `errors`: a 422 may also answer a form the document calls valid (a file whose content is
not an accepted format, or larger than 50 MB)."""

MEDIA_BODY_MAX = domain.MAX_MEDIA_BYTES + 1024 * 1024
"""The whole form: the 50 MB file and its name, with room for the form's own headers. A request
declaring more is refused with 413 before anything is read; a file part passing 50 MB within it
is a 422 on `file`, like the knowledge base's per-file limits."""

NAME_PART_MAX = 4 * domain.NAME_MAX
"""The largest `name` part in bytes (255 characters of UTF-8)."""


def index(call: Call[None, domain.MediaFilter]) -> Page[domain.MediaFile]:
    assert call.page is not None
    return call.services.media.list(call.account_id, call.query, call.page)


def upload(call: Call[None, None]) -> domain.MediaFile:
    assert call.form is not None
    with contextlib.ExitStack() as cleanup:
        staged, name = _read_form(call, call.form, cleanup)
        return staged.publish(name)


def _read_form(
    call: Call[None, None], form: StreamedForm, cleanup: contextlib.ExitStack
) -> tuple[StagedMedia, str | None]:
    """The staged file and the display name (None: not given), from the parts in whatever order."""
    staged: StagedMedia | None = None
    name: str | None = None
    named = False
    for part in form.parts():
        if part.name == FILE:
            if staged is not None:
                raise ValidationFailed.on(FILE, "The file may be given only once.")
            staged = cleanup.enter_context(
                call.services.media.stage(call.account_id, part.filename or "", part.chunks(), plan=call.plan)
            )
        elif part.name == "name":
            if named:
                raise ValidationFailed.on("name", "The name may be given only once.")
            named = True
            text = part.text(NAME_PART_MAX)
            name = domain.clean_name(text) if text.strip() else None  # a blank field is not given
    if staged is None:
        raise ValidationFailed.on(FILE, "The file field is required.")
    return staged, name


def show(call: Call[None, None]) -> domain.MediaFile:
    return call.services.media.get(call.account_id, call.path["id"])


def rename(call: Call[MediaRename, None]) -> domain.MediaFile:
    return call.services.media.rename(call.account_id, call.path["id"], call.body.name)


def destroy(call: Call[None, None]) -> None:
    call.services.media.delete(call.account_id, call.path["id"])


OPERATIONS: tuple[Operation, ...] = declare(
    Operation(
        "GET",
        "/media",
        index,
        "List media files",
        TAG,
        Media,
        Shape.PAGE,
        message="Media files retrieved.",
        query=MediaFilters,
        page=domain.MEDIA,
        description="Newest first; `type` keeps images or videos, `search` matches the display name or the original "
        "file name (any case).",
    ),
    Operation(
        "POST",
        "/media",
        upload,
        "Upload a media file",
        TAG,
        Media,
        status=201,
        message="Media file uploaded.",
        body=MediaUploadForm,
        errors=RULES,
        form_only=True,
        streamed=True,
        body_limit=MEDIA_BODY_MAX,
        description="`multipart/form-data` with a `file` (JPG, JPEG, PNG, GIF, MP4, AVI, MOV, WMV, FLV or WEBM, at "
        "most 50 MB) and an optional `name`. The format is read from the content (its first bytes, then a decoder: "
        "Pillow for images, FFmpeg for videos), never from the file name: anything else is a 422 on `file`, as is a "
        "file over 50 MB (a body declaring more than that is a 413). Images get `width` and `height` in `metadata`, "
        "videos also `duration`. 403 `plan_limit_reached` when the plan's media file limit is reached. The upload "
        "is streamed to storage, never held in memory; `Idempotency-Key` is not honoured here.",
    ),
    Operation(
        "GET",
        "/media/{id:id}",
        show,
        "Get a media file",
        TAG,
        Media,
        message="Media file retrieved.",
    ),
    Operation(
        "PUT",
        "/media/{id:id}",
        rename,
        "Rename a media file",
        TAG,
        Media,
        message="Media file renamed.",
        body=MediaRename,
        description="Changes the display name only; the stored file and its URL stay as they are.",
    ),
    Operation(
        "DELETE",
        "/media/{id:id}",
        destroy,
        "Delete a media file",
        TAG,
        shape=Shape.NOTHING,
        status=204,
        description="Removes the file from the library, then the stored object (after the commit: a failed delete "
        "loses nothing; an object that cannot be removed at once is removed by the worker's sweep). 403 "
        "`media_uploaded_by_admin` for a file the service operator uploaded.",
    ),
)
