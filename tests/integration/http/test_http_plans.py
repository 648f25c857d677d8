"""Plans over HTTP: features gate the workspace API, limits refuse the write that would pass them,
and a suspended workspace's key is refused (403 with a machine-readable `code` each)."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

import pytest
from http_support import Api, PartnerCaller, Tenant
from starlette.testclient import TestClient

from engage_core.messaging.sandbox import SandboxGateway
from engage_core.plans.model import FEATURES
from engage_core.plans.plan_service import PlanPatch
from engage_core.services import Services
from engage_core.testing import FakeClock, FakeMailer, FakePasswordHasher, FakeSender, InMemoryUnitOfWorkFactory
from engage_core.unit_of_work import PartnerUnitOfWork
from engage_core.webhooks.delivery import NOT_IN_PLAN
from engage_http import create_app
from engage_http.areas import OPERATIONS
from engage_http.openapi import build_document
from engage_http.operations import PATH_PARAM, Operation
from engage_http.routing import API_PREFIX

ClientApi = Callable[..., Api]


@pytest.fixture
def client_api(
    make_partner: Callable[..., PartnerCaller],
    make_client_workspace: Callable[..., int],
    services_rotate: Callable[[int], str],
    client_for: Callable[[Tenant], Api],
) -> ClientApi:
    """`client_api(plan="pro") -> Api` of a new client workspace on `plan`, with a fresh key."""
    partner = make_partner()

    def make(plan: str = "pro") -> Api:
        account_id = make_client_workspace(partner, plan=plan)
        return client_for(Tenant(account_id, services_rotate(account_id)))

    return make


GATED_AREAS = {
    "Webhooks": "webhooks",
    "Bookings": "booking",
    "Booking setup": "booking",
    "AI agents": "ai_agents",
    "Chat completions": "ai_agents",
    "Campaigns": "campaigns",
}
"""The areas (operation tags) a plan feature gates as a whole."""

SINGLY_GATED = {("POST", "/voice/clone"): "voice_cloning_enabled"}
"""Single operations a plan feature gates in an area open to every plan."""


@pytest.mark.parametrize(("feature", "area"), sorted({(f, tag) for tag, f in GATED_AREAS.items()}))
def test_every_operation_of_a_gated_area_declares_its_feature(feature: str, area: str) -> None:
    """Each operation tagged with a gated area needs that area's feature."""
    operations = [op for op in OPERATIONS if op.tag == area]

    assert operations and {op.feature for op in operations} == {feature}


def test_every_declared_feature_is_a_plan_feature() -> None:
    """No operation names a feature plans do not have."""
    assert {op.feature for op in OPERATIONS if op.feature is not None} <= set(FEATURES)


def test_no_operation_outside_the_gated_areas_needs_a_feature() -> None:
    """Only the gated areas' operations, and the single gated operations, declare a feature."""
    single = {op.tag for op in OPERATIONS if op.feature is not None and (op.method, op.path) not in SINGLY_GATED}
    assert single == set(GATED_AREAS)


def test_each_gated_operation_declares_its_feature() -> None:
    """A single gated operation needs its feature."""
    declared = {(op.method, op.path): op.feature for op in OPERATIONS if (op.method, op.path) in SINGLY_GATED}
    assert declared == SINGLY_GATED


def test_the_document_shows_the_feature_of_each_gated_operation() -> None:
    """OpenAPI has `x-plan-feature` exactly on the operations that need a feature."""
    document = build_document(OPERATIONS, prefix=API_PREFIX)

    documented = {
        (method.upper(), path[len(API_PREFIX) :], spec.get("x-plan-feature"))
        for path, methods in document["paths"].items()
        for method, spec in methods.items()
    }
    assert documented == {(op.method, op.openapi_path, op.feature) for op in OPERATIONS}


KEPT_WITHOUT_FEATURE = frozenset({"GET", "HEAD", "DELETE"})
"""What a workspace may still do with a feature's resources once its plan lacks the feature: read
them and delete them. Creates, updates and actions are refused."""
GATED_OPERATIONS = [op for op in OPERATIONS if op.feature is not None]


def _concrete(path: str) -> str:
    """`/webhooks/{id:id}/deliveries/{delivery_id:uuid}` with made-up values for its parameters."""
    return PATH_PARAM.sub(lambda m: str(uuid.UUID(int=1)) if m.group(2) == "uuid" else "1", path)


@pytest.mark.parametrize("op", GATED_OPERATIONS, ids=lambda op: f"{op.method} {op.path}")
def test_without_the_feature_reads_and_deletes_pass_the_gate_and_writes_do_not(
    op: Operation, api: Api, services: Services
) -> None:
    """With the operation's feature switched off, GET and DELETE are not refused for it; every write is."""
    assert op.feature is not None
    services.plans.update("business", PlanPatch(features={op.feature: False}))

    response = api.request(op.method, _concrete(op.path), json={})

    body = response.json()
    code = body.get("code") or body.get("error", {}).get("code")  # OpenAI's operations have OpenAI's errors
    refused = response.status_code == 403 and code == "feature_not_in_plan"
    assert refused == (op.method not in KEPT_WITHOUT_FEATURE)


def test_the_document_says_which_gated_operations_stay_allowed_without_their_feature() -> None:
    """OpenAPI's `x-plan-feature-required` is false exactly on the gated reads and deletes."""
    document = build_document(OPERATIONS, prefix=API_PREFIX)

    required = {
        (method.upper(), path[len(API_PREFIX) :], spec["x-plan-feature-required"])
        for path, methods in document["paths"].items()
        for method, spec in methods.items()
        if "x-plan-feature" in spec
    }
    assert required == {(op.method, op.openapi_path, op.method not in KEPT_WITHOUT_FEATURE) for op in GATED_OPERATIONS}


@pytest.fixture
def downgraded(
    make_partner: Callable[..., PartnerCaller],
    make_client_workspace: Callable[..., int],
    services_rotate: Callable[[int], str],
    client_for: Callable[[Tenant], Api],
) -> tuple[Api, int]:
    """A pro client's API and the id of the webhook it made, after its partner moved it to starter at once."""
    partner = make_partner()
    account_id = make_client_workspace(partner, plan="pro")
    api = client_for(Tenant(account_id, services_rotate(account_id)))
    webhook = api.post("/webhooks", json={"name": "CRM", "url": "https://crm.example/hooks"}).json()["data"]["id"]
    moved = partner.api.request("PATCH", f"/partner/clients/{account_id}", json={"plan": "starter", "immediate": True})
    assert moved.status_code == 200
    return api, webhook


def test_a_downgraded_client_still_lists_its_webhooks(downgraded: tuple[Api, int]) -> None:
    """After the move to starter, `GET /webhooks` shows the webhook the client made on pro."""
    api, webhook = downgraded

    response = api.get("/webhooks")

    assert (response.status_code, [w["id"] for w in response.json()["data"]]) == (200, [webhook])


def test_a_downgraded_client_can_delete_its_webhook(downgraded: tuple[Api, int]) -> None:
    """After the move to starter, `DELETE /webhooks/{id}` removes it."""
    api, webhook = downgraded

    response = api.request("DELETE", f"/webhooks/{webhook}")

    assert (response.status_code, api.get("/webhooks").json()["data"]) == (204, [])


def test_a_downgraded_client_cannot_create_a_webhook(downgraded: tuple[Api, int]) -> None:
    """After the move to starter, a new webhook is 403 `feature_not_in_plan`."""
    api, _ = downgraded

    response = api.post("/webhooks", json={"name": "New", "url": "https://crm.example/new"})

    assert (response.status_code, response.json()["code"]) == (403, "feature_not_in_plan")


def test_a_downgraded_client_gets_no_deliveries(
    downgraded: tuple[Api, int], deliver_due: Callable[..., FakeSender]
) -> None:
    """After the move to starter, a new contact's `contact.created` is not sent; its log says why."""
    api, webhook = downgraded
    api.post("/contacts", json={"name": "Ada", "type": "instagram"})

    sender = deliver_due()

    log = api.get(f"/webhooks/{webhook}/deliveries").json()["data"]
    assert (sender.sent, [(d["status"], d["error"]) for d in log]) == ([], [("failed", NOT_IN_PLAN)])


def test_a_plan_without_the_feature_is_403_feature_not_in_plan(client_api: ClientApi) -> None:
    """A starter workspace (no `webhooks`) is refused a webhook write with the code."""
    response = client_api("starter").post("/webhooks", json={"name": "CRM", "url": "https://crm.example/hooks"})

    assert (response.status_code, response.json()["code"]) == (403, "feature_not_in_plan")


def test_a_plan_with_the_feature_is_served(client_api: ClientApi) -> None:
    """A pro workspace (with `webhooks`) lists its webhooks."""
    assert client_api("pro").get("/webhooks").status_code == 200


def test_ungated_routes_serve_every_plan(client_api: ClientApi) -> None:
    """A starter workspace still reaches the areas no feature gates."""
    assert client_api("starter").get("/contacts").status_code == 200


def test_linkedin_without_the_feature_is_linkedin_upgrade_required(client_api: ClientApi) -> None:
    """Pro has no `linkedin_access`: connecting LinkedIn is 403 `linkedin_upgrade_required`."""
    response = client_api("pro").post("/channels/linkedin/connect", json={"username": "ada", "password": "secret"})

    assert (response.status_code, response.json()["code"]) == (403, "linkedin_upgrade_required")


def test_a_plan_without_api_access_is_refused_everywhere(api: Api, services: Services) -> None:
    """Without `api_access` every workspace route is 403 `feature_not_in_plan`."""
    services.plans.update("business", PlanPatch(features={"api_access": False}))

    response = api.get("/contacts")

    assert (response.status_code, response.json()["code"]) == (403, "feature_not_in_plan")


def test_a_write_past_a_limit_is_403_naming_the_limit(api: Api, services: Services) -> None:
    """A contact past the plan's `contacts` limit is 403 `plan_limit_reached`, its message naming it."""
    services.plans.update("business", PlanPatch(limits={"contacts": 0}))

    response = api.post("/contacts", json={"name": "Ada", "type": "instagram"})

    assert (response.status_code, response.json()["code"], "contacts" in response.json()["message"]) == (
        403,
        "plan_limit_reached",
        True,
    )


def test_a_write_refused_at_the_limit_stores_nothing(api: Api, services: Services) -> None:
    """After the refusal the workspace has no contacts."""
    services.plans.update("business", PlanPatch(limits={"contacts": 0}))

    api.post("/contacts", json={"name": "Ada", "type": "instagram"})

    assert api.get("/contacts").json()["data"] == []


def test_a_suspended_workspace_key_is_403_workspace_suspended(
    make_partner: Callable[..., PartnerCaller],
    make_client_workspace: Callable[..., int],
    services_rotate: Callable[[int], str],
    client_for: Callable[[Tenant], Api],
    services: Services,
) -> None:
    """While its client is suspended, a workspace's valid key is refused with `workspace_suspended`."""
    partner = make_partner()
    account_id = make_client_workspace(partner)
    api = client_for(Tenant(account_id, services_rotate(account_id)))
    services.partner_clients.suspend(partner.partner_id, account_id, "Unpaid")

    response = api.get("/contacts")

    assert (response.status_code, response.json()["code"]) == (403, "workspace_suspended")


def test_a_reactivated_workspace_key_works_again(
    make_partner: Callable[..., PartnerCaller],
    make_client_workspace: Callable[..., int],
    services_rotate: Callable[[int], str],
    client_for: Callable[[Tenant], Api],
    services: Services,
) -> None:
    """Reactivating the client lets the same key in again."""
    partner = make_partner()
    account_id = make_client_workspace(partner)
    api = client_for(Tenant(account_id, services_rotate(account_id)))
    services.partner_clients.suspend(partner.partner_id, account_id, "Unpaid")
    services.partner_clients.reactivate(partner.partner_id, account_id)

    assert api.get("/contacts").status_code == 200


class _CountingPlanReads(InMemoryUnitOfWorkFactory):
    """Counts the read-only partners' units of work opened: where the plan in force is read."""

    def __init__(self) -> None:
        super().__init__()
        self.plan_reads = 0

    def partners(self, *, readonly: bool = False) -> PartnerUnitOfWork:
        self.plan_reads += readonly
        return super().partners(readonly=readonly)


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/contacts", {"name": "Ada", "type": "instagram"}),
        ("/team", {"name": "Ada", "email": "ada@example.com", "role": "agent", "password": "correct horse"}),
        ("/channels/whatsapp/connect", None),
    ],
)
def test_a_limited_write_runs_on_the_plan_admitted_with_its_key(path: str, body: dict[str, Any] | None) -> None:
    """The services a request calls take the plan read with its key: no second read of it."""
    uow = _CountingPlanReads()
    clock = FakeClock()
    services = Services.build(
        uow, clock, hasher=FakePasswordHasher(), mailer=FakeMailer(), gateway=SandboxGateway(clock)
    )
    key = services.accounts.create("Acme").api_key
    client = TestClient(create_app(services))
    reads = uow.plan_reads

    response = client.post(API_PREFIX + path, json=body, headers={"X-Api-Key": key})

    assert (response.status_code, uow.plan_reads) == (201 if body else 200, reads)
