"""Webhook signatures: how we sign deliveries and how a receiver checks them.

Two schemes are sent side by side on every delivery:

* `X-Service-Signature-256: sha256=<hex>` — HMAC-SHA256 of the raw body with the secret's UTF-8
  bytes as the key (SPEC 6), plus `X-Service-Timestamp` (Unix seconds).
* Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64>`) — the
  HMAC covers `id.timestamp.body`, so the timestamp cannot be changed without breaking it. The
  secret is 48 random bytes in base64 (64 characters), so it is also a valid Standard Webhooks key.

Receivers call `verify_signature(...)`; it compares in constant time and rejects timestamps more
than five minutes away from now in either direction.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import time

SECRET_LENGTH = 64
TOLERANCE_SECONDS = 300


class InvalidSignature(Exception):
    """The delivery was not signed with this secret, or its timestamp is outside the tolerance."""


def generate_secret() -> str:
    """64 characters of base64: 48 random bytes, no padding."""
    return base64.b64encode(secrets.token_bytes(48)).decode()


def sign_body(secret: str, body: bytes) -> str:
    """The `X-Service-Signature-256` value: `sha256=` + hex HMAC-SHA256 of `body`."""
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def sign_partner_body(secret: str, body: bytes) -> str:
    """The `X-Service-Signature` value of partner-level deliveries (same construction)."""
    return sign_body(secret, body)


def standard_signature(secret: str, message_id: str, timestamp: int, body: bytes) -> str:
    """The Standard Webhooks `webhook-signature` value: `v1,` + base64 HMAC of `id.timestamp.body`."""
    key = base64.b64decode(secret.removeprefix("whsec_"))
    signed = f"{message_id}.{timestamp}.".encode() + body
    return "v1," + base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()


def verify_signature(
    secret: str,
    body: bytes,
    signature: str | None,
    timestamp: str | int | None,
    *,
    tolerance: int = TOLERANCE_SECONDS,
    now: float | None = None,
) -> None:
    """Check a delivery as a receiver: `signature` is the `X-Service-Signature-256` header and
    `timestamp` the `X-Service-Timestamp` header (None when a header is missing). Returns None,
    or raises InvalidSignature.

    Pass the raw request body bytes, never a re-serialised object. The SPEC 6 signature covers the
    body but not `X-Service-Timestamp`, so the five-minute check stops replays only together with
    deduplication on the body's (signed) `delivery_id`; the Standard Webhooks signature covers both.
    """
    if not signature or timestamp is None:
        raise InvalidSignature("The signature or its timestamp is missing.")
    try:
        sent_at = int(timestamp)
    except (TypeError, ValueError) as exc:
        raise InvalidSignature("The timestamp is not a Unix time.") from exc
    current = time.time() if now is None else now
    if abs(current - sent_at) > tolerance:
        raise InvalidSignature("The timestamp is outside the tolerance.")
    if not hmac.compare_digest(sign_body(secret, body).encode(), signature.strip().encode()):
        raise InvalidSignature("The signature does not match.")
