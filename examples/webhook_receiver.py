"""A webhook receiver for engage in the standard library: verify, deduplicate, acknowledge.

    ENGAGE_WEBHOOK_SECRET='<secret shown when the webhook was created>' python examples/webhook_receiver.py 8080

For every POST it
1. checks `X-Service-Signature-256` against the raw body bytes with `engage_core.verify_signature`
   (constant-time compare, timestamp within five minutes either way) and answers 401 if it fails;
2. reads the envelope (`event`, `delivery_id`, `timestamp`, `data`) and handles each `delivery_id`
   once: delivery is at least once, so a retry or a redelivery can bring the same one again;
3. answers 204 within the 30 seconds allowed, for event types it does not handle too (a 404 or
   405 counts as a failure and would be retried). Slow work belongs in a queue of your own.

engage delivers only to https:// URLs: put this behind a TLS-terminating proxy. Deliveries also
carry the Standard Webhooks headers (`webhook-id`, `webhook-timestamp`, `webhook-signature`),
whose signature covers the timestamp as well; `standardwebhooks.Webhook(secret).verify(body,
headers)` checks them with the same secret.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from engage_core import InvalidSignature, verify_signature

MAX_BODY = 1 << 20  # deliveries are small; refuse anything larger than 1 MiB

Event = dict[str, Any]


class SeenDeliveries:
    """The delivery ids handled recently. A real receiver keeps them in its database, for longer
    than the retry window (the last retry comes about 42 minutes after the first attempt)."""

    def __init__(self, limit: int = 100_000) -> None:
        self._ids: OrderedDict[str, None] = OrderedDict()
        self._limit = limit
        self._lock = threading.Lock()

    def first_time(self, delivery_id: str) -> bool:
        """True the first time a delivery id is seen, False for a repeat."""
        with self._lock:
            if delivery_id in self._ids:
                return False
            self._ids[delivery_id] = None
            if len(self._ids) > self._limit:
                self._ids.popitem(last=False)
            return True


def print_event(event: Event) -> None:
    """What this example does with an event: print it. Replace with your own handling."""
    print(f"{event['event']} {event['delivery_id']}: {json.dumps(event['data'], ensure_ascii=False)}", flush=True)


class WebhookServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address: tuple[str, int], secret: str, on_event: Callable[[Event], None] = print_event) -> None:
        super().__init__(address, WebhookHandler)
        self.secret = secret
        self.on_event = on_event
        self.seen = SeenDeliveries()


class WebhookHandler(BaseHTTPRequestHandler):
    server: WebhookServer

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY:
            self._reply(413)
            return
        body = self.rfile.read(length)  # the raw bytes: verify these, never a re-serialised object
        try:
            verify_signature(
                self.server.secret,
                body,
                self.headers.get("X-Service-Signature-256"),
                self.headers.get("X-Service-Timestamp"),
            )
        except InvalidSignature:
            self._reply(401)
            return
        try:
            event = json.loads(body)
            delivery_id = str(event["delivery_id"])
        except (ValueError, KeyError, TypeError):
            self._reply(400)
            return
        if self.server.seen.first_time(delivery_id):
            self.server.on_event(event)
        self._reply(204)

    def _reply(self, status: int) -> None:
        self.send_response(status)
        self.send_header("Content-Length", "0")
        self.end_headers()


def main() -> None:
    secret = os.environ.get("ENGAGE_WEBHOOK_SECRET")
    if not secret:
        sys.exit("Set ENGAGE_WEBHOOK_SECRET to the secret shown when the webhook was created.")
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 8080
    server = WebhookServer(("127.0.0.1", port), secret)
    print(f"Listening on http://127.0.0.1:{port} (put HTTPS in front of it)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
