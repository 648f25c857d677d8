"""`engage media ...` on a temporary SQLite database: uploading a file from disk as the operator,
listing, showing, renaming and deleting, with the files kept beside the database."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result
from media_files import executable, image, video

RunCli = Callable[..., Result]
NewAccount = Callable[..., dict[str, Any]]


@pytest.fixture
def account_id(create_account: NewAccount) -> int:
    created: int = create_account("Acme")["account_id"]
    return created


@pytest.fixture
def upload(run_cli: RunCli, account_id: int, tmp_path: Path) -> Callable[..., dict[str, Any]]:
    """`upload(filename, data, *options) -> the media file as JSON`."""

    def run(filename: str, data: bytes, *options: str) -> dict[str, Any]:
        path = tmp_path / filename
        path.write_bytes(data)
        result = run_cli("media", "upload", str(account_id), str(path), *options, "--json")
        assert result.exit_code == 0, result.output
        uploaded: dict[str, Any] = json.loads(result.stdout)
        return uploaded

    return run


def test_upload_adds_an_administrators_file_kept_beside_the_database(
    upload: Callable[..., dict[str, Any]], tmp_path: Path
) -> None:
    """The file is checked, measured, marked `admin`, and its object is under `engage.db.media/`."""
    data = image("jpg", (40, 30))

    media = upload("photo.jpg", data, "--name", "Storefront")

    assert (media["name"], media["uploaded_by"], media["mime_type"], media["metadata"]) == (
        "Storefront",
        "admin",
        "image/jpeg",
        {"width": 40, "height": 30},
    )
    [stored] = list((tmp_path / "engage.db.media").rglob("*.jpg"))
    assert stored.read_bytes() == data


def test_a_program_is_refused(run_cli: RunCli, account_id: int, tmp_path: Path) -> None:
    """A renamed executable fails with the reason, and nothing is added."""
    path = tmp_path / "cat.png"
    path.write_bytes(executable())

    result = run_cli("media", "upload", str(account_id), str(path))

    assert result.exit_code == 1
    assert "read from its content" in result.output
    assert "No media files." in run_cli("media", "list", str(account_id)).output


def test_list_shows_each_file_newest_first(
    upload: Callable[..., dict[str, Any]], run_cli: RunCli, account_id: int
) -> None:
    """One line per file (id, type, size, name), newest first; `--type` filters."""
    logo = upload("logo.png", image("png"))
    clip = upload("clip.mp4", video("mp4"))

    listed = run_cli("media", "list", str(account_id))
    videos = run_cli("media", "list", str(account_id), "--type", "video", "--json")

    assert [line.split("\t")[0] for line in listed.stdout.splitlines()] == [str(clip["id"]), str(logo["id"])]
    assert [m["id"] for m in json.loads(videos.stdout)] == [clip["id"]]


def test_rename_and_show(upload: Callable[..., dict[str, Any]], run_cli: RunCli, account_id: int) -> None:
    """`rename --name` changes the display name, which `show` then prints."""
    media = upload("logo.png", image("png"))

    run_cli("media", "rename", str(account_id), str(media["id"]), "--name", "Brand")
    shown = json.loads(run_cli("media", "show", str(account_id), str(media["id"]), "--json").stdout)

    assert (shown["name"], shown["url"]) == ("Brand", media["url"])


def test_delete_removes_an_administrators_file_and_its_object(
    upload: Callable[..., dict[str, Any]], run_cli: RunCli, account_id: int, tmp_path: Path
) -> None:
    """The operator may delete what the operator uploaded; the file on disk goes with it."""
    media = upload("logo.png", image("png"))

    result = run_cli("media", "delete", str(account_id), str(media["id"]))

    assert (result.exit_code, result.output) == (0, f"Deleted media file {media['id']}.\n")
    assert list((tmp_path / "engage.db.media").rglob("*.png")) == []


def test_an_unknown_file_is_an_error(run_cli: RunCli, account_id: int) -> None:
    """`show` of an id that names no file fails with a one-line message."""
    result = run_cli("media", "show", str(account_id), "424242")

    assert (result.exit_code, "not found" in result.output) == (1, True)
