"""Message statuses under any sequence of sends, outages, receipts, inbound messages and
mark-read, driven by Hypothesis through the real `Services` and the sandbox gateway.

After every step:

- every message's status is the model's: sends settle `sent` (or `failed` during an outage),
  receipts only move `sent -> delivered -> read` forward, a failed message never changes;
- no message's status ever moved backwards (ranks are compared with the previous step);
- each conversation's `unread_count` is the model's count of inbound messages not yet read;
- the outbox has one `message.sent` per successful send and one `message.received` per new
  inbound message.
"""

from __future__ import annotations

from typing import Any

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, initialize, invariant, rule

from engage_core.kernel.pagination import PageRequest
from engage_core.messaging.conversations import ConversationFilter
from engage_core.messaging.message_service import SendInput

from .fixtures import Messaging

RANK = {"pending": 0, "sent": 1, "delivered": 2, "read": 3, "failed": 4}
PHONES = ("+966501234561", "+966501234562")
FORWARD = {("sent", "delivered"), ("sent", "read"), ("delivered", "read")}
"""Receipt moves that change a message, written out here rather than imported."""


class MessageStatusMachine(RuleBasedStateMachine):
    outbound: Bundle[int] = Bundle("outbound")

    @initialize()
    def start(self) -> None:
        self.world = Messaging()
        self.pid = self.world.connect_qr("whatsapp").provider_account_id or ""
        self.contacts = [self.world.contact(name=f"C{i}", phone=phone).id for i, phone in enumerate(PHONES)]
        self.expected: dict[int, str] = {}
        self.provider_ids: dict[int, str] = {}
        self.inbound: dict[int, list[str]] = {cid: [] for cid in self.contacts}  # statuses of inbound messages
        self.seen_rank: dict[int, int] = {}
        self.sent_count = 0
        self.received_count = 0

    @rule(target=outbound, who=st.integers(0, 1), outage=st.booleans())
    def send(self, who: int, outage: bool) -> Any:
        if outage:
            self.world.sandbox.outage()
        result = self.world.services.messages.send(self.world.account, SendInput(self.contacts[who], "Hi"))
        self.world.sandbox.restore()
        self.expected[result.message.id] = "failed" if outage else "sent"
        if not outage:
            self.sent_count += 1
            self.provider_ids[result.message.id] = result.message.provider_message_id or ""
        return result.message.id

    @rule(message_id=outbound, status=st.sampled_from(["delivered", "read"]))
    def receipt(self, message_id: int, status: str) -> None:
        provider_id = self.provider_ids.get(message_id, f"unknown-{message_id}")
        self.world.sandbox.inject_receipt(self.pid, provider_id, status)
        if (self.expected[message_id], status) in FORWARD:
            self.expected[message_id] = status

    @rule(who=st.integers(0, 1))
    def receive(self, who: int) -> None:
        self.world.sandbox.inject_message(self.pid, PHONES[who], "Hello")
        self.inbound[self.contacts[who]].append("delivered")
        self.received_count += 1

    @rule(who=st.integers(0, 1))
    def mark_read(self, who: int) -> None:
        contact_id = self.contacts[who]
        changed = self.world.services.messages.mark_read(self.world.account, contact_id)
        assert changed == self.inbound[contact_id].count("delivered")
        self.inbound[contact_id] = ["read"] * len(self.inbound[contact_id])

    @rule()
    def time_passes(self) -> None:
        self.world.clock.advance(seconds=1)

    def _stored(self) -> dict[int, str]:
        statuses: dict[int, str] = {}
        for contact_id in self.contacts:
            page = self.world.services.messages.for_contact(
                self.world.account, contact_id, "outbound", PageRequest(per_page=1000)
            )
            statuses.update({m.id: m.status for m in page.items})
        return statuses

    @invariant()
    def statuses_match_the_model(self) -> None:
        assert self._stored() == self.expected

    @invariant()
    def no_status_moves_backwards(self) -> None:
        for message_id, status in self._stored().items():
            rank = RANK[status]
            assert rank >= self.seen_rank.get(message_id, 0)
            self.seen_rank[message_id] = rank

    @invariant()
    def unread_counts_match_the_model(self) -> None:
        page = self.world.services.messages.conversations(self.world.account, ConversationFilter(), PageRequest())
        unread = {s.contact_id: s.unread_count for s in page.items}
        for contact_id, statuses in self.inbound.items():
            assert unread.get(contact_id, 0) == statuses.count("delivered")

    @invariant()
    def the_outbox_has_one_event_per_message(self) -> None:
        assert len(self.world.events("message.sent")) == self.sent_count
        assert len(self.world.events("message.received")) == self.received_count


MessageStatusMachine.TestCase.settings = settings(max_examples=60, stateful_step_count=30, deadline=None)
test_message_status_machine = MessageStatusMachine.TestCase
test_message_status_machine.__doc__ = (
    "Sends settle once, receipts only move forward, failed stays failed, and unread counts are exact."
)
