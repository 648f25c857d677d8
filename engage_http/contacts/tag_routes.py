"""Tags (SPEC 4): labels on contacts, renamed and deleted everywhere at once."""

from __future__ import annotations

from engage_core.contacts.tags import Tag as TagEntity
from engage_core.kernel.pagination import TAGS, Page
from engage_http.contacts.tag_schemas import Tag, TagWrite
from engage_http.operations import Call, Operation, Shape, declare

TAG = "Tags"


def index(call: Call[None, None]) -> Page[TagEntity]:
    assert call.page is not None
    return call.services.tags.list(call.account_id, call.page)


def store(call: Call[TagWrite, None]) -> TagEntity:
    return call.services.tags.create(call.account_id, call.body.title)


def show(call: Call[None, None]) -> TagEntity:
    return call.services.tags.get(call.account_id, call.path["id"])


def rename(call: Call[TagWrite, None]) -> TagEntity:
    return call.services.tags.rename(call.account_id, call.path["id"], call.body.title)


def destroy(call: Call[None, None]) -> None:
    call.services.tags.delete(call.account_id, call.path["id"])


OPERATIONS: tuple[Operation, ...] = declare(
    Operation("GET", "/tags", index, "List tags with their contact counts", TAG, Tag, Shape.PAGE, page=TAGS),
    Operation("POST", "/tags", store, "Create a tag", TAG, Tag, status=201, message="Tag created.", body=TagWrite),
    Operation("GET", "/tags/{id:id}", show, "Get a tag", TAG, Tag),
    Operation(
        "PUT",
        "/tags/{id:id}",
        rename,
        "Rename a tag",
        TAG,
        Tag,
        message="Tag renamed.",
        body=TagWrite,
        description="Every contact carrying the tag shows the new title; no contact is re-tagged.",
    ),
    Operation(
        "DELETE",
        "/tags/{id:id}",
        destroy,
        "Delete a tag",
        TAG,
        shape=Shape.NOTHING,
        status=204,
        description="The tag is removed from every contact.",
    ),
    write_lane=True,
)
