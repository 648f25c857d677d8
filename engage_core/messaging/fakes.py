"""In-memory fakes of messaging's storage ports (channels, handles, messages, conversation handling, the
channel directory)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import attrs

from engage_core.contacts.fakes import ContactsTables
from engage_core.kernel.memory import FakeArea, Repo, Tables
from engage_core.kernel.pagination import Page, PageRequest, paginate
from engage_core.messaging.channels import ChannelAccount, ChannelDraft, channel_taken
from engage_core.messaging.conversations import ConversationFilter, ConversationSummary
from engage_core.messaging.handling import AI, ConversationHandling
from engage_core.messaging.messages import Message, MessageDraft


@attrs.define
class MessagingTables(Tables):
    """The messaging area's rows, by table."""

    channels: dict[int, tuple[int, ChannelAccount]] = attrs.Factory(dict)
    messages: dict[int, tuple[int, Message]] = attrs.Factory(dict)
    handles: dict[tuple[int, str, str], int] = attrs.Factory(dict)  # (account_id, channel, handle) -> contact id
    handling: dict[tuple[int, int], ConversationHandling] = attrs.Factory(dict)  # (account_id, contact_id) -> state

    def forget(self, kind: str, ident: int) -> None:
        """A deleted contact takes its messages, handles and handling state with it
        (:meth:`.Tables.forget`)."""
        if kind == "contact":  # deleted with their contact
            self.messages = {k: v for k, v in self.messages.items() if v[1].contact_id != ident}
            self.handles = {k: v for k, v in self.handles.items() if v != ident}
            self.handling = {k: v for k, v in self.handling.items() if k[1] != ident}


class _Repo(Repo):
    @property
    def _t(self) -> MessagingTables:
        """This area\'s tables, as the transaction sees them."""
        return self._state.of(MessagingTables)


class InMemoryChannelAccountRepository(_Repo):
    """The in-memory :class:`.ChannelAccountRepository`."""

    def _mine(self) -> list[ChannelAccount]:
        return sorted((c for (a, c) in self._t.channels.values() if a == self._account), key=lambda c: c.id)

    def add(self, draft: ChannelDraft, now: datetime) -> ChannelAccount:
        """In memory, as :meth:`.ChannelAccountRepository.add`."""
        if self.by_type(draft.type) is not None:
            raise channel_taken(draft.type)
        if draft.provider_account_id is not None and any(
            c.provider_account_id == draft.provider_account_id for (_, c) in self._t.channels.values()
        ):
            raise ValueError("the provider account already has a channel setting")
        account = ChannelAccount(
            id=self._store.next_id(),
            type=draft.type,
            provider_account_id=draft.provider_account_id,
            username=draft.username,
            sync_status="CONNECTING",
            is_connected=False,
            last_synced_at=None,
            created_at=now,
            updated_at=now,
            checkpoint_type=draft.checkpoint_type,
        )
        self._t.channels[account.id] = (self._account, account)
        return account

    def by_type(self, type: str) -> ChannelAccount | None:
        """In memory, as :meth:`.ChannelAccountRepository.by_type`."""
        return next((c for c in self._mine() if c.type == type), None)

    def by_provider_account(self, provider_account_id: str) -> ChannelAccount | None:
        """In memory, as :meth:`.ChannelAccountRepository.by_provider_account`."""
        return next((c for c in self._mine() if c.provider_account_id == provider_account_id), None)

    def list(self) -> Sequence[ChannelAccount]:
        """In memory, as :meth:`.ChannelAccountRepository.list`."""
        return self._mine()

    def update(self, account: ChannelAccount) -> None:
        """In memory, as :meth:`.ChannelAccountRepository.update`."""
        row = self._t.channels.get(account.id)
        if row is not None and row[0] == self._account:
            stored = row[1]
            self._t.channels[account.id] = (
                self._account,
                attrs.evolve(account, type=stored.type, created_at=stored.created_at),
            )

    def delete(self, channel_id: int) -> None:
        """In memory, as :meth:`.ChannelAccountRepository.delete`."""
        row = self._t.channels.get(channel_id)
        if row is not None and row[0] == self._account:
            del self._t.channels[channel_id]


class InMemoryContactHandleRepository(_Repo):
    """The in-memory :class:`.ContactHandleRepository`."""

    def contact_for(self, channel: str, handle: str) -> int | None:
        """In memory, as :meth:`.ContactHandleRepository.contact_for`."""
        return self._t.handles.get((self._account, channel, handle))

    def handle_of(self, contact_id: int, channel: str) -> str | None:
        """In memory, as :meth:`.ContactHandleRepository.handle_of`."""
        return next(
            (
                h
                for (a, c, h), cid in self._t.handles.items()
                if a == self._account and c == channel and cid == contact_id
            ),
            None,
        )

    def link(self, contact_id: int, channel: str, handle: str) -> None:
        """In memory, as :meth:`.ContactHandleRepository.link`."""
        owner = self.contact_for(channel, handle)
        if owner is not None and owner != contact_id:
            raise ValueError(f"the {channel} handle {handle} belongs to another contact")
        previous = self.handle_of(contact_id, channel)
        if previous is not None:
            del self._t.handles[(self._account, channel, previous)]
        self._t.handles[(self._account, channel, handle)] = contact_id


def _newest_first(message: Message) -> tuple[datetime, int]:
    return (message.created_at, message.id)


class InMemoryMessageRepository(_Repo):
    """The reference semantics of `MessageRepository`: plain scans, fine for tests."""

    def _mine(self) -> list[Message]:
        return [m for (a, m) in self._t.messages.values() if a == self._account]

    def add_many(self, drafts: Sequence[MessageDraft], now: datetime) -> Sequence[Message]:
        """In memory, as :meth:`.MessageRepository.add_many`."""
        return [self.add(draft, now) for draft in drafts]

    def add(self, draft: MessageDraft, now: datetime) -> Message:
        """In memory, as :meth:`.MessageRepository.add`."""
        if draft.provider_message_id is not None and self.by_provider_id(draft.channel, draft.provider_message_id):
            raise ValueError("a message with this provider message id is already stored")
        message = Message(
            id=self._store.next_id(),
            contact_id=draft.contact_id,
            direction=draft.direction,
            channel=draft.channel,
            content=draft.content,
            status=draft.status,
            sent_at=draft.sent_at,
            created_at=now,
            updated_at=now,
            error=draft.error,
            provider_message_id=draft.provider_message_id,
            campaign_id=draft.campaign_id,
        )
        self._t.messages[message.id] = (self._account, message)
        return message

    def get(self, message_id: int) -> Message | None:
        """In memory, as :meth:`.MessageRepository.get`."""
        row = self._t.messages.get(message_id)
        return None if row is None or row[0] != self._account else row[1]

    def by_provider_id(self, channel: str, provider_message_id: str) -> Message | None:
        """In memory, as :meth:`.MessageRepository.by_provider_id`."""
        return next(
            (m for m in self._mine() if m.channel == channel and m.provider_message_id == provider_message_id), None
        )

    def update(self, message: Message) -> None:
        """In memory, as :meth:`.MessageRepository.update`."""
        current = self.get(message.id)
        if current is not None:
            self._t.messages[message.id] = (
                self._account,
                attrs.evolve(
                    current,
                    status=message.status,
                    sent_at=message.sent_at,
                    error=message.error,
                    provider_message_id=message.provider_message_id,
                    updated_at=message.updated_at,
                ),
            )

    def for_contact(self, contact_id: int, direction: str | None, page: PageRequest) -> Page[Message]:
        """In memory, as :meth:`.MessageRepository.for_contact`."""
        found = [
            m for m in self._mine() if m.contact_id == contact_id and (direction is None or m.direction == direction)
        ]
        return paginate(sorted(found, key=_newest_first, reverse=True), page)

    def conversations(self, filters: ConversationFilter, page: PageRequest) -> Page[ConversationSummary]:
        """In memory, as :meth:`.MessageRepository.conversations`."""
        handling = self._t.handling
        by_contact: dict[int, list[Message]] = {}
        for m in self._mine():
            if filters.channel is not None and m.channel != filters.channel:
                continue
            if filters.contact_id is not None and m.contact_id != filters.contact_id:
                continue
            by_contact.setdefault(m.contact_id, []).append(m)
        summaries: list[tuple[tuple[datetime, int], ConversationSummary]] = []
        for contact_id, messages in by_contact.items():
            state = handling.get((self._account, contact_id))
            handled_by = AI if state is None else state.handled_by
            if filters.handled_by is not None and handled_by != filters.handled_by:
                continue
            plain = filters.contact_id is None  # `contact_id` ignores the dashboard's filters, as in SQL
            if (
                plain
                and filters.visible_to is not None
                and state is not None
                and not state.visible_to(filters.visible_to)
            ):
                continue
            assignee = None if state is None else state.assignee_id
            if plain and filters.assignee_id is not None and assignee != filters.assignee_id:
                continue
            if plain and filters.unread and not any(m.is_unread for m in messages):
                continue
            last = max(messages, key=_newest_first)
            summary = ConversationSummary(
                contact_id=contact_id,
                contact_name=self._state.of(ContactsTables).contacts[contact_id][1].name,
                channel=last.channel,
                last_message=last.content,
                last_message_at=last.created_at,
                unread_count=sum(1 for m in messages if m.is_unread),
                handled_by=handled_by,
            )
            summaries.append((_newest_first(last), summary))
        summaries.sort(key=lambda pair: pair[0], reverse=True)
        return paginate([summary for _, summary in summaries], page)

    def mark_read(self, contact_id: int, now: datetime) -> int:
        """In memory, as :meth:`.MessageRepository.mark_read`."""
        unread = [m for m in self._mine() if m.contact_id == contact_id and m.is_unread]
        for m in unread:
            self._t.messages[m.id] = (self._account, attrs.evolve(m, status="read", updated_at=now))
        return len(unread)


class InMemoryConversationHandlingRepository(_Repo):
    """The in-memory :class:`.ConversationHandlingRepository` (a transaction holds the store's lock:
    moves of one conversation apply one after the other)."""

    def get(self, contact_id: int) -> ConversationHandling | None:
        """In memory, as :meth:`.ConversationHandlingRepository.get`."""
        return self._t.handling.get((self._account, contact_id))

    def put(self, handling: ConversationHandling) -> None:
        """In memory, as :meth:`.ConversationHandlingRepository.put`."""
        self._t.handling[(self._account, handling.contact_id)] = handling

    def unassign_member(self, member_id: int, now: datetime) -> int:
        """In memory, as :meth:`.ConversationHandlingRepository.unassign_member`."""
        assigned = [k for k, v in self._t.handling.items() if k[0] == self._account and v.assignee_id == member_id]
        for key in assigned:
            self._t.handling[key] = attrs.evolve(self._t.handling[key], assignee_id=None, updated_at=now)
        return len(assigned)


class InMemoryChannelDirectory(_Repo):
    """Finds the account owning a provider account, across accounts."""

    def owner_of(self, provider_account_id: str) -> int | None:
        """In memory, as :meth:`.ChannelDirectory.owner_of`."""
        return next((a for (a, c) in self._t.channels.values() if c.provider_account_id == provider_account_id), None)


AREA = FakeArea(
    MessagingTables,
    workspace={
        "channels": InMemoryChannelAccountRepository,
        "messages": InMemoryMessageRepository,
        "handles": InMemoryContactHandleRepository,
        "conversation_handling": InMemoryConversationHandlingRepository,
    },
    admin={"channel_directory": InMemoryChannelDirectory},
)
