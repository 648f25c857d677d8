"""Webhook rules (engage_core.webhooks): success, the retry schedule, targets, events, envelopes."""

from __future__ import annotations

from datetime import timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engage_core.kernel.events import CATALOGUE, EXTENSIONS, TEST_EVENT
from engage_core.webhooks.model import (
    MAX_ATTEMPTS,
    RESPONSE_EXCERPT_LIMIT,
    RESPONSE_TIMEOUT_SECONDS,
    RETRY_DELAYS,
    Outcome,
    Subscription,
    after_attempt,
    check_events,
    check_target,
    envelope,
    excerpt,
    partner_envelope,
)

from ..factories import START


def subscription(events: tuple[str, ...] = (), is_active: bool = True) -> Subscription:
    return Subscription(1, "Hook", "https://hooks.example.com/in", events, is_active, START, START)


# -- success and the schedule ----------------------------------------------------------------------


@given(status=st.integers(100, 599))
def test_only_a_2xx_status_is_a_success(status: int) -> None:
    """An answer succeeds exactly when its status is 200-299."""
    assert Outcome(status, None, None).succeeded == (200 <= status < 300)


def test_an_error_is_never_a_success() -> None:
    """An outcome with an error (timeout, refused connection) fails even with a status."""
    assert not Outcome(200, None, "The receiver did not answer in time.").succeeded
    assert not Outcome(None, None, "refused").succeeded


def test_the_spec_numbers() -> None:
    """30-second answers, retries after 2, 10 and 30 minutes: four attempts in all (SPEC 6, 8)."""
    assert RESPONSE_TIMEOUT_SECONDS == 30
    assert [d.total_seconds() / 60 for d in RETRY_DELAYS] == [2, 10, 30]
    assert MAX_ATTEMPTS == 4


def test_success_is_final() -> None:
    """A 2xx marks the attempt delivered and schedules nothing."""
    step = after_attempt(1, Outcome(204, "", None), START)
    assert (step.status, step.retry_at) == ("delivered", None)


@pytest.mark.parametrize(("attempt", "minutes"), [(1, 2), (2, 10), (3, 30)])
def test_a_failure_schedules_the_next_attempt(attempt: int, minutes: int) -> None:
    """Failed attempts 1, 2 and 3 are retried 2, 10 and 30 minutes after they failed."""
    step = after_attempt(attempt, Outcome(500, "", None), START)
    assert (step.status, step.retry_at) == ("failed", START + timedelta(minutes=minutes))


@pytest.mark.parametrize("attempt", [4, 5, 9])
def test_the_fourth_failure_is_final(attempt: int) -> None:
    """Attempt 4 (and a manual redelivery after it) is not retried when it fails."""
    step = after_attempt(attempt, Outcome(None, None, "timeout"), START)
    assert (step.status, step.retry_at) == ("failed", None)


def test_excerpt_keeps_the_first_bytes() -> None:
    """A response body is cut at the excerpt limit; None stays None."""
    assert excerpt("x" * (RESPONSE_EXCERPT_LIMIT + 10)) == "x" * RESPONSE_EXCERPT_LIMIT
    assert excerpt("short") == "short"
    assert excerpt(None) is None


# -- targets and events ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "url", ["https://hooks.example.com/in", "https://hooks.example.com:8443/a/b?c=d", "https://[2001:4860::1]/x"]
)
def test_https_urls_are_valid_targets(url: str) -> None:
    """Absolute https URLs pass the syntactic check."""
    assert check_target(url) is None


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("http://hooks.example.com/in", "must use https"),
        ("ftp://hooks.example.com/in", "must use https"),
        ("hooks.example.com/in", "must use https"),
        ("https:///path-only", "must name a host"),
        ("https://user:pass@hooks.example.com/", "may not contain credentials"),
        ("https://hooks.example.com:99999/", "valid URL"),
        ("https://[::1/", "valid URL"),
        ("https://hooks.example.com/" + "a" * 2048, "greater than 2048"),
    ],
)
def test_other_urls_are_refused_with_a_reason(url: str, reason: str) -> None:
    """Non-https, host-less, credentialled, malformed and over-long URLs are refused, saying why."""
    refusal = check_target(url)
    assert refusal is not None and reason in refusal


def test_every_catalogued_event_and_the_test_event_are_known() -> None:
    """check_events finds nothing wrong with the catalogue plus webhook.test."""
    assert check_events([*CATALOGUE, TEST_EVENT]) == []


def test_unknown_events_are_reported() -> None:
    """Names outside the catalogue are returned, in order."""
    assert check_events(["contact.created", "contact.exploded", "*"]) == ["contact.exploded", "*"]


def test_an_empty_event_list_wants_everything() -> None:
    """A subscription without events receives every event of SPEC 6's catalogue."""
    assert all(subscription().wants(name) for name in CATALOGUE)


def test_an_empty_event_list_wants_no_extension_event() -> None:
    """The extension events (beyond SPEC 6) go only to subscriptions that name them."""
    assert not any(subscription().wants(name) for name in EXTENSIONS)


def test_a_named_extension_event_is_wanted() -> None:
    """A subscription naming `conversation.handed_over` receives it."""
    assert subscription(("conversation.handed_over",)).wants("conversation.handed_over")


def test_the_extension_events_are_known() -> None:
    """check_events accepts the extension events."""
    assert check_events(list(EXTENSIONS)) == []


def test_an_event_list_is_a_filter() -> None:
    """A subscription with events receives only those."""
    hook = subscription(("contact.created",))
    assert hook.wants("contact.created")
    assert not hook.wants("contact.deleted")


def test_a_disabled_subscription_wants_nothing() -> None:
    """An inactive subscription receives no event (SPEC 3: events are not queued while disabled)."""
    assert not any(subscription(is_active=False).wants(name) for name in CATALOGUE)


# -- envelopes -------------------------------------------------------------------------------------


def test_the_workspace_envelope() -> None:
    """event, delivery_id, timestamp (Unix integer) and data (SPEC 6 Envelope)."""
    document = envelope("contact.created", "d-1", 1_767_268_800, {"id": 1})
    assert document == {"event": "contact.created", "delivery_id": "d-1", "timestamp": 1_767_268_800, "data": {"id": 1}}


def test_the_partner_envelope() -> None:
    """event, timestamp (ISO 8601), partner_id and data (SPEC 6 Partner events)."""
    document = partner_envelope("partner.client.created", "2026-01-01T12:00:00.000000Z", 9, {"client_id": 3})
    assert document == {
        "event": "partner.client.created",
        "timestamp": "2026-01-01T12:00:00.000000Z",
        "partner_id": 9,
        "data": {"client_id": 3},
    }
