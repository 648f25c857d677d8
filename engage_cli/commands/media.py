"""`engage media ...`: a workspace's media library from the command line, as the service operator.

`list`, `show` and `rename` do what the API's routes do. `upload` streams a file from disk into the
library (checked by its content, at most 50 MB) as an administrator's upload (`uploaded_by`
`admin`, which the workspace's own API key cannot delete), and `delete` removes any file, an
administrator's too, with its stored object.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

import click

from engage_cli.context import CliState, pass_state
from engage_cli.workspaces import require_account
from engage_core.kernel.pagination import PageRequest
from engage_core.media.model import ADMIN, FILE_TYPES, MEDIA, MediaFile, MediaFilter, MediaUpload
from engage_http.converter import unstructure_hook
from engage_http.media.schemas import Media

_JSON = click.option("--json", "as_json", is_flag=True, help="Print JSON (the API's fields) instead of text.")
READ_SIZE = 256 * 1024


@click.group()
def media() -> None:
    """Manage the media library (images and videos) of a workspace."""


@media.command(name="list")
@click.argument("account_id", metavar="ACCOUNT_ID", type=int)
@click.option("--type", "kind", type=click.Choice(FILE_TYPES), help="Only images or only videos.")
@click.option("--search", help="Part of the display name or of the original file name.")
@click.option("--page", type=click.IntRange(min=1), default=1, show_default=True)
@click.option("--per-page", type=click.IntRange(min=1, max=MEDIA.maximum), default=MEDIA.default, show_default=True)
@_JSON
@pass_state
def list_media(
    state: CliState,
    account_id: int,
    kind: str | None,
    search: str | None,
    page: int,
    per_page: int,
    as_json: bool,
) -> None:
    """List a workspace's media files, newest first."""
    services = state.services()
    require_account(services, account_id)
    found = services.media.list(account_id, MediaFilter(kind, search), PageRequest(page, per_page))
    if as_json:
        render = unstructure_hook(Media)
        click.echo(json.dumps([render(m) for m in found.items]))
        return
    if not found.items:
        click.echo("No media files." if found.total == 0 else f"No media files on page {page} ({found.total} in all).")
        return
    for item in found.items:
        click.echo(f"{item.id}\t{item.file_type}\t{item.formatted_size}\t{item.name}")
    noun = "file" if found.total == 1 else "files"
    click.echo(f"Page {page} of {found.last_page} ({found.total} {noun}).", err=True)


@media.command()
@click.argument("account_id", metavar="ACCOUNT_ID", type=int)
@click.argument("path", metavar="FILE", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--name", help="The display name (the file's name by default).")
@_JSON
@pass_state
def upload(state: CliState, account_id: int, path: Path, name: str | None, as_json: bool) -> None:
    """Add FILE (an image or a video, at most 50 MB) to the library as an administrator's upload."""
    services = state.services()
    require_account(services, account_id)
    with path.open("rb") as file:
        added = services.media.upload(account_id, MediaUpload(path.name, _pieces(file), name), uploaded_by=ADMIN)
    _print(added, as_json)


@media.command()
@click.argument("account_id", metavar="ACCOUNT_ID", type=int)
@click.argument("media_id", metavar="MEDIA_ID", type=int)
@_JSON
@pass_state
def show(state: CliState, account_id: int, media_id: int, as_json: bool) -> None:
    """Show one media file."""
    services = state.services()
    require_account(services, account_id)
    _print(services.media.get(account_id, media_id), as_json)


@media.command()
@click.argument("account_id", metavar="ACCOUNT_ID", type=int)
@click.argument("media_id", metavar="MEDIA_ID", type=int)
@click.option("--name", required=True, help="The new display name (the stored file is unchanged).")
@_JSON
@pass_state
def rename(state: CliState, account_id: int, media_id: int, name: str, as_json: bool) -> None:
    """Give a media file a new display name."""
    services = state.services()
    require_account(services, account_id)
    _print(services.media.rename(account_id, media_id, name), as_json)


@media.command()
@click.argument("account_id", metavar="ACCOUNT_ID", type=int)
@click.argument("media_id", metavar="MEDIA_ID", type=int)
@pass_state
def delete(state: CliState, account_id: int, media_id: int) -> None:
    """Delete a media file (an administrator's upload too) and its stored object."""
    services = state.services()
    require_account(services, account_id)
    services.media.delete(account_id, media_id, deleted_by=ADMIN)
    click.echo(f"Deleted media file {media_id}.")


def _pieces(file: BinaryIO) -> Iterator[bytes]:
    while piece := file.read(READ_SIZE):
        yield piece


def _print(item: MediaFile, as_json: bool) -> None:
    if as_json:
        click.echo(json.dumps(unstructure_hook(Media)(item)))
        return
    size = "" if not item.metadata else f", {item.metadata['width']}x{item.metadata['height']}"
    click.echo(f"{item.id}\t{item.name}\t{item.file_type} ({item.mime_type}, {item.formatted_size}{size})\t{item.url}")
