"""Contact lists (SPEC 4, Lists and segments)."""

from __future__ import annotations

from collections.abc import Sequence

from engage_core.contacts import lists as domain
from engage_core.contacts.model import Member
from engage_core.kernel.pagination import LIST_MEMBERS, Page
from engage_http.contacts.list_schemas import ContactList, ListCreate, ListUpdate
from engage_http.contacts.schemas import Member as MemberBody
from engage_http.operations import Call, Operation, Shape, declare

TAG = "Lists"


def index(call: Call[None, None]) -> Sequence[domain.ContactList]:
    return call.services.lists.list(call.account_id)


def store(call: Call[ListCreate, None]) -> domain.ContactList:
    return call.services.lists.create(call.account_id, call.body.name)


def show(call: Call[None, None]) -> domain.ContactList:
    return call.services.lists.get(call.account_id, call.path["id"])


def update(call: Call[ListUpdate, None]) -> domain.ContactList:
    body = call.body
    updated = call.services.lists.update(call.account_id, call.path["id"], name=body.name, status=body.status)
    return updated


def destroy(call: Call[None, None]) -> None:
    call.services.lists.delete(call.account_id, call.path["id"])


def members(call: Call[None, None]) -> Page[Member]:
    assert call.page is not None
    return call.services.lists.members(call.account_id, call.path["id"], call.page)


OPERATIONS: tuple[Operation, ...] = declare(
    Operation("GET", "/contacts/lists", index, "List contact lists with their counts", TAG, ContactList, Shape.MANY),
    Operation(
        "POST",
        "/contacts/lists",
        store,
        "Create a list",
        TAG,
        ContactList,
        status=201,
        message="List created.",
        body=ListCreate,
    ),
    Operation("GET", "/contacts/lists/{id:id}", show, "Get a list", TAG, ContactList),
    Operation(
        "PUT",
        "/contacts/lists/{id:id}",
        update,
        "Update a list",
        TAG,
        ContactList,
        message="List updated.",
        body=ListUpdate,
    ),
    Operation(
        "DELETE",
        "/contacts/lists/{id:id}",
        destroy,
        "Delete a list",
        TAG,
        shape=Shape.NOTHING,
        status=204,
        description="Memberships are removed; the contacts stay.",
    ),
    Operation(
        "GET",
        "/contacts/lists/{id:id}/members",
        members,
        "List a list's members",
        TAG,
        MemberBody,
        Shape.PAGE,
        page=LIST_MEMBERS,
        description="In the order they were added.",
    ),
    write_lane=True,
)
