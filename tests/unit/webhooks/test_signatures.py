"""Webhook signatures: the secret, the SPEC 6 HMAC header, Standard Webhooks, and the receiver's check."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import string
from datetime import UTC, datetime

import pytest
import standardwebhooks
from hypothesis import given
from hypothesis import strategies as st

import engage_core
from engage_core.webhooks.signatures import (
    SECRET_LENGTH,
    TOLERANCE_SECONDS,
    InvalidSignature,
    generate_secret,
    sign_body,
    sign_partner_body,
    standard_signature,
    verify_signature,
)

NOW = 1_767_268_800  # 2026-01-01T12:00:00Z
BODY = b'{"event":"contact.created","delivery_id":"d-1","timestamp":1767268800,"data":{"id":1}}'

secrets_ = st.builds(lambda _: generate_secret(), st.integers())
bodies = st.binary(max_size=2048)


def test_the_secret_has_64_characters() -> None:
    """A new secret is 64 characters long (SPEC 6)."""
    assert len(generate_secret()) == SECRET_LENGTH == 64


def test_the_secret_is_48_random_bytes_in_base64() -> None:
    """The secret is base64 of 48 bytes, so it is also a Standard Webhooks key."""
    secret = generate_secret()
    assert set(secret) <= set(string.ascii_letters + string.digits + "+/")
    assert len(base64.b64decode(secret, validate=True)) == 48


def test_secrets_differ() -> None:
    """Every call gives a new secret."""
    assert len({generate_secret() for _ in range(100)}) == 100


def test_sign_body_is_sha256_hex_hmac_of_the_body() -> None:
    """`sha256=` followed by the hex HMAC-SHA256 of the body under the secret's UTF-8 bytes."""
    secret = generate_secret()
    expected = hmac.new(secret.encode(), BODY, hashlib.sha256).hexdigest()
    assert sign_body(secret, BODY) == "sha256=" + expected


def test_sign_body_covers_the_exact_bytes() -> None:
    """A re-serialisation of the same JSON signs differently: the raw bytes are what is signed."""
    secret = generate_secret()
    reserialised = json.dumps(json.loads(BODY), indent=2).encode()
    assert sign_body(secret, reserialised) != sign_body(secret, BODY)


def test_partner_signature_uses_the_same_construction() -> None:
    """X-Service-Signature of partner deliveries is the same sha256= HMAC."""
    secret = generate_secret()
    assert sign_partner_body(secret, BODY) == sign_body(secret, BODY)


def test_standard_signature_matches_the_standard_webhooks_library() -> None:
    """`webhook-signature` is what the standardwebhooks package computes for id, timestamp and body."""
    secret = generate_secret()
    moment = datetime.fromtimestamp(NOW, UTC)
    expected = standardwebhooks.Webhook(secret).sign("msg-1", moment, BODY.decode())
    assert standard_signature(secret, "msg-1", NOW, BODY) == expected


def test_standard_signature_accepts_the_whsec_prefix() -> None:
    """A secret written as `whsec_<base64>` signs as the bare secret."""
    secret = generate_secret()
    assert standard_signature("whsec_" + secret, "m", NOW, BODY) == standard_signature(secret, "m", NOW, BODY)


def test_a_good_signature_verifies() -> None:
    """The signature of the body with the secret, at the current time, is accepted."""
    secret = generate_secret()
    verify_signature(secret, BODY, sign_body(secret, BODY), str(NOW), now=NOW)


@given(secret=secrets_, body=bodies)
def test_any_body_signed_verifies(secret: str, body: bytes) -> None:
    """Whatever the body bytes, its own signature verifies."""
    verify_signature(secret, body, sign_body(secret, body), NOW, now=NOW)


@given(secret=secrets_, body=bodies.filter(bool), data=st.data())
def test_any_changed_byte_fails(secret: str, body: bytes, data: st.DataObject) -> None:
    """Flipping any bit of the body makes the signature fail."""
    index = data.draw(st.integers(0, len(body) - 1))
    bit = data.draw(st.integers(0, 7))
    tampered = body[:index] + bytes([body[index] ^ (1 << bit)]) + body[index + 1 :]
    with pytest.raises(InvalidSignature):
        verify_signature(secret, tampered, sign_body(secret, body), NOW, now=NOW)


def test_a_tampered_body_fails() -> None:
    """A body changed after signing is rejected."""
    secret = generate_secret()
    signature = sign_body(secret, BODY)
    with pytest.raises(InvalidSignature, match="does not match"):
        verify_signature(secret, BODY.replace(b'"id":1', b'"id":2'), signature, NOW, now=NOW)


def test_a_wrong_secret_fails() -> None:
    """A signature made with another secret is rejected."""
    with pytest.raises(InvalidSignature, match="does not match"):
        verify_signature(generate_secret(), BODY, sign_body(generate_secret(), BODY), NOW, now=NOW)


@pytest.mark.parametrize("signature", ["", "sha256=", "sha1=abc", "garbage", None])
def test_a_malformed_or_missing_signature_fails(signature: str | None) -> None:
    """An empty, missing or malformed signature header is rejected, never an exception of another kind."""
    with pytest.raises(InvalidSignature):
        verify_signature(generate_secret(), BODY, signature, NOW, now=NOW)


def test_surrounding_whitespace_in_the_header_is_ignored() -> None:
    """A header value with stray spaces still verifies."""
    secret = generate_secret()
    verify_signature(secret, BODY, f"  {sign_body(secret, BODY)} ", NOW, now=NOW)


@pytest.mark.parametrize("offset", [-TOLERANCE_SECONDS, -1, 0, 1, TOLERANCE_SECONDS])
def test_a_timestamp_within_five_minutes_either_way_verifies(offset: int) -> None:
    """Up to exactly 300 seconds early or late is accepted."""
    secret = generate_secret()
    verify_signature(secret, BODY, sign_body(secret, BODY), NOW + offset, now=NOW)


@pytest.mark.parametrize("offset", [-TOLERANCE_SECONDS - 1, TOLERANCE_SECONDS + 1, -86_400, 86_400])
def test_a_timestamp_beyond_five_minutes_either_way_fails(offset: int) -> None:
    """301 seconds or more in the past or in the future is rejected, even with a good signature."""
    secret = generate_secret()
    with pytest.raises(InvalidSignature, match="tolerance"):
        verify_signature(secret, BODY, sign_body(secret, BODY), NOW + offset, now=NOW)


@pytest.mark.parametrize("timestamp", ["", "soon", "1.5e9", None])
def test_a_timestamp_that_is_not_unix_time_fails(timestamp: str | None) -> None:
    """A missing or non-integer timestamp is rejected."""
    secret = generate_secret()
    with pytest.raises(InvalidSignature):
        verify_signature(secret, BODY, sign_body(secret, BODY), timestamp, now=NOW)


def test_the_tolerance_can_be_changed() -> None:
    """A receiver may choose a tighter tolerance."""
    secret = generate_secret()
    with pytest.raises(InvalidSignature):
        verify_signature(secret, BODY, sign_body(secret, BODY), NOW - 61, now=NOW, tolerance=60)


def test_the_current_time_is_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without `now`, the check uses the real clock."""
    monkeypatch.setattr("engage_core.webhooks.signatures.time.time", lambda: float(NOW + 1000))
    secret = generate_secret()
    with pytest.raises(InvalidSignature, match="tolerance"):
        verify_signature(secret, BODY, sign_body(secret, BODY), NOW)


def test_the_comparison_is_constant_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """The signature is compared with hmac.compare_digest."""
    calls: list[tuple[bytes, bytes]] = []
    real = hmac.compare_digest

    def spy(a: bytes, b: bytes) -> bool:
        calls.append((a, b))
        return real(a, b)

    monkeypatch.setattr("engage_core.webhooks.signatures.hmac.compare_digest", spy)
    secret = generate_secret()
    verify_signature(secret, BODY, sign_body(secret, BODY), NOW, now=NOW)
    assert len(calls) == 1


def test_verify_signature_is_exported_by_engage_core() -> None:
    """Receivers import `verify_signature` and `InvalidSignature` from `engage_core` itself."""
    assert engage_core.verify_signature is verify_signature
    assert engage_core.InvalidSignature is InvalidSignature
    assert {"verify_signature", "InvalidSignature"} <= set(engage_core.__all__)
