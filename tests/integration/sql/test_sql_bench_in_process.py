"""`bench/postgres_in_process.py` keeps measuring the knowledge-base search and the campaign drain."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from sqlalchemy.engine import make_url

from bench import postgres_in_process as in_process
from bench.wire import WireCounter


def _no_backends(_database: str) -> float:
    return 0.0


def test_the_knowledge_search_path_reports_searches_per_second_and_cpu(make_database_url: Callable[..., str]) -> None:
    """A small knowledge base is searched, and the rate and CPU per search come out positive."""
    url = make_database_url(migrated=False)
    account = in_process.knowledge_fill(url, 200)

    rate = in_process.knowledge_run(url, account, in_process.knowledge_questions(30), 1, None, _no_backends)

    assert rate.rate > 0 and rate.engage_us > 0


def test_the_campaign_drain_path_reports_messages_per_second_and_cpu(make_database_url: Callable[..., str]) -> None:
    """A small campaign is drained, and the rate and CPU per message come out positive."""
    rate = in_process.campaign_run(make_database_url(migrated=False), 1000, 0.5, 1, None, _no_backends, warmup=0)

    assert rate.rate > 0 and rate.engage_us > 0


def test_the_knowledge_search_is_counted_on_the_wire(backend: str, make_database_url: Callable[..., str]) -> None:
    """Through the relay, each search is counted in statements and round trips."""
    if backend != "postgres":
        pytest.skip("round trips are PostgreSQL's: SQLite runs in the process")
    url = make_url(make_database_url(migrated=False))
    account = in_process.knowledge_fill(url.render_as_string(hide_password=False), 200)
    relay = WireCounter(url.host or "127.0.0.1", url.port or 5432)
    relayed = url.set(host="127.0.0.1", port=relay.start(), query={"sslmode": "disable", "gssencmode": "disable"})

    counts = in_process.knowledge_count(
        relayed.render_as_string(hide_password=False), account, in_process.knowledge_questions(30), relay
    )

    assert counts.executed >= 1 and counts.round_trips >= 1
