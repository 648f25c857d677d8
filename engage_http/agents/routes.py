"""AI agents (SPEC 3, AI agent default flag; SPEC 4, AI agents): the personas that answer a
workspace's contacts, its default agent, and assigning agents to contacts.

Every route belongs to the `ai_agents` plan feature: without it, creating, changing, making the
default and assigning are 403 `feature_not_in_plan`, while reading and deleting stay allowed (a
workspace moved to a plan without the feature keeps access to what it made, as with every feature).
The writes are database work only, so they run on the write lane where the storage has one.
"""

from __future__ import annotations

from collections.abc import Sequence

from engage_core.agents import model as domain
from engage_core.agents.model import AgentInput, AgentPatch
from engage_http.agents.schemas import AiAgent, AiAgentAssign, AiAgentAssignment, AiAgentCreate, AiAgentUpdate
from engage_http.operations import Call, Operation, Reply, Shape, declare

TAG = "AI agents"
FEATURE = "ai_agents"

RULES = frozenset({422})
"""Declared in `errors`: a 422 may also answer a request the document calls valid, for a rule no schema
can state (the default agent cannot be deleted nor deactivated, a workspace's number of agents)."""


def index(call: Call[None, None]) -> Sequence[domain.AiAgent]:
    return call.services.ai_agents.list(call.account_id)


def store(call: Call[AgentInput, None]) -> domain.AiAgent:
    return call.services.ai_agents.create(call.account_id, call.body)


def show(call: Call[None, None]) -> domain.AiAgent:
    return call.services.ai_agents.get(call.account_id, call.path["id"])


def update(call: Call[AgentPatch, None]) -> domain.AiAgent:
    return call.services.ai_agents.update(call.account_id, call.path["id"], call.body)


def destroy(call: Call[None, None]) -> None:
    call.services.ai_agents.delete(call.account_id, call.path["id"])


def set_default(call: Call[None, None]) -> domain.AiAgent:
    return call.services.ai_agents.set_default(call.account_id, call.path["id"])


def assign(call: Call[AiAgentAssign, None]) -> Reply:
    assigned = call.services.ai_agents.assign(call.account_id, call.path["id"], call.body.contact_ids)
    return Reply(assigned, assigned.message)


OPERATIONS: tuple[Operation, ...] = declare(
    Operation(
        "GET",
        "/ai-agents",
        index,
        "List AI agents",
        TAG,
        AiAgent,
        Shape.MANY,
        message="AI agents retrieved.",
        description="Every agent of the workspace (at most 100), most recently updated first, in one array.",
    ),
    Operation(
        "POST",
        "/ai-agents",
        store,
        "Create an AI agent",
        TAG,
        AiAgent,
        status=201,
        message="AI agent created.",
        body=AiAgentCreate,
        errors=RULES,
        description="Emits `ai_agent.created`. With `is_default` true the agent becomes the default (and active) "
        "and the previous default loses the flag (`ai_agent.updated`); `is_default` true with `is_active` false is "
        "a 422 on `is_active`. A workspace has at most 100 agents (422 on `name` beyond).",
    ),
    Operation("GET", "/ai-agents/{id:id}", show, "Get an AI agent", TAG, AiAgent),
    Operation(
        "PUT",
        "/ai-agents/{id:id}",
        update,
        "Update an AI agent",
        TAG,
        AiAgent,
        message="AI agent updated.",
        body=AiAgentUpdate,
        errors=RULES,
        description="Any subset of the fields; `response_guidelines` replaces the whole object. `is_default` true "
        "does what set-default does; deactivating the default agent is a 422 on `is_active` (make another agent "
        "the default, or send `is_default: false`, first). Emits `ai_agent.updated` when something changed.",
    ),
    Operation(
        "DELETE",
        "/ai-agents/{id:id}",
        destroy,
        "Delete an AI agent",
        TAG,
        shape=Shape.NOTHING,
        status=204,
        errors=RULES,
        description="The agent is unassigned from every contact that had it, then deleted (`ai_agent.deleted`). "
        "The default agent cannot be deleted: 422 on `is_default`.",
    ),
    Operation(
        "POST",
        "/ai-agents/{id:id}/set-default",
        set_default,
        "Make an AI agent the default",
        TAG,
        AiAgent,
        message="AI agent set as the default.",
        description="The agent becomes the default and active; the previous default loses the flag. Emits "
        "`ai_agent.updated` for each agent that changed (none when it already was the default). New contacts "
        "get the default agent.",
    ),
    Operation(
        "POST",
        "/ai-agents/{id:id}/assign",
        assign,
        "Assign an AI agent to contacts",
        TAG,
        AiAgentAssignment,
        message="Contacts assigned to the AI agent.",
        body=AiAgentAssign,
        description="Up to 500 contact ids: the agent becomes the assigned agent of the workspace's contacts among "
        "them (others are ignored). `updated_count` counts them, each once, those that had the agent already "
        "included. Neither the contacts' `updated_at` nor `contact.updated` events change. An inactive agent may "
        "be assigned: its contacts are answered by the default agent until it is activated.",
    ),
    feature=FEATURE,
    write_lane=True,
)
