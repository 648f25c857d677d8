"""The kit's event strategies: every event of the catalogue made by the real services, with the
payload fields SPEC 6 lists, and deliveries signed so that engage's own verifier accepts them."""

from __future__ import annotations

import base64
from datetime import UTC, datetime

import pytest
from hypothesis import given, settings

from engage_core.kernel.clock import format_timestamp
from engage_core.kernel.events import CATALOGUE, EXTENSIONS, PARTNER_CATALOGUE, DomainEvent
from engage_core.webhooks.signatures import InvalidSignature, standard_signature, verify_signature
from engage_testing.events import (
    EXTENDED,
    PARTNER_PRODUCED,
    PRODUCED,
    Delivery,
    deliveries,
    domain_events,
    partner_deliveries,
    partner_events,
)

from ..kernel.test_events_catalogue import SPEC_EVENTS

SECRET = base64.b64encode(b"k" * 48).decode()
SENT_AT = datetime(2026, 3, 1, 9, 30, tzinfo=UTC)


def test_the_kit_makes_every_event_of_the_catalogue() -> None:
    """Every catalogue event is produced, the background failures included."""
    assert set(PRODUCED) == set(CATALOGUE)


@pytest.mark.parametrize("name", PRODUCED)
def test_each_event_has_the_payload_fields_of_spec_6(name: str) -> None:
    """Every event drawn has its name and at least the data fields SPEC 6 lists for it."""

    @settings(max_examples=5, deadline=None)
    @given(domain_events([name]))
    def check(event: object) -> None:
        assert event.name == name  # type: ignore[attr-defined]
        assert set(SPEC_EVENTS[name]) <= set(event.payload)  # type: ignore[attr-defined]

    check()


def test_unknown_events_are_refused() -> None:
    """Asking for an event the kit cannot make is an error, not an empty strategy."""
    with pytest.raises(ValueError, match=r"order\.teleported"):
        domain_events(["order.teleported"])


@settings(max_examples=30, deadline=None)
@given(deliveries(SECRET, sent_at=SENT_AT))
def test_deliveries_pass_engages_own_verifier(delivery: Delivery) -> None:
    """The SPEC 6 signature of every delivery verifies with the secret given."""
    headers = delivery.headers
    verify_signature(
        SECRET, delivery.body, headers["X-Service-Signature-256"], headers["X-Service-Timestamp"],
        now=SENT_AT.timestamp(),
    )  # fmt: skip


@settings(max_examples=30, deadline=None)
@given(deliveries(SECRET, sent_at=SENT_AT))
def test_deliveries_carry_the_standard_webhooks_signature(delivery: Delivery) -> None:
    """The Standard Webhooks signature covers the delivery id, the timestamp and the body."""
    headers = delivery.headers
    expected = standard_signature(SECRET, headers["webhook-id"], int(headers["webhook-timestamp"]), delivery.body)
    assert headers["webhook-signature"] == expected


@settings(max_examples=10, deadline=None)
@given(deliveries(SECRET, ["order.created", "contact.updated"], sent_at=SENT_AT))
def test_a_delivery_does_not_verify_with_another_secret(delivery: Delivery) -> None:
    """A receiver holding another secret refuses the delivery."""
    with pytest.raises(InvalidSignature):
        verify_signature(
            "other", delivery.body, delivery.headers["X-Service-Signature-256"],
            delivery.headers["X-Service-Timestamp"], now=SENT_AT.timestamp(),
        )  # fmt: skip


@settings(max_examples=30, deadline=None)
@given(deliveries(SECRET, sent_at=SENT_AT))
def test_the_body_is_the_spec_6_envelope(delivery: Delivery) -> None:
    """The body is the envelope (event, delivery_id, timestamp, data) and the headers agree with it."""
    document = delivery.document
    assert set(document) == {"event", "delivery_id", "timestamp", "data"}
    assert document["event"] == delivery.event == delivery.headers["X-Service-Event"]
    assert document["delivery_id"] == delivery.headers["X-Service-Delivery"]
    assert document["timestamp"] == int(SENT_AT.timestamp()) == int(delivery.headers["X-Service-Timestamp"])


def test_the_kit_makes_every_event_beyond_the_catalogue() -> None:
    """Every workspace event beyond SPEC 6 (hand-over, web chat) can be drawn by name."""
    assert set(EXTENDED) == set(EXTENSIONS)


def test_the_kit_makes_every_partner_event() -> None:
    """Every partner-level event of SPEC 6 is produced."""
    assert set(PARTNER_PRODUCED) == set(PARTNER_CATALOGUE)


@pytest.mark.parametrize("name", EXTENDED)
def test_each_extended_event_is_made_by_name(name: str) -> None:
    """An event beyond the catalogue, asked for by name, is drawn with that name and a payload."""

    @settings(max_examples=3, deadline=None)
    @given(domain_events([name]))
    def check(event: DomainEvent) -> None:
        assert (event.name, bool(event.payload)) == (name, True)

    check()


@pytest.mark.parametrize("name", PARTNER_PRODUCED)
def test_each_partner_event_names_its_client(name: str) -> None:
    """Every partner event drawn has its name and the client's id and company name."""

    @settings(max_examples=3, deadline=None)
    @given(partner_events([name]))
    def check(event: DomainEvent) -> None:
        assert event.name == name
        assert {"client_id", "company_name"} <= set(event.payload)

    check()


def test_partner_created_carries_the_fields_of_spec_6() -> None:
    """partner.client.created data holds client_id, company_name, plan and primary_email."""

    @settings(max_examples=5, deadline=None)
    @given(partner_events(["partner.client.created"]))
    def check(event: DomainEvent) -> None:
        assert {"client_id", "company_name", "plan", "primary_email"} <= set(event.payload)

    check()


def test_workspace_strategies_refuse_partner_events() -> None:
    """Partner events are drawn by partner_events, not domain_events, so their envelope is right."""
    with pytest.raises(ValueError, match=r"partner\.client\.created"):
        domain_events(["partner.client.created"])


@settings(max_examples=15, deadline=None)
@given(partner_deliveries(SECRET, sent_at=SENT_AT))
def test_partner_deliveries_pass_engages_own_verifier(delivery: Delivery) -> None:
    """The X-Service-Signature of every partner delivery verifies with the secret given."""
    verify_signature(
        SECRET, delivery.body, delivery.headers["X-Service-Signature"], delivery.headers["X-Service-Timestamp"],
        now=SENT_AT.timestamp(),
    )  # fmt: skip
    assert "X-Service-Signature-256" not in delivery.headers


@settings(max_examples=15, deadline=None)
@given(partner_deliveries(SECRET, sent_at=SENT_AT))
def test_partner_deliveries_carry_the_partner_envelope(delivery: Delivery) -> None:
    """The body is the partner envelope (event, timestamp, partner_id, data)."""
    document = delivery.document
    assert set(document) == {"event", "timestamp", "partner_id", "data"}
    assert document["event"] == delivery.event == delivery.headers["X-Service-Event"]
    assert document["timestamp"] == format_timestamp(SENT_AT)
