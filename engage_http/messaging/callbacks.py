"""The hosted messaging provider's callbacks: `POST /api/v1/channels/provider/callbacks`.

One URL for the whole deployment (each callback names the provider account, and the inbox finds the
workspace that owns it), served only when the hosted gateway is configured. It takes no API key: the
provider authenticates with the shared secret header it was registered with, which the adapter's
`CallbackReader` checks (`engage_connectors.hosted_gateway`). engage_http knows the reader only by
this protocol, so the route stays free of the adapter.

Answers: 200 when the callback changed something (a message stored, a receipt or a status applied);
202 when it was well-formed but nothing acts on it (an event we do not handle, an account no
workspace owns, a sender the channel cannot match): a 2xx either way, so
the provider stops retrying; 401 for a wrong or missing secret; 400 for a body that is not a
callback; 413 above the size limit.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Protocol

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from engage_core.kernel.errors import ValidationFailed
from engage_core.messaging.gateway import InboundMessage, Receipt, StatusChange
from engage_core.messaging.inbox_service import ChannelInbox
from engage_http import cors, envelope
from engage_http.routing import API_PREFIX, in_worker_thread, read_body

logger = logging.getLogger("engage.http.channel_callbacks")

CALLBACK_PATH = "/channels/provider/callbacks"
MAX_CALLBACK_BYTES = 1024 * 1024

ProviderEvent = InboundMessage | Receipt | StatusChange


class CallbackReader(Protocol):
    """Authenticates one provider callback and translates it into the domain's values."""

    def read(self, headers: Sequence[tuple[str, str]], body: bytes) -> ProviderEvent | None:
        """The event the callback reports; None for a well-formed callback nothing acts on. Raises
        `Unauthenticated` when the shared secret is missing or wrong, and another `EngageError`
        (answered 400) when the body is not a callback."""


def apply(inbox: ChannelInbox, event: ProviderEvent | None) -> bool:
    """Hand `event` to the inbox; whether it changed anything."""
    if event is None:
        return False
    try:
        if isinstance(event, InboundMessage):
            return inbox.receive(event) is not None
        if isinstance(event, Receipt):
            return inbox.receipt(event) is not None
        return inbox.status_changed(event) is not None
    except ValidationFailed as exc:
        # Retrying cannot fix it (a sender the channel cannot address, say): acknowledge and log.
        logger.warning("Provider callback for account %s not applied: %s", event.provider_account_id, exc.message)
        return False


def callback_route(reader: CallbackReader, inbox: ChannelInbox) -> Route:
    """The callback route, mounted under `/api/v1`."""

    def handle(headers: Sequence[tuple[str, str]], body: bytes) -> bool:
        return apply(inbox, reader.read(headers, body))

    async def endpoint(request: Request) -> Response:
        body = await read_body(request, MAX_CALLBACK_BYTES)
        applied = await in_worker_thread(handle, request.headers.items(), body)
        if applied:
            return envelope.success({"outcome": "applied"}, message="Callback applied.")
        return envelope.success({"outcome": "ignored"}, status=202, message="Callback acknowledged; nothing to do.")

    # Server-to-server: `OPTIONS` is answered, without granting browsers anything.
    return cors.route(API_PREFIX + CALLBACK_PATH, endpoint, methods=["POST"], name="channel_provider_callbacks")
