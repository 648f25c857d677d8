"""Automatic replies on every adapter: the `ai_replies` rows (one per inbound message, scoped to the
account, deleted with the contact), the usage report's `ai_agent_sessions`, and the reply job run by
the worker over the adapter's job queue."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import pytest
from support import NOW, MakeContact

from engage_core.agents.model import AgentInput
from engage_core.agents.replies import AiReply, AiReplyDraft
from engage_core.answering.booking import SlotOffer
from engage_core.answering.fakes import ScriptedLanguageModel
from engage_core.answering.turns import TurnDraft
from engage_core.bookings.model import BookingFilter
from engage_core.bookings.setup import BookingTypeInput
from engage_core.contacts.model import Contact
from engage_core.jobs.ports import JobQueue
from engage_core.jobs.runner import JobRunner
from engage_core.kernel.pagination import PageRequest
from engage_core.knowledge.entries import TextInput
from engage_core.messaging.messages import Message, MessageDraft
from engage_core.messaging.sandbox import SandboxGateway
from engage_core.services import Services
from engage_core.testing import FakeClock
from engage_core.unit_of_work import UnitOfWorkFactory


@pytest.fixture
def other(make_account: Callable[..., int]) -> int:
    return make_account("Other")


def _exchange(uow: UnitOfWorkFactory, account: int, contact: Contact) -> tuple[Message, Message]:
    """An inbound message and an outbound answer of the contact."""
    with uow.workspace(account) as unit:
        inbound = unit.messages.add(MessageDraft(contact.id, "inbound", "whatsapp", "Hi", "delivered"), NOW)
        outbound = unit.messages.add(MessageDraft(contact.id, "outbound", "whatsapp", "Hello!", "sent"), NOW)
        unit.commit()
    return inbound, outbound


def _record(uow: UnitOfWorkFactory, account: int, contact: Contact, at: timedelta = timedelta()) -> AiReply:
    inbound, outbound = _exchange(uow, account, contact)
    with uow.workspace(account) as unit:
        reply = unit.ai_replies.add(
            AiReplyDraft(contact.id, inbound.id, outbound.id, "continue", (7, 3), 0.75), NOW + at
        )
        unit.commit()
    return reply


def _by_inbound(uow: UnitOfWorkFactory, account: int, inbound_id: int) -> AiReply | None:
    with uow.workspace(account, readonly=True) as unit:
        return unit.ai_replies.by_inbound(inbound_id)


def test_a_recorded_reply_reads_back(uow: UnitOfWorkFactory, account: int, make_contact: MakeContact) -> None:
    """Every field round-trips, the citations in their order."""
    reply = _record(uow, account, make_contact())

    assert _by_inbound(uow, account, reply.inbound_message_id) == reply


def test_an_inbound_message_has_one_reply_at_most(
    uow: UnitOfWorkFactory, account: int, make_contact: MakeContact
) -> None:
    """A second reply to the same inbound message is refused by storage."""
    contact = make_contact()
    reply = _record(uow, account, contact)

    draft = AiReplyDraft(contact.id, reply.inbound_message_id, reply.outbound_message_id, "continue")

    with uow.workspace(account) as unit, pytest.raises(Exception, match=r"(?i)unique|duplicate|already"):
        unit.ai_replies.add(draft, NOW)


def test_another_accounts_reply_is_not_seen(
    uow: UnitOfWorkFactory, account: int, make_account: Callable[..., int], make_contact: MakeContact
) -> None:
    """`by_inbound` of another account answers None."""
    reply = _record(uow, account, make_contact())

    assert _by_inbound(uow, make_account("Other"), reply.inbound_message_id) is None


def test_replies_go_with_their_contact(
    uow: UnitOfWorkFactory, services: Services, account: int, make_contact: MakeContact
) -> None:
    """Deleting the contact deletes its replies (and their messages)."""
    contact = make_contact()
    reply = _record(uow, account, contact)
    services.contacts.delete(account, contact.id)

    assert _by_inbound(uow, account, reply.inbound_message_id) is None


def test_usage_counts_distinct_contacts_replied_to_in_the_period(
    uow: UnitOfWorkFactory, account: int, make_contact: MakeContact
) -> None:
    """`ai_agent_sessions`: two replies to one contact and one to another are 2; later ones are not counted."""
    first, second = make_contact(), make_contact()
    _record(uow, account, first)
    _record(uow, account, first, timedelta(minutes=1))
    _record(uow, account, second, timedelta(minutes=2))
    _record(uow, account, make_contact(), timedelta(days=40))

    with uow.workspace(account, readonly=True) as unit:
        report = unit.usage.report(NOW, NOW + timedelta(days=30))
    assert report.ai_agent_sessions == 2


# -- the job over the adapter's queue --------------------------------------------------------------


@pytest.fixture
def replying(uow: UnitOfWorkFactory, clock: FakeClock) -> tuple[Services, SandboxGateway]:
    """Services with a language model that always answers, over the sandbox."""
    sandbox = SandboxGateway(clock)
    model = ScriptedLanguageModel(lambda request: TurnDraft("Hello! How can I help?", "continue", (), 0.9))
    built = Services.build(uow, clock, gateway=sandbox, language_model=model)
    sandbox.attach(built.inbox)
    return built, sandbox


def test_the_worker_replies_once_to_an_inbound_message(
    replying: tuple[Services, SandboxGateway], job_queue: JobQueue, clock: FakeClock
) -> None:
    """Inbound → the job → one reply sent and recorded, even when the job runs again."""
    services, sandbox = replying
    account = services.accounts.create("Replying").account.id
    services.ai_agents.create(account, AgentInput(name="Concierge", system_prompt="Be kind.", is_default=True))
    pid = services.channels.connect_qr(account, "whatsapp").channel.provider_account_id or ""
    sandbox.scan(pid)
    services.channels.status(account, "whatsapp")
    message = sandbox.inject_message(pid, "+966501234567", "Hello")
    clock.advance(seconds=1)
    runner = JobRunner(job_queue, services.job_handlers(), clock)
    while runner.run_once():
        pass
    with services.dependencies.uow.workspace(account, readonly=True) as unit:
        inbound = unit.messages.by_provider_id("whatsapp", message.provider_message_id)
    assert inbound is not None
    services.auto_replies.reply(account, inbound.id)

    reply = services.auto_replies.recorded(account, inbound.id)
    assert ([s.text for s in sandbox.account(pid).sent], reply is not None and reply.action) == (
        ["Hello! How can I help?"],
        "continue",
    )


# -- the booking step's state ----------------------------------------------------------------------


def test_an_offer_and_a_booking_read_back(uow: UnitOfWorkFactory, account: int, make_contact: MakeContact) -> None:
    """The offered slots (with their timezone) and the booking id survive the round trip."""
    contact = make_contact()
    inbound, outbound = _exchange(uow, account, contact)
    offer = SlotOffer(3, "Consultation", "Asia/Riyadh", (NOW + timedelta(hours=1), NOW + timedelta(days=1)))
    with uow.workspace(account) as unit:
        added = unit.ai_replies.add(
            AiReplyDraft(contact.id, inbound.id, outbound.id, "continue", (), 1.0, offer, booking_id=42), NOW
        )
        unit.commit()

    stored = _by_inbound(uow, account, inbound.id)
    assert stored == added
    assert stored is not None and (stored.offer, stored.booking_id) == (offer, 42)


def test_the_latest_reply_is_the_contacts_newest(
    uow: UnitOfWorkFactory, account: int, other: int, make_contact: MakeContact
) -> None:
    """`latest` gives the contact's newest reply; another contact's, or another account, none."""
    contact, quiet = make_contact(), make_contact()
    _record(uow, account, contact)
    newest = _record(uow, account, contact)

    with uow.workspace(account, readonly=True) as unit:
        assert (unit.ai_replies.latest(contact.id), unit.ai_replies.latest(quiet.id)) == (newest, None)
    with uow.workspace(other, readonly=True) as unit:
        assert unit.ai_replies.latest(contact.id) is None


def test_the_worker_offers_slots_and_books_the_one_picked(
    replying: tuple[Services, SandboxGateway], job_queue: JobQueue, clock: FakeClock
) -> None:
    """The booking step over the adapter: a booking request gets three slots; "1" books the first."""
    services, sandbox = replying
    account = services.accounts.create("Booking").account.id
    agent = AgentInput(name="Concierge", system_prompt="Be kind.", booking_agent_instructions="Book.", is_default=True)
    services.ai_agents.create(account, agent)
    kind = services.booking_setup.create_type(account, BookingTypeInput("Consultation", 30))
    pid = services.channels.connect_qr(account, "whatsapp").channel.provider_account_id or ""
    sandbox.scan(pid)
    services.channels.status(account, "whatsapp")
    runner = JobRunner(job_queue, services.job_handlers(), clock)
    inbound = []
    for text in ("Can I book an appointment?", "1"):
        sent = sandbox.inject_message(pid, "+966501234567", text)
        clock.advance(seconds=1)
        while runner.run_once():
            pass
        with services.dependencies.uow.workspace(account, readonly=True) as unit:
            found = unit.messages.by_provider_id("whatsapp", sent.provider_message_id)
        assert found is not None
        inbound.append(found)

    offered = services.auto_replies.recorded(account, inbound[0].id)
    assert offered is not None and offered.offer is not None and len(offered.offer.starts) == 3
    page = services.bookings.find(account, BookingFilter(contact_id=inbound[0].contact_id), PageRequest(1, 5))
    assert [(b.booking_type_id, b.starts_at) for b in page.items] == [(kind.id, offered.offer.starts[0])]


def test_replies_are_found_by_their_outbound_messages(
    uow: UnitOfWorkFactory, account: int, other: int, make_contact: MakeContact
) -> None:
    """`for_outbound` finds the account's replies of the messages named, and nothing of another account."""
    first, second = _record(uow, account, make_contact()), _record(uow, account, make_contact())
    with uow.workspace(account, readonly=True) as unit:
        found = unit.ai_replies.for_outbound([first.outbound_message_id, second.outbound_message_id, 999_999])
        assert sorted(r.id for r in found) == sorted([first.id, second.id])
        assert unit.ai_replies.for_outbound([]) == []
    with uow.workspace(other, readonly=True) as unit:
        assert unit.ai_replies.for_outbound([first.outbound_message_id]) == []


def test_a_reply_names_the_passages_it_cited(
    services: Services, uow: UnitOfWorkFactory, account: int, make_contact: MakeContact
) -> None:
    """`cited` gives each reply's passages in the order cited, with their entry's title, and skips a
    chunk that no longer exists."""
    entry = services.knowledge_entries.create_text(account, TextInput("Shipping", "We ship to Canada in 7 days."))
    with uow.workspace(account, readonly=True) as unit:
        [chunk] = unit.knowledge_chunks.for_entry(entry.id)
    contact = make_contact()
    inbound, outbound = _exchange(uow, account, contact)
    with uow.workspace(account) as unit:
        unit.ai_replies.add(
            AiReplyDraft(contact.id, inbound.id, outbound.id, "continue", (999_999, chunk.id), 0.8), NOW
        )
        unit.commit()
    [passage] = services.auto_replies.cited(account, [outbound.id, inbound.id])[outbound.id]
    assert (passage.chunk_id, passage.entry_title, passage.content) == (chunk.id, "Shipping", chunk.content)
