"""Contact memories as people see and manage them (`/contacts/{id}/memories`), and how the memory
step of an automatic reply keeps new facts (`keep`), both by the rules of `engage_core.agents.memories`."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from engage_core.agents.memories import (
    FACT_MAX,
    ContactMemory,
    MemoryDraft,
    fact_key,
    new_facts,
    overflow,
)
from engage_core.kernel.clock import Clock
from engage_core.kernel.errors import NotFound, ValidationFailed
from engage_core.kernel.validation import required_text
from engage_core.unit_of_work import UnitOfWorkFactory, WorkspaceUnitOfWork


def keep(
    uow: WorkspaceUnitOfWork, contact_id: int, facts: Sequence[str], source_message_id: int | None, now: datetime
) -> tuple[ContactMemory, ...]:
    """Store those of `facts` the contact does not have yet, in `uow`'s transaction, dropping the
    oldest beyond `MEMORY_LIMIT`; the facts stored."""
    stored = uow.contact_memories.for_contact(contact_id)
    fresh = new_facts(facts, stored)
    if not fresh:
        return ()
    uow.contact_memories.delete(overflow(stored, len(fresh)))
    return tuple(uow.contact_memories.add(MemoryDraft(contact_id, fact, source_message_id), now) for fact in fresh)


class ContactMemoryService:
    """The facts kept about a contact: list, add, delete. A contact that is not in the account, or
    a memory that is not the contact's, raises :class:`.NotFound`."""

    def __init__(self, uow: UnitOfWorkFactory, clock: Clock) -> None:
        self._uow = uow
        self._clock = clock

    def list(self, account_id: int, contact_id: int) -> Sequence[ContactMemory]:
        """`GET /contacts/{id}/memories`: the contact's facts, oldest first."""
        with self._uow.workspace(account_id, readonly=True) as uow:
            _contact(uow, contact_id)
            return uow.contact_memories.for_contact(contact_id)

    def add(self, account_id: int, contact_id: int, fact: str) -> ContactMemory:
        """`POST /contacts/{id}/memories`: keep a fact a person gives (one line, at most `FACT_MAX`
        characters; one the contact has already is refused with 422). Drops the oldest fact when
        the contact has `MEMORY_LIMIT` already."""
        if not isinstance(fact, str):
            raise ValidationFailed.on("fact", "The fact must be a string.")
        cleaned = required_text("fact", " ".join(fact.split()), max_length=FACT_MAX)
        with self._uow.workspace(account_id) as uow:
            _contact(uow, contact_id)
            if any(fact_key(m.fact) == fact_key(cleaned) for m in uow.contact_memories.for_contact(contact_id)):
                raise ValidationFailed.on("fact", "The contact already has this memory.")
            [memory] = keep(uow, contact_id, [cleaned], None, self._clock.now())
            uow.commit()
        return memory

    def delete(self, account_id: int, contact_id: int, memory_id: int) -> None:
        """`DELETE /contacts/{id}/memories/{memory_id}`: forget one fact."""
        with self._uow.workspace(account_id) as uow:
            _contact(uow, contact_id)
            memory = uow.contact_memories.get(memory_id)
            if memory is None or memory.contact_id != contact_id:
                raise NotFound("Memory")
            uow.contact_memories.delete([memory_id])
            uow.commit()


def _contact(uow: WorkspaceUnitOfWork, contact_id: int) -> None:
    if uow.contacts.get(contact_id) is None:
        raise NotFound("Contact")
