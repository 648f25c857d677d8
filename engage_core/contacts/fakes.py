"""In-memory fakes of the contacts area's ports (contacts, tags, lists, segments, notes)."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from datetime import datetime

import attrs

from engage_core.agents.fakes import AgentsTables
from engage_core.contacts.lists import ContactList
from engage_core.contacts.model import Contact, ContactDraft, ContactFilter, Member, Note
from engage_core.contacts.segments import Segment, SegmentRules, is_member
from engage_core.contacts.tags import Tag, title_key
from engage_core.kernel.errors import NotFound, ValidationFailed
from engage_core.kernel.memory import FakeArea, Repo, Tables
from engage_core.kernel.pagination import Page, PageRequest, paginate


@attrs.define
class ContactsTables(Tables):
    """The contacts area's rows, by table."""

    MUTABLE_ROWS = frozenset({"segments", "list_members"})

    contacts: dict[int, tuple[int, Contact]] = attrs.Factory(dict)  # id -> (account_id, contact without tags)
    tags: dict[int, tuple[int, Tag]] = attrs.Factory(dict)
    contact_tags: set[tuple[int, int]] = attrs.Factory(set)  # (contact_id, tag_id)
    lists: dict[int, tuple[int, ContactList]] = attrs.Factory(dict)
    list_members: dict[int, list[int]] = attrs.Factory(dict)  # list_id -> contact ids in order added
    segments: dict[int, tuple[int, _SegmentRow]] = attrs.Factory(dict)
    notes: dict[int, tuple[int, Note]] = attrs.Factory(dict)

    def forget(self, kind: str, ident: int) -> None:
        """A deleted AI agent is assigned to no contact any more (SQL: its delete clears `ai_agent_id`)."""
        if kind == "ai_agent":
            for key, (account, contact) in list(self.contacts.items()):
                if contact.ai_agent_id == ident:
                    self.contacts[key] = (account, attrs.evolve(contact, ai_agent_id=None))


class _Repo(Repo):
    @property
    def _t(self) -> ContactsTables:
        """This area\'s tables, as the transaction sees them."""
        return self._state.of(ContactsTables)


@attrs.define
class _SegmentRow:
    segment: Segment
    included: set[int] = attrs.Factory(set)
    excluded: set[int] = attrs.Factory(set)


def _owned_contact(tables: ContactsTables, account_id: int, contact_id: int) -> bool:
    """The contact exists and is the account's (what SQL's `INSERT ... SELECT` of a link checks)."""
    row = tables.contacts.get(contact_id)
    return row is not None and row[0] == account_id


class InMemoryContactRepository(_Repo):
    """The in-memory :class:`.ContactRepository`."""

    def _with_tags(self, contact: Contact) -> Contact:
        titles = sorted(
            (self._t.tags[tag_id][1].title for (cid, tag_id) in self._t.contact_tags if cid == contact.id),
            key=str.casefold,
        )
        return attrs.evolve(contact, tags=tuple(titles))

    def _mine(self) -> list[Contact]:
        return [self._with_tags(c) for (acc, c) in self._t.contacts.values() if acc == self._account]

    def add(self, draft: ContactDraft, now: datetime) -> Contact:
        """In memory, as :meth:`.ContactRepository.add`."""
        if draft.phone is not None and self.by_phone(draft.type, draft.phone) is not None:
            raise ValidationFailed.on("phone", f"A {draft.type} contact with this phone already exists.")
        contact = Contact(
            id=self._store.next_id(),
            name=draft.name,
            email=draft.email,
            phone=draft.phone,
            type=draft.type,
            status=draft.status,
            blacklisted=False,
            tags=(),
            last_message_at=None,
            created_at=now,
            updated_at=now,
            source=draft.source,
            company=draft.company,
            address=draft.address,
            country_id=draft.country_id,
            ai_agent_id=self._default_agent(),
        )
        self._t.contacts[contact.id] = (self._account, contact)
        return contact

    def _default_agent(self) -> int | None:
        default = self._state.of(AgentsTables).default_of(self._account)
        return default.id if default is not None and default.is_active else None

    def get(self, contact_id: int) -> Contact | None:
        """In memory, as :meth:`.ContactRepository.get`."""
        row = self._t.contacts.get(contact_id)
        if row is None or row[0] != self._account:
            return None
        return self._with_tags(row[1])

    def get_many(self, contact_ids: Collection[int]) -> Mapping[int, Contact]:
        """In memory, as :meth:`.ContactRepository.get_many`."""
        found = (self.get(contact_id) for contact_id in set(contact_ids))
        return {contact.id: contact for contact in found if contact is not None}

    def by_phone(self, type: str, phone: str) -> Contact | None:
        """In memory, as :meth:`.ContactRepository.by_phone`."""
        for contact in self._mine():
            if contact.type == type and contact.phone == phone:
                return contact
        return None

    def find(self, filters: ContactFilter, page: PageRequest) -> Page[Contact]:
        """In memory, as :meth:`.ContactRepository.find`."""

        def keep(c: Contact) -> bool:
            if filters.type is not None and c.type != filters.type:
                return False
            if filters.blacklisted is not None and c.blacklisted != filters.blacklisted:
                return False
            if filters.tag is not None and title_key(filters.tag) not in {title_key(t) for t in c.tags}:
                return False
            if filters.search:
                needle = filters.search.casefold()
                return any(needle in (v or "").casefold() for v in (c.name, c.email, c.phone))
            return True

        found = sorted(filter(keep, self._mine()), key=lambda c: (c.created_at, c.id), reverse=True)
        return paginate(found, page)

    def update(self, contact: Contact) -> None:
        """In memory, as :meth:`.ContactRepository.update`."""
        if self.get(contact.id) is None:
            return
        if contact.phone is not None:
            other = self.by_phone(contact.type, contact.phone)
            if other is not None and other.id != contact.id:
                raise ValidationFailed.on("phone", f"A {contact.type} contact with this phone already exists.")
        stored = self._t.contacts[contact.id][1]
        self._t.contacts[contact.id] = (self._account, attrs.evolve(contact, tags=(), ai_agent_id=stored.ai_agent_id))

    def touch(self, contact_ids: Collection[int], at: datetime) -> None:
        """In memory, as :meth:`.ContactRepository.touch`."""
        for contact_id in set(contact_ids):
            contact = self.get(contact_id)
            if contact is not None and (contact.last_message_at is None or contact.last_message_at < at):
                stored = self._t.contacts[contact_id][1]
                self._t.contacts[contact_id] = (self._account, attrs.evolve(stored, last_message_at=at))

    def assign_agent(self, agent_id: int, contact_ids: Collection[int]) -> int:
        """In memory, as :meth:`.ContactRepository.assign_agent`."""
        count = 0
        for contact_id in set(contact_ids):
            row = self._t.contacts.get(contact_id)
            if row is not None and row[0] == self._account:
                self._t.contacts[contact_id] = (self._account, attrs.evolve(row[1], ai_agent_id=agent_id))
                count += 1
        return count

    def delete(self, contact_id: int) -> None:
        """In memory, as :meth:`.ContactRepository.delete`."""
        if self.get(contact_id) is None:
            return
        del self._t.contacts[contact_id]
        self._t.contact_tags = {(c, t) for (c, t) in self._t.contact_tags if c != contact_id}
        for members in self._t.list_members.values():
            if contact_id in members:
                members.remove(contact_id)
        for _, row in self._t.segments.values():
            row.included.discard(contact_id)
            row.excluded.discard(contact_id)
        self._t.notes = {k: v for k, v in self._t.notes.items() if v[1].contact_id != contact_id}
        self._state.forget("contact", contact_id)  # what other areas keep of it (messages, handles)

    def count(self) -> int:
        """In memory, as :meth:`.ContactRepository.count`."""
        return len(self._mine())


class InMemoryTagRepository(_Repo):
    """The in-memory :class:`.TagRepository`."""

    def _count(self, tag_id: int) -> int:
        return sum(1 for (_, t) in self._t.contact_tags if t == tag_id)

    def _fresh(self, tag: Tag) -> Tag:
        return attrs.evolve(tag, contacts_count=self._count(tag.id))

    def add(self, title: str, now: datetime) -> Tag:
        """In memory, as :meth:`.TagRepository.add`."""
        existing = self.by_title(title)
        if existing is not None:  # the title is unique per account: that tag is the one wanted
            return existing
        return self.create(title, now)

    def create(self, title: str, now: datetime) -> Tag:
        """In memory, as :meth:`.TagRepository.create`."""
        if self.by_title(title) is not None:
            raise ValidationFailed.on("title", "A tag with this title already exists.")
        tag = Tag(self._store.next_id(), title, 0, now, now)
        self._t.tags[tag.id] = (self._account, tag)
        return tag

    def get(self, tag_id: int) -> Tag | None:
        """In memory, as :meth:`.TagRepository.get`."""
        row = self._t.tags.get(tag_id)
        return None if row is None or row[0] != self._account else self._fresh(row[1])

    def by_title(self, title: str) -> Tag | None:
        """In memory, as :meth:`.TagRepository.by_title`."""
        key = title_key(title)
        for acc, tag in self._t.tags.values():
            if acc == self._account and title_key(tag.title) == key:
                return self._fresh(tag)
        return None

    def list(self, page: PageRequest) -> Page[Tag]:
        """In memory, as :meth:`.TagRepository.list`."""
        mine = sorted((t for (a, t) in self._t.tags.values() if a == self._account), key=lambda t: t.id)
        return paginate(mine, page).map(self._fresh)

    def ensure(self, titles: Sequence[str], now: datetime) -> Sequence[Tag]:
        """In memory, as :meth:`.TagRepository.ensure`."""
        mine = {title_key(t.title): t for (a, t) in self._t.tags.values() if a == self._account}
        found: list[Tag] = []
        for title in titles:
            tag = mine.get(title_key(title))
            if tag is None:
                tag = mine[title_key(title)] = Tag(self._store.next_id(), title, 0, now, now)
                self._t.tags[tag.id] = (self._account, tag)
            found.append(attrs.evolve(tag, contacts_count=None))
        return found

    def rename(self, tag_id: int, title: str, now: datetime) -> None:
        """In memory, as :meth:`.TagRepository.rename`."""
        tag = self.get(tag_id)
        if tag is not None:
            taken = self.by_title(title)
            if taken is not None and taken.id != tag_id:
                raise ValidationFailed.on("title", "A tag with this title already exists.")
            self._t.tags[tag_id] = (self._account, attrs.evolve(tag, title=title, updated_at=now))

    def delete(self, tag_id: int) -> None:
        """In memory, as :meth:`.TagRepository.delete`."""
        if self.get(tag_id) is not None:
            del self._t.tags[tag_id]
            self._t.contact_tags = {(c, t) for (c, t) in self._t.contact_tags if t != tag_id}

    def attach(self, contact_id: int, tag_id: int) -> bool:
        """In memory, as :meth:`.TagRepository.attach`."""
        if self.get(tag_id) is None or not _owned_contact(self._t, self._account, contact_id):
            return False
        if (contact_id, tag_id) in self._t.contact_tags:
            return False
        self._t.contact_tags.add((contact_id, tag_id))
        return True

    def detach(self, contact_id: int, tag_id: int) -> bool:
        """In memory, as :meth:`.TagRepository.detach`."""
        if self.get(tag_id) is None or (contact_id, tag_id) not in self._t.contact_tags:
            return False
        self._t.contact_tags.discard((contact_id, tag_id))
        return True

    def attach_all(self, contact_id: int, tag_ids: Collection[int]) -> int:
        """In memory, as :meth:`.TagRepository.attach_all`."""
        return sum(self.attach(contact_id, tag_id) for tag_id in set(tag_ids))

    def detach_others(self, contact_id: int, keep: Collection[int]) -> int:
        """In memory, as :meth:`.TagRepository.detach_others`."""
        linked = {t for (c, t) in self._t.contact_tags if c == contact_id and self.get(t) is not None}
        return sum(self.detach(contact_id, tag_id) for tag_id in linked - set(keep))


class InMemoryContactListRepository(_Repo):
    """The in-memory :class:`.ContactListRepository`."""

    def _fresh(self, item: ContactList) -> ContactList:
        return attrs.evolve(item, contacts_count=len(self._t.list_members.get(item.id, [])))

    def add(self, name: str, now: datetime) -> ContactList:
        """In memory, as :meth:`.ContactListRepository.add`."""
        item = ContactList(self._store.next_id(), name, 1, 0, now, now)
        self._t.lists[item.id] = (self._account, item)
        self._t.list_members[item.id] = []
        return item

    def get(self, list_id: int) -> ContactList | None:
        """In memory, as :meth:`.ContactListRepository.get`."""
        row = self._t.lists.get(list_id)
        return None if row is None or row[0] != self._account else self._fresh(row[1])

    def list(self) -> Sequence[ContactList]:
        """In memory, as :meth:`.ContactListRepository.list`."""
        return sorted((self._fresh(i) for (a, i) in self._t.lists.values() if a == self._account), key=lambda i: i.id)

    def update(self, list_id: int, name: str, status: int, now: datetime) -> None:
        """In memory, as :meth:`.ContactListRepository.update`."""
        item = self.get(list_id)
        if item is not None:
            self._t.lists[list_id] = (self._account, attrs.evolve(item, name=name, status=status, updated_at=now))

    def delete(self, list_id: int) -> None:
        """In memory, as :meth:`.ContactListRepository.delete`."""
        if self.get(list_id) is not None:
            del self._t.lists[list_id]
            del self._t.list_members[list_id]

    def add_member(self, list_id: int, contact_id: int, now: datetime) -> bool:
        """In memory, as :meth:`.ContactListRepository.add_member`."""
        if self.get(list_id) is None or not _owned_contact(self._t, self._account, contact_id):
            return False
        members = self._t.list_members[list_id]
        if contact_id in members:
            return False
        members.append(contact_id)
        return True

    def remove_member(self, list_id: int, contact_id: int) -> bool:
        """In memory, as :meth:`.ContactListRepository.remove_member`."""
        if self.get(list_id) is None:
            return False
        members = self._t.list_members[list_id]
        if contact_id not in members:
            return False
        members.remove(contact_id)
        return True

    def members(self, list_id: int, page: PageRequest) -> Page[Member]:
        """In memory, as :meth:`.ContactListRepository.members`."""
        mine = self.get(list_id) is not None
        contacts = [self._t.contacts[cid][1] for cid in self._t.list_members.get(list_id, []) if mine]
        return paginate([Member(c.id, c.name, c.phone, c.type) for c in contacts], page)


class InMemorySegmentRepository(_Repo):
    """The in-memory :class:`.SegmentRepository`."""

    def _contacts(self) -> InMemoryContactRepository:
        return InMemoryContactRepository(self._store, self._state, self._account)

    def _member_ids(self, row: _SegmentRow, now: datetime) -> list[int]:
        rules = SegmentRules(row.segment.match, row.segment.conditions)
        return sorted(
            c.id
            for c in self._contacts()._mine()
            if is_member(rules, c, now, included=c.id in row.included, excluded=c.id in row.excluded)
        )

    def _row(self, segment_id: int) -> _SegmentRow | None:
        found = self._t.segments.get(segment_id)
        return None if found is None or found[0] != self._account else found[1]

    def add(self, name: str, description: str | None, rules: SegmentRules, now: datetime) -> Segment:
        """In memory, as :meth:`.SegmentRepository.add`."""
        segment = Segment(self._store.next_id(), name, description, rules.match, rules.conditions, None, now, now)
        self._t.segments[segment.id] = (self._account, _SegmentRow(segment))
        return attrs.evolve(segment, contacts_count=self._member_ids(self._t.segments[segment.id][1], now).__len__())

    def get(self, segment_id: int, now: datetime) -> Segment | None:
        """In memory, as :meth:`.SegmentRepository.get`."""
        row = self._row(segment_id)
        if row is None:
            return None
        return attrs.evolve(row.segment, contacts_count=len(self._member_ids(row, now)))

    def list(self, now: datetime) -> Sequence[Segment]:
        """In memory, as :meth:`.SegmentRepository.list`."""
        ids = sorted(sid for sid, (acc, _) in self._t.segments.items() if acc == self._account)
        return [s for sid in ids if (s := self.get(sid, now)) is not None]

    def update(self, segment_id: int, name: str, description: str | None, rules: SegmentRules, now: datetime) -> None:
        """In memory, as :meth:`.SegmentRepository.update`."""
        row = self._row(segment_id)
        if row is not None:
            row.segment = attrs.evolve(
                row.segment,
                name=name,
                description=description,
                match=rules.match,
                conditions=rules.conditions,
                updated_at=now,
            )

    def delete(self, segment_id: int) -> None:
        """In memory, as :meth:`.SegmentRepository.delete`."""
        if self._row(segment_id) is not None:
            del self._t.segments[segment_id]

    def include(self, segment_id: int, contact_id: int) -> None:
        """In memory, as :meth:`.SegmentRepository.include`."""
        row = self._row(segment_id)
        if row is not None and _owned_contact(self._t, self._account, contact_id):
            row.included.add(contact_id)
            row.excluded.discard(contact_id)

    def exclude(self, segment_id: int, contact_id: int) -> None:
        """In memory, as :meth:`.SegmentRepository.exclude`."""
        row = self._row(segment_id)
        if row is not None and _owned_contact(self._t, self._account, contact_id):
            row.included.discard(contact_id)
            row.excluded.add(contact_id)

    def members(self, segment_id: int, page: PageRequest, now: datetime) -> Page[Member]:
        """In memory, as :meth:`.SegmentRepository.members`."""
        row = self._row(segment_id)
        ids = [] if row is None else self._member_ids(row, now)
        contacts = [self._t.contacts[cid][1] for cid in ids]
        return paginate([Member(c.id, c.name, c.phone, c.type) for c in contacts], page)

    def is_member(self, segment_id: int, contact_id: int, now: datetime) -> bool:
        """In memory, as :meth:`.SegmentRepository.is_member`."""
        row = self._row(segment_id)
        return row is not None and contact_id in self._member_ids(row, now)


class InMemoryNoteRepository(_Repo):
    """The in-memory :class:`.NoteRepository`."""

    def add(self, contact_id: int, content: str, now: datetime) -> Note:
        """In memory, as :meth:`.NoteRepository.add`."""
        if not _owned_contact(self._t, self._account, contact_id):
            raise NotFound("Contact")
        note = Note(self._store.next_id(), contact_id, content, now, now)
        self._t.notes[note.id] = (self._account, note)
        return note

    def for_contact(self, contact_id: int) -> Sequence[Note]:
        """In memory, as :meth:`.NoteRepository.for_contact`."""
        notes = [n for (a, n) in self._t.notes.values() if a == self._account and n.contact_id == contact_id]
        return sorted(notes, key=lambda n: (n.created_at, n.id), reverse=True)


AREA = FakeArea(
    ContactsTables,
    workspace={
        "contacts": InMemoryContactRepository,
        "tags": InMemoryTagRepository,
        "lists": InMemoryContactListRepository,
        "segments": InMemorySegmentRepository,
        "notes": InMemoryNoteRepository,
    },
)
