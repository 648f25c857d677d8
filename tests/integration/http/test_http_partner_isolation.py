"""Cross-partner isolation, generated from the partner route table (`PARTNER_OPERATIONS`).

For every partner operation with an id in its path, partner B naming partner A's client or webhook
answers 404 and changes nothing in the store; the same request by A succeeds. The meta-test fails
when an operation with an id parameter has no scenario.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any

import attrs
import pytest
from http_support import PartnerCaller

from engage_core.partners.partner_service import PartnerWebhookInput
from engage_core.services import Services
from engage_core.testing import InMemoryUnitOfWorkFactory
from engage_http.areas import PARTNER_OPERATIONS
from engage_http.operations import Operation


@attrs.frozen
class PartnerResources:
    """One partner's client and partner webhook."""

    client: int
    webhook: int


@attrs.frozen
class Scenario:
    kind: str
    body: Any = None


SCENARIOS: Mapping[tuple[str, str], Scenario] = {
    ("GET", "/partner/clients/{id:id}"): Scenario("client"),
    ("PATCH", "/partner/clients/{id:id}"): Scenario("client", {"company_name": "Hijacked", "plan": "starter"}),
    ("POST", "/partner/clients/{id:id}/suspend"): Scenario("client", {"reason": "hijack"}),
    ("POST", "/partner/clients/{id:id}/reactivate"): Scenario("client"),
    ("DELETE", "/partner/clients/{id:id}"): Scenario("client"),
    ("GET", "/partner/clients/{id:id}/usage"): Scenario("client"),
    ("POST", "/partner/clients/{id:id}/impersonate"): Scenario("client"),
    ("PUT", "/partner/webhooks/{id:id}"): Scenario("webhook", {"is_active": False}),
    ("DELETE", "/partner/webhooks/{id:id}"): Scenario("webhook"),
}

WITH_IDS = [op for op in PARTNER_OPERATIONS if op.path_params]


def label(operation: Operation) -> str:
    return f"{operation.method} {operation.openapi_path}"


@pytest.fixture
def make_resources(
    services: Services, make_client_workspace: Callable[..., int]
) -> Callable[[PartnerCaller], PartnerResources]:
    def make(partner: PartnerCaller) -> PartnerResources:
        client = make_client_workspace(partner, f"Client of {partner.partner_id}")
        webhook = services.partners.create_webhook(
            partner.partner_id, PartnerWebhookInput("Hook", "https://example.com/hook")
        ).subscription
        return PartnerResources(client=client, webhook=webhook.id)

    return make


def prepare(operation: Operation, services: Services, owner: PartnerCaller, target: PartnerResources) -> None:
    """Put the target in a state where the request is valid for its owner (reactivate needs a suspended client)."""
    if operation.path.endswith("/reactivate"):
        services.partner_clients.suspend(owner.partner_id, target.client)


def request_for(operation: Operation, target: PartnerResources) -> tuple[str, dict[str, Any]]:
    scenario = SCENARIOS[(operation.method, operation.path)]
    path = operation.openapi_path.format(id=getattr(target, scenario.kind))
    return path, ({} if scenario.body is None else {"json": scenario.body})


def test_every_partner_operation_with_an_id_has_a_scenario() -> None:
    """A new partner route with an id parameter must say how to test its isolation."""
    assert {(op.method, op.path) for op in WITH_IDS} == set(SCENARIOS)


@pytest.mark.parametrize("operation", WITH_IDS, ids=label)
def test_another_partners_resource_is_404_and_untouched(
    operation: Operation,
    make_partner: Callable[..., PartnerCaller],
    make_resources: Callable[[PartnerCaller], PartnerResources],
    services: Services,
    uow: InMemoryUnitOfWorkFactory,
) -> None:
    """Partner B's key on partner A's client or webhook answers 404 and changes nothing."""
    owner, intruder = make_partner("Owner"), make_partner("Intruder")
    theirs = make_resources(owner)
    make_resources(intruder)
    prepare(operation, services, owner, theirs)
    path, kwargs = request_for(operation, theirs)
    before = copy.deepcopy(uow.store.state)

    response = intruder.api.request(operation.method, path, **kwargs)

    assert response.status_code == 404, response.text
    assert uow.store.state == before


@pytest.mark.parametrize("operation", WITH_IDS, ids=label)
def test_the_same_request_succeeds_for_the_owner(
    operation: Operation,
    make_partner: Callable[..., PartnerCaller],
    make_resources: Callable[[PartnerCaller], PartnerResources],
    services: Services,
) -> None:
    """Each scenario is a valid request for the owner, so the intruder's 404 is isolation alone."""
    owner = make_partner("Owner")
    mine = make_resources(owner)
    prepare(operation, services, owner, mine)
    path, kwargs = request_for(operation, mine)

    response = owner.api.request(operation.method, path, **kwargs)

    assert 200 <= response.status_code < 300, response.text


def test_another_partners_clients_are_not_listed(
    make_partner: Callable[..., PartnerCaller], make_resources: Callable[[PartnerCaller], PartnerResources]
) -> None:
    """`GET /partner/clients`, `/partner/usage` and `/partner/webhooks` show only the caller's own."""
    owner, intruder = make_partner("Owner"), make_partner("Intruder")
    make_resources(owner)

    clients = intruder.api.get("/partner/clients").json()["data"]
    usage = intruder.api.get("/partner/usage").json()["data"]["clients"]
    webhooks = intruder.api.get("/partner/webhooks").json()["data"]

    assert (clients, usage, webhooks) == ([], [], [])
