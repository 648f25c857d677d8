"""AI agents on SQL only: what the schema itself refuses (a second default, an inactive default, an
agent deleted under its contacts, another account's agent on a contact), and concurrent changes of
the default flag (the rest is in tests/contract/test_contract_agents.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy import delete, insert, select, update
from sqlalchemy.exc import IntegrityError

from engage_core.agents.model import AgentDraft, AgentInput, AgentPatch, AiAgent
from engage_core.contacts.model import Contact
from engage_core.kernel.errors import NotFound, ValidationFailed
from engage_core.services import Services
from engage_sql import Database
from engage_sql.agents.tables import ai_agents
from engage_sql.contacts.tables import contacts

from .concurrency import at_once, outcome
from .conftest import START

THREADS = 12


@pytest.fixture
def other(make_account: Callable[..., int]) -> int:
    return make_account("Other")


def _add(database: Database, account: int, name: str = "Concierge", **fields: Any) -> AiAgent:
    with database.uow.workspace(account) as uow:
        agent = uow.ai_agents.add(AgentDraft(name, "Be kind.", **fields), START)
        uow.commit()
    return agent


def _row(account: int, **fields: Any) -> dict[str, Any]:
    return {
        "account_id": account, "name": "Raw", "system_prompt": "p", "response_guidelines": {}, "is_active": True,
        "is_default": False, "created_at": START, "updated_at": START,
    } | fields  # fmt: skip


def _defaults(database: Database, account: int) -> list[int]:
    with database.engine.connect() as connection:
        return list(
            connection.execute(
                select(ai_agents.c.id).where(ai_agents.c.account_id == account, ai_agents.c.is_default.is_(True))
            ).scalars()
        )


# -- what the schema refuses -----------------------------------------------------------------------


def test_the_database_refuses_a_second_default(database: Database, account: int, other: int) -> None:
    """A second default in one account breaks the unique index; another account may have its own."""
    _add(database, account, is_default=True)
    _add(database, other, is_default=True)

    with database.engine.connect() as connection, pytest.raises(IntegrityError, match=r"(?i)unique|duplicate"):
        connection.execute(insert(ai_agents), _row(account, is_default=True))


def test_the_database_refuses_an_inactive_default(database: Database, account: int) -> None:
    """A default agent that is inactive breaks the check constraint."""
    agent = _add(database, account, is_default=True)

    with database.engine.connect() as connection, pytest.raises(IntegrityError, match=r"(?i)check"):
        connection.execute(update(ai_agents).where(ai_agents.c.id == agent.id).values(is_active=False))


def test_an_agent_with_contacts_cannot_be_deleted_behind_their_back(
    database: Database, account: int, make_contact: Callable[..., Contact]
) -> None:
    """Deleting an agent without clearing its contacts first is refused by their foreign key."""
    agent = _add(database, account)
    contact = make_contact()
    with database.uow.workspace(account) as uow:
        uow.contacts.assign_agent(agent.id, [contact.id])
        uow.commit()

    with database.engine.connect() as connection, pytest.raises(IntegrityError, match=r"(?i)foreign key"):
        connection.execute(delete(ai_agents).where(ai_agents.c.id == agent.id))


def test_a_contact_cannot_point_at_another_accounts_agent(
    database: Database, other: int, make_contact: Callable[..., Contact]
) -> None:
    """The composite key keeps a contact's agent inside the contact's own account."""
    theirs = _add(database, other)
    contact = make_contact()

    with database.engine.connect() as connection, pytest.raises(IntegrityError, match=r"(?i)foreign key"):
        connection.execute(update(contacts).where(contacts.c.id == contact.id).values(ai_agent_id=theirs.id))


# -- concurrency -----------------------------------------------------------------------------------


def test_concurrent_set_defaults_run_one_after_another(database: Database, services: Services, account: int) -> None:
    """Twelve set-defaults of twelve agents at once all succeed, one after another: each clears the default
    the one before it set (two `ai_agent.updated` each), and one default is left."""
    services.ai_agents.create(account, AgentInput("First default", "Be kind.", is_default=True))
    agents = [services.ai_agents.create(account, AgentInput(f"Agent {n}", "Be kind.")).id for n in range(THREADS)]

    results = at_once(THREADS, lambda n: services.ai_agents.set_default(account, agents[n]))

    assert [outcome(r) for r in results] == ["ok"] * THREADS
    [winner] = _defaults(database, account)
    assert winner in agents and services.ai_agents.get(account, winner).is_active
    updated = [e for e in database.outbox_events(account) if e.name == "ai_agent.updated"]
    assert len(updated) == 2 * THREADS


def test_concurrent_creates_of_defaults_leave_one_default(database: Database, services: Services, account: int) -> None:
    """Twelve agents created at once, each as the default: all are created, and one of them is the default."""
    results = at_once(
        THREADS,
        lambda n: services.ai_agents.create(account, AgentInput(f"Agent {n}", "Be kind.", is_default=True)),
    )

    assert [outcome(r) for r in results] == ["ok"] * THREADS
    assert len(_defaults(database, account)) == 1
    assert len(services.ai_agents.list(account)) == THREADS


def test_a_delete_racing_a_set_default_of_the_same_agent_never_deletes_the_default(
    database: Database, services: Services, account: int
) -> None:
    """Set-default and delete of one agent at once: either the delete wins (set-default then finds nothing)
    or it is refused because the agent became the default; never a default deleted, never an error else."""
    for round_ in range(5):
        agent = services.ai_agents.create(account, AgentInput(f"Agent {round_}", "Be kind.")).id

        def act(n: int, agent: int = agent) -> object:
            if n == 0:
                return services.ai_agents.set_default(account, agent)
            services.ai_agents.delete(account, agent)
            return None

        results = at_once(2, act)
        kinds = sorted(type(r).__name__ for r in results)
        assert kinds in (["AiAgent", "ValidationFailed"], ["NoneType", "NotFound"]), kinds
        if isinstance(results[1], ValidationFailed):
            assert _defaults(database, account) == [agent]
        else:
            assert isinstance(results[0], NotFound)


def test_contacts_created_while_the_default_moves_point_at_existing_agents(
    database: Database, services: Services, account: int, make_contact: Callable[..., Contact]
) -> None:
    """Contacts created while set-defaults move the flag around each get one of the workspace's agents."""
    agents = [services.ai_agents.create(account, AgentInput(f"Agent {n}", "Be kind.")).id for n in range(3)]
    services.ai_agents.set_default(account, agents[0])

    def act(n: int) -> object:
        if n % 4 == 0:
            target = agents[(n // 4) % 3]
            return services.ai_agents.set_default(account, target)
        return make_contact()

    results = at_once(THREADS, act)

    assert [outcome(r) for r in results] == ["ok"] * THREADS
    with database.engine.connect() as connection:
        pointed = set(
            connection.execute(select(contacts.c.ai_agent_id).where(contacts.c.account_id == account)).scalars()
        )
    assert pointed <= set(agents)


def test_a_rename_of_the_default_racing_a_set_default_is_kept(services: Services, account: int) -> None:
    """Renaming the default while another agent is made the default: both changes stay (the old default
    ends renamed and no longer the default), whichever commits first."""
    for round_ in range(5):
        previous = services.ai_agents.create(account, AgentInput(f"Default {round_}", "Be kind.", is_default=True))
        incoming = services.ai_agents.create(account, AgentInput(f"Incoming {round_}", "Be kind."))

        def act(n: int, previous: int = previous.id, incoming: int = incoming.id, round_: int = round_) -> object:
            if n == 0:
                return services.ai_agents.set_default(account, incoming)
            return services.ai_agents.update(account, previous, AgentPatch(name=f"Renamed {round_}"))

        assert [outcome(r) for r in at_once(2, act)] == ["ok", "ok"]
        after = services.ai_agents.get(account, previous.id)
        assert (after.name, after.is_default) == (f"Renamed {round_}", False)
