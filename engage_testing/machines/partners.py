"""Partner clients as a state machine (SPEC 3 Partner client), driven by Hypothesis.

Rules create clients (past the partner's seats too), suspend, reactivate, change plans at once or
at the next billing boundary, let the clock run (past boundaries), and delete, all through the
real `Services` over the storage `make_backend()` gives (the in-memory fakes by default). A plain
model predicts each outcome.

After every step:

- the partner's seats used equal the live clients, never more than `client_seats.max`;
- every client's status and `suspended_at` agree with the model (set exactly while suspended),
  and the workspace is refused exactly while suspended;
- the plan in force (client listing and entitlements alike) is the model's: the pending plan from
  its boundary on, the old one before;
- deleted clients and their workspaces are gone;
- the partner outbox has one `partner.client.created` per client ever created, one `deleted` per
  deletion, and one `suspended` and `reactivated` per such move.
"""

from __future__ import annotations

import calendar
from collections import Counter
from datetime import datetime, timedelta

import attrs
from hypothesis import event
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, invariant, rule

from engage_core.kernel.errors import Conflict, Forbidden, NotFound
from engage_core.kernel.pagination import PageRequest
from engage_core.partners.client_service import AdminInput, ClientInput, ClientPatch
from engage_core.partners.model import ClientFilter
from engage_core.services import Services
from engage_core.testing import FakeClock, FakeMailer, FakePasswordHasher

from .base import START, EngageMachine, refused

SEATS = 3
PLANS = st.sampled_from(["starter", "pro", "business"])


@attrs.define
class ModelClient:
    status: str
    plan: str
    created_at: datetime
    pending: str | None = None
    pending_from: datetime | None = None

    def plan_at(self, now: datetime) -> str:
        if self.pending is not None and self.pending_from is not None and now >= self.pending_from:
            return self.pending
        return self.plan


class PartnerClientMachine(EngageMachine):
    clients: Bundle[int] = Bundle("clients")

    def __init__(self) -> None:
        super().__init__()
        self.clock = FakeClock(START)
        self.backend = self.make_backend()
        self.services = Services.build(self.backend.uow, self.clock, hasher=FakePasswordHasher(), mailer=FakeMailer())
        self.partner = self.services.partners.create("Reseller", "ops@reseller.example", client_seats_max=SEATS)
        self.partner_id = self.partner.partner.id
        self.model: dict[int, ModelClient] = {}
        self.deleted: set[int] = set()
        self.moves: Counter[str] = Counter()
        self.made = 0

    # -- rules -------------------------------------------------------------------------------------

    @rule(target=clients, plan=PLANS)
    def create(self, plan: str) -> int:
        self.made += 1
        data = ClientInput(f"Client {self.made}", plan, AdminInput("Ada", "L", f"admin{self.made}@c.example"))
        if len(self.model) >= SEATS:
            with refused(Forbidden):
                self.services.partner_clients.create(self.partner_id, data)
            event("create refused: seats full")
            return -1
        client = self.services.partner_clients.create(self.partner_id, data).client
        self.model[client.id] = ModelClient("active", plan, client.created_at)
        self.moves["created"] += 1
        return client.id

    @rule(client=clients, reason=st.sampled_from([None, "Unpaid"]))
    def suspend(self, client: int, reason: str | None) -> None:
        model = self.model.get(client)
        if model is None or model.status != "active":
            with refused(NotFound if model is None else Conflict):
                self.services.partner_clients.suspend(self.partner_id, client, reason)
            return
        result = self.services.partner_clients.suspend(self.partner_id, client, reason)
        assert result.suspended_at == self.clock.now()
        model.status = "suspended"
        self.moves["suspended"] += 1

    @rule(client=clients)
    def reactivate(self, client: int) -> None:
        model = self.model.get(client)
        if model is None or model.status != "suspended":
            with refused(NotFound if model is None else Conflict):
                self.services.partner_clients.reactivate(self.partner_id, client)
            return
        self.services.partner_clients.reactivate(self.partner_id, client)
        model.status = "active"
        self.moves["reactivated"] += 1

    @rule(client=clients, plan=PLANS, immediate=st.booleans())
    def change_plan(self, client: int, plan: str, immediate: bool) -> None:
        model = self.model.get(client)
        patch = ClientPatch(plan=plan, immediate=immediate)
        if model is None:
            with refused(NotFound):
                self.services.partner_clients.update(self.partner_id, client, patch)
            return
        now = self.clock.now()
        current = model.plan_at(now)
        updated = self.services.partner_clients.update(self.partner_id, client, patch)
        if immediate or plan == current:
            model.plan, model.pending, model.pending_from = plan, None, None
            event("plan changed now")
            return
        boundary = updated.schedule.pending_from
        assert boundary is not None
        anchor = model.created_at
        last_day = calendar.monthrange(boundary.year, boundary.month)[1]
        # The next boundary: after now, within a month, on the anchor's day (clamped) and time.
        assert now < boundary <= now + timedelta(days=31)
        assert boundary.day == min(anchor.day, last_day) and boundary.time() == anchor.time()
        model.plan, model.pending, model.pending_from = current, plan, boundary
        event("plan change deferred")

    @rule(step=st.sampled_from([timedelta(hours=1), timedelta(days=10), timedelta(days=31)]))
    def time_passes(self, step: timedelta) -> None:
        self.clock.advance(seconds=step.total_seconds())

    @rule(client=clients)
    def delete(self, client: int) -> None:
        if client not in self.model:
            with refused(NotFound):
                self.services.partner_clients.delete(self.partner_id, client)
            return
        self.services.partner_clients.delete(self.partner_id, client)
        del self.model[client]
        self.deleted.add(client)
        self.moves["deleted"] += 1

    # -- invariants --------------------------------------------------------------------------------

    @invariant()
    def seats_match_live_clients(self) -> None:
        used = self.services.partner_clients.seats_used(self.partner_id)
        assert used == len(self.model) <= SEATS

    @invariant()
    def statuses_match(self) -> None:
        page = self.services.partner_clients.find(self.partner_id, ClientFilter(), PageRequest(per_page=100))
        stored = {c.id: c for c in page.items}
        assert set(stored) == set(self.model)
        now = self.clock.now()
        for client_id, model in self.model.items():
            client = stored[client_id]
            assert client.status == model.status
            assert (client.suspended_at is not None) == (model.status == "suspended")
            assert client.plan_at(now) == model.plan_at(now)

    @invariant()
    def suspended_workspaces_are_refused(self) -> None:
        for client_id, model in self.model.items():
            if model.status == "suspended":
                with refused(Forbidden):
                    self.services.partner_clients.ensure_not_suspended(client_id)
            else:
                self.services.partner_clients.ensure_not_suspended(client_id)

    @invariant()
    def entitlements_follow_the_plan_in_force(self) -> None:
        now = self.clock.now()
        for client_id, model in self.model.items():
            assert self.services.entitlements.plan_of(client_id).slug == model.plan_at(now)

    @invariant()
    def deleted_workspaces_are_gone(self) -> None:
        for client_id in self.deleted:
            with refused(NotFound):
                self.services.accounts.get(client_id)

    @invariant()
    def the_outbox_has_one_event_per_move(self) -> None:
        names = Counter(e.name.removeprefix("partner.client.") for e in self.backend.partner_events(self.partner_id))
        for move in ("created", "suspended", "reactivated", "deleted"):
            assert names[move] == self.moves[move]
