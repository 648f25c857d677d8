"""Campaigns as a state machine over the storage `make_backend()` gives (the fakes by default):
starts, pauses, resumes, cancels, runs of the send job, receipts, provider outages and crashes of
the sender between "sent through the gateway" and "recorded", in any order. After every step: the
counters equal a recount of the recipients, no contact got the campaign twice, no recipient moved
backwards (but a claim given back unsent), a final campaign stays final, `completed` means nothing
is pending, and a recipient is recorded sent, or failed with an unknown outcome, only when the
network got its message (the fastest rate sends in batches: a crash there loses a batch's records)."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st
from hypothesis.stateful import initialize, invariant, precondition, rule

from engage_core.campaigns.model import FINAL, RANK, SOURCES, Counters, RecipientFilter
from engage_core.campaigns.service import CampaignInput
from engage_core.contacts.model import ContactInput
from engage_core.jobs.runner import JobRunner
from engage_core.kernel.errors import ValidationFailed
from engage_core.kernel.pagination import PageRequest
from engage_core.messaging.gateway import SentMessage
from engage_core.messaging.sandbox import SandboxGateway
from engage_core.services import Services
from engage_core.testing import FakeClock

from .base import START, EngageMachine

LEASE = 60.0
CONTACTS = 6
EVERY = PageRequest(per_page=100)


class Crash(Exception):
    """The sender's process died right after the network accepted the message."""


class ChaosGateway:
    """The sandbox, plus a sender crash armed for the next accepted send."""

    def __init__(self, sandbox: SandboxGateway) -> None:
        self.sandbox = sandbox
        self.crash_next = False

    def __getattr__(self, name: str) -> Any:
        return getattr(self.sandbox, name)

    def send(self, provider_account_id: str, recipient: str, text: str) -> SentMessage:
        sent = self.sandbox.send(provider_account_id, recipient, text)
        if self.crash_next:
            self.crash_next = False
            raise Crash("killed after the gateway call")
        return sent


class CampaignMachine(EngageMachine):
    @initialize(blacklisted=st.integers(0, CONTACTS - 1), rate=st.sampled_from([1, 6, 600, 60_000]))
    def setup(self, blacklisted: int, rate: int) -> None:
        self.clock = FakeClock(START)
        self.backend = self.make_backend()
        self.uow = self.backend.uow
        self.sandbox = SandboxGateway(self.clock)
        self.gateway = ChaosGateway(self.sandbox)
        self.services = Services.build(
            self.uow,
            self.clock,
            gateway=self.gateway,
            job_lease_seconds=LEASE,
            sleep=self._sleep,
        )
        self.sandbox.attach(self.services.inbox)
        self.runner = JobRunner(self.backend.job_queue(), self.services.job_handlers(), self.clock)
        self.account = self.services.accounts.create("Acme").account.id
        started = self.services.channels.connect_qr(self.account, "whatsapp")
        self.provider = started.channel.provider_account_id or ""
        self.sandbox.scan(self.provider)
        ids = [
            self.services.contacts.create(
                self.account, ContactInput(f"C{n}", "whatsapp", phone=f"+9665000000{n:02d}")
            ).id
            for n in range(CONTACTS)
        ]
        self.services.contacts.toggle_blacklist(self.account, ids[blacklisted])
        data = CampaignInput("Machine", "whatsapp", "Hi {{name}}", tuple(ids), send_rate=rate)
        self.campaign = self.services.campaigns.create(self.account, data).id
        self.seen: dict[int, str] = {}
        self.final: str | None = None

    def _sleep(self, seconds: float) -> None:
        """The send job's waits (its rate) pass on the fake clock."""
        self.clock.advance(seconds=seconds)

    # -- the owner's moves ---------------------------------------------------------------------

    def _try(self, operation: str) -> None:
        status = self.services.campaigns.get(self.account, self.campaign).status
        try:
            getattr(self.services.campaigns, operation)(self.account, self.campaign)
        except ValidationFailed:
            assert status not in SOURCES[operation]
        else:
            assert status in SOURCES[operation]

    @rule()
    def start(self) -> None:
        self._try("start")

    @rule()
    def pause(self) -> None:
        self._try("pause")

    @rule()
    def resume(self) -> None:
        self._try("resume")

    @rule()
    def cancel(self) -> None:
        self._try("cancel")

    # -- the worker and the network --------------------------------------------------------------

    @rule(later=st.booleans())
    def run_job(self, later: bool) -> None:
        if later:
            self.clock.advance(seconds=LEASE + 1)
        try:
            self.runner.run_once()
        except Crash:  # pragma: no cover - the runner catches it as a failed attempt
            raise AssertionError("the runner let a handler's exception out") from None

    @rule()
    def crash_the_next_send(self) -> None:
        self.gateway.crash_next = True

    @rule()
    def outage(self) -> None:
        self.sandbox.outage()

    @rule()
    def restore(self) -> None:
        self.sandbox.restore()

    @precondition(lambda self: bool(self.sandbox.account(self.provider).sent))
    @rule(data=st.data(), status=st.sampled_from(["delivered", "read"]))
    def receipt(self, data: st.DataObject, status: str) -> None:
        sent = data.draw(st.sampled_from(self.sandbox.account(self.provider).sent))
        self.sandbox.inject_receipt(self.provider, sent.provider_message_id, status)

    # -- invariants ------------------------------------------------------------------------------

    def _recipients(self) -> list[Any]:
        return list(self.services.campaigns.recipients(self.account, self.campaign, RecipientFilter(), EVERY).items)

    @invariant()
    def counters_are_a_recount(self) -> None:
        stored = self.services.campaigns.get(self.account, self.campaign).counters
        with self.uow.workspace(self.account, readonly=True) as unit:
            assert stored == Counters.of(unit.campaign_recipients.statuses(self.campaign))

    @invariant()
    def nobody_gets_it_twice(self) -> None:
        recipients = [s.recipient for s in self.sandbox.account(self.provider).sent]
        assert len(recipients) == len(set(recipients))

    @invariant()
    def recipients_only_move_forward(self) -> None:
        for recipient in self._recipients():
            before = self.seen.get(recipient.id)
            if before is not None and before != recipient.status:
                released = (before, recipient.status) == ("sending", "pending")
                assert released or RANK[recipient.status] > RANK[before], (before, recipient.status)
                assert before not in ("failed", "skipped")
            self.seen[recipient.id] = recipient.status

    @invariant()
    def a_final_campaign_stays_final(self) -> None:
        status = self.services.campaigns.get(self.account, self.campaign).status
        if self.final is not None:
            assert status == self.final
        if status in FINAL:
            self.final = status

    @invariant()
    def completed_means_nothing_pending(self) -> None:
        campaign = self.services.campaigns.get(self.account, self.campaign)
        if campaign.status == "completed":
            assert campaign.counters.pending == 0 and campaign.counters.sent > 0
        if campaign.status in ("completed", "failed", "cancelled"):
            assert not any(r.status == "pending" for r in self._recipients())

    @invariant()
    def a_blacklisted_contact_is_never_sent_to(self) -> None:
        phones = {r.phone for r in self._recipients() if r.reason == "blacklisted"}
        assert not phones & {s.recipient for s in self.sandbox.account(self.provider).sent}

    @invariant()
    def sent_or_unknown_only_when_the_network_got_it(self) -> None:
        reached = {s.recipient for s in self.sandbox.account(self.provider).sent}
        for recipient in self._recipients():
            if recipient.status in ("sent", "delivered", "read") or recipient.reason == "unknown_outcome":
                assert recipient.phone in reached, recipient
