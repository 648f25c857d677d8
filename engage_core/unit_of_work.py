"""The units of work the services open: one transaction each, handing out every area's repositories.

This is the core's registry of areas: a unit of work is the sum of the repository protocols each
area declares in its `ports` module (`ContactsRepositories`, ...). A new area adds its protocol to
the bases below; the adapters register their repositories under the same names
(`engage_sql.areas`, `engage_core.testing.AREAS`), and a contract test checks that the names agree.
"""

from __future__ import annotations

from typing import Protocol

from engage_core.accounts.ports import AccountsRepositories
from engage_core.agents.ports import AgentsRepositories
from engage_core.bookings.ports import BookingsRepositories
from engage_core.campaigns.ports import CampaignsRepositories
from engage_core.commerce.ports import CommerceRepositories
from engage_core.contacts.ports import ContactsRepositories
from engage_core.jobs.ports import JobsRepositories
from engage_core.kernel.events import DomainEvent
from engage_core.kernel.units import UnitOfWork
from engage_core.knowledge.documents import DocumentRepositories
from engage_core.knowledge.ports import KnowledgeRepositories
from engage_core.knowledge.search import KnowledgeSearchRepositories
from engage_core.knowledge.voice import VoiceRepositories
from engage_core.knowledge.websites import WebsiteRepositories
from engage_core.linkedin.ports import LinkedInRepositories
from engage_core.media.ports import MediaRepositories
from engage_core.messaging.ports import ChannelDirectoryRepositories, MessagingRepositories
from engage_core.partners.ports import PartnersRepositories
from engage_core.plans.ports import PlansRepositories, UsageRepositories
from engage_core.support.ports import SupportRepositories
from engage_core.team.ports import TeamDirectoryRepositories, TeamRepositories
from engage_core.voice.ports import VoiceSettingsRepositories
from engage_core.webchat.ports import WebChatDirectoryRepositories, WebChatRepositories
from engage_core.webhooks.ports import WebhooksRepositories


class WorkspaceUnitOfWork(
    ContactsRepositories,
    MessagingRepositories,
    BookingsRepositories,
    CommerceRepositories,
    KnowledgeRepositories,
    KnowledgeSearchRepositories,
    WebsiteRepositories,
    DocumentRepositories,
    VoiceRepositories,
    CampaignsRepositories,
    LinkedInRepositories,
    MediaRepositories,
    VoiceSettingsRepositories,
    SupportRepositories,
    TeamRepositories,
    AgentsRepositories,
    WebhooksRepositories,
    UsageRepositories,
    JobsRepositories,
    WebChatRepositories,
    UnitOfWork,
    Protocol,
):
    """One transaction inside one account: every repository it hands out sees that account only."""

    @property
    def account_id(self) -> int:
        """The account every repository of this unit of work is scoped to."""

    def emit(self, event: DomainEvent) -> None:
        """Record an event. `commit()` writes it to the outbox and queues one delivery attempt for
        every active subscription that wants it, in the same transaction as the change."""


class AdminUnitOfWork(
    AccountsRepositories,
    ChannelDirectoryRepositories,
    WebChatDirectoryRepositories,
    TeamDirectoryRepositories,
    UnitOfWork,
    Protocol,
):
    """One transaction across accounts, for administration and authentication."""


class PartnerUnitOfWork(PartnersRepositories, PlansRepositories, AccountsRepositories, UnitOfWork, Protocol):
    """One transaction across partners, their clients, plans and accounts."""

    def emit(self, partner_id: int, event: DomainEvent) -> None:
        """Record a partner-level event. `commit()` writes it to the outbox and queues one delivery
        attempt (kind `partner`, owner the partner) for each of the partner's active subscriptions
        that wants it, in the same transaction as the change."""


class UnitOfWorkFactory(Protocol):
    """Opens units of work. `readonly` lets the adapter skip write locks for pure reads."""

    def workspace(self, account_id: int, *, readonly: bool = False) -> WorkspaceUnitOfWork:
        """A unit of work inside account `account_id`; open it with `with`."""

    def admin(self, *, readonly: bool = False) -> AdminUnitOfWork:
        """A unit of work across accounts, for administration and authentication."""

    def partners(self, *, readonly: bool = False) -> PartnerUnitOfWork:
        """A unit of work across partners, their clients, plans and accounts."""
