"""AI agents: the agent repository, the agent assigned to each contact, and the agent service, on
every adapter."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import attrs
import pytest
from support import NOW, MakeContact

from engage_core.agents.model import AgentDraft, AgentInput, AgentPatch, AiAgent
from engage_core.contacts.model import ContactDraft, ContactFilter, ContactPatch
from engage_core.kernel.errors import ValidationFailed
from engage_core.kernel.events import DomainEvent
from engage_core.kernel.pagination import PageRequest
from engage_core.services import Services
from engage_core.testing import FakeClock
from engage_core.unit_of_work import UnitOfWorkFactory

GUIDELINES = {"language": "ar", "temperature": 0.25, "emoji": False, "max_reply_chars": 600, "refused_topics": ["x"]}


@pytest.fixture
def other(make_account: Callable[..., int]) -> int:
    return make_account("Other")


def _add(uow: UnitOfWorkFactory, account: int, name: str = "Concierge", at: Any = NOW, **fields: Any) -> AiAgent:
    with uow.workspace(account) as unit:
        agent = unit.ai_agents.add(AgentDraft(name, "Answer politely.", **fields), at)
        unit.commit()
    return agent


def _get(uow: UnitOfWorkFactory, account: int, agent_id: int) -> AiAgent | None:
    with uow.workspace(account, readonly=True) as unit:
        return unit.ai_agents.get(agent_id)


def _contact_agent(uow: UnitOfWorkFactory, account: int, contact_id: int) -> int | None:
    with uow.workspace(account, readonly=True) as unit:
        contact = unit.contacts.get(contact_id)
    assert contact is not None
    return contact.ai_agent_id


def _agent_events(outbox_events: Callable[..., list[DomainEvent]], account: int) -> list[tuple[str, Any]]:
    return [(e.name, dict(e.payload)) for e in outbox_events(account) if e.name.startswith("ai_agent.")]


# -- the repository ----------------------------------------------------------------------------------


def test_added_agent_reads_back_equal(uow: UnitOfWorkFactory, account: int) -> None:
    """Every field of an agent survives the round trip, the guidelines' value kinds included."""
    added = _add(
        uow,
        account,
        instruction_prompt="Cite the knowledge base.",
        personality_prompt="Warm.",
        booking_agent_instructions="Offer mornings first.",
        memory_agent_instructions="Remember the name.",
        response_guidelines=GUIDELINES,
        is_active=False,
    )

    assert _get(uow, account, added.id) == added
    assert added.response_guidelines == GUIDELINES


def test_list_is_most_recently_updated_first(uow: UnitOfWorkFactory, account: int) -> None:
    """`list` orders by `updated_at`, then id, descending."""
    older = _add(uow, account, "Older", at=NOW)
    newer = _add(uow, account, "Newer", at=NOW + timedelta(minutes=1))
    tie = _add(uow, account, "Tie", at=NOW + timedelta(minutes=1))

    with uow.workspace(account, readonly=True) as unit:
        assert [a.id for a in unit.ai_agents.list()] == [tie.id, newer.id, older.id]


def test_a_repository_sees_only_its_accounts_agents(uow: UnitOfWorkFactory, account: int, other: int) -> None:
    """`get`, `list`, `count` and `default` never return another account's agents."""
    theirs = _add(uow, other, is_default=True)

    with uow.workspace(account, readonly=True) as unit:
        found = (unit.ai_agents.get(theirs.id), unit.ai_agents.list(), unit.ai_agents.count(), unit.ai_agents.default())
    assert found == (None, [], 0, None)


def test_default_is_the_agent_with_the_flag(uow: UnitOfWorkFactory, account: int) -> None:
    """`default` returns the account's one default agent."""
    _add(uow, account, "Plain")
    default = _add(uow, account, "Default", is_default=True)

    with uow.workspace(account, readonly=True) as unit:
        assert unit.ai_agents.default() == default


def test_a_second_default_is_refused_by_the_storage(uow: UnitOfWorkFactory, account: int) -> None:
    """Storing a second default agent in one account fails, and the first stays the only default."""
    first = _add(uow, account, is_default=True)

    with pytest.raises(Exception, match=r"(?i)unique|duplicate|default"):
        _add(uow, account, "Second", is_default=True)

    with uow.workspace(account, readonly=True) as unit:
        assert [a.id for a in unit.ai_agents.list() if a.is_default] == [first.id]


def test_update_stores_every_field_but_the_creation_time(uow: UnitOfWorkFactory, account: int) -> None:
    """`update` stores the agent's fields and `updated_at`; `created_at` stays."""
    added = _add(uow, account)
    changed = AiAgent(
        added.id, "Renamed", "New prompt", "i", "p", "b", "m", {"tone": "formal"}, False, False,
        NOW + timedelta(days=9), NOW + timedelta(hours=1),
    )  # fmt: skip

    with uow.workspace(account) as unit:
        unit.ai_agents.update(changed)
        unit.commit()

    assert _get(uow, account, added.id) == AiAgent(
        added.id, "Renamed", "New prompt", "i", "p", "b", "m", {"tone": "formal"}, False, False,
        NOW, NOW + timedelta(hours=1),
    )  # fmt: skip


def test_delete_unassigns_the_agents_contacts(uow: UnitOfWorkFactory, account: int, make_contact: MakeContact) -> None:
    """Deleting an agent leaves its contacts with no agent, and other agents' contacts alone."""
    doomed, kept = _add(uow, account, "Doomed"), _add(uow, account, "Kept")
    first, second = make_contact(), make_contact()
    with uow.workspace(account) as unit:
        unit.contacts.assign_agent(doomed.id, [first.id])
        unit.contacts.assign_agent(kept.id, [second.id])
        unit.ai_agents.delete(doomed.id)
        unit.commit()

    assert (_get(uow, account, doomed.id), _contact_agent(uow, account, first.id)) == (None, None)
    assert _contact_agent(uow, account, second.id) == kept.id


# -- contacts and their agent ------------------------------------------------------------------------


def test_a_new_contact_gets_the_active_default(uow: UnitOfWorkFactory, account: int) -> None:
    """`contacts.add` assigns the account's active default agent, as returned and as read back."""
    default = _add(uow, account, is_default=True)

    with uow.workspace(account) as unit:
        contact = unit.contacts.add(ContactDraft(name="Ada", type="instagram"), NOW)
        unit.commit()

    assert (contact.ai_agent_id, _contact_agent(uow, account, contact.id)) == (default.id, default.id)


def test_a_new_contact_gets_no_agent_without_a_default(uow: UnitOfWorkFactory, account: int, other: int) -> None:
    """No default in the account (another account's does not count): the contact has no agent."""
    _add(uow, account)
    _add(uow, other, is_default=True)

    with uow.workspace(account) as unit:
        contact = unit.contacts.add(ContactDraft(name="Ada", type="instagram"), NOW)
        unit.commit()

    assert contact.ai_agent_id is None


def test_assign_agent_counts_the_accounts_contacts_only(
    uow: UnitOfWorkFactory, account: int, other: int, make_contact: MakeContact
) -> None:
    """`assign_agent` sets the agent on the account's contacts among the ids, and counts them."""
    agent = _add(uow, account)
    mine, theirs = make_contact(), make_contact(account_id=other)

    with uow.workspace(account) as unit:
        count = unit.contacts.assign_agent(agent.id, [mine.id, theirs.id, 999_999])
        unit.commit()

    assert count == 1
    assert (_contact_agent(uow, account, mine.id), _contact_agent(uow, other, theirs.id)) == (agent.id, None)


def test_a_page_of_contacts_carries_their_agents(
    uow: UnitOfWorkFactory, account: int, make_contact: MakeContact
) -> None:
    """`contacts.find` reads each contact's agent."""
    agent = _add(uow, account)
    first, _ = make_contact(), make_contact()
    with uow.workspace(account) as unit:
        unit.contacts.assign_agent(agent.id, [first.id])
        unit.commit()

    with uow.workspace(account, readonly=True) as unit:
        page = unit.contacts.find(ContactFilter(), PageRequest(per_page=10))
    assert {c.id: c.ai_agent_id for c in page.items}[first.id] == agent.id
    assert sorted(c.ai_agent_id is None for c in page.items) == [False, True]


def test_a_contact_update_keeps_the_agent(uow: UnitOfWorkFactory, account: int, make_contact: MakeContact) -> None:
    """`contacts.update` leaves `ai_agent_id` as stored, whatever the contact value says."""
    agent = _add(uow, account)
    contact = make_contact()
    with uow.workspace(account) as unit:
        unit.contacts.assign_agent(agent.id, [contact.id])
        stale = unit.contacts.get(contact.id)
        assert stale is not None
        unit.contacts.update(attrs.evolve(stale, name="Renamed", ai_agent_id=None))
        unit.commit()

    assert _contact_agent(uow, account, contact.id) == agent.id


# -- the service ---------------------------------------------------------------------------------------


def test_set_default_moves_the_flag_with_its_events(
    services: Services, account: int, clock: FakeClock, outbox_events: Callable[..., list[DomainEvent]]
) -> None:
    """set-default clears the previous default and records `ai_agent.updated` for both, in that order."""
    first = services.ai_agents.create(account, AgentInput("First", "Be kind.", is_default=True))
    second = services.ai_agents.create(account, AgentInput("Second", "Be kind.", is_active=False))
    clock.advance(minutes=1)

    services.ai_agents.set_default(account, second.id)

    updated = [(p["id"], p["is_default"], p["is_active"]) for n, p in _agent_events(outbox_events, account)[2:]]
    assert updated == [(first.id, False, True), (second.id, True, True)]
    assert services.ai_agents.default_agent(account) == services.ai_agents.get(account, second.id)


def test_the_default_cannot_be_deleted(services: Services, account: int) -> None:
    """Deleting the default is a 422 on `is_default`; the agent stays."""
    agent = services.ai_agents.create(account, AgentInput("Concierge", "Be kind.", is_default=True))

    with pytest.raises(ValidationFailed) as refused:
        services.ai_agents.delete(account, agent.id)

    assert (list(refused.value.errors), services.ai_agents.get(account, agent.id)) == (["is_default"], agent)


def test_deleting_an_agent_records_ai_agent_deleted(
    services: Services, account: int, make_contact: MakeContact, outbox_events: Callable[..., list[DomainEvent]]
) -> None:
    """A deleted agent's contacts have no agent, and `ai_agent.deleted` carries id, name, deleted_at."""
    agent = services.ai_agents.create(account, AgentInput("Concierge", "Be kind."))
    contact = make_contact()
    services.ai_agents.assign(account, agent.id, [contact.id])

    services.ai_agents.delete(account, agent.id)

    assert services.contacts.get(account, contact.id).ai_agent_id is None
    assert _agent_events(outbox_events, account)[-1] == (
        "ai_agent.deleted",
        {"id": agent.id, "name": "Concierge", "deleted_at": "2026-01-01T12:00:00.000000Z"},
    )


def test_agent_for_contact_prefers_the_contacts_active_agent(
    services: Services, account: int, make_contact: MakeContact
) -> None:
    """The contact's own active agent answers it; once deactivated, the default does."""
    default = services.ai_agents.create(account, AgentInput("Default", "Be kind.", is_default=True))
    own = services.ai_agents.create(account, AgentInput("Own", "Be brief."))
    contact = make_contact()
    services.ai_agents.assign(account, own.id, [contact.id])
    assert services.ai_agents.agent_for_contact(account, contact.id) == own

    services.ai_agents.update(account, own.id, AgentPatch(is_active=False))

    assert services.ai_agents.agent_for_contact(account, contact.id) == default


def test_contacts_created_through_the_service_get_the_default(
    services: Services, account: int, make_contact: MakeContact
) -> None:
    """`POST /contacts` through the service assigns the default, and an update keeps it."""
    default = services.ai_agents.create(account, AgentInput("Default", "Be kind.", is_default=True))
    contact = make_contact()

    updated = services.contacts.update(account, contact.id, ContactPatch(name="Renamed"))

    assert (contact.ai_agent_id, updated.ai_agent_id) == (default.id, default.id)
