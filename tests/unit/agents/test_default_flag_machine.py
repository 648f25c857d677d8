"""The AI agent default flag as a state machine (SPEC 3, AI agent default flag), driven by Hypothesis.

Rules create agents (default or not, active or not), make one the default, activate and deactivate
them, set and clear the flag through an update, delete them, assign them to contacts, and create
contacts, all through the real `Services` over the in-memory fakes. A plain model predicts each
outcome from SPEC 3 and the documented choices (`engage_core.agents.model`), written out here rather
than imported.

After every step:

- at most one agent of the workspace is the default, and the default is active;
- every agent's active and default flags agree with the model;
- every contact's agent agrees with the model, and no contact is assigned a deleted agent;
- the outbox has one `ai_agent.created` per agent created, one `ai_agent.deleted` per agent deleted,
  and one `ai_agent.updated` per change the model predicts (the previous default losing its flag included).
"""

from __future__ import annotations

from collections import Counter

import attrs
import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, initialize, invariant, rule

from engage_core.agents.model import AgentInput, AgentPatch
from engage_core.contacts.model import ContactInput
from engage_core.kernel.errors import NotFound, ValidationFailed
from engage_core.services import Services
from engage_core.testing import FakeClock, InMemoryUnitOfWorkFactory

from ..factories import START


@attrs.define
class ModelAgent:
    active: bool
    default: bool


class DefaultFlagMachine(RuleBasedStateMachine):
    agents = Bundle("agents")
    contacts = Bundle("contacts")

    @initialize()
    def workspace(self) -> None:
        self.uow = InMemoryUnitOfWorkFactory()
        self.clock = FakeClock(START)
        self.services = Services.build(self.uow, self.clock)
        self.account = self.services.accounts.create("Acme").account.id
        self.model: dict[int, ModelAgent] = {}
        self.deleted: set[int] = set()
        self.assigned: dict[int, int | None] = {}
        self.expected = Counter[str]()

    # -- helpers ----------------------------------------------------------------------------------

    def _default(self) -> int | None:
        return next((i for i, a in self.model.items() if a.default), None)

    def _make_default(self, agent_id: int) -> None:
        """The model of set-default: the previous default loses the flag (one event), this one gains it."""
        previous = self._default()
        if previous is not None and previous != agent_id:
            self.model[previous].default = False
            self.expected["ai_agent.updated"] += 1

    # -- rules ------------------------------------------------------------------------------------

    @rule(target=agents, default=st.booleans(), active=st.booleans())
    def create(self, default: bool, active: bool) -> int:
        self.clock.advance(seconds=1)
        data = AgentInput(name="Agent", system_prompt="Be kind.", is_default=default, is_active=active)
        if default and not active:
            with pytest.raises(ValidationFailed):
                self.services.ai_agents.create(self.account, data)
            return -1
        if default:
            self._make_default(-1)
        agent = self.services.ai_agents.create(self.account, data)
        self.model[agent.id] = ModelAgent(active, default)
        self.expected["ai_agent.created"] += 1
        return agent.id

    @rule(target=contacts)
    def new_contact(self) -> int:
        contact = self.services.contacts.create(self.account, ContactInput(name="Ada", type="instagram"))
        default = self._default()
        self.assigned[contact.id] = default if default is not None and self.model[default].active else None
        return contact.id

    @rule(agent=agents)
    def set_default(self, agent: int) -> None:
        self.clock.advance(seconds=1)
        if agent not in self.model:
            with pytest.raises(NotFound):
                self.services.ai_agents.set_default(self.account, agent)
            return
        current = self.model[agent]
        if not (current.default and current.active):
            self._make_default(agent)
            self.model[agent] = ModelAgent(True, True)
            self.expected["ai_agent.updated"] += 1
        self.services.ai_agents.set_default(self.account, agent)

    @rule(agent=agents, active=st.booleans())
    def update_active(self, agent: int, active: bool) -> None:
        self.clock.advance(seconds=1)
        patch = AgentPatch(is_active=active)
        if agent not in self.model:
            with pytest.raises(NotFound):
                self.services.ai_agents.update(self.account, agent, patch)
            return
        current = self.model[agent]
        if current.default and not active:
            with pytest.raises(ValidationFailed):
                self.services.ai_agents.update(self.account, agent, patch)
            return
        if current.active != active:
            current.active = active
            self.expected["ai_agent.updated"] += 1
        self.services.ai_agents.update(self.account, agent, patch)

    @rule(agent=agents, default=st.booleans())
    def update_default_flag(self, agent: int, default: bool) -> None:
        self.clock.advance(seconds=1)
        patch = AgentPatch(is_default=default)
        if agent not in self.model:
            with pytest.raises(NotFound):
                self.services.ai_agents.update(self.account, agent, patch)
            return
        current = self.model[agent]
        if default and not (current.default and current.active):
            self._make_default(agent)
            self.model[agent] = ModelAgent(True, True)
            self.expected["ai_agent.updated"] += 1
        elif not default and current.default:
            current.default = False
            self.expected["ai_agent.updated"] += 1
        self.services.ai_agents.update(self.account, agent, patch)

    @rule(agent=agents)
    def delete(self, agent: int) -> None:
        if agent not in self.model:
            with pytest.raises(NotFound):
                self.services.ai_agents.delete(self.account, agent)
            return
        if self.model[agent].default:
            with pytest.raises(ValidationFailed):
                self.services.ai_agents.delete(self.account, agent)
            return
        self.services.ai_agents.delete(self.account, agent)
        del self.model[agent]
        self.deleted.add(agent)
        self.assigned = {c: (None if a == agent else a) for c, a in self.assigned.items()}
        self.expected["ai_agent.deleted"] += 1

    @rule(agent=agents, chosen=st.lists(contacts, min_size=1, max_size=4))
    def assign(self, agent: int, chosen: list[int]) -> None:
        if agent not in self.model:
            with pytest.raises(NotFound):
                self.services.ai_agents.assign(self.account, agent, chosen)
            return
        result = self.services.ai_agents.assign(self.account, agent, chosen)
        assert result.updated_count == len(set(chosen))
        for contact in chosen:
            self.assigned[contact] = agent

    # -- invariants -------------------------------------------------------------------------------

    @invariant()
    def at_most_one_default_and_it_is_active(self) -> None:
        stored = self.services.ai_agents.list(self.account)
        defaults = [a for a in stored if a.is_default]
        assert len(defaults) <= 1
        assert all(a.is_active for a in defaults)

    @invariant()
    def the_flags_agree_with_the_model(self) -> None:
        stored = {a.id: ModelAgent(a.is_active, a.is_default) for a in self.services.ai_agents.list(self.account)}
        assert stored == self.model

    @invariant()
    def no_contact_has_a_deleted_agent(self) -> None:
        for contact, agent in self.assigned.items():
            stored = self.services.contacts.get(self.account, contact).ai_agent_id
            assert stored == agent
            assert stored not in self.deleted

    @invariant()
    def one_event_per_change(self) -> None:
        names = Counter(e.name for e in self.uow.store.events(self.account) if e.name.startswith("ai_agent."))
        assert names == self.expected


DefaultFlagMachine.TestCase.settings = settings(max_examples=60, stateful_step_count=30, deadline=None)
test_default_flag_machine = DefaultFlagMachine.TestCase
