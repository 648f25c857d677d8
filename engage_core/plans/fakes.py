"""In-memory fakes of the plans area's ports (plans, usage counts)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import attrs

from engage_core.agents.fakes import AgentsTables
from engage_core.bookings.fakes import BookingsTables
from engage_core.campaigns.fakes import CampaignsTables
from engage_core.contacts.fakes import ContactsTables
from engage_core.kernel.memory import FakeArea, Repo, Tables
from engage_core.media.fakes import MediaTables
from engage_core.messaging.fakes import MessagingTables
from engage_core.partners.fakes import PartnersTables
from engage_core.plans.model import SEED_PLANS, Plan, check_room
from engage_core.plans.usage import WorkspaceUsage
from engage_core.team.fakes import TeamTables


@attrs.define
class PlansTables(Tables):
    """The plans area's rows, by table."""

    plans: dict[str, Plan] = attrs.Factory(lambda: {plan.slug: plan for plan in SEED_PLANS})


class _Repo(Repo):
    @property
    def _t(self) -> PlansTables:
        """This area\'s tables, as the transaction sees them."""
        return self._state.of(PlansTables)


class InMemoryUsageRepository(_Repo):
    """The in-memory :class:`.UsageRepository`."""

    def reserve(self, limit: str, since: datetime, amount: int, maximum: int) -> None:
        """Lock-then-count, as :meth:`.UsageRepository.reserve`: the store lock is the lock."""
        check_room(limit, self.count(limit, since), amount, maximum)

    def lock(self) -> None:
        """Nothing to do: the store lock already serialises every transaction."""

    def count(self, limit: str, since: datetime) -> int:
        """In memory, as :meth:`.UsageRepository.count`."""
        mine = self._account
        if limit == "contacts":
            return sum(1 for a, _ in self._state.of(ContactsTables).contacts.values() if a == mine)
        if limit == "team_members":
            return sum(1 for a, _ in self._state.of(TeamTables).team_members.values() if a == mine)
        if limit == "channels":
            return sum(1 for a, _ in self._state.of(MessagingTables).channels.values() if a == mine)
        if limit == "media_files":
            return sum(1 for a, _ in self._state.of(MediaTables).media_files.values() if a == mine)
        if limit == "messages_per_month":
            return sum(
                1
                for a, m in self._state.of(MessagingTables).messages.values()
                if a == mine and m.direction == "outbound" and m.created_at >= since
            )
        raise ValueError(f"unknown limit {limit!r}")

    def report(self, start: datetime, end: datetime) -> WorkspaceUsage:
        """In memory, as :meth:`.UsageRepository.report`."""
        mine = self._account
        contacts = [c for a, c in self._state.of(ContactsTables).contacts.values() if a == mine]
        messages = [
            m for a, m in self._state.of(MessagingTables).messages.values() if a == mine and start <= m.created_at < end
        ]
        bookings = [b for a, b in self._state.of(BookingsTables).bookings.values() if a == mine]
        campaigns = [c for a, c in self._state.of(CampaignsTables).campaigns.values() if a == mine]
        return WorkspaceUsage(
            contacts_total=len(contacts),
            contacts_created=sum(1 for c in contacts if start <= c.created_at < end),
            contacts_blacklisted=sum(1 for c in contacts if c.blacklisted),
            messages_sent=sum(1 for m in messages if m.direction == "outbound" and m.status != "failed"),
            messages_received=sum(1 for m in messages if m.direction == "inbound"),
            messages_failed=sum(1 for m in messages if m.status == "failed"),
            campaigns_total=len(campaigns),
            campaigns_sent=sum(
                1 for m in messages if m.campaign_id is not None and m.direction == "outbound" and m.status != "failed"
            ),
            campaigns_paused=sum(1 for c in campaigns if c.status == "paused"),
            bookings_total=len(bookings),
            bookings_completed=sum(1 for b in bookings if b.status == "completed"),
            bookings_cancelled=sum(1 for b in bookings if b.status == "cancelled"),
            ai_agent_sessions=len(
                {
                    r.contact_id
                    for r in self._state.of(AgentsTables).ai_replies.values()
                    if r.account_id == mine and start <= r.created_at < end
                }
            ),
            team_members=sum(1 for a, _ in self._state.of(TeamTables).team_members.values() if a == mine),
            channels_connected=tuple(
                sorted(
                    c.type for a, c in self._state.of(MessagingTables).channels.values() if a == mine and c.is_connected
                )
            ),
        )


class InMemoryPlanRepository(_Repo):
    """The in-memory :class:`.PlanRepository`."""

    def list(self) -> Sequence[Plan]:
        """In memory, as :meth:`.PlanRepository.list`."""
        return sorted(self._t.plans.values(), key=lambda p: p.id)

    def by_slug(self, slug: str) -> Plan | None:
        """In memory, as :meth:`.PlanRepository.by_slug`."""
        return self._t.plans.get(slug)

    def in_force(self, account_id: int, now: datetime, default_plan: str) -> Plan | None:
        """In memory, as :meth:`.PlanRepository.in_force`."""
        client = self._state.of(PartnersTables).clients.get(account_id)
        return self._t.plans.get(default_plan if client is None else client.schedule.plan_at(now))

    def update(self, plan: Plan) -> None:
        """In memory, as :meth:`.PlanRepository.update`."""
        current = self._t.plans.get(plan.slug)
        if current is not None:
            self._t.plans[plan.slug] = attrs.evolve(
                current, name=plan.name, limits=dict(plan.limits), features=frozenset(plan.features)
            )


AREA = FakeArea(
    PlansTables,
    workspace={
        "usage": InMemoryUsageRepository,
    },
    partners={
        "plans": InMemoryPlanRepository,
    },
)
