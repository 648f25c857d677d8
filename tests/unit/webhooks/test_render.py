"""`render`: the exact headers and body of a delivery attempt, for a workspace and for a partner."""

from __future__ import annotations

import json
import uuid
from typing import Any

import standardwebhooks

from engage_core.webhooks.delivery import USER_AGENT, render
from engage_core.webhooks.model import Claim
from engage_core.webhooks.signatures import generate_secret, sign_body, standard_signature

from ..factories import START

UNIX = int(START.timestamp())
ISO = "2026-01-01T12:00:00.000000Z"
PAYLOAD = {"id": 7, "name": "Zoë", "tags": ["vip"], "email": None}


def claim(kind: str = "workspace", **overrides: Any) -> Claim:
    fields: dict[str, Any] = {
        "attempt_id": 1,
        "lease_token": "lease",
        "kind": kind,
        "owner_id": 42,
        "webhook_id": 3,
        "url": "https://hooks.example.com/in",
        "secret_ciphertext": "",
        "event_type": "contact.created",
        "payload": PAYLOAD,
        "delivery_id": str(uuid.uuid4()),
        "attempt_number": 2,
    }
    fields.update(overrides)
    return Claim(**fields)


def test_render_sends_the_spec_headers() -> None:
    """Content-Type, X-Service-Event, -Delivery, -Signature-256 and -Timestamp are set (SPEC 6)."""
    secret, attempt = generate_secret(), claim()
    headers, body = render(attempt, secret, UNIX, ISO)
    assert headers["Content-Type"] == "application/json"
    assert headers["X-Service-Event"] == "contact.created"
    assert headers["X-Service-Delivery"] == attempt.delivery_id
    assert headers["X-Service-Signature-256"] == sign_body(secret, body)
    assert headers["X-Service-Timestamp"] == str(UNIX)


def test_render_sends_the_standard_webhooks_headers() -> None:
    """webhook-id is the delivery id, webhook-timestamp the Unix time, webhook-signature the v1 HMAC."""
    secret, attempt = generate_secret(), claim()
    headers, body = render(attempt, secret, UNIX, ISO)
    assert headers["webhook-id"] == attempt.delivery_id
    assert headers["webhook-timestamp"] == str(UNIX)
    expected = standardwebhooks.Webhook(secret).sign(attempt.delivery_id, START, body.decode())
    assert headers["webhook-signature"] == expected == standard_signature(secret, attempt.delivery_id, UNIX, body)


def test_render_names_the_attempt_and_the_sender() -> None:
    """X-Service-Attempt carries the attempt number; the User-Agent names engage."""
    headers, _ = render(claim(attempt_number=3), generate_secret(), UNIX, ISO)
    assert (headers["X-Service-Attempt"], headers["User-Agent"]) == ("3", USER_AGENT)


def test_render_body_is_the_spec_envelope() -> None:
    """The body is exactly event, delivery_id, timestamp (integer) and data (SPEC 6 Envelope)."""
    attempt = claim()
    _, body = render(attempt, generate_secret(), UNIX, ISO)
    assert json.loads(body) == {
        "event": "contact.created",
        "delivery_id": attempt.delivery_id,
        "timestamp": UNIX,
        "data": PAYLOAD,
    }


def test_render_body_is_compact_utf8_json() -> None:
    """No spaces between tokens, and non-ASCII text as UTF-8 rather than escapes."""
    _, body = render(claim(), generate_secret(), UNIX, ISO)
    assert b", " not in body and b": " not in body
    assert "Zoë".encode() in body


def test_render_signs_the_bytes_it_returns() -> None:
    """Both signatures are of the returned body bytes exactly."""
    secret = generate_secret()
    headers, body = render(claim(), secret, UNIX, ISO)
    assert headers["X-Service-Signature-256"] == sign_body(secret, body)
    assert headers["X-Service-Signature-256"] != sign_body(secret, body + b" ")


def test_render_partner_uses_the_partner_envelope() -> None:
    """A partner delivery's body is event, ISO timestamp, partner_id and data (SPEC 6 Partner events)."""
    _, body = render(claim("partner", event_type="partner.client.created", owner_id=9), generate_secret(), UNIX, ISO)
    assert json.loads(body) == {"event": "partner.client.created", "timestamp": ISO, "partner_id": 9, "data": PAYLOAD}


def test_render_partner_signs_in_x_service_signature() -> None:
    """A partner delivery carries X-Service-Signature, and no X-Service-Signature-256."""
    secret = generate_secret()
    headers, body = render(claim("partner"), secret, UNIX, ISO)
    assert headers["X-Service-Signature"] == sign_body(secret, body)
    assert "X-Service-Signature-256" not in headers


def test_render_workspace_has_no_partner_signature() -> None:
    """A workspace delivery carries only X-Service-Signature-256."""
    headers, _ = render(claim(), generate_secret(), UNIX, ISO)
    assert "X-Service-Signature" not in headers
