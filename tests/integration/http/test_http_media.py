"""The media library over HTTP (SPEC 4 Media): uploads checked by content with the real decoders
(Pillow, PyAV), the list with its filters and pages, show, rename, delete, and their refusals."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest
from http_support import Api, Tenant
from media_files import executable, image, rotated_jpeg, video

from engage_connectors.media_probe import PillowAvMediaProber
from engage_core.media.model import MediaUpload
from engage_core.plans.plan_service import PlanPatch
from engage_core.services import Services
from engage_core.testing import InMemoryBlobStore, InMemoryUnitOfWorkFactory

MEDIA = "/media"


@pytest.fixture
def media_prober() -> PillowAvMediaProber:
    """The decoders `engage serve` uses, instead of the fake."""
    return PillowAvMediaProber()


def upload(api: Api, filename: str, data: bytes, **fields: str) -> Any:
    return api.post(MEDIA, data=fields, files={"file": (filename, data, "application/octet-stream")})


def form(*parts: tuple[str, str | None, bytes], boundary: str = "engage-test-boundary") -> tuple[bytes, dict[str, str]]:
    """A multipart body with the parts in the order given: (field, file name or None, bytes)."""
    body = b""
    for name, filename, data in parts:
        disposition = f'form-data; name="{name}"' + (f'; filename="{filename}"' if filename else "")
        body += f"--{boundary}\r\nContent-Disposition: {disposition}\r\n\r\n".encode() + data + b"\r\n"
    body += f"--{boundary}--\r\n".encode()
    return body, {"Content-Type": f"multipart/form-data; boundary={boundary}"}


def removals(uow: InMemoryUnitOfWorkFactory, account_id: int) -> Any:
    with uow.workspace(account_id, readonly=True) as unit:
        return unit.blob_removals.next_due()


# -- uploads -------------------------------------------------------------------------------------


def test_an_image_upload_answers_201_with_every_field(api: Api, blobs: InMemoryBlobStore) -> None:
    """The response is the SPEC 2 media file: names, URL, type, size (formatted), metadata, uploader."""
    data = image("png", (120, 80))

    response = upload(api, "logo.png", data)

    body = response.json()
    media = body["data"]
    assert (response.status_code, body["message"]) == (201, "Media file uploaded.")
    assert {k: v for k, v in media.items() if k not in ("id", "url", "created_at", "updated_at")} == {
        "name": "logo.png",
        "original_name": "logo.png",
        "file_type": "image",
        "mime_type": "image/png",
        "extension": "png",
        "file_size": len(data),
        "formatted_size": f"{len(data)} B",
        "metadata": {"width": 120, "height": 80},
        "uploaded_by": "client",
        "is_active": True,
    }
    [key] = blobs.objects
    assert (media["url"], blobs.objects[key]) == (blobs.public_url(key), data)


def test_the_name_field_sets_the_display_name(api: Api) -> None:
    """`name` is the display name; `original_name` keeps the file's."""
    media = upload(api, "IMG_0042.jpg", image("jpg"), name="Storefront").json()["data"]

    assert (media["name"], media["original_name"]) == ("Storefront", "IMG_0042.jpg")


def test_a_name_sent_after_the_file_still_counts(api: Api) -> None:
    """Parts may come in any order: a `name` after the `file` is applied."""
    body, headers = form(("file", "a.gif", image("gif")), ("name", None, b"Animated"))

    response = api.post(MEDIA, content=body, headers=headers)

    assert (response.status_code, response.json()["data"]["name"]) == (201, "Animated")


def test_a_photo_turned_by_exif_has_its_sides_swapped(api: Api) -> None:
    """A 64x48 JPEG whose EXIF says to turn it a quarter is 48 wide and 64 high."""
    media = upload(api, "portrait.jpg", rotated_jpeg((64, 48), 6)).json()["data"]

    assert media["metadata"] == {"width": 48, "height": 64}


@pytest.mark.parametrize(
    ("fmt", "mime_type"),
    [("mp4", "video/mp4"), ("mov", "video/quicktime"), ("avi", "video/x-msvideo"), ("webm", "video/webm")],
)
def test_a_video_has_its_size_and_duration(api: Api, fmt: str, mime_type: str) -> None:
    """A video's metadata holds its frame size and its length in seconds."""
    media = upload(api, f"clip.{fmt}", video(fmt, (96, 64), 1.5)).json()["data"]

    assert (media["file_type"], media["mime_type"], media["extension"]) == ("video", mime_type, fmt)
    assert (media["metadata"]["width"], media["metadata"]["height"]) == (96, 64)
    assert media["metadata"]["duration"] == pytest.approx(1.5, abs=0.15)


def test_the_type_comes_from_the_content_not_the_name(api: Api) -> None:
    """A PNG named `photo.jpg` is stored as a PNG."""
    media = upload(api, "photo.jpg", image("png")).json()["data"]

    assert (media["mime_type"], media["extension"], media["original_name"]) == ("image/png", "png", "photo.jpg")


def test_a_renamed_executable_is_refused_and_nothing_is_kept(
    api: Api, tenant: Tenant, blobs: InMemoryBlobStore, uow: InMemoryUnitOfWorkFactory
) -> None:
    """A program named `cat.jpg` is a 422 on `file`; no object and no removal record remain."""
    response = upload(api, "cat.jpg", executable())

    assert response.status_code == 422
    assert "read from its content" in response.json()["errors"]["file"][0]
    assert (blobs.objects, removals(uow, tenant.account_id)) == ({}, None)


def test_a_file_its_decoder_refuses_is_refused_and_removed(
    api: Api, tenant: Tenant, blobs: InMemoryBlobStore, uow: InMemoryUnitOfWorkFactory
) -> None:
    """A cut-off MP4 passes the signature check but not FFmpeg's: a 422, and its stored object is removed."""
    response = upload(api, "clip.mp4", video("mp4")[:400])

    assert (response.status_code, response.json()["errors"]["file"]) == (422, ["The file is not a readable MP4 file."])
    assert (blobs.objects, removals(uow, tenant.account_id)) == ({}, None)


def test_an_empty_file_is_refused(api: Api) -> None:
    """A file part without bytes is a 422."""
    response = upload(api, "empty.png", b"")

    assert (response.status_code, response.json()["errors"]) == (422, {"file": ["The file is empty."]})


def test_a_form_without_a_file_is_refused(api: Api) -> None:
    """The `file` part is required."""
    body, headers = form(("name", None, b"Nothing"))

    response = api.post(MEDIA, content=body, headers=headers)

    assert (response.status_code, response.json()["errors"]) == (422, {"file": ["The file field is required."]})


def test_a_json_body_is_refused(api: Api) -> None:
    """The upload takes `multipart/form-data` only."""
    response = api.post(MEDIA, json={"name": "x"})

    assert (response.status_code, response.json()["message"]) == (422, "Send the request as multipart/form-data.")


def test_a_blank_name_is_the_file_name(api: Api) -> None:
    """An empty `name` field counts as not given, as HTML forms send it."""
    media = upload(api, "banner.gif", image("gif"), name="").json()["data"]

    assert media["name"] == "banner.gif"


def test_a_name_too_long_is_refused_and_nothing_is_kept(api: Api, blobs: InMemoryBlobStore) -> None:
    """A 256-character name is a 422 on `name`; the file sent with it is not kept."""
    response = upload(api, "logo.png", image("png"), name="x" * 256)

    assert (response.status_code, list(response.json()["errors"]), blobs.objects) == (422, ["name"], {})


def test_the_plans_media_file_limit_is_a_403(api: Api, services: Services, blobs: InMemoryBlobStore) -> None:
    """With the plan's one media file taken, the next upload answers 403 `plan_limit_reached`."""
    services.plans.update("business", PlanPatch(limits={"media_files": 1}))
    upload(api, "one.png", image("png"))

    response = upload(api, "two.png", image("png"))

    assert (response.status_code, response.json()["code"], len(blobs.objects)) == (403, "plan_limit_reached", 1)


def test_an_upload_without_a_key_reads_nothing(anonymous: Api, blobs: InMemoryBlobStore) -> None:
    """401 before the body is read: nothing is stored."""
    response = upload(anonymous, "logo.png", image("png"))

    assert (response.status_code, blobs.objects) == (401, {})


# -- reading -------------------------------------------------------------------------------------


@pytest.fixture
def library(services: Services, tenant: Tenant) -> Callable[..., int]:
    """`library(filename, data, name=None) -> id`: a file uploaded through the service."""

    def add(filename: str, data: bytes, name: str | None = None) -> int:
        return services.media.upload(tenant.account_id, MediaUpload(filename, [data], name)).id

    return add


def test_the_list_is_newest_first_with_its_meta(api: Api, library: Callable[..., int]) -> None:
    """Default page of 25, newest first, with `meta`."""
    first, second = library("a.png", image("png")), library("b.gif", image("gif"))

    body = api.get(MEDIA).json()

    assert [m["id"] for m in body["data"]] == [second, first]
    assert body["meta"] == {"current_page": 1, "per_page": 25, "total": 2, "last_page": 1}


def test_the_list_filters_by_type_and_searches_both_names(api: Api, library: Callable[..., int]) -> None:
    """`type=video` keeps videos; `search` matches the display or the original name, in any case."""
    clip = library("intro.mp4", video("mp4"), name="Welcome")
    banner = library("holiday-banner.png", image("png"), name="Sale")

    assert [m["id"] for m in api.get(MEDIA, params={"type": "video"}).json()["data"]] == [clip]
    assert [m["id"] for m in api.get(MEDIA, params={"search": "HOLIDAY"}).json()["data"]] == [banner]
    assert [m["id"] for m in api.get(MEDIA, params={"search": "welc"}).json()["data"]] == [clip]


def test_per_page_is_capped_at_100(api: Api) -> None:
    """`per_page=500` lists 100 a page."""
    assert api.get(MEDIA, params={"per_page": 500}).json()["meta"]["per_page"] == 100


def test_an_unknown_type_is_a_422(api: Api) -> None:
    """Only `image` and `video` are types."""
    assert api.get(MEDIA, params={"type": "audio"}).status_code == 422


def test_a_file_is_shown_by_id(api: Api, library: Callable[..., int]) -> None:
    """`GET /media/{id}` is the file."""
    media_id = library("logo.png", image("png"))

    response = api.get(f"{MEDIA}/{media_id}")

    assert (response.status_code, response.json()["data"]["id"]) == (200, media_id)


def test_an_unknown_file_is_a_404(api: Api) -> None:
    """An id that names no file answers 404."""
    assert api.get(f"{MEDIA}/999999").status_code == 404


# -- renaming and deleting -----------------------------------------------------------------------


def test_a_rename_changes_the_name_only(api: Api, library: Callable[..., int]) -> None:
    """The name changes; the URL, the original name and the size stay."""
    media_id = library("logo.png", image("png"))
    before = api.get(f"{MEDIA}/{media_id}").json()["data"]

    renamed = api.put(f"{MEDIA}/{media_id}", json={"name": "  Brand logo "}).json()["data"]

    assert renamed["name"] == "Brand logo"
    assert {k: renamed[k] for k in ("url", "original_name", "file_size")} == {
        k: before[k] for k in ("url", "original_name", "file_size")
    }


@pytest.mark.parametrize("body", [{}, {"name": ""}, {"name": "x" * 256}])
def test_a_rename_needs_a_name(api: Api, library: Callable[..., int], body: dict[str, str]) -> None:
    """A missing, blank or too long name is a 422 on `name`."""
    media_id = library("logo.png", image("png"))

    response = api.put(f"{MEDIA}/{media_id}", json=body)

    assert (response.status_code, list(response.json()["errors"])) == (422, ["name"])


def test_a_delete_removes_the_file_and_its_object(
    api: Api, library: Callable[..., int], blobs: InMemoryBlobStore
) -> None:
    """204; the file is gone from the API and its object from the store."""
    media_id = library("logo.png", image("png"))

    response = api.delete(f"{MEDIA}/{media_id}")

    assert (response.status_code, response.content) == (204, b"")
    assert (api.get(f"{MEDIA}/{media_id}").status_code, blobs.objects) == (404, {})


def test_an_administrators_upload_cannot_be_deleted(
    api: Api, services: Services, tenant: Tenant, blobs: InMemoryBlobStore
) -> None:
    """A file the operator uploaded answers 403 `media_uploaded_by_admin` and stays."""
    media = services.media.upload(tenant.account_id, MediaUpload("terms.png", [image("png")]), uploaded_by="admin")

    response = api.delete(f"{MEDIA}/{media.id}")

    assert (response.status_code, response.json()["code"]) == (403, "media_uploaded_by_admin")
    assert list(blobs.objects) == [media.storage_key]


# -- the document ----------------------------------------------------------------------------------


def test_the_upload_is_documented_as_a_form(client: Any) -> None:
    """The OpenAPI document describes `POST /media` as `multipart/form-data` with a binary `file`, and
    without `Idempotency-Key`."""
    document = client.get("/api/v1/openapi.json").json()
    post = document["paths"]["/api/v1/media"]["post"]

    content = post["requestBody"]["content"]
    schema = document["components"]["schemas"][content["multipart/form-data"]["schema"]["$ref"].rsplit("/", 1)[1]]
    assert (list(content), schema["required"], schema["properties"]["file"]["contentMediaType"]) == (
        ["multipart/form-data"],
        ["file"],
        "application/octet-stream",
    )
    assert [p["name"] for p in post.get("parameters", [])] == []


def test_uploads_run_on_threads_of_their_own(api: Api, media_prober: PillowAvMediaProber, monkeypatch: Any) -> None:
    """An upload is handled on the uploads' pool, so slow uploads never take the threads other writes need."""
    threads: list[str] = []
    probe = media_prober.probe

    def recording(*args: Any) -> Any:
        threads.append(threading.current_thread().name)
        return probe(*args)

    monkeypatch.setattr(media_prober, "probe", recording)

    assert upload(api, "logo.png", image("png")).status_code == 201
    assert [name.split("_")[0] for name in threads] == ["engage-upload"]
