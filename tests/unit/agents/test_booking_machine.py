"""The booking step's conversation state as a state machine, driven by Hypothesis: a customer asks
to book, picks slots by number (in range or not), says other things, another customer takes an
offered slot, and the conversation is resolved; a plain model tracks the pending offer.

The model: the offer pending is the one in the AI's latest reply (since the last resolve). Asking
sets a fresh one; picking an offered slot books it (or, when taken, sets a fresh offer); any other
message, a pick out of range, or a resolve leaves no offer. After every step:

- the contact's live bookings are exactly those the model predicts, each at a slot it was offered;
- no recorded reply both offers slots and names a booking;
- the offer stored on the latest reply is the model's pending one.
"""

from __future__ import annotations

from datetime import datetime

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from engage_core.agents.model import AgentPatch
from engage_core.bookings.booking_service import BookingInput
from engage_core.bookings.model import BookingFilter
from engage_core.bookings.setup import BookingTypeInput
from engage_core.contacts.model import ContactInput
from engage_core.kernel.pagination import PageRequest

from .test_auto_replies import World, scripted


class BookingMachine(RuleBasedStateMachine):
    @initialize()
    def workspace(self) -> None:
        self.world = World()
        self.world.services.ai_agents.update(
            self.world.account, self.world.agent.id, AgentPatch(booking_agent_instructions="Book.")
        )
        self.kind = self.world.services.booking_setup.create_type(self.world.account, BookingTypeInput("Visit", 30))
        scripted(self.world, "continue", "Noted.")
        self.contact_id = self.world.inbound("Hello").contact_id
        self.world.work()
        self.other = self.world.services.contacts.create(
            self.world.account, ContactInput(name="Other", type="whatsapp", phone="+966500000009")
        ).id
        self.pending: tuple[datetime, ...] = ()
        self.booked: list[datetime] = []
        self.replies: list[int] = []

    def _say(self, text: str) -> None:
        message = self.world.inbound(text)
        self.world.work()
        self.replies.append(message.id)
        if self.world.handled_by(self.contact_id) != "ai":  # the scripted engine handed over
            self.world.services.conversation_handling.release(self.world.account, self.contact_id)

    def _latest_offer(self) -> tuple[datetime, ...]:
        reply = self.world.services.auto_replies.recorded(self.world.account, self.replies[-1])
        return () if reply is None or reply.offer is None else reply.offer.starts

    @rule()
    def customer_asks_to_book(self) -> None:
        self._say("Can I book an appointment?")
        self.pending = self._latest_offer()
        assert len(self.pending) == 3

    @rule(number=st.integers(min_value=1, max_value=4))
    def customer_picks(self, number: int) -> None:
        offered = self.pending
        taken = number <= len(offered) and offered[number - 1] in self._all_live()
        self._say(str(number))
        if number > len(offered):
            self.pending = ()
        elif taken:  # by the other customer: fresh slots, without it
            self.pending = self._latest_offer()
            assert self.pending and offered[number - 1] not in self.pending
        else:
            self.booked.append(offered[number - 1])
            self.pending = ()

    @rule()
    def customer_says_thanks(self) -> None:
        self._say("Thanks!")
        self.pending = ()

    @precondition(lambda self: bool(self.pending))
    @rule(data=st.data())
    def someone_else_takes_an_offered_slot(self, data: st.DataObject) -> None:
        starts = data.draw(st.sampled_from(self.pending))
        free = starts not in self._all_live()
        if free:
            self.world.services.bookings.create(self.world.account, BookingInput(self.other, self.kind.id, starts))

    @rule()
    def the_conversation_is_resolved(self) -> None:
        self.world.clock.advance(seconds=1)
        self.world.services.conversation_handling.resolve(self.world.account, self.contact_id)
        self.pending = ()
        self.replies.append(-1)

    def _mine(self) -> list[datetime]:
        page = self.world.services.bookings.find(
            self.world.account, BookingFilter(contact_id=self.contact_id), PageRequest(1, 100)
        )
        return [b.starts_at for b in page.items if b.is_live]

    def _all_live(self) -> set[datetime]:
        page = self.world.services.bookings.find(self.world.account, BookingFilter(), PageRequest(1, 100))
        return {b.starts_at for b in page.items if b.is_live}

    @invariant()
    def the_bookings_are_the_models(self) -> None:
        assert sorted(self._mine()) == sorted(self.booked)

    @invariant()
    def no_reply_both_offers_and_books(self) -> None:
        for message_id in self.replies:
            reply = self.world.services.auto_replies.recorded(self.world.account, message_id)
            assert reply is None or reply.offer is None or reply.booking_id is None

    @invariant()
    def the_latest_reply_holds_the_pending_offer(self) -> None:
        if self.replies and self.replies[-1] != -1:
            assert self._latest_offer() == self.pending


BookingMachine.TestCase.settings = settings(max_examples=30, stateful_step_count=20, deadline=None)
test_booking_machine = BookingMachine.TestCase
