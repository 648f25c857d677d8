"""The workspace dashboard: server-rendered pages where a team works the inbox and runs the workspace.

- `sessions`: sealed session cookies (team members, and partners impersonating a client's admin).
- `impersonation`: the landing route of partners' login links, and the client's landing page.
- `sign_in`: `/login` and `/logout` for team members (address and password, lockout, CSRF).
- `pages`: what every page under `/app` shares: the viewer, templates, CSRF, roles, headers.
- `inbox`, `inbox_list`: one list of every channel's conversations and the web chat's active
  sessions, and a conversation to reply in, take over or assign.
- `web_chat`: the web chat's visitor sessions, and a session to answer, take over or end.
- `workspace`: the overview, and admins' team and API key pages.
- `webhooks`: admins' webhook subscriptions, their secrets and delivery log.
- `contacts`: the contacts with search and filters, segments and their members.
- `knowledge`: the knowledge base: entries, a search preview, texts and website crawls.
- `operations`: orders moved through their states, bookings as a week, campaigns' progress.
- `tickets`: support tickets to the service operator: open, reply, close.
- `agents`: admins' AI agents: their prompts, state and which one answers new contacts.
- `channels`: admins connect channels (the QR code drawn as an image, logins and 2FA rounds).

Pages are Jinja2 templates shipped in the package with one stylesheet served from it: no build step,
no CDN. Every page calls the same services as the API.
"""

from __future__ import annotations

from starlette.routing import BaseRoute, Mount
from starlette.staticfiles import StaticFiles

from engage_core.kernel.clock import Clock
from engage_core.kernel.rate_limits import InMemoryRateLimiter, RateLimiter
from engage_core.services import Services
from engage_core.team.sign_in import SignInGuard
from engage_http.dashboard import (
    agents,
    channels,
    contacts,
    impersonation,
    inbox,
    knowledge,
    operations,
    sign_in,
    tickets,
    web_chat,
    webhooks,
    workspace,
)
from engage_http.dashboard.impersonation import PAGE_SECURITY
from engage_http.dashboard.pages import APP_PREFIX, Viewers
from engage_http.dashboard.sessions import SESSION_COOKIE, SESSION_TTL, DashboardSession, SessionCookies
from engage_http.webchat.live import LiveHub

__all__ = ["PAGE_SECURITY", "SESSION_COOKIE", "SESSION_TTL", "DashboardSession", "SessionCookies", "routes"]


def routes(
    services: Services,
    sessions: SessionCookies,
    sign_in_limiter: RateLimiter | None = None,
    clock: Clock | None = None,
    hub: LiveHub | None = None,
) -> list[BaseRoute]:
    """Every route of the dashboard. `sign_in_limiter` counts failed sign-ins (Redis, shared by the
    processes of a deployment; by default this process's memory). `hub` wakes the web chat pages'
    streams (the app's; by default one of their own, which then look again every few seconds)."""
    viewers = Viewers(services, sessions)
    hub = hub or LiveHub()
    guard = SignInGuard(sign_in_limiter or InMemoryRateLimiter(), clock or services.dependencies.clock)
    return [
        *impersonation.routes(services, sessions),
        *sign_in.routes(services, viewers, guard),
        *inbox.routes(services, viewers, hub),
        *web_chat.routes(services, viewers, hub),
        *workspace.routes(services, viewers),
        *webhooks.routes(services, viewers),
        *channels.routes(services, viewers),
        *contacts.routes(services, viewers),
        *knowledge.routes(services, viewers),
        *tickets.routes(services, viewers),
        *operations.routes(services, viewers),
        *agents.routes(services, viewers),
        Mount(
            APP_PREFIX + "/static", StaticFiles(packages=[("engage_http.dashboard", "static")]), name="dashboard_static"
        ),
    ]
