"""Request and response bodies of the media library (SPEC 2 Media file; SPEC 4 Media)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

import attrs

from engage_core.media import model as domain
from engage_core.media.formats import ACCEPTED
from engage_http.constraints import Doc, Text
from engage_http.converter import renders, structures_into
from engage_http.uploads import Upload

MediaType = Literal["image", "video"]
Uploader = Literal["client", "admin"]

Name = Annotated[
    str,
    Text(
        max_length=domain.NAME_MAX,
        pattern=r"^[^\x00-\x1f\x7f]*[^\x00-\x1f\x7f\s][^\x00-\x1f\x7f]*$",
        message="The {field} may not be blank or hold control characters.",
    ),
    Doc(description="The display name: not blank, no control characters.", example="Spring banner"),
]


@renders(domain.MediaFile)
@attrs.frozen
class Media:
    """A file of the media library (SPEC 2)."""

    id: int
    name: str = attrs.field(metadata={"description": "The display name (the original file name unless renamed)."})
    original_name: str = attrs.field(metadata={"description": "The name the file was uploaded under."})
    url: str = attrs.field(metadata={"description": "Where the file is served: public, at an unguessable address."})
    file_type: MediaType
    mime_type: str = attrs.field(metadata={"description": "Read from the content, not the file name."})
    extension: str
    file_size: int = attrs.field(metadata={"description": "In bytes."})
    formatted_size: str = attrs.field(metadata={"description": "The size for people, in steps of 1024: `1.5 MB`."})
    metadata: dict[str, Any] | None = attrs.field(
        metadata={
            "description": "`width` and `height` in pixels, as displayed (a photo's EXIF rotation applied); videos "
            "add `duration` in seconds."
        }
    )
    uploaded_by: Uploader
    is_active: bool
    created_at: datetime
    updated_at: datetime

    @classmethod
    def of(cls, media: domain.MediaFile) -> Media:
        """The body of `media`, built by hand where another body holds it (a product's `media_files`)."""
        return cls(
            id=media.id,
            name=media.name,
            original_name=media.original_name,
            url=media.url,
            file_type=media.file_type,  # type: ignore[arg-type]
            mime_type=media.mime_type,
            extension=media.extension,
            file_size=media.file_size,
            formatted_size=media.formatted_size,
            metadata=None if media.metadata is None else dict(media.metadata),
            uploaded_by=media.uploaded_by,  # type: ignore[arg-type]
            is_active=media.is_active,
            created_at=media.created_at,
            updated_at=media.updated_at,
        )


@structures_into(domain.MediaFilter)
@attrs.frozen
class MediaFilters:
    """Query filters of `GET /media`."""

    type: MediaType | None = None
    search: (
        Annotated[
            str,
            Text(max_length=domain.SEARCH_MAX),
            Doc(description="Part of the display name or of the original file name, in any case.", example="banner"),
        ]
        | None
    ) = None


@attrs.frozen
class MediaUploadForm:
    """A new media file (`multipart/form-data` only)."""

    file: Annotated[
        Upload,
        Doc(
            description=f"The image or video: {ACCEPTED}, at most 50 MB. The format is read from the content, not "
            "the name."
        ),
    ]
    name: Annotated[str, Text(max_length=domain.NAME_MAX)] | None = attrs.field(
        default=None, metadata={"description": "The display name; the file's own name when absent or blank."}
    )


@attrs.frozen
class MediaRename:
    """A new display name; the stored file is unchanged."""

    name: Name
