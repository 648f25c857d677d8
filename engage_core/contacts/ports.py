"""What the contacts area (contacts, tags, lists, segments, notes) needs from storage."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from datetime import datetime
from typing import Protocol

from engage_core.contacts.lists import ContactList
from engage_core.contacts.model import Contact, ContactDraft, ContactFilter, Member, Note
from engage_core.contacts.segments import Segment, SegmentRules
from engage_core.contacts.tags import Tag
from engage_core.kernel.pagination import Page, PageRequest


class ContactRepository(Protocol):
    """A workspace's contacts."""

    def add(self, draft: ContactDraft, now: datetime) -> Contact:
        """Store a new contact and count it in the account's contacts total. Its `ai_agent_id` is the
        account's default AI agent when that is active (SPEC 2, `is_default`: auto-assigned to new
        contacts), else None: whatever creates a contact, it gets the default. Raises
        ValidationFailed on `phone` when the channel type already has a contact with that phone; the
        unit of work must then be left uncommitted."""

    def get(self, contact_id: int) -> Contact | None:
        """The contact `contact_id` with its tags, or None."""

    def get_many(self, contact_ids: Collection[int]) -> Mapping[int, Contact]:
        """The account's contacts among `contact_ids`, with their tags, by id (one read for a batch;
        an id of no contact of the account is left out)."""

    def find(self, filters: ContactFilter, page: PageRequest) -> Page[Contact]:
        """Newest first (`created_at`, then `id`, descending)."""

    def by_phone(self, type: str, phone: str) -> Contact | None:
        """The contact of this channel type with this E.164 phone."""

    def update(self, contact: Contact) -> None:
        """Store every scalar field of `contact` but `ai_agent_id` (tags are changed through the tag
        repository, the agent through `assign_agent`)."""

    def touch(self, contact_ids: Collection[int], at: datetime) -> None:
        """Move `last_message_at` of the account's contacts among `contact_ids` forward to `at`
        (where it is unset or earlier), in one statement, leaving every other field: the
        bookkeeping of a message to or from them."""

    def assign_agent(self, agent_id: int, contact_ids: Collection[int]) -> int:
        """Set `ai_agent_id` to `agent_id` on the account's contacts among `contact_ids` (distinct
        ids; others are ignored), leaving their `updated_at`; how many contacts that is, those that
        had the agent already included. The caller checked that the agent is the account's."""

    def delete(self, contact_id: int) -> None:
        """Delete the contact with its notes, tag links and list and segment memberships."""

    def count(self) -> int:
        """How many contacts the account has."""


class TagRepository(Protocol):
    """A workspace's tags and their links to contacts."""

    def add(self, title: str, now: datetime) -> Tag:
        """The tag of this title (any case): the existing one, or a new one."""

    def create(self, title: str, now: datetime) -> Tag:
        """A new tag; `ValidationFailed` on `title` when the account has the title (in any case),
        also when it was created concurrently since the caller looked (the storage decides)."""

    def get(self, tag_id: int) -> Tag | None:
        """The tag `tag_id` with its contact count, or None."""

    def by_title(self, title: str) -> Tag | None:
        """Case-insensitive look-up (see `tags.title_key`)."""

    def list(self, page: PageRequest) -> Page[Tag]:
        """By id."""

    def ensure(self, titles: Sequence[str], now: datetime) -> Sequence[Tag]:
        """The tags with these clean titles (distinct by `tags.title_key`), in their order: each found
        by its title, or created with it. `contacts_count` is None (not counted). A few statements
        however many titles, so that a request's whole set of tags costs about as much as one."""

    def rename(self, tag_id: int, title: str, now: datetime) -> None:
        """Give the tag a new title (the caller checked it is free)."""

    def delete(self, tag_id: int) -> None:
        """Delete the tag and every link to it."""

    def attach(self, contact_id: int, tag_id: int) -> bool:
        """Link the tag to the contact. False when it was already linked."""

    def detach(self, contact_id: int, tag_id: int) -> bool:
        """Unlink. False when it was not linked."""

    def attach_all(self, contact_id: int, tag_ids: Collection[int]) -> int:
        """Link every tag to the contact in one step; how many links are new."""

    def detach_others(self, contact_id: int, keep: Collection[int]) -> int:
        """Unlink every tag of the contact but those in `keep` in one step; how many were unlinked."""


class ContactListRepository(Protocol):
    """A workspace's contact lists and their members."""

    def add(self, name: str, now: datetime) -> ContactList:
        """Store a new active list."""

    def get(self, list_id: int) -> ContactList | None:
        """The list `list_id`, or None."""

    def list(self) -> Sequence[ContactList]:
        """Every list of the account."""

    def update(self, list_id: int, name: str, status: int, now: datetime) -> None:
        """Store the list's name and status."""

    def delete(self, list_id: int) -> None:
        """Delete the list and its memberships (the contacts stay)."""

    def add_member(self, list_id: int, contact_id: int, now: datetime) -> bool:
        """False when the contact was already a member."""

    def remove_member(self, list_id: int, contact_id: int) -> bool:
        """False when the contact was not a member."""

    def members(self, list_id: int, page: PageRequest) -> Page[Member]:
        """Members in the order they were added."""


class SegmentRepository(Protocol):
    """A workspace's segments: their rules, and contacts included or excluded by hand."""

    def add(self, name: str, description: str | None, rules: SegmentRules, now: datetime) -> Segment:
        """Store a new segment with these rules."""

    def get(self, segment_id: int, now: datetime) -> Segment | None:
        """The segment with `contacts_count` evaluated at `now`."""

    def list(self, now: datetime) -> Sequence[Segment]:
        """Every segment, each with `contacts_count` evaluated at `now`."""

    def update(self, segment_id: int, name: str, description: str | None, rules: SegmentRules, now: datetime) -> None:
        """Store the segment's name, description and rules."""

    def delete(self, segment_id: int) -> None:
        """Delete the segment with its manual inclusions and exclusions."""

    def include(self, segment_id: int, contact_id: int) -> None:
        """Add the contact by hand (and forget an earlier manual removal)."""

    def exclude(self, segment_id: int, contact_id: int) -> None:
        """Remove the contact by hand, even if the rules match it."""

    def members(self, segment_id: int, page: PageRequest, now: datetime) -> Page[Member]:
        """Members ordered by contact id."""

    def is_member(self, segment_id: int, contact_id: int, now: datetime) -> bool:
        """Whether the contact is in the segment at `now` (rules and manual changes applied)."""


class NoteRepository(Protocol):
    """Notes on a workspace's contacts."""

    def add(self, contact_id: int, content: str, now: datetime) -> Note:
        """Store a note on the contact."""

    def for_contact(self, contact_id: int) -> Sequence[Note]:
        """Newest first."""


class ContactsRepositories(Protocol):
    """The contacts area's repositories, as a workspace unit of work hands them out."""

    @property
    def contacts(self) -> ContactRepository:
        """The contacts."""

    @property
    def tags(self) -> TagRepository:
        """The tags."""

    @property
    def lists(self) -> ContactListRepository:
        """The contact lists."""

    @property
    def segments(self) -> SegmentRepository:
        """The segments."""

    @property
    def notes(self) -> NoteRepository:
        """The notes on contacts."""
