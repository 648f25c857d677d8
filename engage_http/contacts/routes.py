"""Contacts (SPEC 4): CRUD, blacklist, notes, tags, and list and segment membership."""

from __future__ import annotations

from collections.abc import Sequence

from engage_core.contacts import model as domain
from engage_core.contacts.contact_service import TagAssignment
from engage_core.contacts.model import ContactInput, ContactPatch
from engage_core.contacts.tags import Tag as TagEntity
from engage_core.kernel.pagination import CONTACTS, Page
from engage_http.contacts.schemas import (
    Blacklist,
    Contact,
    ContactCreate,
    ContactFilters,
    ContactUpdate,
    ListMembership,
    ListMembershipCreate,
    Note,
    NoteCreate,
    SegmentMembership,
    SegmentMembershipCreate,
    TagAssign,
)
from engage_http.contacts.tag_schemas import Tag
from engage_http.operations import Call, Operation, Reply, Shape, declare

TAG = "Contacts"


def index(call: Call[None, domain.ContactFilter]) -> Page[domain.Contact]:
    assert call.page is not None
    return call.services.contacts.find(call.account_id, call.query, call.page)


def store(call: Call[ContactInput, None]) -> domain.Contact:
    return call.services.contacts.create(call.account_id, call.body, plan=call.plan)


def show(call: Call[None, None]) -> domain.Contact:
    return call.services.contacts.get(call.account_id, call.path["id"])


def update(call: Call[ContactPatch, None]) -> domain.Contact:
    return call.services.contacts.update(call.account_id, call.path["id"], call.body)


def destroy(call: Call[None, None]) -> None:
    call.services.contacts.delete(call.account_id, call.path["id"])


def toggle_blacklist(call: Call[None, None]) -> Reply:
    contact = call.services.contacts.toggle_blacklist(call.account_id, call.path["id"])
    message = "Contact blacklisted." if contact.blacklisted else "Contact removed from the blacklist."
    return Reply(Blacklist(id=contact.id, blacklisted=contact.blacklisted), message)


def notes(call: Call[None, None]) -> Sequence[domain.Note]:
    return call.services.contacts.notes(call.account_id, call.path["id"])


def add_note(call: Call[NoteCreate, None]) -> domain.Note:
    return call.services.contacts.add_note(call.account_id, call.path["id"], call.body.content)


def add_to_list(call: Call[ListMembershipCreate, None]) -> Reply:
    contact_id, list_id = call.path["id"], call.body.list_id
    added = call.services.contacts.add_to_list(call.account_id, contact_id, list_id)
    message = "Contact added to the list." if added else "Contact is already in the list."
    return Reply(ListMembership(contact_id=contact_id, list_id=list_id), message)


def remove_from_list(call: Call[None, None]) -> None:
    call.services.contacts.remove_from_list(call.account_id, call.path["id"], call.path["list_id"])


def add_to_segment(call: Call[SegmentMembershipCreate, None]) -> SegmentMembership:
    contact_id, segment_id = call.path["id"], call.body.segment_id
    call.services.contacts.add_to_segment(call.account_id, contact_id, segment_id)
    return SegmentMembership(contact_id=contact_id, segment_id=segment_id)


def remove_from_segment(call: Call[None, None]) -> None:
    call.services.contacts.remove_from_segment(call.account_id, call.path["id"], call.path["segment_id"])


def assign_tag(call: Call[TagAssignment, None]) -> TagEntity:
    return call.services.contacts.assign_tag(call.account_id, call.path["id"], call.body)


def remove_tag(call: Call[None, None]) -> None:
    call.services.contacts.remove_tag(call.account_id, call.path["id"], call.path["tag_id"])


OPERATIONS: tuple[Operation, ...] = declare(
    Operation(
        "GET",
        "/contacts",
        index,
        "List contacts",
        TAG,
        Contact,
        Shape.PAGE,
        query=ContactFilters,
        page=CONTACTS,
        description="Newest first. `search` matches name, e-mail or phone.",
    ),
    Operation(
        "POST",
        "/contacts",
        store,
        "Create a contact",
        TAG,
        Contact,
        status=201,
        message="Contact created.",
        body=ContactCreate,
    ),
    Operation("GET", "/contacts/{id:id}", show, "Get a contact", TAG, Contact),
    Operation(
        "PUT",
        "/contacts/{id:id}",
        update,
        "Update a contact",
        TAG,
        Contact,
        message="Contact updated.",
        body=ContactUpdate,
    ),
    Operation("DELETE", "/contacts/{id:id}", destroy, "Delete a contact", TAG, shape=Shape.NOTHING, status=204),
    Operation(
        "POST",
        "/contacts/{id:id}/blacklist",
        toggle_blacklist,
        "Toggle the blacklist flag",
        TAG,
        Blacklist,
        message="Contact blacklisted.",
    ),
    Operation("GET", "/contacts/{id:id}/notes", notes, "List a contact's notes", TAG, Note, Shape.MANY),
    Operation(
        "POST",
        "/contacts/{id:id}/notes",
        add_note,
        "Add a note",
        TAG,
        Note,
        status=201,
        message="Note added.",
        body=NoteCreate,
    ),
    Operation(
        "POST",
        "/contacts/{id:id}/lists",
        add_to_list,
        "Add the contact to a list",
        TAG,
        ListMembership,
        message="Contact added to the list.",
        body=ListMembershipCreate,
    ),
    Operation(
        "DELETE",
        "/contacts/{id:id}/lists/{list_id:id}",
        remove_from_list,
        "Remove the contact from a list",
        TAG,
        shape=Shape.NOTHING,
        status=204,
    ),
    Operation(
        "POST",
        "/contacts/{id:id}/segments",
        add_to_segment,
        "Add the contact to a segment by hand",
        TAG,
        SegmentMembership,
        message="Contact added to the segment.",
        body=SegmentMembershipCreate,
    ),
    Operation(
        "DELETE",
        "/contacts/{id:id}/segments/{segment_id:id}",
        remove_from_segment,
        "Remove the contact from a segment",
        TAG,
        shape=Shape.NOTHING,
        status=204,
        description="Also removes a contact the segment's rules select.",
    ),
    Operation(
        "POST",
        "/contacts/{id:id}/tags",
        assign_tag,
        "Assign a tag",
        TAG,
        Tag,
        message="Tag assigned.",
        body=TagAssign,
        description="Idempotent. `title` creates the tag when the account has none by that title.",
    ),
    Operation(
        "DELETE",
        "/contacts/{id:id}/tags/{tag_id:id}",
        remove_tag,
        "Remove a tag from the contact",
        TAG,
        shape=Shape.NOTHING,
        status=204,
    ),
    write_lane=True,
)
