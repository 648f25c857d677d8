"""Contact memories on every adapter: the `contact_memories` rows (oldest first, scoped to the
account, each fact once, deleted with the contact and the account), the memory service, and the
memory step of the reply job run by the worker over the adapter's job queue."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import pytest
from support import NOW, MakeContact

from engage_core.agents.memories import MEMORY_LIMIT, ContactMemory, MemoryDraft
from engage_core.agents.model import AgentInput
from engage_core.answering.fakes import ScriptedLanguageModel
from engage_core.answering.turns import TurnDraft
from engage_core.contacts.model import Contact
from engage_core.jobs.ports import JobQueue
from engage_core.jobs.runner import JobRunner
from engage_core.kernel.errors import NotFound, ValidationFailed
from engage_core.messaging.messages import MessageDraft
from engage_core.messaging.sandbox import SandboxGateway
from engage_core.services import Services
from engage_core.testing import FakeClock
from engage_core.unit_of_work import UnitOfWorkFactory


@pytest.fixture
def other(make_account: Callable[..., int]) -> int:
    return make_account("Other")


def _add(
    uow: UnitOfWorkFactory, account: int, contact: Contact, fact: str, at: timedelta = timedelta()
) -> ContactMemory:
    with uow.workspace(account) as unit:
        memory = unit.contact_memories.add(MemoryDraft(contact.id, fact), NOW + at)
        unit.commit()
    return memory


def _facts(uow: UnitOfWorkFactory, account: int, contact_id: int) -> list[str]:
    with uow.workspace(account, readonly=True) as unit:
        return [m.fact for m in unit.contact_memories.for_contact(contact_id)]


# -- the repository ----------------------------------------------------------------------------------


def test_a_memory_reads_back_equal(uow: UnitOfWorkFactory, account: int, make_contact: MakeContact) -> None:
    """Every field survives the round trip, the source message included."""
    contact = make_contact()
    with uow.workspace(account) as unit:
        message = unit.messages.add(
            MessageDraft(contact.id, "inbound", "whatsapp", "I live in Riyadh", "delivered"), NOW
        )
        added = unit.contact_memories.add(MemoryDraft(contact.id, "Lives in Riyadh", message.id), NOW)
        unit.commit()

    with uow.workspace(account, readonly=True) as unit:
        assert unit.contact_memories.get(added.id) == added
    assert (added.account_id, added.contact_id, added.source_message_id, added.created_at) == (
        account,
        contact.id,
        message.id,
        NOW,
    )


def test_memories_list_oldest_first(uow: UnitOfWorkFactory, account: int, make_contact: MakeContact) -> None:
    """By `created_at`, then id."""
    contact = make_contact()
    _add(uow, account, contact, "Second", timedelta(minutes=1))
    _add(uow, account, contact, "First")
    _add(uow, account, contact, "Third", timedelta(minutes=1))

    assert _facts(uow, account, contact.id) == ["First", "Second", "Third"]


def test_another_accounts_memory_is_not_seen(
    uow: UnitOfWorkFactory, account: int, other: int, make_contact: MakeContact
) -> None:
    """`get` and `delete` of another account's memory see nothing and change nothing."""
    contact = make_contact()
    memory = _add(uow, account, contact, "Prefers email")
    with uow.workspace(other) as unit:
        seen = unit.contact_memories.get(memory.id)
        unit.contact_memories.delete([memory.id])
        unit.commit()

    assert (seen, _facts(uow, account, contact.id)) == (None, ["Prefers email"])


def test_memories_go_with_their_contact(
    uow: UnitOfWorkFactory, services: Services, account: int, make_contact: MakeContact
) -> None:
    """Deleting the contact deletes its memories."""
    contact = make_contact()
    memory = _add(uow, account, contact, "Prefers email")
    services.contacts.delete(account, contact.id)

    with uow.workspace(account, readonly=True) as unit:
        assert unit.contact_memories.get(memory.id) is None


# -- the service -----------------------------------------------------------------------------------


def test_a_fact_given_by_a_person_is_kept(services: Services, account: int, make_contact: MakeContact) -> None:
    """`add` stores the fact, whitespace collapsed, with no source message."""
    contact = make_contact()
    memory = services.contact_memories.add(account, contact.id, "  Prefers   calls after 5pm ")

    assert (memory.fact, memory.source_message_id) == ("Prefers calls after 5pm", None)
    assert [m.id for m in services.contact_memories.list(account, contact.id)] == [memory.id]


def test_a_fact_the_contact_has_is_refused(services: Services, account: int, make_contact: MakeContact) -> None:
    """The same fact again, in another case, is a 422 on `fact`."""
    contact = make_contact()
    services.contact_memories.add(account, contact.id, "Prefers email")

    with pytest.raises(ValidationFailed) as raised:
        services.contact_memories.add(account, contact.id, "PREFERS EMAIL")
    assert list(raised.value.errors) == ["fact"]


def test_a_blank_or_long_fact_is_refused(services: Services, account: int, make_contact: MakeContact) -> None:
    """Blank, and more than 280 characters, are 422s on `fact`."""
    contact = make_contact()
    for fact in ("   ", "x" * 281):
        with pytest.raises(ValidationFailed):
            services.contact_memories.add(account, contact.id, fact)


def test_the_oldest_fact_goes_beyond_the_limit(services: Services, account: int, make_contact: MakeContact) -> None:
    """The 51st fact drops the first."""
    contact = make_contact()
    for n in range(MEMORY_LIMIT + 1):
        services.contact_memories.add(account, contact.id, f"Fact {n}")

    facts = [m.fact for m in services.contact_memories.list(account, contact.id)]
    assert (len(facts), facts[0], facts[-1]) == (MEMORY_LIMIT, "Fact 1", f"Fact {MEMORY_LIMIT}")


def test_a_memory_is_deleted(services: Services, account: int, make_contact: MakeContact) -> None:
    """`delete` forgets the fact; deleting it again is a 404."""
    contact = make_contact()
    memory = services.contact_memories.add(account, contact.id, "Prefers email")
    services.contact_memories.delete(account, contact.id, memory.id)

    assert list(services.contact_memories.list(account, contact.id)) == []
    with pytest.raises(NotFound):
        services.contact_memories.delete(account, contact.id, memory.id)


def test_another_contacts_memory_is_not_found(services: Services, account: int, make_contact: MakeContact) -> None:
    """A memory named under the wrong contact is a 404, and stays."""
    first, second = make_contact(), make_contact()
    memory = services.contact_memories.add(account, first.id, "Prefers email")

    with pytest.raises(NotFound):
        services.contact_memories.delete(account, second.id, memory.id)
    assert len(services.contact_memories.list(account, first.id)) == 1


def test_another_accounts_contact_is_not_found(
    services: Services, account: int, other: int, make_contact: MakeContact
) -> None:
    """Listing, adding and deleting under another account's contact are 404s."""
    contact = make_contact()
    memory = services.contact_memories.add(account, contact.id, "Prefers email")

    with pytest.raises(NotFound):
        services.contact_memories.list(other, contact.id)
    with pytest.raises(NotFound):
        services.contact_memories.add(other, contact.id, "Lives in Jeddah")
    with pytest.raises(NotFound):
        services.contact_memories.delete(other, contact.id, memory.id)


# -- the memory step over the adapter's queue ------------------------------------------------------


def test_the_reply_job_keeps_the_facts_of_a_message_once(
    uow: UnitOfWorkFactory, clock: FakeClock, job_queue: JobQueue
) -> None:
    """An agent with memory instructions: the worker stores the message's facts with their source,
    and running the job again stores nothing more."""
    sandbox = SandboxGateway(clock)
    model = ScriptedLanguageModel(lambda request: TurnDraft("Nice to meet you!", "continue", (), 0.9))
    services = Services.build(uow, clock, gateway=sandbox, language_model=model)
    sandbox.attach(services.inbox)
    account = services.accounts.create("Remembering").account.id
    agent = AgentInput(
        name="Concierge", system_prompt="Be kind.", memory_agent_instructions="Remember names.", is_default=True
    )
    services.ai_agents.create(account, agent)
    pid = services.channels.connect_qr(account, "whatsapp").channel.provider_account_id or ""
    sandbox.scan(pid)
    services.channels.status(account, "whatsapp")
    sent = sandbox.inject_message(pid, "+966501234567", "Hi, my name is Sara and I live in Dubai.")
    clock.advance(seconds=1)
    runner = JobRunner(job_queue, services.job_handlers(), clock)
    while runner.run_once():
        pass
    with uow.workspace(account, readonly=True) as unit:
        inbound = unit.messages.by_provider_id("whatsapp", sent.provider_message_id)
    assert inbound is not None
    services.auto_replies.reply(account, inbound.id)

    memories = services.contact_memories.list(account, inbound.contact_id)
    assert [(m.fact, m.source_message_id) for m in memories] == [
        ("Name: Sara", inbound.id),
        ("Lives in Dubai", inbound.id),
    ]
