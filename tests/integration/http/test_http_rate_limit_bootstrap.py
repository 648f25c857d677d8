"""Rate limiting and the default plan in the composition root: on by default, configured from
`ENGAGE_RATE_LIMIT`, `ENGAGE_RATE_LIMIT_WINDOW`, `ENGAGE_REDIS_URL` and `ENGAGE_DEFAULT_PLAN`.

The Redis test runs against the local Redis (127.0.0.1:6379, or `ENGAGE_TEST_REDIS_URL`) and is
skipped with the reason when it is unreachable."""

from __future__ import annotations

import os
import threading
import time
import uuid
import warnings
from pathlib import Path

import attrs
import pytest
import redis
from starlette.exceptions import StarletteDeprecationWarning

from engage_connectors.redis_rate_limiter import RedisRateLimiter
from engage_core.settings import Settings
from engage_core.testing import FakeClock
from engage_http.bootstrap import build_app, rate_limiter, redis_prefix

with warnings.catch_warnings():
    warnings.simplefilter("ignore", StarletteDeprecationWarning)
    from starlette.testclient import TestClient

REDIS_URL = os.environ.get("ENGAGE_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")


@pytest.fixture
def database_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'engage.db'}"


def statuses(settings: Settings, requests: int) -> list[int]:
    """The statuses of `requests` GET /tags of one new workspace on an app built from `settings`."""
    app = build_app(settings)
    key = app.state.services.accounts.create("Acme").api_key
    with TestClient(app) as client:
        return [client.get("/api/v1/tags", headers={"X-Api-Key": key}).status_code for _ in range(requests)]


def test_settings_read_the_rate_limit_and_default_plan_variables() -> None:
    """The four variables land in their settings."""
    settings = Settings.from_env(
        {
            "ENGAGE_RATE_LIMIT": "10",
            "ENGAGE_RATE_LIMIT_WINDOW": "5",
            "ENGAGE_REDIS_URL": "redis://cache:6379/1",
            "ENGAGE_DEFAULT_PLAN": "Pro",
        }
    )

    assert (settings.rate_limit, settings.rate_limit_window_seconds, settings.redis_url, settings.default_plan) == (
        10,
        5,
        "redis://cache:6379/1",
        "pro",
    )


def test_served_apps_are_rate_limited_by_default(database_url: str) -> None:
    """`build_app` limits keys without being asked: 120 a minute."""
    app = build_app(Settings(database_url=database_url))
    key = app.state.services.accounts.create("Acme").api_key
    with TestClient(app) as client:
        response = client.get("/api/v1/tags", headers={"X-Api-Key": key})

    assert response.headers["X-RateLimit-Limit"] == "120"


def statuses_in_one_window(settings: Settings, requests: int) -> list[int]:
    """`statuses`, run again when a window of the clock ended while it ran (windows are aligned to the
    epoch, so on a slow machine the last request may open the next one)."""
    window = settings.rate_limit_window_seconds
    while True:
        began = time.time() // window
        found = statuses(settings, requests)
        if time.time() // window == began:
            return found


def test_the_configured_limit_applies(database_url: str) -> None:
    """With `rate_limit=2`, a key's third request of the window is 429."""
    assert statuses_in_one_window(Settings(database_url=database_url, rate_limit=2), 3) == [200, 200, 429]


def test_the_default_plan_setting_applies_to_workspaces_without_a_partner(database_url: str) -> None:
    """`default_plan="starter"` leaves such workspaces without webhooks (403 `feature_not_in_plan`)."""
    app = build_app(Settings(database_url=database_url, default_plan="starter"))
    key = app.state.services.accounts.create("Acme").api_key
    with TestClient(app) as client:
        webhook = {"name": "CRM", "url": "https://crm.example/hooks"}
        response = client.post("/api/v1/webhooks", json=webhook, headers={"X-Api-Key": key})

    assert (response.status_code, response.json()["code"]) == (403, "feature_not_in_plan")


def test_an_unknown_default_plan_refuses_to_start(database_url: str) -> None:
    """A default plan that does not exist is refused when the app is built."""
    with pytest.raises(ValueError, match="default plan"):
        build_app(Settings(database_url=database_url, default_plan="platinum"))


@pytest.fixture
def redis_url() -> str:
    """The local Redis's URL; the test is skipped with the reason when it is unreachable."""
    client = redis.Redis.from_url(REDIS_URL, socket_timeout=2, socket_connect_timeout=2)
    try:
        client.ping()
    except redis.RedisError as exc:
        pytest.skip(f"Redis at {REDIS_URL} is unreachable: {exc}")
    finally:
        client.close()
    return REDIS_URL


def test_a_redis_url_makes_limiters_that_share_one_count(redis_url: str) -> None:
    """Two processes' limiters from the same `redis_url` count one bucket together."""
    settings = Settings(rate_limit=2, redis_url=redis_url)
    clock = FakeClock()  # all three hits in one window
    first, second = rate_limiter(settings, clock), rate_limiter(settings, clock)
    bucket = f"test:{uuid.uuid4().hex}"  # a bucket of its own: other runs share this Redis
    try:
        allowed = [limiter.hit(bucket).allowed for limiter in (first, second, first)]
    finally:
        for limiter in (first, second):
            assert isinstance(limiter.limiter, RedisRateLimiter)
            limiter.limiter.close()

    assert allowed == [True, True, False]


def _hits(settings: Settings, clock: FakeClock, bucket: str) -> list[bool]:
    """Whether each of three hits of `bucket` by two limiters built from `settings` was allowed; the
    limiters' Redis keys are deleted afterwards."""
    limiters = [rate_limiter(settings, clock) for _ in range(2)]
    try:
        return [limiter.hit(bucket).allowed for limiter in (*limiters, limiters[0])]
    finally:
        client = redis.Redis.from_url(REDIS_URL)
        keys = list(client.scan_iter(match=redis_prefix(settings) + "*"))
        if keys:
            client.delete(*keys)
        client.close()
        for limiter in limiters:
            assert isinstance(limiter.limiter, RedisRateLimiter)
            limiter.limiter.close()


def test_two_redis_prefixes_do_not_share_counters(redis_url: str) -> None:
    """Limiters under two ENGAGE_REDIS_PREFIX values count the same bucket apart in the same Redis."""
    run = uuid.uuid4().hex
    clock = FakeClock()
    first = Settings.from_env(
        {"ENGAGE_REDIS_URL": redis_url, "ENGAGE_RATE_LIMIT": "2", "ENGAGE_REDIS_PREFIX": f"a{run}:"}
    )
    second = attrs.evolve(first, redis_prefix=f"b{run}:")

    allowed = [_hits(settings, clock, "account:1") for settings in (first, second)]

    assert allowed == [[True, True, False], [True, True, False]]


def test_deployments_on_different_databases_do_not_share_counters(tmp_path: Path, redis_url: str) -> None:
    """Without ENGAGE_REDIS_PREFIX, the prefix is named after the database: two databases, two counts."""
    clock = FakeClock()
    deployments = [
        Settings(database_url=f"sqlite:///{tmp_path / name}", rate_limit=2, redis_url=redis_url)
        for name in ("one.db", "two.db")
    ]

    allowed = [_hits(settings, clock, f"account:{uuid.uuid4().hex}") for settings in deployments]

    assert allowed == [[True, True, False], [True, True, False]]
    assert redis_prefix(deployments[0]) != redis_prefix(deployments[1])


def test_the_default_prefix_names_the_database_not_its_credentials() -> None:
    """One PostgreSQL database reached with two users gets one prefix; another database another."""
    prefixes = {
        redis_prefix(Settings(database_url=url))
        for url in ("postgresql://ada:x@db:5432/engage", "postgresql://bob:y@db:5432/engage")
    }
    other = redis_prefix(Settings(database_url="postgresql://ada:x@db:5432/engage_staging"))

    assert len(prefixes) == 1 and other not in prefixes
    assert all("ada" not in prefix and "x@" not in prefix for prefix in (*prefixes, other))


def test_an_app_with_a_redis_url_serves_limited_requests(database_url: str, redis_url: str) -> None:
    """`build_app` with `redis_url` answers with the rate-limit headers, counted in Redis."""
    app = build_app(Settings(database_url=database_url, redis_url=redis_url))
    key = app.state.services.accounts.create("Acme").api_key
    with TestClient(app) as client:
        response = client.get("/api/v1/tags", headers={"X-Api-Key": key})

    assert (isinstance(app.state.rate_limiter.limiter, RedisRateLimiter), response.headers["X-RateLimit-Limit"]) == (
        True,
        "120",
    )


def test_with_a_redis_limiter_writes_take_worker_threads_not_the_lane(database_url: str, redis_url: str) -> None:
    """A Redis limiter would block the thread it runs on: on SQLite the app then has no write lane,
    and a contact is still created (in a worker thread)."""
    app = build_app(Settings(database_url=database_url, redis_url=redis_url, run_worker=False))
    key = app.state.services.accounts.create("Acme").api_key
    before = _lane_threads()
    with TestClient(app) as client:
        response = client.post(
            "/api/v1/contacts", json={"name": "Ada", "type": "instagram"}, headers={"X-Api-Key": key}
        )
        started = _lane_threads() - before

    assert (response.status_code, started) == (201, set())


def _lane_threads() -> set[threading.Thread]:
    return {thread for thread in threading.enumerate() if thread.name == "engage-write-lane"}
