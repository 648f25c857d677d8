"""AiAgentService over the in-memory fakes: creating, reading, updating and deleting agents, the
default flag (SPEC 3), assigning contacts, the events (SPEC 6) and which agent answers a contact."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from engage_core.agents.model import AGENTS_MAX, PROMPT_MAX, SYSTEM_PROMPT_MAX, AgentInput, AgentPatch, AiAgent
from engage_core.contacts.model import Contact, ContactFilter, ContactPatch
from engage_core.kernel.errors import NotFound, ValidationFailed
from engage_core.kernel.events import DomainEvent
from engage_core.kernel.pagination import PageRequest
from engage_core.services import Services
from engage_core.testing import FakeClock, InMemoryStore, InMemoryUnitOfWorkFactory

from ..messaging.fixtures import Messaging

NewAgent = Callable[..., AiAgent]


@pytest.fixture
def new_agent(services: Services, account_id: int) -> NewAgent:
    """`new_agent(name="Concierge", account=None, **AgentInput fields) -> AiAgent`."""

    def make(name: str = "Concierge", *, account: int | None = None, **fields: Any) -> AiAgent:
        data = AgentInput(name=name, system_prompt=fields.pop("system_prompt", "Answer politely."), **fields)
        return services.ai_agents.create(account_id if account is None else account, data)

    return make


def errors_of(call: Callable[[], Any]) -> dict[str, list[str]]:
    with pytest.raises(ValidationFailed) as caught:
        call()
    return caught.value.errors


def agent_events(store: InMemoryStore) -> list[DomainEvent]:
    return [e for e in store.events() if e.name.startswith("ai_agent.")]


def defaults(services: Services, account_id: int) -> list[int]:
    return [a.id for a in services.ai_agents.list(account_id) if a.is_default]


# -- creating --------------------------------------------------------------------------------------


def test_a_new_agent_is_active_not_default_and_has_no_guidelines(new_agent: NewAgent) -> None:
    """`POST /ai-agents` with the required fields only: active, not the default, `{}` guidelines."""
    agent = new_agent()

    assert (agent.is_active, agent.is_default, agent.response_guidelines) == (True, False, {})


def test_create_trims_the_texts_and_blank_prompts_are_null(new_agent: NewAgent) -> None:
    """Names and prompts are trimmed; a blank optional prompt is stored as null."""
    agent = new_agent(
        "  Concierge ", system_prompt=" Be kind. ", personality_prompt="   ", instruction_prompt=" Cite. "
    )

    assert (agent.name, agent.system_prompt, agent.personality_prompt, agent.instruction_prompt) == (
        "Concierge",
        "Be kind.",
        None,
        "Cite.",
    )


def test_create_requires_name_and_system_prompt(services: Services, account_id: int) -> None:
    """A blank name and system prompt are a 422 naming both."""
    errors = errors_of(lambda: services.ai_agents.create(account_id, AgentInput(name=" ", system_prompt="")))

    assert sorted(errors) == ["name", "system_prompt"]


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"name": "x" * 256}, "name"),
        ({"system_prompt": "x" * (SYSTEM_PROMPT_MAX + 1)}, "system_prompt"),
        ({"instruction_prompt": "x" * (PROMPT_MAX + 1)}, "instruction_prompt"),
        ({"personality_prompt": "x" * (PROMPT_MAX + 1)}, "personality_prompt"),
        ({"booking_agent_instructions": "x" * (PROMPT_MAX + 1)}, "booking_agent_instructions"),
        ({"memory_agent_instructions": "x" * (PROMPT_MAX + 1)}, "memory_agent_instructions"),
    ],
)
def test_texts_over_their_limit_are_a_422(new_agent: NewAgent, fields: dict[str, str], field: str) -> None:
    """A name over 255 characters (SPEC 8), or a prompt over its limit, is a 422 on that field."""
    assert list(errors_of(lambda: new_agent(**fields))) == [field]


def test_texts_at_their_limit_are_accepted(new_agent: NewAgent) -> None:
    """A 255-character name and prompts of exactly their limits are stored."""
    agent = new_agent("x" * 255, system_prompt="s" * SYSTEM_PROMPT_MAX, memory_agent_instructions="m" * PROMPT_MAX)

    assert (len(agent.name), len(agent.system_prompt), len(agent.memory_agent_instructions or "")) == (
        255,
        SYSTEM_PROMPT_MAX,
        PROMPT_MAX,
    )


def test_create_emits_ai_agent_created_with_the_spec_fields(new_agent: NewAgent, store: InMemoryStore) -> None:
    """`ai_agent.created` carries exactly id, name, is_active, is_default, created_at and updated_at."""
    agent = new_agent()

    [event] = agent_events(store)
    assert (event.name, dict(event.payload)) == (
        "ai_agent.created",
        {
            "id": agent.id,
            "name": "Concierge",
            "is_active": True,
            "is_default": False,
            "created_at": "2026-01-01T12:00:00.000000Z",
            "updated_at": "2026-01-01T12:00:00.000000Z",
        },
    )


def test_a_workspace_may_have_at_most_agents_max(
    uow: InMemoryUnitOfWorkFactory, new_agent: NewAgent, account_id: int
) -> None:
    """One agent past `AGENTS_MAX` is a 422, and nothing is stored."""
    for n in range(AGENTS_MAX):
        new_agent(f"Agent {n}")

    errors = errors_of(lambda: new_agent("One too many"))

    assert list(errors) == ["name"]
    with uow.workspace(account_id) as tx:
        assert tx.ai_agents.count() == AGENTS_MAX


# -- response guidelines ---------------------------------------------------------------------------


def test_guidelines_keep_free_form_values(new_agent: NewAgent) -> None:
    """Strings, numbers, booleans and lists of strings are stored as given."""
    guidelines = {"language": "ar", "tone": "warm", "emoji": False, "temperature": 0.2, "sign_off": ["Thanks"]}

    assert new_agent(response_guidelines=guidelines).response_guidelines == guidelines


def test_the_engine_keys_are_read_from_the_guidelines(new_agent: NewAgent) -> None:
    """`max_reply_chars` and `refused_topics` (trimmed) are what the answer engine reads."""
    agent = new_agent(response_guidelines={"max_reply_chars": 600, "refused_topics": [" politics ", "medical advice"]})

    assert (agent.max_reply_chars, agent.refused_topics) == (600, ("politics", "medical advice"))


def test_an_integral_float_max_reply_chars_is_an_integer(new_agent: NewAgent) -> None:
    """JSON's `600.0` is the integer 600."""
    agent = new_agent(response_guidelines={"max_reply_chars": 600.0})

    assert (agent.max_reply_chars, type(agent.response_guidelines["max_reply_chars"])) == (600, int)


@pytest.mark.parametrize(
    ("guidelines", "field"),
    [
        ({"max_reply_chars": 49}, "response_guidelines.max_reply_chars"),
        ({"max_reply_chars": 4001}, "response_guidelines.max_reply_chars"),
        ({"max_reply_chars": "600"}, "response_guidelines.max_reply_chars"),
        ({"max_reply_chars": True}, "response_guidelines.max_reply_chars"),
        ({"max_reply_chars": 60.5}, "response_guidelines.max_reply_chars"),
        ({"refused_topics": "politics"}, "response_guidelines.refused_topics"),
        ({"refused_topics": ["ok", " "]}, "response_guidelines.refused_topics"),
        ({"refused_topics": ["x" * 101]}, "response_guidelines.refused_topics"),
        ({"refused_topics": ["t"] * 51}, "response_guidelines.refused_topics"),
        ({"refused_topics": [1]}, "response_guidelines.refused_topics"),
        ({"tone": None}, "response_guidelines.tone"),
        ({"tone": {"nested": "object"}}, "response_guidelines.tone"),
        ({"tone": [1, 2]}, "response_guidelines.tone"),
        ({"tone": "x" * 1001}, "response_guidelines.tone"),
        ({"tone": ["x"] * 51}, "response_guidelines.tone"),
        ({"tone": float("inf")}, "response_guidelines.tone"),
        ({"": "blank key"}, "response_guidelines"),
        ({"k" * 101: "long key"}, "response_guidelines"),
        ({f"key{n}": n for n in range(51)}, "response_guidelines"),
    ],
)
def test_invalid_guidelines_are_a_422_naming_the_key(
    new_agent: NewAgent, guidelines: dict[str, Any], field: str
) -> None:
    """Out-of-range engine keys, values of another kind, and too many or bad keys are a 422."""
    assert list(errors_of(lambda: new_agent(response_guidelines=guidelines))) == [field]


def test_fifty_guidelines_are_accepted(new_agent: NewAgent) -> None:
    """Exactly `GUIDELINES_MAX` keys are stored."""
    guidelines = {f"key{n}": n for n in range(50)}

    assert new_agent(response_guidelines=guidelines).response_guidelines == guidelines


# -- reading ---------------------------------------------------------------------------------------


def test_list_is_most_recently_updated_first(
    services: Services, account_id: int, new_agent: NewAgent, clock: FakeClock
) -> None:
    """An agent changed last comes first, ahead of newer agents left alone."""
    first = new_agent("First")
    clock.advance(minutes=1)
    second = new_agent("Second")
    clock.advance(minutes=1)
    services.ai_agents.update(account_id, first.id, AgentPatch(name="First, renamed"))

    assert [a.id for a in services.ai_agents.list(account_id)] == [first.id, second.id]


def test_list_shows_only_the_workspaces_agents(
    services: Services, new_agent: NewAgent, new_account: Callable[..., int], account_id: int
) -> None:
    """Another workspace's agents are not listed."""
    new_agent("Theirs", account=new_account("Other"))
    mine = new_agent("Mine")

    assert [a.id for a in services.ai_agents.list(account_id)] == [mine.id]


def test_another_workspaces_agent_is_not_found(
    services: Services, new_agent: NewAgent, new_account: Callable[..., int], account_id: int
) -> None:
    """Reading an agent of another account raises NotFound."""
    theirs = new_agent(account=new_account("Other"))

    with pytest.raises(NotFound):
        services.ai_agents.get(account_id, theirs.id)


# -- updating --------------------------------------------------------------------------------------


def test_update_changes_only_the_fields_given(services: Services, account_id: int, new_agent: NewAgent) -> None:
    """Fields left out of the patch keep their values."""
    agent = new_agent(personality_prompt="Cheerful.", response_guidelines={"tone": "warm"})

    updated = services.ai_agents.update(account_id, agent.id, AgentPatch(system_prompt="Be brief."))

    assert (updated.system_prompt, updated.personality_prompt, updated.response_guidelines) == (
        "Be brief.",
        "Cheerful.",
        {"tone": "warm"},
    )


def test_update_null_clears_a_prompt_and_the_guidelines(
    services: Services, account_id: int, new_agent: NewAgent
) -> None:
    """None clears an optional prompt; None guidelines are `{}`."""
    agent = new_agent(personality_prompt="Cheerful.", response_guidelines={"tone": "warm"})

    updated = services.ai_agents.update(
        account_id, agent.id, AgentPatch(personality_prompt=None, response_guidelines=None)
    )

    assert (updated.personality_prompt, updated.response_guidelines) == (None, {})


def test_new_guidelines_replace_the_old_ones(services: Services, account_id: int, new_agent: NewAgent) -> None:
    """`response_guidelines` in an update is the whole new object, not merged."""
    agent = new_agent(response_guidelines={"tone": "warm", "language": "en"})

    updated = services.ai_agents.update(account_id, agent.id, AgentPatch(response_guidelines={"language": "ar"}))

    assert updated.response_guidelines == {"language": "ar"}


def test_update_moves_updated_at_and_emits_ai_agent_updated(
    services: Services, account_id: int, new_agent: NewAgent, clock: FakeClock, store: InMemoryStore
) -> None:
    """A change sets `updated_at` and records `ai_agent.updated` with the agent as it is now."""
    agent = new_agent()
    clock.advance(minutes=5)

    updated = services.ai_agents.update(account_id, agent.id, AgentPatch(name="Receptionist"))

    assert updated.updated_at == clock.now()
    assert [(e.name, e.payload["name"]) for e in agent_events(store)][1:] == [("ai_agent.updated", "Receptionist")]


def test_an_update_that_changes_nothing_emits_nothing(
    services: Services, account_id: int, new_agent: NewAgent, clock: FakeClock, store: InMemoryStore
) -> None:
    """A patch of the values the agent already has keeps `updated_at` and records no event."""
    agent = new_agent()
    clock.advance(minutes=5)

    same = services.ai_agents.update(account_id, agent.id, AgentPatch(name="Concierge", is_active=True))

    assert (same, len(agent_events(store))) == (agent, 1)


def test_a_guidelines_change_emits_ai_agent_updated(
    services: Services, account_id: int, new_agent: NewAgent, store: InMemoryStore
) -> None:
    """The guidelines are part of the prompt: changing them records `ai_agent.updated`."""
    agent = new_agent()

    services.ai_agents.update(account_id, agent.id, AgentPatch(response_guidelines={"tone": "formal"}))

    assert [e.name for e in agent_events(store)] == ["ai_agent.created", "ai_agent.updated"]


def test_an_invalid_update_changes_nothing(services: Services, account_id: int, new_agent: NewAgent) -> None:
    """A patch with one bad field is a 422, and the good fields are not stored either."""
    agent = new_agent()

    errors = errors_of(
        lambda: services.ai_agents.update(account_id, agent.id, AgentPatch(name="New", system_prompt=""))
    )

    assert (list(errors), services.ai_agents.get(account_id, agent.id)) == (["system_prompt"], agent)


def test_updating_another_workspaces_agent_is_not_found(
    services: Services, new_agent: NewAgent, new_account: Callable[..., int], account_id: int
) -> None:
    """An update naming another account's agent raises NotFound."""
    theirs = new_agent(account=new_account("Other"))

    with pytest.raises(NotFound):
        services.ai_agents.update(account_id, theirs.id, AgentPatch(name="Hijacked"))


# -- the default flag (SPEC 3) ---------------------------------------------------------------------


def test_set_default_makes_the_agent_default_and_active(
    services: Services, account_id: int, new_agent: NewAgent
) -> None:
    """`set-default` on an inactive agent makes it the default and active."""
    agent = new_agent(is_active=False)

    made = services.ai_agents.set_default(account_id, agent.id)

    assert (made.is_default, made.is_active) == (True, True)


def test_set_default_clears_the_previous_default(services: Services, account_id: int, new_agent: NewAgent) -> None:
    """After `set-default` the previous default is no longer the default."""
    first = new_agent("First", is_default=True)
    second = new_agent("Second")

    services.ai_agents.set_default(account_id, second.id)

    assert (defaults(services, account_id), services.ai_agents.get(account_id, first.id).is_default) == (
        [second.id],
        False,
    )


def test_set_default_emits_updated_for_both_agents(
    services: Services, account_id: int, new_agent: NewAgent, store: InMemoryStore
) -> None:
    """The previous default's `ai_agent.updated` (flag cleared) comes before the new default's."""
    first = new_agent("First", is_default=True)
    second = new_agent("Second")

    services.ai_agents.set_default(account_id, second.id)

    updated = [(e.payload["id"], e.payload["is_default"]) for e in agent_events(store) if e.name == "ai_agent.updated"]
    assert updated == [(first.id, False), (second.id, True)]


def test_set_default_on_the_default_changes_nothing(
    services: Services, account_id: int, new_agent: NewAgent, store: InMemoryStore
) -> None:
    """Setting the active default again is harmless: the same agent, no event."""
    agent = new_agent(is_default=True)

    again = services.ai_agents.set_default(account_id, agent.id)

    assert (again, [e.name for e in agent_events(store)]) == (agent, ["ai_agent.created"])


def test_creating_a_default_clears_the_previous_one(services: Services, account_id: int, new_agent: NewAgent) -> None:
    """Creating an agent with `is_default` true leaves it the only default."""
    new_agent("First", is_default=True)
    second = new_agent("Second", is_default=True)

    assert defaults(services, account_id) == [second.id]


def test_creating_a_default_emits_updated_for_the_previous_one_first(new_agent: NewAgent, store: InMemoryStore) -> None:
    """The previous default's `ai_agent.updated` is recorded before the new agent's `ai_agent.created`."""
    first = new_agent("First", is_default=True)
    new_agent("Second", is_default=True)

    assert [(e.name, e.payload["id"]) for e in agent_events(store)][1:2] == [("ai_agent.updated", first.id)]


def test_a_default_created_inactive_is_a_422(new_agent: NewAgent) -> None:
    """`is_default` true with `is_active` false is a 422 on `is_active`: the default always answers."""
    assert list(errors_of(lambda: new_agent(is_default=True, is_active=False))) == ["is_active"]


def test_deactivating_the_default_is_a_422(services: Services, account_id: int, new_agent: NewAgent) -> None:
    """`PUT {"is_active": false}` on the default is a 422 on `is_active`, and it stays active."""
    agent = new_agent(is_default=True)

    errors = errors_of(lambda: services.ai_agents.update(account_id, agent.id, AgentPatch(is_active=False)))

    assert (list(errors), services.ai_agents.get(account_id, agent.id).is_active) == (["is_active"], True)


def test_clearing_the_flag_and_deactivating_together_is_allowed(
    services: Services, account_id: int, new_agent: NewAgent
) -> None:
    """`is_default: false` with `is_active: false` leaves the workspace without a default."""
    agent = new_agent(is_default=True)

    updated = services.ai_agents.update(account_id, agent.id, AgentPatch(is_default=False, is_active=False))

    assert ((updated.is_default, updated.is_active), defaults(services, account_id)) == ((False, False), [])


def test_update_with_is_default_true_is_set_default(services: Services, account_id: int, new_agent: NewAgent) -> None:
    """`PUT {"is_default": true}` activates the agent and clears the previous default."""
    new_agent("First", is_default=True)
    second = new_agent("Second", is_active=False)

    updated = services.ai_agents.update(account_id, second.id, AgentPatch(is_default=True))

    assert ((updated.is_default, updated.is_active), defaults(services, account_id)) == ((True, True), [second.id])


def test_update_to_an_inactive_default_is_a_422(services: Services, account_id: int, new_agent: NewAgent) -> None:
    """`PUT {"is_default": true, "is_active": false}` is a 422 on `is_active`; the old default stays."""
    first = new_agent("First", is_default=True)
    second = new_agent("Second")

    errors = errors_of(
        lambda: services.ai_agents.update(account_id, second.id, AgentPatch(is_default=True, is_active=False))
    )

    assert (list(errors), defaults(services, account_id)) == (["is_active"], [first.id])


def test_defaults_are_per_workspace(
    services: Services, account_id: int, new_agent: NewAgent, new_account: Callable[..., int]
) -> None:
    """Making an agent the default leaves another workspace's default alone."""
    other = new_account("Other")
    theirs = new_agent("Theirs", account=other, is_default=True)
    new_agent("Mine", is_default=True)

    assert defaults(services, other) == [theirs.id]


# -- deleting --------------------------------------------------------------------------------------


def test_delete_removes_the_agent_and_emits_ai_agent_deleted(
    services: Services, account_id: int, new_agent: NewAgent, store: InMemoryStore
) -> None:
    """A deleted agent is gone, with `ai_agent.deleted` (id, name, deleted_at)."""
    agent = new_agent()

    services.ai_agents.delete(account_id, agent.id)

    assert services.ai_agents.list(account_id) == []
    assert dict(agent_events(store)[-1].payload) == {
        "id": agent.id,
        "name": "Concierge",
        "deleted_at": "2026-01-01T12:00:00.000000Z",
    }


def test_the_default_cannot_be_deleted(services: Services, account_id: int, new_agent: NewAgent) -> None:
    """Deleting the default is a 422 on `is_default` saying why, and the agent stays."""
    agent = new_agent(is_default=True)

    with pytest.raises(ValidationFailed) as refused:
        services.ai_agents.delete(account_id, agent.id)

    assert refused.value.errors == {
        "is_default": ["The default AI agent cannot be deleted. Make another agent the default first."]
    }
    assert services.ai_agents.get(account_id, agent.id) == agent


def test_deleting_an_agent_unassigns_its_contacts(
    services: Services, account_id: int, new_agent: NewAgent, new_contact: Callable[..., Contact]
) -> None:
    """Contacts assigned to a deleted agent have no agent any more."""
    agent = new_agent()
    contact = new_contact()
    services.ai_agents.assign(account_id, agent.id, [contact.id])

    services.ai_agents.delete(account_id, agent.id)

    assert services.contacts.get(account_id, contact.id).ai_agent_id is None


def test_deleting_another_workspaces_agent_is_not_found(
    services: Services, new_agent: NewAgent, new_account: Callable[..., int], account_id: int
) -> None:
    """A delete naming another account's agent raises NotFound, and the agent stays."""
    other = new_account("Other")
    theirs = new_agent(account=other)

    with pytest.raises(NotFound):
        services.ai_agents.delete(account_id, theirs.id)
    assert services.ai_agents.get(other, theirs.id) == theirs


# -- assigning contacts ----------------------------------------------------------------------------


def test_assign_sets_the_agent_on_the_contacts(
    services: Services, account_id: int, new_agent: NewAgent, new_contact: Callable[..., Contact]
) -> None:
    """Each contact named gets the agent; `updated_count` counts them."""
    agent = new_agent()
    contacts = [new_contact(f"C{n}") for n in range(3)]

    result = services.ai_agents.assign(account_id, agent.id, [c.id for c in contacts])

    assert (result.updated_count, result.message) == (3, "3 contacts assigned to the AI agent.")
    assert {services.contacts.get(account_id, c.id).ai_agent_id for c in contacts} == {agent.id}


def test_assign_ignores_unknown_ids_and_other_workspaces_contacts(
    services: Services,
    account_id: int,
    new_agent: NewAgent,
    new_contact: Callable[..., Contact],
    new_account: Callable[..., int],
) -> None:
    """Only the workspace's own contacts are counted and changed, each once."""
    other = new_account("Other")
    theirs = new_contact("Theirs", account=other)
    mine = new_contact()
    agent = new_agent()

    result = services.ai_agents.assign(account_id, agent.id, [mine.id, mine.id, theirs.id, 999_999])

    assert (result.updated_count, result.message) == (1, "1 contact assigned to the AI agent.")
    assert services.contacts.get(other, theirs.id).ai_agent_id is None


def test_assign_counts_contacts_that_had_the_agent_already(
    services: Services, account_id: int, new_agent: NewAgent, new_contact: Callable[..., Contact]
) -> None:
    """Assigning the agent a contact already has still counts it."""
    agent = new_agent()
    contact = new_contact()
    services.ai_agents.assign(account_id, agent.id, [contact.id])

    assert services.ai_agents.assign(account_id, agent.id, [contact.id]).updated_count == 1


def test_assign_accepts_500_contacts_and_refuses_501(services: Services, account_id: int, new_agent: NewAgent) -> None:
    """Up to 500 ids per request (SPEC 8); 501 is a 422 on `contact_ids`, as is none."""
    agent = new_agent()

    assert services.ai_agents.assign(account_id, agent.id, list(range(1, 501))).updated_count == 0
    assert list(errors_of(lambda: services.ai_agents.assign(account_id, agent.id, list(range(1, 502))))) == [
        "contact_ids"
    ]
    assert list(errors_of(lambda: services.ai_agents.assign(account_id, agent.id, []))) == ["contact_ids"]


def test_assigning_another_workspaces_agent_is_not_found(
    services: Services,
    new_agent: NewAgent,
    new_contact: Callable[..., Contact],
    new_account: Callable[..., int],
    account_id: int,
) -> None:
    """Naming another account's agent raises NotFound, and the contact keeps no agent."""
    theirs = new_agent(account=new_account("Other"))
    mine = new_contact()

    with pytest.raises(NotFound):
        services.ai_agents.assign(account_id, theirs.id, [mine.id])
    assert services.contacts.get(account_id, mine.id).ai_agent_id is None


def test_assigning_changes_neither_updated_at_nor_emits_contact_events(
    services: Services,
    account_id: int,
    new_agent: NewAgent,
    new_contact: Callable[..., Contact],
    clock: FakeClock,
    store: InMemoryStore,
) -> None:
    """An assignment is the agent's relation: the contact's `updated_at` stays and no `contact.updated` is recorded."""
    contact = new_contact()
    agent = new_agent()
    clock.advance(minutes=5)
    before = len(store.events())

    services.ai_agents.assign(account_id, agent.id, [contact.id])

    assert services.contacts.get(account_id, contact.id).updated_at == contact.updated_at
    assert len(store.events()) == before


def test_a_contact_update_keeps_its_agent(
    services: Services, account_id: int, new_agent: NewAgent, new_contact: Callable[..., Contact]
) -> None:
    """Changing a contact's fields leaves its assigned agent alone."""
    agent = new_agent()
    contact = new_contact()
    services.ai_agents.assign(account_id, agent.id, [contact.id])

    updated = services.contacts.update(account_id, contact.id, ContactPatch(name="Renamed"))

    assert updated.ai_agent_id == agent.id


# -- new contacts get the default agent ------------------------------------------------------------


def test_a_new_contact_gets_the_default_agent(
    services: Services, account_id: int, new_agent: NewAgent, new_contact: Callable[..., Contact]
) -> None:
    """A contact created through the API gets the workspace's active default."""
    agent = new_agent(is_default=True)

    assert new_contact().ai_agent_id == agent.id


def test_a_new_contact_gets_no_agent_without_a_default(
    new_agent: NewAgent, new_contact: Callable[..., Contact]
) -> None:
    """With agents but no default, a new contact has no agent."""
    new_agent()

    assert new_contact().ai_agent_id is None


@pytest.mark.parametrize(("channel", "sender"), [("whatsapp", "+966501234567"), ("instagram", "@ada.codes")])
def test_a_contact_from_an_inbound_message_gets_the_default_agent(channel: str, sender: str) -> None:
    """A contact created by an inbound message, matched by phone or by handle, gets the default agent too."""
    world = Messaging()
    agent = world.services.ai_agents.create(world.account, AgentInput("Concierge", "Be kind.", is_default=True))
    connected = world.connect_qr(channel) if channel == "whatsapp" else world.connect_credentials(channel)

    world.sandbox.inject_message(connected.provider_account_id or "", sender, "Hi")

    [contact] = world.services.contacts.find(world.account, ContactFilter(), PageRequest()).items
    assert contact.ai_agent_id == agent.id


def test_existing_contacts_keep_their_agent_when_the_default_changes(
    services: Services, account_id: int, new_agent: NewAgent, new_contact: Callable[..., Contact]
) -> None:
    """Only new contacts get the default: a contact made under the old default keeps it."""
    first = new_agent("First", is_default=True)
    contact = new_contact()
    services.ai_agents.set_default(account_id, new_agent("Second").id)

    assert services.contacts.get(account_id, contact.id).ai_agent_id == first.id


# -- which agent answers a contact -----------------------------------------------------------------


def test_default_agent_is_the_active_default(services: Services, account_id: int, new_agent: NewAgent) -> None:
    """`default_agent` is the default, and None in a workspace without one."""
    assert services.ai_agents.default_agent(account_id) is None
    agent = new_agent(is_default=True)

    assert services.ai_agents.default_agent(account_id) == agent


def test_agent_for_contact_is_the_assigned_active_agent(
    services: Services, account_id: int, new_agent: NewAgent, new_contact: Callable[..., Contact]
) -> None:
    """A contact's own active agent answers it, not the default."""
    new_agent("Default", is_default=True)
    own = new_agent("Own")
    contact = new_contact()
    services.ai_agents.assign(account_id, own.id, [contact.id])

    assert services.ai_agents.agent_for_contact(account_id, contact.id) == own


def test_agent_for_contact_falls_back_to_the_default_while_its_agent_is_inactive(
    services: Services, account_id: int, new_agent: NewAgent, new_contact: Callable[..., Contact]
) -> None:
    """A contact whose agent is inactive is answered by the active default."""
    default = new_agent("Default", is_default=True)
    own = new_agent("Own", is_active=False)
    contact = new_contact()
    services.ai_agents.assign(account_id, own.id, [contact.id])

    assert services.ai_agents.agent_for_contact(account_id, contact.id) == default


def test_agent_for_contact_is_none_without_an_active_agent(
    services: Services, account_id: int, new_agent: NewAgent, new_contact: Callable[..., Contact]
) -> None:
    """No active agent of its own and no default: nobody answers."""
    own = new_agent("Own", is_active=False)
    contact = new_contact()
    services.ai_agents.assign(account_id, own.id, [contact.id])

    assert services.ai_agents.agent_for_contact(account_id, contact.id) is None


def test_agent_for_another_workspaces_contact_is_not_found(
    services: Services, account_id: int, new_contact: Callable[..., Contact], new_account: Callable[..., int]
) -> None:
    """A contact of another account raises NotFound."""
    theirs = new_contact(account=new_account("Other"))

    with pytest.raises(NotFound):
        services.ai_agents.agent_for_contact(account_id, theirs.id)
