"""`GET /metrics`: Prometheus metrics, off by default; request counts by route template, the token,
the webhook queue's depth from the database, and the app without `prometheus_client`."""

from __future__ import annotations

import socket
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import attrs
import pytest
from starlette.testclient import TestClient

from engage_core.jobs.model import JobRequest
from engage_core.kernel.events import DomainEvent
from engage_core.services import Services
from engage_core.settings import Settings
from engage_core.testing import AllowAllTargets, FakeCipher, FakeClock
from engage_core.webhooks.service import WebhookInput
from engage_http import create_app
from engage_http.bootstrap import build_app
from engage_http.metrics import Metrics
from engage_sql import Database

KEY = "a-secret-key-of-the-metrics-tests"
TOKEN = "a-scrape-token-of-the-metrics-tests"
START = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def settings(make_database_url: Callable[..., str]) -> Settings:
    return Settings(database_url=make_database_url(), secret_key=KEY, run_worker=False, metrics=True)


def sample(text: str, name: str, **labels: str) -> float | None:
    """The value of the sample `name{labels}` in an exposition, or None when it is absent."""
    wanted = ",".join(f'{key}="{value}"' for key, value in sorted(labels.items()))
    for line in text.splitlines():
        if line.startswith("#") or " " not in line:
            continue
        series, value = line.rsplit(" ", 1)
        metric, _, rest = series.partition("{")
        found = ",".join(sorted(rest.rstrip("}").split(","))) if rest else ""
        if metric == name and found == wanted:
            return float(value)
    return None


def test_metrics_are_off_by_default(settings: Settings) -> None:
    """Without `ENGAGE_METRICS`, `/metrics` is not served."""
    assert Settings.from_env({}).metrics is False
    with TestClient(build_app(Settings(database_url=settings.database_url, secret_key=KEY, run_worker=False))) as c:
        assert c.get("/metrics").status_code == 404


def test_a_request_is_counted_under_its_route_template(settings: Settings) -> None:
    """A request to a path with an id is counted under the route's template, not the raw path."""
    with TestClient(build_app(settings)) as client:
        client.get("/api/v1/contacts/12345")
        text = client.get("/metrics").text

    labels = {"method": "GET", "route": "/api/v1/contacts/{id:id}", "status": "401"}
    assert sample(text, "engage_http_requests_total", **labels) == 1.0
    assert "12345" not in text
    latency = {"method": "GET", "route": "/api/v1/contacts/{id:id}"}
    assert sample(text, "engage_http_request_duration_seconds_count", **latency) == 1.0


def test_a_path_no_route_matches_is_counted_as_unmatched(settings: Settings) -> None:
    """Paths that match no route share one label, so scanners cannot grow the label set."""
    with TestClient(build_app(settings)) as client:
        client.get("/no/such/path/1")
        client.get("/no/such/path/2")
        text = client.get("/metrics").text

    assert sample(text, "engage_http_requests_total", method="GET", route="unmatched", status="404") == 2.0


def test_the_token_is_required_when_set(settings: Settings) -> None:
    """With `ENGAGE_METRICS_TOKEN`, a scrape without the bearer token, or with another, gets 401."""
    app = build_app(attrs.evolve(settings, metrics_token=TOKEN))
    with TestClient(app) as client:
        assert client.get("/metrics").status_code == 401
        assert client.get("/metrics", headers={"Authorization": "Bearer wrong"}).status_code == 401
        answered = client.get("/metrics", headers={"Authorization": f"Bearer {TOKEN}"})

    assert answered.status_code == 200
    assert answered.headers["content-type"].startswith("text/plain")


def test_the_queue_depth_counts_the_queued_attempts(database: Database) -> None:
    """Queued attempts show as the queue's depth, and the oldest due one's age in seconds."""
    services = Services.build(database.uow, FakeClock(START), cipher=FakeCipher(), guard=AllowAllTargets())
    account = services.accounts.create("Acme").account.id
    services.webhooks.create(account, WebhookInput("Hook", "https://hooks.example.com/engage"))
    with database.uow.workspace(account) as uow:
        for n in range(3):
            uow.emit(DomainEvent("contact.created", {"n": n}, START))
        uow.commit()
    metrics = Metrics(backlog=database.webhook_backlog, now=lambda: START + timedelta(seconds=90))

    text = TestClient(create_app(services, metrics=metrics)).get("/metrics").text

    assert sample(text, "engage_webhook_queue_depth") == 3.0
    assert sample(text, "engage_webhook_oldest_due_age_seconds") == 90.0


def test_delivery_outcomes_are_counted() -> None:
    """Each attempt's outcome reported by the worker is counted by outcome."""
    metrics = Metrics()
    metrics.delivery_outcome("delivered")
    metrics.delivery_outcome("retry")
    metrics.delivery_outcome("retry")

    text = metrics.exposition().decode()

    assert sample(text, "engage_webhook_deliveries_total", outcome="delivered") == 1.0
    assert sample(text, "engage_webhook_deliveries_total", outcome="retry") == 2.0


def test_the_in_process_worker_counts_its_deliveries(settings: Settings) -> None:
    """An attempt the worker of `engage serve` sends to a closed port is counted as a `retry`."""
    running = attrs.evolve(settings, run_worker=True, webhook_allowed_hosts="127.0.0.1", webhook_timeout_seconds=2.0)
    app = build_app(running)
    headers = {"X-Api-Key": app.state.services.accounts.create("Acme").api_key}

    with TestClient(app) as client:
        url = f"https://127.0.0.1:{closed_port()}/hook"
        hook = client.post("/api/v1/webhooks", json={"name": "Down", "url": url}, headers=headers).json()["data"]
        client.post(f"/api/v1/webhooks/{hook['id']}/test", headers=headers)

        def retries() -> float | None:
            return sample(client.get("/metrics").text, "engage_webhook_deliveries_total", outcome="retry")

        wait_for(lambda: retries() == 1.0)
        text = client.get("/metrics").text

    assert sample(text, "engage_webhook_queue_depth") == 1.0  # the retry, due later


def test_the_job_queue_gauges_count_unfinished_jobs_by_kind(database: Database) -> None:
    """`engage_job_queue_depth{kind}` counts a kind's unfinished jobs; the age is how long the oldest due one waited."""
    services = Services.build(database.uow, FakeClock(START), cipher=FakeCipher(), guard=AllowAllTargets())
    account = services.accounts.create("Acme").account.id
    with database.uow.workspace(account) as uow:
        uow.jobs.enqueue(JobRequest("knowledge_base.crawl", key="entry:1"), START)
        uow.jobs.enqueue(JobRequest("knowledge_base.crawl", key="entry:2"), START)
        uow.commit()
    metrics = Metrics(now=lambda: START + timedelta(seconds=30))
    metrics.watch_jobs(database.job_queue().backlog)

    text = metrics.exposition().decode()

    assert sample(text, "engage_job_queue_depth", kind="knowledge_base.crawl") == 2
    assert sample(text, "engage_job_oldest_due_age_seconds", kind="knowledge_base.crawl") == 30


def test_job_outcomes_are_counted_by_kind() -> None:
    """Each job run's outcome adds one to `engage_jobs_total{kind, outcome}`."""
    metrics = Metrics()
    metrics.job_outcome("knowledge_base.crawl", "succeeded")
    metrics.job_outcome("knowledge_base.crawl", "deferred")
    metrics.job_outcome("knowledge_base.crawl", "succeeded")

    text = metrics.exposition().decode()

    assert sample(text, "engage_jobs_total", kind="knowledge_base.crawl", outcome="succeeded") == 2
    assert sample(text, "engage_jobs_total", kind="knowledge_base.crawl", outcome="deferred") == 1


def test_metrics_on_without_prometheus_client_are_refused(tmp_path: Path) -> None:
    """`ENGAGE_METRICS=on` without the extra stops start-up with an error naming the extra."""
    result = _run_without_prometheus_client(tmp_path, metrics=True)

    assert result.returncode != 0
    assert "engage-platform[metrics]" in result.stderr


def test_the_app_runs_without_prometheus_client(tmp_path: Path) -> None:
    """With metrics off, the app imports, starts and answers when `prometheus_client` is not installed."""
    result = _run_without_prometheus_client(tmp_path, metrics=False)

    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["200", "404"]


def _run_without_prometheus_client(tmp_path: Path, *, metrics: bool) -> subprocess.CompletedProcess[str]:
    """Build the app and ask `/health` and `/metrics` in a process where `prometheus_client` cannot be
    imported (a process of its own: this one has imported it already)."""
    script = textwrap.dedent(
        f"""
        import sys
        sys.modules["prometheus_client"] = None  # importing it now raises ImportError
        from starlette.testclient import TestClient
        from engage_core.settings import Settings
        from engage_http.bootstrap import build_app
        settings = Settings(
            database_url="sqlite:///{tmp_path / "engage.db"}", secret_key="k" * 32, run_worker=False, metrics={metrics}
        )
        with TestClient(build_app(settings)) as client:
            print(client.get("/health").status_code, client.get("/metrics").status_code)
        """
    )
    return subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env={"PYTHONPATH": str(ROOT)}, capture_output=True, text=True
    )


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def wait_for(condition: Callable[[], bool], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "the condition was not met in time"
        time.sleep(0.05)
