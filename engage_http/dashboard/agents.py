"""AI agents in the dashboard (admins): the personas that answer customers.

`GET /app/agents` lists the agents (the default one marked) with a form that adds one; an agent's
page edits its name, prompts and state (`AiAgentService.update`), makes it the default for new
contacts (`set_default`) and deletes it. As in the API, the plan's `ai_agents` feature is needed to
create or change agents; reading and deleting stay allowed without it. Response guidelines and the
booking and memory instructions stay with the API (`PUT /api/v1/ai-agents/{id}`).
"""

from __future__ import annotations

from functools import partial

from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from engage_core.agents.model import AgentInput, AgentPatch
from engage_core.kernel.errors import ValidationFailed
from engage_core.services import Services
from engage_http.dashboard.pages import (
    APP_PREFIX,
    Viewer,
    Viewers,
    admin_route,
    field_errors,
    form_text,
    redirect,
    render,
)
from engage_http.routing import in_worker_thread

BASE = APP_PREFIX + "/agents"
FEATURE = "ai_agents"
FIELDS = ("name", "system_prompt", "instruction_prompt", "personality_prompt")
NOTICES = {"created": "Agent added.", "saved": "Agent saved.", "default": "This agent now answers new contacts."}


def routes(services: Services, viewers: Viewers) -> list[Route]:
    """The AI agents pages and their forms, all for admins."""
    agents = services.ai_agents

    def require_feature(account_id: int) -> None:
        services.entitlements.require(account_id, FEATURE)

    async def listing(
        request: Request,
        viewer: Viewer,
        *,
        status: int = 200,
        errors: dict[str, str] | None = None,
        draft: dict[str, str] | None = None,
    ) -> Response:
        found = await in_worker_thread(agents.list, viewer.account_id, read=True)
        return render(
            "agents.html",
            status,
            viewer=viewer,
            title="AI agents",
            agents=found,
            errors=errors or {},
            draft=draft or {},
        )

    async def show_list(request: Request, viewer: Viewer) -> Response:
        return await listing(request, viewer)

    async def create(request: Request, viewer: Viewer) -> Response:
        form = await request.form()
        draft = _texts(form)
        data = AgentInput(
            draft["name"],
            draft["system_prompt"],
            draft["instruction_prompt"] or None,
            draft["personality_prompt"] or None,
            is_default=form_text(form, "is_default") == "1",
        )
        await in_worker_thread(require_feature, viewer.account_id)
        try:
            created = await in_worker_thread(agents.create, viewer.account_id, data)
        except ValidationFailed as exc:
            return await listing(request, viewer, status=422, errors=field_errors(exc), draft=draft)
        return redirect(f"{BASE}/{created.id}?done=created")

    async def detail(
        request: Request,
        viewer: Viewer,
        *,
        status: int = 200,
        errors: dict[str, str] | None = None,
        draft: dict[str, str] | None = None,
    ) -> Response:
        agent = await in_worker_thread(agents.get, viewer.account_id, int(request.path_params["agent_id"]), read=True)
        values = draft if draft is not None else {name: getattr(agent, name) or "" for name in FIELDS}
        return render(
            "agent.html",
            status,
            viewer=viewer,
            title=agent.name,
            agent=agent,
            values=values,
            errors=errors or {},
            notice=NOTICES.get(request.query_params.get("done", "")),
        )

    async def show(request: Request, viewer: Viewer) -> Response:
        return await detail(request, viewer)

    async def save(request: Request, viewer: Viewer) -> Response:
        agent_id = int(request.path_params["agent_id"])
        form = await request.form()
        draft = _texts(form)
        patch = AgentPatch(
            name=draft["name"],
            system_prompt=draft["system_prompt"],
            instruction_prompt=draft["instruction_prompt"] or None,
            personality_prompt=draft["personality_prompt"] or None,
            is_active=form_text(form, "is_active") == "1",
        )
        await in_worker_thread(require_feature, viewer.account_id)
        try:
            await in_worker_thread(agents.update, viewer.account_id, agent_id, patch)
        except ValidationFailed as exc:
            return await detail(request, viewer, status=422, errors=field_errors(exc), draft=draft)
        return redirect(f"{BASE}/{agent_id}?done=saved")

    async def make_default(request: Request, viewer: Viewer) -> Response:
        agent_id = int(request.path_params["agent_id"])
        await in_worker_thread(require_feature, viewer.account_id)
        await in_worker_thread(agents.set_default, viewer.account_id, agent_id)
        return redirect(f"{BASE}/{agent_id}?done=default")

    async def delete(request: Request, viewer: Viewer) -> Response:
        await in_worker_thread(agents.delete, viewer.account_id, int(request.path_params["agent_id"]))
        return redirect(BASE)

    admin = partial(admin_route, viewers)

    one = BASE + "/{agent_id:int}"
    return [
        admin(show_list, "GET", BASE, "agents"),
        admin(create, "POST", BASE, "agent_create"),
        admin(show, "GET", one, "agent"),
        admin(save, "POST", one, "agent_save"),
        admin(make_default, "POST", one + "/default", "agent_default"),
        admin(delete, "POST", one + "/delete", "agent_delete"),
    ]


def _texts(form: FormData) -> dict[str, str]:
    return {name: form_text(form, name) for name in FIELDS}
