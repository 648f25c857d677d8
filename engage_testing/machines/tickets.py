"""Support tickets as a state machine (SPEC 3 Support ticket), driven by Hypothesis.

Rules open tickets, let both sides reply (valid replies, blank and over-long ones), close tickets
(closed ones again too), assign and unassign team members, delete members, and let a fake clock
run, all through the real `Services` over the storage `make_backend()` gives (the in-memory
fakes by default). A plain model predicts each outcome
from SPEC 3's table, written out here rather than imported.

After every step:

- every ticket's status, reply count, assignee and `last_reply_at` agree with the model;
- `closed_at` is set exactly on closed tickets, and no reply is newer than it;
- references are `TKT-000001`, `TKT-000002`, ... with no gap and no repeat;
- no ticket is assigned to a deleted or unknown member;
- the outbox has one `ticket.created` per ticket, one `ticket.closed` per closed ticket, one
  `ticket.replied` per stored reply, and one `ticket.updated` per status move and assignment change.
"""

from __future__ import annotations

from collections import Counter
from datetime import datetime

import attrs
from hypothesis import event
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, initialize, invariant, rule

from engage_core.kernel.errors import NotFound, ValidationFailed
from engage_core.services import Services
from engage_core.support.ticket_service import TicketInput, TicketPatch
from engage_core.support.tickets import Ticket
from engage_core.team.service import MemberInput
from engage_core.testing import FakeClock, FakeMailer, FakePasswordHasher

from .base import START, EngageMachine, refused

MOVES = {
    ("open", "client"): "open",
    ("open", "admin"): "answered",
    ("answered", "client"): "open",
    ("answered", "admin"): "answered",
}
"""SPEC 3 and the operator's answer: the status after a reply; closed tickets take none."""
TEXTS = st.builds(
    lambda length, padding: padding + "x" * length + padding,
    st.sampled_from([0, 2, 10_000, 10_001]),
    st.sampled_from(["", "  "]),
)
"""Blank, short, the longest allowed and one too long (SPEC 8: 10,000), trimmed or not."""


@attrs.define
class ModelTicket:
    status: str = "open"
    replies: int = 0
    assignee: int | None = None
    last_reply_at: datetime | None = None


class TicketMachine(EngageMachine):
    tickets: Bundle[int] = Bundle("tickets")
    members: Bundle[int] = Bundle("members")

    def __init__(self) -> None:
        super().__init__()
        self.clock = FakeClock(START)
        self.backend = self.make_backend()
        self.uow = self.backend.uow
        self.services = Services.build(self.uow, self.clock, hasher=FakePasswordHasher(), mailer=FakeMailer())
        self.account = self.services.accounts.create("Acme").account.id
        self.model: dict[int, ModelTicket] = {}
        self.live_members: set[int] = set()
        self.moves = 0
        self.assignment_changes = 0
        self.member_count = 0

    @initialize(target=tickets)
    def first_ticket(self) -> int:
        return self._open(None)

    @initialize(target=members)
    def first_member(self) -> int:
        return self._add_member("agent")

    # -- rules -------------------------------------------------------------------------------------

    @rule(target=tickets, priority=st.sampled_from([None, "low", "medium", "high"]))
    def open_ticket(self, priority: str | None) -> int:
        return self._open(priority)

    def _open(self, priority: str | None) -> int:
        ticket = self.services.tickets.create(self.account, TicketInput("Login fails", "Help", priority=priority))
        assert (ticket.status, ticket.priority) == ("open", priority or "medium")
        self.model[ticket.id] = ModelTicket()
        return ticket.id

    @rule(ticket=tickets, side=st.sampled_from(["client", "admin"]), text=TEXTS)
    def reply(self, ticket: int, side: str, text: str) -> None:
        model = self.model[ticket]
        if not text.strip() or len(text.strip()) > 10_000 or model.status == "closed":
            with refused(ValidationFailed):
                self.services.tickets.reply(self.account, ticket, text, type=side)
            event("refused: closed" if model.status == "closed" else "refused: bad text")
            return
        posted = self.services.tickets.reply(self.account, ticket, text, type=side)
        to = MOVES[(model.status, side)]
        event(f"{side} reply: {model.status} -> {to}")
        self.moves += to != model.status
        model.status, model.replies, model.last_reply_at = to, model.replies + 1, self.clock.now()
        assert posted.ticket.status == to

    @rule(ticket=tickets, sides=st.lists(st.sampled_from(["client", "admin"]), min_size=2, max_size=5))
    def converse(self, ticket: int, sides: list[str]) -> None:
        """A few valid replies in a row, so that every move of the table is reached often."""
        for side in sides:
            self.reply(ticket, side, "Thanks")

    @rule(ticket=tickets)
    def close(self, ticket: int) -> None:
        model = self.model[ticket]
        assert self.services.tickets.close(self.account, ticket).status == "closed"
        event("closed again" if model.status == "closed" else f"closed from {model.status}")
        model.status = "closed"

    @rule(target=members, role=st.sampled_from(["admin", "agent"]))
    def add_member(self, role: str) -> int:
        return self._add_member(role)

    def _add_member(self, role: str) -> int:
        self.member_count += 1
        email = f"member{self.member_count}@example.com"
        member = self.services.team.create(self.account, MemberInput("Member", email, role, "long enough")).member
        self.live_members.add(member.id)
        return member.id

    @rule(ticket=tickets, member=members)
    def assign(self, ticket: int, member: int) -> None:
        model = self.model[ticket]
        patch = TicketPatch(assignee_id=member)
        if member not in self.live_members:
            with refused(ValidationFailed):
                self.services.tickets.update(self.account, ticket, patch)
            return
        self.services.tickets.update(self.account, ticket, patch)
        self.assignment_changes += model.assignee != member
        model.assignee = member

    @rule(ticket=tickets)
    def unassign(self, ticket: int) -> None:
        model = self.model[ticket]
        self.services.tickets.update(self.account, ticket, TicketPatch(assignee_id=None))
        self.assignment_changes += model.assignee is not None
        model.assignee = None

    @rule(member=members)
    def delete_member(self, member: int) -> None:
        if member not in self.live_members:
            with refused(NotFound):
                self.services.team.delete(self.account, member)
            return
        self.services.team.delete(self.account, member)
        self.live_members.discard(member)
        for model in self.model.values():
            if model.assignee == member:
                model.assignee = None
                self.assignment_changes += 1
                event("unassigned by a member's deletion")

    @rule(minutes=st.sampled_from([0, 1, 30]))
    def time_passes(self, minutes: int) -> None:
        self.clock.advance(minutes=minutes)

    # -- invariants --------------------------------------------------------------------------------

    def _tickets(self) -> list[Ticket]:
        with self.uow.workspace(self.account, readonly=True) as tx:
            return [t for tid in self.model if (t := tx.tickets.get(tid)) is not None]

    @invariant()
    def tickets_agree_with_the_model(self) -> None:
        with self.uow.workspace(self.account, readonly=True) as tx:
            for ticket in self._tickets():
                model = self.model[ticket.id]
                replies = tx.tickets.replies(ticket.id)
                assert (ticket.status, len(replies)) == (model.status, model.replies)
                assert (ticket.assignee_id, ticket.last_reply_at) == (model.assignee, model.last_reply_at)

    @invariant()
    def closed_tickets_took_no_later_reply(self) -> None:
        with self.uow.workspace(self.account, readonly=True) as tx:
            for ticket in self._tickets():
                assert (ticket.closed_at is not None) == (ticket.status == "closed")
                if ticket.closed_at is not None:
                    assert all(r.created_at <= ticket.closed_at for r in tx.tickets.replies(ticket.id))

    @invariant()
    def references_count_up_without_gaps(self) -> None:
        references = sorted(t.ticket_id for t in self._tickets())
        assert references == [f"TKT-{n:06d}" for n in range(1, len(self.model) + 1)]

    @invariant()
    def nobody_gone_holds_a_ticket(self) -> None:
        assert all(t.assignee_id is None or t.assignee_id in self.live_members for t in self._tickets())

    @invariant()
    def the_outbox_tells_every_change(self) -> None:
        names = Counter(e.name for e in self.backend.events(self.account))
        assert names["ticket.created"] == len(self.model)
        assert names["ticket.closed"] == sum(1 for m in self.model.values() if m.status == "closed")
        assert names["ticket.replied"] == sum(m.replies for m in self.model.values())
        assert names["ticket.updated"] == self.moves + self.assignment_changes
