"""Partner clients (SPEC 3 Partner client, SPEC 4 Partner API): provision, list, read, change,
suspend, reactivate and delete client workspaces, their usage, and impersonation.

Every lookup names the calling partner: another partner's client is 404, like an absent one.
"""

from __future__ import annotations

from engage_core.kernel.pagination import Page
from engage_core.partners.client_service import ClientInput, ClientPatch, ImpersonationLink
from engage_core.partners.model import CLIENTS, USAGE, Client, ClientFilter
from engage_core.services import Services
from engage_http.operations import AuthScheme, Call, Operation, Shape, WithPage
from engage_http.partners.schemas import (
    ClientCreate,
    ClientDetail,
    ClientFilters,
    ClientStatusChange,
    ClientSummary,
    ClientUpdate,
    ClientUsageReport,
    CreatedClient,
    Impersonation,
    PartnerUsage,
    PeriodQuery,
    SuspendRequest,
)

TAG = "Partner clients"
PARTNER = AuthScheme.PARTNER


def _detail(services: Services, client: Client) -> ClientDetail:
    usage = services.partner_clients.usage(client.partner_id, client.id).usage
    return ClientDetail.from_domain(client, usage, services.partner_clients.now())


def index(call: Call[None, ClientFilter]) -> Page[ClientSummary]:
    assert call.page is not None
    clients = call.services.partner_clients
    found = clients.find(call.partner_id, call.query, call.page)
    now = clients.now()
    return found.map(lambda c: ClientSummary.from_domain(c, clients.usage(call.partner_id, c.id).usage, now))


def store(call: Call[ClientInput, None]) -> CreatedClient:
    clients = call.services.partner_clients
    return CreatedClient.from_domain(clients.create(call.partner_id, call.body), clients.now())


def show(call: Call[None, None]) -> ClientDetail:
    return _detail(call.services, call.services.partner_clients.get(call.partner_id, call.path["id"]))


def update(call: Call[ClientPatch, None]) -> ClientDetail:
    changed = call.services.partner_clients.update(call.partner_id, call.path["id"], call.body)
    return _detail(call.services, changed)


def suspend(call: Call[SuspendRequest, None]) -> Client:
    return call.services.partner_clients.suspend(call.partner_id, call.path["id"], call.body.reason)


def reactivate(call: Call[None, None]) -> Client:
    return call.services.partner_clients.reactivate(call.partner_id, call.path["id"])


def destroy(call: Call[None, None]) -> None:
    call.services.partner_clients.delete(call.partner_id, call.path["id"])


def usage(call: Call[None, PeriodQuery]) -> ClientUsageReport:
    report = call.services.partner_clients.usage(call.partner_id, call.path["id"], call.query.period)
    return ClientUsageReport.from_domain(report)


def usage_summary(call: Call[None, PeriodQuery]) -> WithPage:
    assert call.page is not None
    summary = call.services.partner_clients.usage_summary(call.partner_id, call.query.period, call.page)
    return WithPage(PartnerUsage.from_domain(summary), summary.clients)


def impersonate(call: Call[None, None]) -> ImpersonationLink:
    return call.services.partner_clients.impersonate(call.partner_id, call.path["id"])


OPERATIONS: tuple[Operation, ...] = (
    Operation(
        "GET",
        "/partner/clients",
        index,
        "List client workspaces",
        TAG,
        ClientSummary,
        Shape.PAGE,
        query=ClientFilters,
        page=CLIENTS,
        auth=PARTNER,
        description="Newest first. `usage` counts contacts, this month's sent messages and team members.",
    ),
    Operation(
        "POST",
        "/partner/clients",
        store,
        "Create a client workspace",
        TAG,
        CreatedClient,
        status=201,
        message="Client created.",
        body=ClientCreate,
        errors=frozenset({409, 422}),
        auth=PARTNER,
        description="Creates the workspace, its admin team member and, unless `skip_invite`, e-mails the admin an "
        "invitation. 403 (`client_seats_exhausted`) when every client seat of the partner is in use; 409 when "
        "another client's admin has the e-mail address; 422 also for a timezone that is not an IANA name.",
    ),
    Operation("GET", "/partner/clients/{id:id}", show, "Get a client workspace", TAG, ClientDetail, auth=PARTNER),
    Operation(
        "PATCH",
        "/partner/clients/{id:id}",
        update,
        "Update a client workspace",
        TAG,
        ClientDetail,
        message="Client updated.",
        body=ClientUpdate,
        errors=frozenset({422}),
        auth=PARTNER,
        description="A `plan` change applies at once with `immediate`; otherwise at the next billing-cycle "
        "boundary (monthly from the client's creation), shown as `pending_plan` and `pending_plan_from` until then. "
        "422 also for a timezone that is not an IANA name.",
    ),
    Operation(
        "POST",
        "/partner/clients/{id:id}/suspend",
        suspend,
        "Suspend a client workspace",
        TAG,
        ClientStatusChange,
        message="Client suspended.",
        body=SuspendRequest,
        body_optional=True,
        errors=frozenset({409}),
        auth=PARTNER,
        description="Every API call with the workspace's key and every sign-in is then refused (403); its data is "
        "kept. 409 unless the client is active.",
    ),
    Operation(
        "POST",
        "/partner/clients/{id:id}/reactivate",
        reactivate,
        "Reactivate a client workspace",
        TAG,
        ClientStatusChange,
        message="Client reactivated.",
        errors=frozenset({409}),
        auth=PARTNER,
        description="409 unless the client is suspended.",
    ),
    Operation(
        "DELETE",
        "/partner/clients/{id:id}",
        destroy,
        "Delete a client workspace",
        TAG,
        shape=Shape.NOTHING,
        status=204,
        auth=PARTNER,
        description="Removes the workspace and every record of it, permanently.",
    ),
    Operation(
        "GET",
        "/partner/clients/{id:id}/usage",
        usage,
        "Get a client's usage",
        TAG,
        ClientUsageReport,
        query=PeriodQuery,
        auth=PARTNER,
        description="Counted from the workspace's records for a calendar month (UTC); totals are as they stand now.",
    ),
    Operation(
        "POST",
        "/partner/clients/{id:id}/impersonate",
        impersonate,
        "Open a client's dashboard",
        TAG,
        Impersonation,
        auth=PARTNER,
        description="A login link to the client's dashboard: it works once, within five minutes. 403 while the "
        "client is suspended.",
    ),
    Operation(
        "GET",
        "/partner/usage",
        usage_summary,
        "Get the usage of every client",
        TAG,
        PartnerUsage,
        Shape.ONE_WITH_PAGE,
        query=PeriodQuery,
        page=USAGE,
        auth=PARTNER,
        description="Totals over every client, and one page of clients by ascending id (`meta` describes it).",
    ),
)
