"""Contact memories over HTTP (an extension of SPEC 4): the facts the AI agent keeps about a contact
(`engage_core.agents.memories`), listed, added by a person, and deleted.

`GET /contacts/{id}/memories`, `POST /contacts/{id}/memories` and `DELETE
/contacts/{id}/memories/{memory_id}`. They belong to the `ai_agents` plan feature: without it adding
is 403 `feature_not_in_plan`, while listing and deleting stay allowed. Another workspace's contact,
or a memory of another contact, is a 404.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Annotated

import attrs

from engage_core.agents import memories as domain
from engage_http.constraints import Doc, Text
from engage_http.converter import renders
from engage_http.operations import Call, Operation, Shape, declare

TAG = "AI agents"
FEATURE = "ai_agents"

Fact = Annotated[
    str,
    Text(max_length=domain.FACT_MAX, blank=False),
    Doc(description="One short fact about the contact.", example="Prefers email over phone calls"),
]


@attrs.frozen
class ContactMemoryCreate:
    """A fact a person gives: one line (whitespace is collapsed), at most 280 characters, not one the
    contact has already (compared without case; 422 on `fact`)."""

    fact: Fact


@renders(domain.ContactMemory)
@attrs.frozen
class ContactMemory:
    """A fact the AI agent keeps about a contact."""

    id: int
    contact_id: int
    fact: str
    source_message_id: int | None = attrs.field(
        metadata={"description": "The inbound message the fact was found in; null for one a person added."}
    )
    created_at: datetime


def memories_index(call: Call[None, None]) -> Sequence[domain.ContactMemory]:
    return call.services.contact_memories.list(call.account_id, call.path["id"])


def memories_store(call: Call[ContactMemoryCreate, None]) -> domain.ContactMemory:
    return call.services.contact_memories.add(call.account_id, call.path["id"], call.body.fact)


def memories_destroy(call: Call[None, None]) -> None:
    call.services.contact_memories.delete(call.account_id, call.path["id"], call.path["memory_id"])


OPERATIONS: tuple[Operation, ...] = declare(
    Operation(
        "GET",
        "/contacts/{id:id}/memories",
        memories_index,
        "List a contact's memories",
        TAG,
        ContactMemory,
        Shape.MANY,
        message="Contact memories retrieved.",
        description="The facts the AI agent keeps about the contact (at most 50), oldest first, in one array. "
        "An extension of SPEC 4.",
    ),
    Operation(
        "POST",
        "/contacts/{id:id}/memories",
        memories_store,
        "Add a memory to a contact",
        TAG,
        ContactMemory,
        status=201,
        message="Contact memory added.",
        body=ContactMemoryCreate,
        errors=frozenset({422}),
        description="Keeps a fact about the contact, given to its AI agent in later replies. At 50 facts the "
        "oldest is dropped. A fact the contact has already is a 422 on `fact`. An extension of SPEC 4.",
    ),
    Operation(
        "DELETE",
        "/contacts/{id:id}/memories/{memory_id:id}",
        memories_destroy,
        "Delete a contact memory",
        TAG,
        shape=Shape.NOTHING,
        status=204,
        description="Forgets one fact. An extension of SPEC 4.",
    ),
    feature=FEATURE,
    write_lane=True,
)
