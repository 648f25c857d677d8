"""Media kept in a local directory, end to end inside the app: `build_app` wires the local blob store
beside the database and serves its files at their public URLs (content type from the content,
ranges for video, 404 for anything unknown), and refuses media settings that cannot work."""

from __future__ import annotations

from pathlib import Path

import pytest
from media_files import image, video
from starlette.testclient import TestClient

from engage_core.settings import Settings
from engage_http.bootstrap import build_app
from engage_http.media_wiring import MediaMisconfigured

APP_URL = "http://testserver"


@pytest.fixture
def served(tmp_path: Path) -> tuple[TestClient, dict[str, str]]:
    """A migrated app over a new SQLite database with media kept beside it, and a workspace's key."""
    settings = Settings.from_env(
        {
            "ENGAGE_DATABASE_URL": f"sqlite:///{tmp_path / 'engage.db'}",
            "ENGAGE_RUN_WORKER": "0",
            "ENGAGE_APP_URL": APP_URL,
        }
    )
    app = build_app(settings)
    key = app.state.services.accounts.create("Acme").api_key
    return TestClient(app), {"X-Api-Key": key}


def _upload(client: TestClient, headers: dict[str, str], filename: str, data: bytes) -> dict[str, object]:
    response = client.post("/api/v1/media", headers=headers, files={"file": (filename, data)})
    assert response.status_code == 201, response.text
    media: dict[str, object] = response.json()["data"]
    return media


def test_an_uploaded_file_is_kept_beside_the_database(
    served: tuple[TestClient, dict[str, str]], tmp_path: Path
) -> None:
    """The object is a file under `engage.db.media/`, named by its URL's path, holding the upload."""
    client, headers = served
    data = image("png")

    media = _upload(client, headers, "logo.png", data)

    url = str(media["url"])
    assert url.startswith(f"{APP_URL}/files/media/")
    assert (tmp_path / "engage.db.media" / url.removeprefix(f"{APP_URL}/files/")).read_bytes() == data


def test_the_public_url_serves_the_file_with_its_type(served: tuple[TestClient, dict[str, str]]) -> None:
    """No key needed; the type is the content's (a PNG named `.jpg` is served as `image/png`), never sniffed,
    and the file may be cached for good."""
    client, headers = served
    data = image("png")
    media = _upload(client, headers, "photo.jpg", data)

    response = client.get(str(media["url"]))

    assert (response.status_code, response.content, response.headers["content-type"]) == (200, data, "image/png")
    assert response.headers["x-content-type-options"] == "nosniff"
    assert "immutable" in response.headers["cache-control"]


def test_a_range_of_a_video_is_a_206(served: tuple[TestClient, dict[str, str]]) -> None:
    """`Range: bytes=100-199` answers 206 with those 100 bytes and their `Content-Range`."""
    client, headers = served
    data = video("mp4", (64, 48), 1.0)
    media = _upload(client, headers, "clip.mp4", data)

    response = client.get(str(media["url"]), headers={"Range": "bytes=100-199"})

    assert (response.status_code, response.content) == (206, data[100:200])
    assert (response.headers["content-range"], response.headers["content-type"]) == (
        f"bytes 100-199/{len(data)}",
        "video/mp4",
    )


def test_a_deleted_file_is_no_longer_served(served: tuple[TestClient, dict[str, str]]) -> None:
    """After `DELETE /media/{id}` its URL answers 404."""
    client, headers = served
    media = _upload(client, headers, "logo.gif", image("gif"))

    client.delete(f"/api/v1/media/{media['id']}", headers=headers)

    assert client.get(str(media["url"])).status_code == 404


@pytest.mark.parametrize(
    "path", ["/files/media/ab/unknown.png", "/files/../engage.db", "/files/.incoming/x.part", "/files/media"]
)
def test_anything_but_a_stored_file_is_a_404(served: tuple[TestClient, dict[str, str]], path: str) -> None:
    """Unknown keys, paths leaving the directory, temporary files and directories all answer 404."""
    client, _ = served

    assert client.get(path).status_code == 404


@pytest.mark.parametrize(
    ("environment", "message"),
    [
        ({"ENGAGE_MEDIA_STORE": "ftp"}, "ENGAGE_MEDIA_STORE must be local or s3"),
        ({"ENGAGE_MEDIA_STORE": "s3"}, "needs ENGAGE_S3_BUCKET"),
    ],
)
def test_unworkable_media_settings_refuse_to_start(tmp_path: Path, environment: dict[str, str], message: str) -> None:
    """An unknown store, or S3 without a bucket, stops the app from being built."""
    settings = Settings.from_env({"ENGAGE_DATABASE_URL": f"sqlite:///{tmp_path / 'engage.db'}", **environment})

    with pytest.raises(MediaMisconfigured, match=message):
        build_app(settings)
