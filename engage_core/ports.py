"""Ports: what the services need from the outside world, as Protocols.

Adapters live in `engage_sql` (storage) and `engage_connectors` (outside services); in-memory
fakes of every port live in `engage_core.testing`. A workspace unit of work hands out
repositories that are already scoped to one account, so no query can forget the tenant.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from types import TracebackType
from typing import Protocol, Self

from engage_core.accounts import Account
from engage_core.contact_lists import ContactList
from engage_core.contacts import Contact, ContactDraft, ContactFilter, Member, Note
from engage_core.events import DomainEvent
from engage_core.pagination import Page, PageRequest
from engage_core.segments import Segment, SegmentRules
from engage_core.tags import Tag


class AccountRepository(Protocol):
    """All accounts: used by administration and authentication, never by workspace services."""

    def add(self, name: str, key_digest: str, key_hint: str, now: datetime) -> Account: ...

    def get(self, account_id: int) -> Account | None: ...

    def by_key_digest(self, key_digest: str) -> tuple[Account, str] | None:
        """The account whose key has this digest, with the stored digest (compared again in constant time)."""

    def list(self) -> Sequence[Account]: ...

    def set_key(self, account_id: int, key_digest: str, key_hint: str, now: datetime) -> None: ...

    def set_active(self, account_id: int, is_active: bool, now: datetime) -> None: ...

    def set_origins(self, account_id: int, origins: tuple[str, ...], now: datetime) -> None: ...


class ContactRepository(Protocol):
    def add(self, draft: ContactDraft, now: datetime) -> Contact: ...

    def get(self, contact_id: int) -> Contact | None: ...

    def find(self, filters: ContactFilter, page: PageRequest) -> Page[Contact]:
        """Newest first (`created_at`, then `id`, descending)."""

    def by_phone(self, type: str, phone: str) -> Contact | None:
        """The contact of this channel type with this E.164 phone."""

    def update(self, contact: Contact) -> None:
        """Store every scalar field of `contact` (tags are changed through the tag repository)."""

    def delete(self, contact_id: int) -> None:
        """Delete the contact with its notes, tag links and list and segment memberships."""

    def count(self) -> int: ...


class TagRepository(Protocol):
    def add(self, title: str, now: datetime) -> Tag: ...

    def get(self, tag_id: int) -> Tag | None: ...

    def by_title(self, title: str) -> Tag | None:
        """Case-insensitive look-up (see `tags.title_key`)."""

    def list(self) -> Sequence[Tag]: ...

    def rename(self, tag_id: int, title: str, now: datetime) -> None: ...

    def delete(self, tag_id: int) -> None:
        """Delete the tag and every link to it."""

    def attach(self, contact_id: int, tag_id: int) -> bool:
        """Link the tag to the contact. False when it was already linked."""

    def detach(self, contact_id: int, tag_id: int) -> bool:
        """Unlink. False when it was not linked."""


class ContactListRepository(Protocol):
    def add(self, name: str, now: datetime) -> ContactList: ...

    def get(self, list_id: int) -> ContactList | None: ...

    def list(self) -> Sequence[ContactList]: ...

    def update(self, list_id: int, name: str, status: int, now: datetime) -> None: ...

    def delete(self, list_id: int) -> None:
        """Delete the list and its memberships (the contacts stay)."""

    def add_member(self, list_id: int, contact_id: int, now: datetime) -> bool:
        """False when the contact was already a member."""

    def remove_member(self, list_id: int, contact_id: int) -> bool:
        """False when the contact was not a member."""

    def members(self, list_id: int, page: PageRequest) -> Page[Member]:
        """Members in the order they were added."""


class SegmentRepository(Protocol):
    def add(self, name: str, description: str | None, rules: SegmentRules, now: datetime) -> Segment: ...

    def get(self, segment_id: int, now: datetime) -> Segment | None:
        """The segment with `contacts_count` evaluated at `now`."""

    def list(self, now: datetime) -> Sequence[Segment]: ...

    def update(
        self, segment_id: int, name: str, description: str | None, rules: SegmentRules, now: datetime
    ) -> None: ...

    def delete(self, segment_id: int) -> None: ...

    def include(self, segment_id: int, contact_id: int) -> None:
        """Add the contact by hand (and forget an earlier manual removal)."""

    def exclude(self, segment_id: int, contact_id: int) -> None:
        """Remove the contact by hand, even if the rules match it."""

    def members(self, segment_id: int, page: PageRequest, now: datetime) -> Page[Member]:
        """Members ordered by contact id."""

    def is_member(self, segment_id: int, contact_id: int, now: datetime) -> bool: ...


class NoteRepository(Protocol):
    def add(self, contact_id: int, content: str, now: datetime) -> Note: ...

    def for_contact(self, contact_id: int) -> Sequence[Note]:
        """Newest first."""


class WorkspaceUnitOfWork(Protocol):
    """One transaction inside one account. Leaving the block without `commit()` rolls back."""

    account_id: int
    contacts: ContactRepository
    tags: TagRepository
    lists: ContactListRepository
    segments: SegmentRepository
    notes: NoteRepository

    def emit(self, event: DomainEvent) -> None:
        """Record an event; it is written to the outbox by `commit()`, in the same transaction."""

    def commit(self) -> None: ...

    def __enter__(self) -> Self: ...

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None: ...


class AdminUnitOfWork(Protocol):
    """One transaction across accounts, for administration and authentication."""

    accounts: AccountRepository

    def commit(self) -> None: ...

    def __enter__(self) -> Self: ...

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None: ...


class UnitOfWorkFactory(Protocol):
    """Opens units of work. `readonly` lets the adapter skip write locks for pure reads."""

    def workspace(self, account_id: int, *, readonly: bool = False) -> WorkspaceUnitOfWork: ...

    def admin(self, *, readonly: bool = False) -> AdminUnitOfWork: ...
