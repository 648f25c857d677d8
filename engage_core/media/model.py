"""Media files: the images and videos of a workspace's library (SPEC 2 Media file, SPEC 4 Media).

- A file is an uploaded image (`jpg`, `jpeg`, `png`, `gif`) or video (`mp4`, `avi`, `mov`, `wmv`,
  `flv`, `webm`) of at most 50 MB (`MAX_MEDIA_BYTES`), its format read from its content
  (`engage_core.media.formats`). Images carry `width` and `height` in `metadata` (as displayed: a
  photo whose EXIF orientation turns it a quarter has them swapped); videos `width`, `height` and
  `duration` (seconds).
- `name` is the display name (the original file name by default) and the one thing that changes;
  `original_name` is the name it was uploaded under, without any directory part. The stored object
  never changes: renaming touches the row only.
- `uploaded_by` is `client` for uploads through the API and `admin` for those of the service
  operator (the CLI). A client may not delete an administrator's file (403, SPEC 7).
- `url` is where the object is served (`BlobStore.public_url`), computed when read, so moving the
  files behind another address needs no change of the rows.
- The plan limits how many files a workspace keeps (`media_files`, SPEC 8).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

import attrs

from engage_core.kernel.errors import ValidationFailed
from engage_core.kernel.pagination import PageLimits
from engage_core.media.formats import IMAGE, VIDEO

FILE_TYPES: tuple[str, ...] = (IMAGE, VIDEO)
CLIENT = "client"
ADMIN = "admin"
UPLOADERS: tuple[str, ...] = (CLIENT, ADMIN)

NAME_MAX = 255
SEARCH_MAX = 255
MAX_MEDIA_BYTES = 50 * 1024 * 1024
"""SPEC 8: "max 50 MB" (MiB, as the knowledge base's "20 MB")."""

MEDIA = PageLimits(default=25)
"""`GET /media` (SPEC 8: default 25, at most 100)."""

KEY_PREFIX = "media"
"""Where media objects are kept in the blob store (`media/...`)."""

_UNITS = ("B", "KB", "MB", "GB", "TB")


def formatted_size(size: int) -> str:
    """A size for people, in steps of 1024, at most two decimals: `532 B`, `1.5 KB`, `50 MB`."""
    value = float(size)
    unit = 0
    while value >= 1024 and unit < len(_UNITS) - 1:
        value /= 1024
        unit += 1
    if unit == 0:
        return f"{size} B"
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return f"{text} {_UNITS[unit]}"


def clean_name(name: str, field: str = "name") -> str:
    """A display name: surrounding spaces trimmed, 1 to `NAME_MAX` characters, no control characters.
    Raises ValidationFailed on `field`."""
    cleaned = name.strip()
    if not cleaned:
        raise ValidationFailed.on(field, f"The {field} may not be blank.")
    if len(cleaned) > NAME_MAX:
        raise ValidationFailed.on(field, f"The {field} may not be longer than {NAME_MAX} characters.")
    if any(ord(c) < 32 or ord(c) == 127 for c in cleaned):
        raise ValidationFailed.on(field, f"The {field} may not hold control characters.")
    return cleaned


def original_name_of(filename: str, extension: str) -> str:
    """The name a file was uploaded under, as kept: its last path segment (browsers have sent
    `C:\\fakepath\\x.jpg`), control characters dropped, at most `NAME_MAX` characters keeping the
    extension; `image.<ext>` style when the upload named none."""
    base = filename.replace("\\", "/").rsplit("/", 1)[-1]
    base = "".join(c for c in base if ord(c) >= 32 and ord(c) != 127).strip()
    if not base or base.strip(".") == "":
        return f"upload.{extension}"
    if len(base) > NAME_MAX:
        stem, dot, ext = base.rpartition(".")
        tail = f"{dot}{ext}" if dot and len(ext) <= 16 else ""
        base = (stem if tail else base)[: NAME_MAX - len(tail)] + tail
    return base


@attrs.frozen
class MediaFile:
    """A file of the library (SPEC 2), with the address it is served at."""

    id: int
    name: str
    original_name: str
    storage_key: str
    url: str
    file_type: str
    mime_type: str
    extension: str
    file_size: int
    metadata: Mapping[str, Any] | None
    uploaded_by: str
    is_active: bool
    created_at: datetime
    updated_at: datetime

    @property
    def formatted_size(self) -> str:
        """`file_size` for people (`2.5 MB`)."""
        return formatted_size(self.file_size)


@attrs.frozen
class StoredMedia:
    """A file as storage keeps it: everything but its URL, which depends on where it is served."""

    id: int
    name: str
    original_name: str
    storage_key: str
    file_type: str
    mime_type: str
    extension: str
    file_size: int
    metadata: Mapping[str, Any] | None
    uploaded_by: str
    is_active: bool
    created_at: datetime
    updated_at: datetime

    def served_at(self, url: str) -> MediaFile:
        """The file with its URL."""
        return MediaFile(
            id=self.id,
            name=self.name,
            original_name=self.original_name,
            storage_key=self.storage_key,
            url=url,
            file_type=self.file_type,
            mime_type=self.mime_type,
            extension=self.extension,
            file_size=self.file_size,
            metadata=self.metadata,
            uploaded_by=self.uploaded_by,
            is_active=self.is_active,
            created_at=self.created_at,
            updated_at=self.updated_at,
        )


@attrs.frozen
class MediaDraft:
    """A stored upload, before its row has an id."""

    name: str
    original_name: str
    storage_key: str
    file_type: str
    mime_type: str
    extension: str
    file_size: int
    metadata: Mapping[str, Any] | None
    uploaded_by: str = CLIENT


@attrs.frozen
class MediaFilter:
    """Filters of `GET /media`: the type, and `search`, a case-insensitive substring of the display
    name or the original file name."""

    type: str | None = None
    search: str | None = None

    def matches(self, media: StoredMedia) -> bool:
        """The reference semantics of the filter (the in-memory store uses it)."""
        if self.type is not None and media.file_type != self.type:
            return False
        if self.search:
            needle = self.search.casefold()
            return needle in media.name.casefold() or needle in media.original_name.casefold()
        return True


def check_filter(filters: MediaFilter) -> MediaFilter:
    """The filter, validated: a known type, a search of at most `SEARCH_MAX` characters (blank: none)."""
    errors: dict[str, list[str]] = {}
    if filters.type is not None and filters.type not in FILE_TYPES:
        errors["type"] = [f"The type must be one of {', '.join(FILE_TYPES)}."]
    search = filters.search.strip() if filters.search else None
    if search and len(search) > SEARCH_MAX:
        errors["search"] = [f"The search may not be longer than {SEARCH_MAX} characters."]
    if errors:
        raise ValidationFailed(errors)
    return MediaFilter(filters.type, search or None)


@attrs.frozen
class MediaProbe:
    """What the decoder read from a file: its displayed size in pixels and, for a video, its length."""

    width: int | None = None
    height: int | None = None
    duration_seconds: float | None = None

    def metadata(self, file_type: str) -> Mapping[str, Any] | None:
        """The file's `metadata` (SPEC 2): `width`, `height`, and a video's `duration`; None when the
        decoder read no size."""
        if self.width is None or self.height is None:
            return None
        found: dict[str, Any] = {"width": self.width, "height": self.height}
        if file_type == VIDEO and self.duration_seconds is not None:
            found["duration"] = round(self.duration_seconds, 3)
        return found


@attrs.frozen
class MediaUpload:
    """An upload as the service takes it: the file name it was sent under, its bytes as they arrive,
    and the display name (None: the original file name)."""

    filename: str
    chunks: Any
    """An iterable of `bytes` pieces, read once, in order."""
    name: str | None = None
