"""Webhook management over HTTP (SPEC 4, 6): subscriptions, secrets, test deliveries, the delivery log."""

from __future__ import annotations

import hashlib
import hmac
import json
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from http_support import Api, Tenant
from starlette.testclient import TestClient

from engage_core.services import Services
from engage_core.testing import FakeCipher, FakeClock, FakeSender, InMemoryUnitOfWorkFactory
from engage_core.webhooks.fakes import WebhooksTables
from engage_core.webhooks.model import Attempt
from engage_core.webhooks.service import RevealedSecret, WebhookService
from engage_http import create_app
from engage_http.areas import OPERATIONS
from engage_http.operations import Operation

SUBSCRIPTION_FIELDS = {"id", "name", "url", "events", "is_active", "created_at", "updated_at"}
DELIVERY_FIELDS = {
    "id",
    "event_type",
    "delivery_id",
    "attempt_number",
    "response_status_code",
    "response_body",
    "status",
    "created_at",
    "error",
    "due_at",
    "completed_at",
}
URL = "https://hooks.example.com/engage"

MakeWebhook = Callable[..., RevealedSecret]
MakeFailed = Callable[[Tenant, int], Attempt]


def create(api: Api, **fields: Any) -> dict[str, Any]:
    """POST /webhooks with a valid body plus `fields`; the created subscription (with its secret)."""
    response = api.post("/webhooks", json={"name": "Orders", "url": URL, **fields})
    assert response.status_code == 201, response.text
    data: dict[str, Any] = response.json()["data"]
    return data


def errors_of(response: Any) -> dict[str, list[str]]:
    assert response.status_code == 422, response.text
    errors: dict[str, list[str]] = response.json()["errors"]
    return errors


# -- events -------------------------------------------------------------------------------------------


def test_events_lists_every_event_name(api: Api) -> None:
    """`GET /webhooks/events` lists the whole catalogue plus `webhook.test`."""
    response = api.get("/webhooks/events")

    assert response.status_code == 200
    assert response.json()["data"] == WebhookService.event_names()
    assert {"contact.created", "order.delivered", "webhook.test"} <= set(response.json()["data"])


def test_events_is_not_taken_for_a_webhook_id(api: Api, tenant: Tenant, make_webhook: MakeWebhook) -> None:
    """With subscriptions stored, `/webhooks/events` still answers the catalogue (ids are digits only)."""
    make_webhook(tenant)

    assert api.get("/webhooks/events").json()["data"] == WebhookService.event_names()


# -- create -------------------------------------------------------------------------------------------


def test_create_answers_201_with_the_subscription_and_its_secret(api: Api) -> None:
    """A created subscription is returned with a 64-character secret and a message."""
    response = api.post("/webhooks", json={"name": "Orders", "url": URL, "events": ["order.created"]})

    assert response.status_code == 201
    body = response.json()
    assert body["success"] is True
    assert "secret" in body["message"]
    assert set(body["data"]) == SUBSCRIPTION_FIELDS | {"secret"}
    assert len(body["data"]["secret"]) == 64
    assert body["data"]["name"] == "Orders"
    assert body["data"]["url"] == URL
    assert body["data"]["events"] == ["order.created"]
    assert body["data"]["is_active"] is True


def test_create_defaults_to_every_event_and_active(api: Api) -> None:
    """Without `events` and `is_active` a subscription receives every event and is active."""
    data = create(api)

    assert data["events"] == []
    assert data["is_active"] is True


def test_create_can_make_a_disabled_subscription(api: Api) -> None:
    """`is_active: false` creates the subscription disabled."""
    assert create(api, is_active=False)["is_active"] is False


def test_create_stores_the_secret_encrypted(api: Api, uow: InMemoryUnitOfWorkFactory) -> None:
    """The stored secret is the cipher's ciphertext, never the plaintext."""
    data = create(api)

    stored = uow.store.state.of(WebhooksTables).webhook_secrets[data["id"]]
    assert stored != data["secret"]
    assert FakeCipher().decrypt(stored) == data["secret"]


def test_create_refuses_an_http_url(api: Api) -> None:
    """A plain `http://` target is a 422 on `url`."""
    response = api.post("/webhooks", json={"name": "Orders", "url": "http://hooks.example.com/engage"})

    assert list(errors_of(response)) == ["url"]


@pytest.mark.parametrize(
    "url",
    [
        "https://user:pass@hooks.example.com/",
        "https://hooks.example.com:99999/",
        "https:///path-only",
        "https://hooks.example.com/with space",
        "hooks.example.com/engage",
        "https://" + "a" * 2048,
    ],
    ids=["credentials", "port", "no-host", "space", "relative", "too-long"],
)
def test_create_refuses_an_invalid_url(api: Api, url: str) -> None:
    """Credentials, a bad port, no host, unencoded spaces, no scheme or over 2048 characters: 422 on `url`."""
    response = api.post("/webhooks", json={"name": "Orders", "url": url})

    assert list(errors_of(response)) == ["url"]


def test_create_accepts_an_ipv6_literal_port_query_and_fragment(api: Api) -> None:
    """A bracketed IPv6 host with a port, path, query and fragment is a valid target (guard permitting)."""
    url = "https://[2001:4860:4860::8888]:8443/hooks/engage?token=a%20b#frag"

    assert create(api, url=url)["url"] == url


def test_create_names_the_index_of_an_unknown_event(api: Api) -> None:
    """An unknown event name is a 422 keyed by its position: `events.1`."""
    response = api.post("/webhooks", json={"name": "Orders", "url": URL, "events": ["order.created", "nope"]})

    errors = errors_of(response)
    assert list(errors) == ["events.1"]
    assert errors["events.1"] == ["The events.1 must be an event name listed by GET /webhooks/events."]


def test_create_requires_name_and_url(api: Api) -> None:
    """An empty body names both required fields."""
    assert set(errors_of(api.post("/webhooks", json={}))) == {"name", "url"}


def test_create_refuses_a_blank_name(api: Api) -> None:
    """A whitespace-only name is a 422 on `name`."""
    assert list(errors_of(api.post("/webhooks", json={"name": "  ", "url": URL}))) == ["name"]


def test_create_refuses_a_target_the_guard_refuses(tenant_api_with_guard: Callable[[str], Api]) -> None:
    """A target the SSRF guard refuses (an internal address) is a 422 on `url` with the guard's reason."""
    api = tenant_api_with_guard("The address 10.0.0.1 is not allowed as a target.")

    response = api.post("/webhooks", json={"name": "Internal", "url": "https://10.0.0.1/hook"})

    assert errors_of(response) == {"url": ["The address 10.0.0.1 is not allowed as a target."]}


class RefuseAll:
    """A target guard that refuses every URL with one reason."""

    def __init__(self, reason: str) -> None:
        self.reason = reason

    def refusal(self, url: str) -> str | None:
        return self.reason


@pytest.fixture
def tenant_api_with_guard() -> Callable[[str], Api]:
    """`tenant_api_with_guard(reason)`: a client of a new tenant of an app whose guard refuses every target."""

    def make(reason: str) -> Api:
        services = Services.build(
            InMemoryUnitOfWorkFactory(), FakeClock(), cipher=FakeCipher(), guard=RefuseAll(reason)
        )
        issued = services.accounts.create("Guarded")
        return Api(TestClient(create_app(services)), {"X-Api-Key": issued.api_key})

    return make


# -- read ---------------------------------------------------------------------------------------------


def test_list_returns_the_accounts_subscriptions_without_secrets(
    api: Api, tenant: Tenant, make_tenant: Callable[..., Tenant], make_webhook: MakeWebhook
) -> None:
    """`GET /webhooks` lists this account's subscriptions, oldest first, without secrets."""
    first, second = make_webhook(tenant, name="A"), make_webhook(tenant, name="B")
    make_webhook(make_tenant("Other"), name="Theirs")

    data = api.get("/webhooks").json()["data"]

    assert [w["id"] for w in data] == [first.subscription.id, second.subscription.id]
    assert all(set(w) == SUBSCRIPTION_FIELDS for w in data)


def test_show_returns_the_subscription_without_its_secret(api: Api, tenant: Tenant, make_webhook: MakeWebhook) -> None:
    """`GET /webhooks/{id}` returns the subscription's fields and no secret."""
    hook = make_webhook(tenant, events=["contact.created"])

    data = api.get(f"/webhooks/{hook.subscription.id}").json()["data"]

    assert set(data) == SUBSCRIPTION_FIELDS
    assert data["events"] == ["contact.created"]
    assert data["created_at"].endswith("Z")


# -- update and delete ------------------------------------------------------------------------------------


def test_update_changes_only_the_given_fields(
    api: Api, tenant: Tenant, make_webhook: MakeWebhook, clock: FakeClock
) -> None:
    """`PUT` with `is_active` alone disables the subscription and keeps the other fields."""
    hook = make_webhook(tenant, name="Orders", events=["order.created"])
    clock.advance(minutes=1)

    response = api.put(f"/webhooks/{hook.subscription.id}", json={"is_active": False})

    assert response.status_code == 200
    data = response.json()["data"]
    assert data["is_active"] is False
    assert (data["name"], data["url"], data["events"]) == ("Orders", hook.subscription.url, ["order.created"])
    assert data["updated_at"] > data["created_at"]
    assert response.json()["message"] == "Webhook updated."


def test_update_replaces_the_event_list(api: Api, tenant: Tenant, make_webhook: MakeWebhook) -> None:
    """`events` replaces the list; an empty list means every event again."""
    hook = make_webhook(tenant, events=["order.created"])

    data = api.put(f"/webhooks/{hook.subscription.id}", json={"events": []}).json()["data"]

    assert data["events"] == []


def test_update_validates_like_create(api: Api, tenant: Tenant, make_webhook: MakeWebhook) -> None:
    """An http url and an unknown event are refused on update too, and nothing changes."""
    hook = make_webhook(tenant)
    path = f"/webhooks/{hook.subscription.id}"

    response = api.put(path, json={"url": "http://insecure.example.com", "events": ["bogus"]})

    assert set(errors_of(response)) == {"url", "events.0"}
    assert api.get(path).json()["data"]["url"] == hook.subscription.url


def test_delete_answers_204_and_the_subscription_is_gone(api: Api, tenant: Tenant, make_webhook: MakeWebhook) -> None:
    """`DELETE` answers 204 with no body; the subscription then answers 404."""
    hook = make_webhook(tenant)

    response = api.delete(f"/webhooks/{hook.subscription.id}")

    assert response.status_code == 204
    assert response.content == b""
    assert api.get(f"/webhooks/{hook.subscription.id}").status_code == 404


WEBHOOK_ID_OPERATIONS = [op for op in OPERATIONS if op.path.startswith("/webhooks/{id:id}")]


@pytest.mark.parametrize("operation", WEBHOOK_ID_OPERATIONS, ids=lambda op: f"{op.method} {op.openapi_path}")
def test_an_unknown_webhook_id_is_404(operation: Operation, api: Api) -> None:
    """Every operation on a webhook id answers 404 for an id that does not exist."""
    path = operation.openapi_path.format(id=999_999, delivery_id=uuid.uuid4())
    body = {"name": "Valid"} if operation.body is not None else None

    response = api.request(operation.method, path, json=body)

    assert response.status_code == 404
    assert response.json() == {"success": False, "message": "Webhook not found."}


# -- test deliveries and the log --------------------------------------------------------------------


def test_test_endpoint_queues_a_webhook_test_delivery(api: Api, tenant: Tenant, make_webhook: MakeWebhook) -> None:
    """`POST /webhooks/{id}/test` answers 202 with the pending `webhook.test` attempt it queued."""
    hook = make_webhook(tenant)

    response = api.post(f"/webhooks/{hook.subscription.id}/test")

    assert response.status_code == 202
    body = response.json()
    assert body["message"] == "Test delivery queued."
    assert set(body["data"]) == DELIVERY_FIELDS
    assert body["data"]["event_type"] == "webhook.test"
    assert body["data"]["status"] == "pending"
    assert body["data"]["attempt_number"] == 1
    assert uuid.UUID(body["data"]["delivery_id"])
    log = api.get(f"/webhooks/{hook.subscription.id}/deliveries").json()["data"]
    assert [d["delivery_id"] for d in log] == [body["data"]["delivery_id"]]


def test_the_test_delivery_ignores_the_event_filter_and_carries_the_webhook(
    api: Api, tenant: Tenant, make_webhook: MakeWebhook, deliver_due: Callable[..., FakeSender]
) -> None:
    """A subscription to other events still gets the test, whose data names the subscription."""
    hook = make_webhook(tenant, name="Orders only", events=["order.created"])
    api.post(f"/webhooks/{hook.subscription.id}/test")

    [sent] = deliver_due().sent

    envelope = json.loads(sent.body)
    assert envelope["event"] == "webhook.test"
    assert envelope["data"]["webhook_id"] == hook.subscription.id
    assert envelope["data"]["webhook_name"] == "Orders only"


def test_an_event_is_logged_for_an_active_subscription_only(
    api: Api, tenant: Tenant, make_webhook: MakeWebhook
) -> None:
    """Creating a contact queues `contact.created` for the active subscription, nothing for the disabled one."""
    active = make_webhook(tenant, events=["contact.created"])
    disabled = make_webhook(tenant, is_active=False)

    api.post("/contacts", json={"name": "Ada", "type": "instagram"})

    active_log = api.get(f"/webhooks/{active.subscription.id}/deliveries").json()["data"]
    assert [d["event_type"] for d in active_log] == ["contact.created"]
    assert api.get(f"/webhooks/{disabled.subscription.id}/deliveries").json()["data"] == []


def test_deliveries_are_paginated_25_per_page_newest_first(
    api: Api, tenant: Tenant, make_webhook: MakeWebhook, services: Services
) -> None:
    """The log pages by 25 by default, newest first, with pagination meta."""
    hook = make_webhook(tenant)
    queued = [services.webhooks.send_test(tenant.account_id, hook.subscription.id) for _ in range(30)]
    path = f"/webhooks/{hook.subscription.id}/deliveries"

    first, second = api.get(path).json(), api.get(path, params={"page": 2}).json()

    assert first["meta"] == {"current_page": 1, "per_page": 25, "total": 30, "last_page": 2}
    assert [d["id"] for d in first["data"] + second["data"]] == [a.id for a in reversed(queued)]


def test_deliveries_per_page_is_clamped_to_100(api: Api, tenant: Tenant, make_webhook: MakeWebhook) -> None:
    """`per_page` above 100 is clamped to 100."""
    hook = make_webhook(tenant)

    body = api.get(f"/webhooks/{hook.subscription.id}/deliveries", params={"per_page": 500}).json()

    assert body["meta"]["per_page"] == 100


def test_deliveries_filter_by_status(
    api: Api, tenant: Tenant, make_webhook: MakeWebhook, make_failed_delivery: MakeFailed, services: Services
) -> None:
    """`status=failed` lists only failed attempts; `status=pending` only pending ones."""
    hook = make_webhook(tenant)
    failed = make_failed_delivery(tenant, hook.subscription.id)
    pending = services.webhooks.send_test(tenant.account_id, hook.subscription.id)
    path = f"/webhooks/{hook.subscription.id}/deliveries"

    failed_log = api.get(path, params={"status": "failed"}).json()
    pending_log = api.get(path, params={"status": "pending"}).json()

    assert failed_log["meta"]["total"] == 4
    assert {d["delivery_id"] for d in failed_log["data"]} == {failed.delivery_id}
    assert all(d["response_status_code"] == 500 and d["completed_at"] for d in failed_log["data"])
    assert [d["id"] for d in pending_log["data"]] == [pending.id]


def test_a_bad_status_filter_is_422(api: Api, tenant: Tenant, make_webhook: MakeWebhook) -> None:
    """A `status` outside pending, delivered and failed is a 422 on `status`."""
    hook = make_webhook(tenant)

    response = api.get(f"/webhooks/{hook.subscription.id}/deliveries", params={"status": "lost"})

    assert list(errors_of(response)) == ["status"]


def test_a_delivered_attempt_records_the_answer(
    api: Api, tenant: Tenant, make_webhook: MakeWebhook, deliver_due: Callable[..., FakeSender]
) -> None:
    """After a 2xx answer the attempt is `delivered` with the status code, body excerpt and completion time."""
    hook = make_webhook(tenant)
    api.post(f"/webhooks/{hook.subscription.id}/test")
    deliver_due(204)

    [attempt] = api.get(f"/webhooks/{hook.subscription.id}/deliveries").json()["data"]

    assert (attempt["status"], attempt["response_status_code"], attempt["response_body"]) == (
        "delivered",
        204,
        "answer 204",
    )
    assert attempt["error"] is None
    assert attempt["completed_at"].endswith("Z")


# -- secrets ----------------------------------------------------------------------------------------------


def test_regenerate_returns_a_new_secret_that_signs_from_then_on(
    api: Api, tenant: Tenant, make_webhook: MakeWebhook, deliver_due: Callable[..., FakeSender]
) -> None:
    """`regenerate-secret` returns a new 64-character secret; the next delivery is signed with it."""
    hook = make_webhook(tenant)

    response = api.post(f"/webhooks/{hook.subscription.id}/regenerate-secret")
    api.post(f"/webhooks/{hook.subscription.id}/test")
    [sent] = deliver_due().sent

    assert response.status_code == 200
    data = response.json()["data"]
    assert set(data) == SUBSCRIPTION_FIELDS | {"secret"}
    assert len(data["secret"]) == 64
    assert data["secret"] != hook.secret
    expected = "sha256=" + hmac.new(data["secret"].encode(), sent.body, hashlib.sha256).hexdigest()
    assert sent.headers["X-Service-Signature-256"] == expected


def test_the_secret_appears_only_in_create_and_regenerate(
    api: Api, make_failed_delivery: MakeFailed, tenant: Tenant
) -> None:
    """No response but create and regenerate-secret carries a subscription's secret."""
    created = create(api)
    hook_id = created["id"]
    failed = make_failed_delivery(tenant, hook_id)
    regenerated = api.post(f"/webhooks/{hook_id}/regenerate-secret").json()["data"]["secret"]
    others = [
        api.get("/webhooks"),
        api.get(f"/webhooks/{hook_id}"),
        api.put(f"/webhooks/{hook_id}", json={"name": "Renamed"}),
        api.post(f"/webhooks/{hook_id}/test"),
        api.get(f"/webhooks/{hook_id}/deliveries"),
        api.post(f"/webhooks/{hook_id}/deliveries/{failed.delivery_id}/redeliver"),
    ]

    assert all(r.status_code < 300 for r in others)
    for response in others:
        assert "secret" not in response.text
        assert created["secret"] not in response.text
        assert regenerated not in response.text


# -- redelivery -------------------------------------------------------------------------------------------


def test_redeliver_queues_a_new_attempt_of_a_failed_delivery(
    api: Api, tenant: Tenant, make_webhook: MakeWebhook, make_failed_delivery: MakeFailed
) -> None:
    """Redelivering a failed delivery answers 202 with a pending attempt of the same `delivery_id`."""
    hook = make_webhook(tenant)
    failed = make_failed_delivery(tenant, hook.subscription.id)

    response = api.post(f"/webhooks/{hook.subscription.id}/deliveries/{failed.delivery_id}/redeliver")

    assert response.status_code == 202
    data = response.json()["data"]
    assert (data["delivery_id"], data["status"], data["attempt_number"]) == (
        failed.delivery_id,
        "pending",
        failed.attempt_number + 1,
    )
    assert response.json()["message"] == "Redelivery queued."


def test_redeliver_accepts_the_delivery_id_in_upper_case(
    api: Api, tenant: Tenant, make_webhook: MakeWebhook, make_failed_delivery: MakeFailed
) -> None:
    """A delivery id is a UUID: its upper-case spelling names the same delivery."""
    hook = make_webhook(tenant)
    failed = make_failed_delivery(tenant, hook.subscription.id)

    response = api.post(f"/webhooks/{hook.subscription.id}/deliveries/{failed.delivery_id.upper()}/redeliver")

    assert response.status_code == 202
    assert response.json()["data"]["delivery_id"] == failed.delivery_id


def test_redeliver_refuses_a_delivery_that_has_not_failed(
    api: Api, tenant: Tenant, make_webhook: MakeWebhook, services: Services
) -> None:
    """A pending delivery cannot be redelivered: 422 on `delivery_id`, nothing queued."""
    hook = make_webhook(tenant)
    pending = services.webhooks.send_test(tenant.account_id, hook.subscription.id)

    response = api.post(f"/webhooks/{hook.subscription.id}/deliveries/{pending.delivery_id}/redeliver")

    assert list(errors_of(response)) == ["delivery_id"]
    assert api.get(f"/webhooks/{hook.subscription.id}/deliveries").json()["meta"]["total"] == 1


def test_redeliver_of_an_unknown_delivery_is_404(api: Api, tenant: Tenant, make_webhook: MakeWebhook) -> None:
    """A delivery id the subscription never had answers 404."""
    hook = make_webhook(tenant)

    response = api.post(f"/webhooks/{hook.subscription.id}/deliveries/{uuid.uuid4()}/redeliver")

    assert response.status_code == 404
    assert response.json()["message"] == "Delivery not found."


def test_redeliver_through_another_subscription_is_404(
    api: Api, tenant: Tenant, make_webhook: MakeWebhook, make_failed_delivery: MakeFailed
) -> None:
    """A failed delivery of one subscription is not found through another of the same account."""
    first, second = make_webhook(tenant), make_webhook(tenant)
    failed = make_failed_delivery(tenant, first.subscription.id)

    response = api.post(f"/webhooks/{second.subscription.id}/deliveries/{failed.delivery_id}/redeliver")

    assert response.status_code == 404


def test_redeliver_of_another_accounts_delivery_through_my_subscription_is_404(
    client_for: Callable[[Tenant], Api],
    make_tenant: Callable[..., Tenant],
    make_webhook: MakeWebhook,
    make_failed_delivery: MakeFailed,
    uow: InMemoryUnitOfWorkFactory,
) -> None:
    """Naming another account's delivery id under my own subscription answers 404 and queues nothing."""
    owner, intruder = make_tenant("Owner"), make_tenant("Intruder")
    theirs = make_failed_delivery(owner, make_webhook(owner).subscription.id)
    mine = make_webhook(intruder).subscription.id
    attempts_before = len(uow.store.state.of(WebhooksTables).attempts)

    response = client_for(intruder).post(f"/webhooks/{mine}/deliveries/{theirs.delivery_id}/redeliver")

    assert response.status_code == 404
    assert len(uow.store.state.of(WebhooksTables).attempts) == attempts_before


def test_a_malformed_delivery_id_is_404(api: Api, tenant: Tenant, make_webhook: MakeWebhook) -> None:
    """A delivery id that is not a UUID matches no route: 404."""
    hook = make_webhook(tenant)

    assert api.post(f"/webhooks/{hook.subscription.id}/deliveries/not-a-uuid/redeliver").status_code == 404


def test_webhooks_need_an_api_key(anonymous: Api) -> None:
    """Webhook management is authenticated like every other endpoint."""
    assert anonymous.get("/webhooks").status_code == 401
    assert anonymous.get("/webhooks/events").status_code == 401
