"""Rate limiting over HTTP: `limit` requests per window per workspace key and per partner key, the
`X-RateLimit-*` headers on every authenticated answer, and 429 with `Retry-After` past the limit.

These tests build the app with a limiter of 3 requests per 60 s on the fixtures' FakeClock (the
shared fixtures serve the app unlimited)."""

from __future__ import annotations

import logging
import warnings
from collections.abc import Callable
from datetime import datetime

import pytest
from http_support import Api, PartnerCaller, Tenant
from starlette.exceptions import StarletteDeprecationWarning

from engage_core.kernel.pagination import PageRequest
from engage_core.kernel.rate_limits import Decision, InMemoryRateLimiter, LimiterUnavailable, RateLimitPolicy
from engage_core.services import Services
from engage_core.testing import FakeClock
from engage_http import create_app
from engage_http.rate_limit import RequestRateLimiter

ALL_TAGS = PageRequest(per_page=100)
"""Every tag of a test's workspace: one page."""

with warnings.catch_warnings():
    warnings.simplefilter("ignore", StarletteDeprecationWarning)
    from starlette.testclient import TestClient

LIMIT = 3
WINDOW = 60


@pytest.fixture
def limited_client(services: Services, clock: FakeClock) -> TestClient:
    limiter = RequestRateLimiter(InMemoryRateLimiter(), RateLimitPolicy(LIMIT, WINDOW), clock)
    return TestClient(create_app(services, rate_limiter=limiter))


@pytest.fixture
def caller(limited_client: TestClient) -> Callable[[Tenant], Api]:
    return lambda tenant: Api(limited_client, tenant.headers)


def spend(api: Api, times: int, path: str = "/tags") -> None:
    for _ in range(times):
        assert api.get(path).status_code == 200


def test_a_successful_answer_carries_the_rate_limit_headers(
    caller: Callable[[Tenant], Api], tenant: Tenant, clock: FakeClock
) -> None:
    """`X-RateLimit-Limit`, `-Remaining` (after this request) and `-Reset` (window end, Unix seconds)."""
    response = caller(tenant).get("/tags")

    window_end = (int(clock.now().timestamp()) // WINDOW + 1) * WINDOW
    assert (
        response.headers["X-RateLimit-Limit"],
        response.headers["X-RateLimit-Remaining"],
        response.headers["X-RateLimit-Reset"],
    ) == (str(LIMIT), str(LIMIT - 1), str(window_end))


def test_the_request_past_the_limit_is_429_with_retry_after(
    caller: Callable[[Tenant], Api], tenant: Tenant, clock: FakeClock
) -> None:
    """The 4th request of a 3-per-window key is 429, `Retry-After` the seconds to the window's end."""
    api = caller(tenant)
    spend(api, LIMIT)

    response = api.get("/tags")

    window_end = (int(clock.now().timestamp()) // WINDOW + 1) * WINDOW
    assert (response.status_code, response.headers["Retry-After"], response.headers["X-RateLimit-Remaining"]) == (
        429,
        str(window_end - int(clock.now().timestamp())),
        "0",
    )


def test_a_refused_request_has_the_error_envelope(caller: Callable[[Tenant], Api], tenant: Tenant) -> None:
    """The 429 body is the SPEC 7 error envelope."""
    api = caller(tenant)
    spend(api, LIMIT)

    assert api.get("/tags").json() == {"success": False, "message": "Too many requests. Retry later."}


def test_a_refused_request_does_not_run_the_handler(
    caller: Callable[[Tenant], Api], tenant: Tenant, services: Services
) -> None:
    """A write past the limit stores nothing."""
    api = caller(tenant)
    spend(api, LIMIT)

    api.post("/tags", json={"title": "VIP"})

    assert services.tags.list(tenant.account_id, ALL_TAGS).items == []


def test_the_next_window_allows_requests_again(
    caller: Callable[[Tenant], Api], tenant: Tenant, clock: FakeClock
) -> None:
    """Once the window has passed, the key has its full allowance again."""
    api = caller(tenant)
    spend(api, LIMIT)
    clock.advance(seconds=WINDOW)

    assert api.get("/tags").headers["X-RateLimit-Remaining"] == str(LIMIT - 1)


def test_each_workspace_has_its_own_bucket(caller: Callable[[Tenant], Api], make_tenant: Callable[..., Tenant]) -> None:
    """One workspace spending its allowance leaves another's untouched."""
    spend(caller(make_tenant("Acme")), LIMIT)

    assert caller(make_tenant("Globex")).get("/tags").status_code == 200


def test_an_error_answer_carries_the_headers_too(caller: Callable[[Tenant], Api], tenant: Tenant) -> None:
    """A 404 of an authenticated request is counted and carries `X-RateLimit-Remaining`."""
    response = caller(tenant).get("/contacts/999")

    assert (response.status_code, response.headers["X-RateLimit-Remaining"]) == (404, str(LIMIT - 1))


def test_a_request_without_a_valid_key_is_not_counted(
    limited_client: TestClient, caller: Callable[[Tenant], Api], tenant: Tenant, wrong_key: str
) -> None:
    """401s carry no rate-limit headers and spend nothing of any workspace's allowance."""
    refused = Api(limited_client, {"X-Api-Key": wrong_key}).get("/tags")

    assert ("X-RateLimit-Limit" in refused.headers, caller(tenant).get("/tags").headers["X-RateLimit-Remaining"]) == (
        False,
        str(LIMIT - 1),
    )


def test_a_new_key_keeps_the_workspace_count(
    caller: Callable[[Tenant], Api], tenant: Tenant, services_rotate: Callable[[int], str]
) -> None:
    """The bucket is the workspace, not the key: rotating the key does not reset the count."""
    spend(caller(tenant), LIMIT)
    rotated = Tenant(tenant.account_id, services_rotate(tenant.account_id))

    assert caller(rotated).get("/tags").status_code == 429


def test_partner_keys_are_limited_per_partner(
    limited_client: TestClient, make_partner: Callable[..., PartnerCaller]
) -> None:
    """A partner key's 4th request of the window is 429, with the rate-limit headers."""
    partner = make_partner()
    api = Api(limited_client, {"X-Partner-Key": partner.key})
    for _ in range(LIMIT):
        assert api.get("/partner/profile").status_code == 200

    response = api.get("/partner/profile")

    assert (response.status_code, response.headers["X-RateLimit-Limit"]) == (429, str(LIMIT))


class UnreachableLimiter:
    """A limiter whose shared store is down: every hit raises `LimiterUnavailable`."""

    def hit(self, key: str, limit: int, window_seconds: int, now: datetime) -> Decision:
        raise LimiterUnavailable("Redis did not answer: ConnectionError")


@pytest.fixture
def outage_caller(services: Services, clock: FakeClock) -> Callable[[Tenant], Api]:
    limiter = RequestRateLimiter(UnreachableLimiter(), RateLimitPolicy(LIMIT, WINDOW), clock)
    client = TestClient(create_app(services, rate_limiter=limiter))
    return lambda tenant: Api(client, tenant.headers)


def test_a_limiter_outage_serves_requests_unlimited(outage_caller: Callable[[Tenant], Api], tenant: Tenant) -> None:
    """With the limiter's store down, requests beyond the limit still succeed, without the headers."""
    api = outage_caller(tenant)

    responses = [api.get("/tags") for _ in range(LIMIT + 2)]

    assert [(r.status_code, "X-RateLimit-Limit" in r.headers) for r in responses] == [(200, False)] * (LIMIT + 2)


def test_a_limiter_outage_is_logged_once_a_minute(
    outage_caller: Callable[[Tenant], Api], tenant: Tenant, caplog: pytest.LogCaptureFixture
) -> None:
    """Many requests during an outage log one warning, not one per request."""
    api = outage_caller(tenant)
    with caplog.at_level(logging.WARNING, logger="engage.rate_limit"):
        spend(api, 5)

    assert [r.getMessage() for r in caplog.records if r.name == "engage.rate_limit"] == [
        "Rate limiting is off until its store answers again: Redis did not answer: ConnectionError"
    ]
