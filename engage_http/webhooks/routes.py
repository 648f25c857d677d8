"""Webhook management (SPEC 4, 6): subscriptions, their secrets, test deliveries and the delivery log.

The secret is in the responses of create and regenerate-secret only. Redelivery of a failed delivery
is an addition to the SPEC.
"""

from __future__ import annotations

from collections.abc import Sequence

from engage_core.kernel.pagination import Page, PageLimits
from engage_core.webhooks import model as domain
from engage_core.webhooks.service import WebhookInput, WebhookPatch, WebhookService
from engage_http.operations import Call, Operation, Shape, declare
from engage_http.webhooks.schemas import (
    Delivery,
    DeliveryFilters,
    Webhook,
    WebhookCreate,
    WebhookUpdate,
    WebhookWithSecret,
)

TAG = "Webhooks"

DELIVERIES = PageLimits(default=25)
"""`per_page` of the delivery log: 25 by default, at most 100."""


def events(call: Call[None, None]) -> Sequence[str]:
    return WebhookService.event_names()


def index(call: Call[None, None]) -> Sequence[domain.Subscription]:
    return call.services.webhooks.list(call.account_id)


def store(call: Call[WebhookInput, None]) -> WebhookWithSecret:
    return WebhookWithSecret.from_revealed(call.services.webhooks.create(call.account_id, call.body))


def show(call: Call[None, None]) -> domain.Subscription:
    return call.services.webhooks.get(call.account_id, call.path["id"])


def update(call: Call[WebhookPatch, None]) -> domain.Subscription:
    return call.services.webhooks.update(call.account_id, call.path["id"], call.body)


def destroy(call: Call[None, None]) -> None:
    call.services.webhooks.delete(call.account_id, call.path["id"])


def send_test(call: Call[None, None]) -> domain.Attempt:
    return call.services.webhooks.send_test(call.account_id, call.path["id"])


def deliveries(call: Call[None, DeliveryFilters]) -> Page[domain.Attempt]:
    assert call.page is not None
    return call.services.webhooks.deliveries(call.account_id, call.path["id"], call.query.status, call.page)


def regenerate_secret(call: Call[None, None]) -> WebhookWithSecret:
    return WebhookWithSecret.from_revealed(call.services.webhooks.regenerate_secret(call.account_id, call.path["id"]))


def redeliver(call: Call[None, None]) -> domain.Attempt:
    delivery_id = str(call.path["delivery_id"])  # a uuid.UUID from the route convertor, in canonical form
    return call.services.webhooks.redeliver(call.account_id, call.path["id"], delivery_id)


OPERATIONS: tuple[Operation, ...] = declare(
    Operation(
        "GET",
        "/webhooks/events",
        events,
        "List the event names a subscription can receive",
        TAG,
        str,
        Shape.MANY,
        description="Every event of the catalogue, plus `webhook.test` (sent by `POST /webhooks/{id}/test`).",
    ),
    Operation("GET", "/webhooks", index, "List webhook subscriptions", TAG, Webhook, Shape.MANY),
    Operation(
        "POST",
        "/webhooks",
        store,
        "Create a webhook subscription",
        TAG,
        WebhookWithSecret,
        status=201,
        message="Webhook created. Store the secret now: it is not shown again.",
        body=WebhookCreate,
        description="Only `https://` targets are accepted, and none that is or resolves to an internal address. "
        "The response holds the 64-character signing secret; no later response shows it.",
    ),
    Operation("GET", "/webhooks/{id:id}", show, "Get a webhook subscription", TAG, Webhook),
    Operation(
        "PUT",
        "/webhooks/{id:id}",
        update,
        "Update a webhook subscription",
        TAG,
        Webhook,
        message="Webhook updated.",
        body=WebhookUpdate,
        description="Any subset of the fields. While `is_active` is false, no event is queued for it.",
    ),
    Operation(
        "DELETE",
        "/webhooks/{id:id}",
        destroy,
        "Delete a webhook subscription",
        TAG,
        shape=Shape.NOTHING,
        status=204,
        description="Its delivery log and pending attempts go with it.",
    ),
    Operation(
        "POST",
        "/webhooks/{id:id}/test",
        send_test,
        "Send a test delivery",
        TAG,
        Delivery,
        status=202,
        message="Test delivery queued.",
        description="Queues a `webhook.test` delivery (data: `message`, `webhook_id`, `webhook_name`), whatever "
        "events the subscription filters on. The response is the queued attempt.",
    ),
    Operation(
        "GET",
        "/webhooks/{id:id}/deliveries",
        deliveries,
        "List the delivery log",
        TAG,
        Delivery,
        Shape.PAGE,
        query=DeliveryFilters,
        page=DELIVERIES,
        description="One item per attempt, newest first.",
    ),
    Operation(
        "POST",
        "/webhooks/{id:id}/regenerate-secret",
        regenerate_secret,
        "Regenerate the signing secret",
        TAG,
        WebhookWithSecret,
        message="Secret regenerated. Store it now: it is not shown again.",
        description="The old secret stops signing at once: attempts sent from now on use the new one.",
    ),
    Operation(
        "POST",
        "/webhooks/{id:id}/deliveries/{delivery_id:uuid}/redeliver",
        redeliver,
        "Redeliver a failed delivery",
        TAG,
        Delivery,
        status=202,
        message="Redelivery queued.",
        errors=frozenset({422}),
        description="Queues one more attempt of a delivery whose last attempt failed, with the same "
        "`delivery_id`; it is not retried automatically if it fails. 422 when the delivery has not failed.",
    ),
    feature="webhooks",
)
