"""AI agents: list, create, read, update, delete, make the default, and assign to contacts; and, for
the answer engine, which agent answers a contact. The rules are in `engage_core.agents.model`; this
module runs them inside units of work, so every change and its events commit together."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from engage_core.agents.model import (
    AGENTS_MAX,
    DEFAULT_UNDELETABLE,
    AgentAssignment,
    AgentInput,
    AgentPatch,
    AiAgent,
    assignment,
    checked_patch,
    demoted,
    ids_once,
    made_default,
    patched,
    validate_agent,
)
from engage_core.contacts.model import CONTACT_IDS_MAX
from engage_core.kernel.clock import Clock
from engage_core.kernel.errors import NotFound, ValidationFailed
from engage_core.kernel.events import DomainEvent
from engage_core.unit_of_work import UnitOfWorkFactory, WorkspaceUnitOfWork


class AiAgentService:
    """A workspace's AI agents and its default agent (SPEC 3, AI agent default flag), with their
    events (`ai_agent.created`, `ai_agent.updated`, `ai_agent.deleted`).

    Methods that name an agent raise :class:`.NotFound` when it is not in the account; invalid input,
    or a change the default flag's rules refuse, raises :class:`.ValidationFailed` naming the field,
    and nothing is written."""

    def __init__(self, uow: UnitOfWorkFactory, clock: Clock) -> None:
        self._uow = uow
        self._clock = clock

    # -- reading ------------------------------------------------------------------------------

    def list(self, account_id: int) -> Sequence[AiAgent]:
        """`GET /ai-agents`: every agent, most recently updated first."""
        with self._uow.workspace(account_id, readonly=True) as uow:
            return uow.ai_agents.list()

    def get(self, account_id: int, agent_id: int) -> AiAgent:
        """The agent `agent_id`.

        Raises :class:`.NotFound` when it is not in the account."""
        with self._uow.workspace(account_id, readonly=True) as uow:
            return _agent(uow, agent_id)

    def default_agent(self, account_id: int) -> AiAgent | None:
        """The workspace's default agent, when there is one and it is active (it always is: a
        default agent cannot be deactivated)."""
        with self._uow.workspace(account_id, readonly=True) as uow:
            found = uow.ai_agents.default()
        return found if found is not None and found.is_active else None

    def agent_for_contact(self, account_id: int, contact_id: int) -> AiAgent | None:
        """The agent that answers the contact: the one assigned to it when that is active, else the
        active default, else None.

        Raises :class:`.NotFound` when the contact is not in the account."""
        with self._uow.workspace(account_id, readonly=True) as uow:
            contact = uow.contacts.get(contact_id)
            if contact is None:
                raise NotFound("Contact")
            assigned = None if contact.ai_agent_id is None else uow.ai_agents.get(contact.ai_agent_id)
            if assigned is not None and assigned.is_active:
                return assigned
            found = uow.ai_agents.default()
        return found if found is not None and found.is_active else None

    # -- changing -----------------------------------------------------------------------------

    def create(self, account_id: int, data: AgentInput) -> AiAgent:
        """`POST /ai-agents`; emits `ai_agent.created`. With `is_default` true the agent is the
        default (and active), and the previous default loses the flag (`ai_agent.updated`).

        Raises :class:`.ValidationFailed` for invalid fields, `is_default` true with `is_active`
        false, or when the workspace has `AGENTS_MAX` agents already."""
        draft = validate_agent(data)
        now = self._clock.now()
        with self._uow.workspace(account_id) as uow:
            uow.ai_agents.lock()
            if uow.ai_agents.count() >= AGENTS_MAX:
                raise ValidationFailed.on(
                    "name", f"A workspace may have at most {AGENTS_MAX} AI agents. Delete one you no longer use."
                )
            if draft.is_default:
                _clear_default(uow, now)
            agent = uow.ai_agents.add(draft, now)
            uow.emit(DomainEvent("ai_agent.created", agent.event_payload(), now))
            uow.commit()
        return agent

    def update(self, account_id: int, agent_id: int, patch: AgentPatch) -> AiAgent:
        """`PUT /ai-agents/{id}`: any subset of the fields. `is_default` true does what
        `set_default` does; deactivating the default is a 422 on `is_active`. Emits
        `ai_agent.updated` when anything changed (nothing is written otherwise)."""
        patch = checked_patch(patch)
        now = self._clock.now()
        with self._uow.workspace(account_id) as uow:
            if patch.is_default is True:
                uow.ai_agents.lock()  # before the agent's row, as `set_default` takes them
            current = _agent(uow, agent_id)
            agent = patched(current, patch, now)
            if agent == current:
                return current
            if agent.is_default and not current.is_default:
                _clear_default(uow, now)
            _save(uow, agent, now)
            uow.commit()
        return agent

    def set_default(self, account_id: int, agent_id: int) -> AiAgent:
        """`POST /ai-agents/{id}/set-default` (SPEC 3): the agent becomes the default and active, and
        the previous default loses the flag; `ai_agent.updated` for each agent that changed (none
        when it already was the active default). Concurrent calls run one after another: the last
        to commit wins, and there is never more than one default."""
        now = self._clock.now()
        with self._uow.workspace(account_id) as uow:
            uow.ai_agents.lock()
            current = _agent(uow, agent_id)
            agent = made_default(current, now)
            if agent == current:
                return current
            if not current.is_default:
                _clear_default(uow, now)
            _save(uow, agent, now)
            uow.commit()
        return agent

    def delete(self, account_id: int, agent_id: int) -> None:
        """`DELETE /ai-agents/{id}`: the agent is unassigned from every contact that had it, then
        deleted; emits `ai_agent.deleted`.

        Raises :class:`.ValidationFailed` on `is_default` for the default agent (SPEC 3)."""
        now = self._clock.now()
        with self._uow.workspace(account_id) as uow:
            agent = _agent(uow, agent_id)
            if agent.is_default:
                raise ValidationFailed.on("is_default", DEFAULT_UNDELETABLE)
            uow.ai_agents.delete(agent_id)
            uow.emit(DomainEvent("ai_agent.deleted", agent.deleted_payload(now), now))
            uow.commit()

    def assign(self, account_id: int, agent_id: int, contact_ids: Sequence[int]) -> AgentAssignment:
        """`POST /ai-agents/{id}/assign`: the agent becomes the assigned agent of the workspace's
        contacts among `contact_ids` (1 to 500 ids; those of other workspaces, or of no contact, are
        ignored and not counted). The agent may be inactive.

        Raises :class:`.ValidationFailed` on `contact_ids` for none or more than `CONTACT_IDS_MAX`."""
        if not contact_ids or len(contact_ids) > CONTACT_IDS_MAX:
            raise ValidationFailed.on("contact_ids", f"The contact ids must list 1 to {CONTACT_IDS_MAX} contacts.")
        with self._uow.workspace(account_id) as uow:
            _agent(uow, agent_id)  # locked: a racing delete waits, then clears these contacts too
            count = uow.contacts.assign_agent(agent_id, ids_once(contact_ids))
            uow.commit()
        return assignment(count)


def _agent(uow: WorkspaceUnitOfWork, agent_id: int) -> AiAgent:
    agent = uow.ai_agents.get(agent_id)
    if agent is None:
        raise NotFound("AI agent")
    return agent


def _clear_default(uow: WorkspaceUnitOfWork, now: datetime) -> None:
    """The previous default, if any, loses the flag (`ai_agent.updated`). Called under the agents lock."""
    previous = uow.ai_agents.default()
    if previous is not None:
        _save(uow, demoted(previous, now), now)


def _save(uow: WorkspaceUnitOfWork, agent: AiAgent, now: datetime) -> None:
    uow.ai_agents.update(agent)
    uow.emit(DomainEvent("ai_agent.updated", agent.event_payload(), now))
