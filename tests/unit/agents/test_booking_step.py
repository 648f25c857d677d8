"""The booking step of automatic replies over the in-memory fakes: opt-in by the agent's booking
instructions and the plan's `booking` feature, free slots offered when the customer asks, the picked
slot booked (`booking.created`) and confirmed, a taken slot offered again, and a booking made once
across retries."""

from __future__ import annotations

from datetime import datetime

import pytest

from engage_core.agents.booking_step import BOOKING_FEATURE
from engage_core.agents.model import AgentPatch
from engage_core.agents.reply_service import ALREADY, REPLIED
from engage_core.answering.booking import NO_SLOT_REPLY, TAKEN_PREFIX
from engage_core.bookings.booking_service import BookingInput
from engage_core.bookings.model import BookingFilter
from engage_core.bookings.setup import BookingTypeInput, BookingTypePatch
from engage_core.bookings.working_hours import WorkingHoursInput
from engage_core.contacts.model import ContactInput
from engage_core.kernel.pagination import PageRequest
from engage_core.messaging.messages import Message

from ..factories import START
from .test_auto_replies import World, scripted

INSTRUCTIONS = "Offer the earliest times first."
BOOK = "I would like to book an appointment"


@pytest.fixture
def world() -> World:
    """The auto-reply world with a 30-minute consultation, open around the clock in UTC, and an
    agent with booking instructions."""
    built = World()
    built.services.ai_agents.update(built.account, built.agent.id, AgentPatch(booking_agent_instructions=INSTRUCTIONS))
    built.kind = built.services.booking_setup.create_type(built.account, BookingTypeInput("Consultation", 30))
    scripted(built, "continue", "Happy to help.")
    return built


def bookings(world: World, contact_id: int) -> list[tuple[int, datetime, str]]:
    page = world.services.bookings.find(world.account, BookingFilter(contact_id=contact_id), PageRequest(1, 50))
    return [(b.booking_type_id, b.starts_at, b.status) for b in page.items]


def last_text(world: World) -> str:
    return world.sent()[-1].text


def offer_of(world: World, message: Message) -> tuple[datetime, ...]:
    reply = world.reply_to(message)
    assert reply is not None and reply.offer is not None
    return reply.offer.starts


def test_asking_to_book_offers_the_next_free_slots(world: World) -> None:
    """The first free slot of each of the next three days, numbered, in the workspace's timezone;
    the engine is not asked."""
    message = world.inbound(BOOK)
    world.work()

    assert offer_of(world, message) == (
        datetime(2026, 1, 1, 12, 30, tzinfo=START.tzinfo),
        datetime(2026, 1, 2, 0, 0, tzinfo=START.tzinfo),
        datetime(2026, 1, 3, 0, 0, tzinfo=START.tzinfo),
    )
    assert last_text(world) == (
        "Here are the next free times for Consultation (UTC):\n1. Thu 1 Jan, 12:30\n2. Fri 2 Jan, 00:00\n"
        "3. Sat 3 Jan, 00:00\nReply with the number of the one you would like."
    )
    assert world.model.turn_requests == []


def test_picking_an_offered_slot_books_it(world: World) -> None:
    """ "2" books the second slot for the contact, emits `booking.created` and confirms it."""
    first = world.inbound(BOOK)
    world.work()
    world.inbound("2")
    world.work()

    assert bookings(world, first.contact_id) == [
        (world.kind.id, datetime(2026, 1, 2, 0, 0, tzinfo=START.tzinfo), "confirmed")
    ]
    assert len(world.events("booking.created")) == 1
    assert last_text(world) == "You're booked: Consultation on Fri 2 Jan, 00:00 (UTC)."


def test_a_slot_is_picked_by_its_time(world: World) -> None:
    """ "12:30 please" picks the slot starting then."""
    first = world.inbound(BOOK)
    world.work()
    world.inbound("12:30 please")
    world.work()

    assert [start for _, start, _ in bookings(world, first.contact_id)] == [
        datetime(2026, 1, 1, 12, 30, tzinfo=START.tzinfo)
    ]


def test_the_booking_is_recorded_on_the_reply(world: World) -> None:
    """The reply confirming it names the booking, and offers nothing more."""
    world.inbound(BOOK)
    world.work()
    pick = world.inbound("the first one")
    world.work()

    reply = world.reply_to(pick)
    [booked] = world.services.bookings.find(world.account, BookingFilter(), PageRequest(1, 5)).items
    assert (reply is not None and reply.booking_id, reply is not None and reply.offer) == (booked.id, None)


def test_a_message_picking_nothing_lets_the_offer_lapse(world: World) -> None:
    """Another question goes to the engine; a number after it books nothing."""
    first = world.inbound(BOOK)
    world.work()
    world.inbound("When do you open?")
    world.work()
    world.inbound("2")
    world.work()

    assert (bookings(world, first.contact_id), len(world.model.turn_requests)) == ([], 2)


def test_a_taken_slot_offers_the_next_ones(world: World) -> None:
    """The slot was booked by someone else meanwhile: nothing booked, fresh slots offered."""
    first = world.inbound(BOOK)
    world.work()
    other = world.services.contacts.create(
        world.account, ContactInput(name="Other", type="whatsapp", phone="+966500000001")
    )
    world.services.bookings.create(
        world.account, BookingInput(other.id, world.kind.id, datetime(2026, 1, 1, 12, 30, tzinfo=START.tzinfo))
    )
    pick = world.inbound("1")
    world.work()

    assert bookings(world, first.contact_id) == []
    assert last_text(world).startswith(TAKEN_PREFIX)
    assert offer_of(world, pick)[0] != datetime(2026, 1, 1, 12, 30, tzinfo=START.tzinfo)


def test_no_free_slot_hands_over(world: World) -> None:
    """Closed every day: the customer is told, and the conversation waits for a person."""
    world.services.booking_setup.set_working_hours(world.account, WorkingHoursInput("UTC", {}))
    message = world.inbound(BOOK)
    world.work()

    assert (last_text(world), world.handled_by(message.contact_id)) == (NO_SLOT_REPLY, "pending")


def test_a_workspace_without_an_active_type_leaves_it_to_the_engine(world: World) -> None:
    """No active booking type: the engine answers, with the booking instructions in its prompt."""
    world.services.booking_setup.update_type(world.account, world.kind.id, BookingTypePatch(is_active=False))
    world.inbound(BOOK)
    world.work()

    [request] = world.model.turn_requests
    assert INSTRUCTIONS in request.instructions


def test_an_agent_without_booking_instructions_offers_nothing(world: World) -> None:
    """Opt-in: the engine answers a booking request, and no booking instruction is in its prompt."""
    world.services.ai_agents.update(world.account, world.agent.id, AgentPatch(booking_agent_instructions=None))
    message = world.inbound(BOOK)
    world.work()

    reply = world.reply_to(message)
    assert (reply is not None and reply.offer, len(world.model.turn_requests)) == (None, 1)
    assert INSTRUCTIONS not in world.model.turn_requests[0].instructions


def test_a_plan_without_bookings_offers_nothing(world: World) -> None:
    """Without the `booking` feature the engine answers."""
    world.features.refused.add(BOOKING_FEATURE)
    message = world.inbound(BOOK)
    world.work()

    reply = world.reply_to(message)
    assert (reply is not None and reply.offer, len(world.model.turn_requests)) == (None, 1)


def test_a_resolve_resets_the_offer(world: World) -> None:
    """After the conversation is resolved, a number books nothing."""
    first = world.inbound(BOOK)
    world.work()
    world.services.conversation_handling.resolve(world.account, first.contact_id)
    world.inbound("1")
    world.work()

    assert bookings(world, first.contact_id) == []


def test_a_job_run_twice_books_once(world: World) -> None:
    """The second run finds the recorded reply: one booking, one confirmation."""
    world.inbound(BOOK)
    world.work()
    pick = world.inbound("1")
    outcomes = [world.services.auto_replies.reply(world.account, pick.id) for _ in range(2)]

    assert (outcomes, len(world.events("booking.created"))) == ([REPLIED, ALREADY], 1)


def test_a_crash_after_booking_books_once(world: World) -> None:
    """The job dies after booking, before its reply is stored: the retry finds that booking."""
    first = world.inbound(BOOK)
    world.work()
    pick = world.inbound("1")
    world.services.messages.send = _dying  # type: ignore[method-assign]
    with pytest.raises(RuntimeError):
        world.services.auto_replies.reply(world.account, pick.id)
    del world.services.messages.send
    world.services.auto_replies.reply(world.account, pick.id)

    reply = world.reply_to(pick)
    [booking] = world.services.bookings.find(
        world.account, BookingFilter(contact_id=first.contact_id), PageRequest(1, 5)
    ).items
    assert (reply is not None and reply.booking_id, len(world.events("booking.created"))) == (booking.id, 1)


def _dying(*args: object, **kwargs: object) -> None:
    raise RuntimeError("the worker died")
