"""The partner's own webhook subscriptions (SPEC 6, Partner events): `partner.client.*` events,
delivered by the same outbox and worker as workspace events and signed in `X-Service-Signature`.

SPEC leaves the endpoint's management to the implementation; it mirrors `/webhooks`, with the
secret shown once, in the answer to create.
"""

from __future__ import annotations

from collections.abc import Sequence

from engage_core.kernel.events import PARTNER_CATALOGUE
from engage_core.partners.partner_service import PartnerWebhookInput, PartnerWebhookPatch
from engage_http.operations import AuthScheme, Call, Operation, Shape
from engage_http.partners.webhook_schemas import PartnerWebhookCreate, PartnerWebhookUpdate
from engage_http.webhooks.schemas import Webhook, WebhookWithSecret

TAG = "Partner webhooks"
PARTNER = AuthScheme.PARTNER


def events(call: Call[None, None]) -> Sequence[str]:
    return PARTNER_CATALOGUE


def index(call: Call[None, None]) -> Sequence[Webhook]:
    return [Webhook.from_domain(s) for s in call.services.partners.webhooks(call.partner_id)]


def store(call: Call[PartnerWebhookInput, None]) -> WebhookWithSecret:
    return WebhookWithSecret.from_revealed(call.services.partners.create_webhook(call.partner_id, call.body))


def update(call: Call[PartnerWebhookPatch, None]) -> Webhook:
    changed = call.services.partners.update_webhook(call.partner_id, call.path["id"], call.body)
    return Webhook.from_domain(changed)


def destroy(call: Call[None, None]) -> None:
    call.services.partners.delete_webhook(call.partner_id, call.path["id"])


OPERATIONS: tuple[Operation, ...] = (
    Operation(
        "GET", "/partner/webhooks/events", events, "List the partner event names", TAG, str, Shape.MANY, auth=PARTNER
    ),
    Operation(
        "GET", "/partner/webhooks", index, "List partner webhook subscriptions", TAG, Webhook, Shape.MANY, auth=PARTNER
    ),
    Operation(
        "POST",
        "/partner/webhooks",
        store,
        "Create a partner webhook subscription",
        TAG,
        WebhookWithSecret,
        status=201,
        message="Webhook created. Store the secret now: it is not shown again.",
        body=PartnerWebhookCreate,
        auth=PARTNER,
        description="Only `https://` targets that are not internal addresses. Deliveries carry the envelope "
        "`event`, `timestamp` (ISO 8601), `partner_id`, `data`, signed with the secret in `X-Service-Signature` "
        "(`sha256=<hex HMAC-SHA256 of the body>`).",
    ),
    Operation(
        "PUT",
        "/partner/webhooks/{id:id}",
        update,
        "Update a partner webhook subscription",
        TAG,
        Webhook,
        message="Webhook updated.",
        body=PartnerWebhookUpdate,
        auth=PARTNER,
    ),
    Operation(
        "DELETE",
        "/partner/webhooks/{id:id}",
        destroy,
        "Delete a partner webhook subscription",
        TAG,
        shape=Shape.NOTHING,
        status=204,
        auth=PARTNER,
    ),
)
