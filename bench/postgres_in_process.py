"""The hot paths `bench.postgres` runs in its own process, with no HTTP in front: the knowledge-base
search and the campaign drain (the webhook worker is `bench.webhooks`').

Each is measured on one engine at a time, like the HTTP paths: its rate (searches, or messages
handed to the sandbox gateway, per second), the CPU of this process and of the PostgreSQL backends
connected to its database per search or message, and, through `bench.wire.WireCounter`, the
statements and round trips of each. This process's CPU counts all of its threads; the relay's is
idle while a path is measured, as it connects only the counting runs.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable

import attrs

from bench import campaigns, knowledge
from bench.wire import Counts, WireCounter
from engage_core.services import Services
from engage_sql import Database

SEARCH_WARMUP = 20
DRAIN_WARMUP_MESSAGES = 300


@attrs.frozen
class Rate:
    """Per second, and the CPU per unit of work of this process and of the database's backends."""

    rate: float
    engage_us: float
    postgres_us: float | None


def _measured(work: Callable[[], int], database: str | None, backends_cpu: Callable[[str], float]) -> Rate:
    """`work()` timed, returning how many units it did."""
    pg_before = backends_cpu(database) if database else 0.0
    cpu_before, started = time.process_time(), time.perf_counter()
    done = work()
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu_before
    pg = backends_cpu(database) - pg_before if database else None
    per = 1e6 / max(done, 1)
    return Rate(done / elapsed, cpu * per, None if pg is None else pg * per)


def _median(rates: list[Rate]) -> Rate:
    pg = [r.postgres_us for r in rates if r.postgres_us is not None]
    return Rate(
        statistics.median(r.rate for r in rates),
        statistics.median(r.engage_us for r in rates),
        statistics.median(pg) if pg else None,
    )


# -- knowledge-base search -----------------------------------------------------------------------


def knowledge_fill(url: str, chunks: int) -> int:
    """A new account on `url` with `chunks` knowledge-base chunks (`bench.knowledge`'s text); its id."""
    db = Database.connect(url)
    db.upgrade()
    try:
        account = Services.build(db.uow).accounts.create("Bench").account.id
        knowledge.fill(db, account, knowledge.Words(random.Random(knowledge.SEED)), chunks)
    finally:
        db.dispose()
    return account


def knowledge_questions(queries: int) -> list[str]:
    return knowledge.questions(knowledge.Words(random.Random(knowledge.SEED)), queries)


def _search_all(db: Database, account: int, asked: list[str]) -> int:
    """Each question in a read-only unit of work of its own (as the AI reply opens one); how many."""
    for question in asked:
        with db.uow.workspace(account, readonly=True) as uow:
            uow.knowledge_search.search(question, limit=5)
    return len(asked)


def knowledge_run(
    url: str, account: int, asked: list[str], rounds: int, database: str | None, backends_cpu: Callable[[str], float]
) -> Rate:
    """Searches per second and CPU per search: the median of `rounds` passes over `asked`."""
    db = Database.connect(url)
    try:
        _search_all(db, account, asked[:SEARCH_WARMUP])
        passes = [_measured(lambda: _search_all(db, account, asked), database, backends_cpu) for _ in range(rounds)]
        return _median(passes)
    finally:
        db.dispose()


def knowledge_count(url: str, account: int, asked: list[str], relay: WireCounter) -> Counts:
    """Statements and round trips per search, `url` connecting through the relay."""
    db = Database.connect(url)
    try:
        _search_all(db, account, asked[:SEARCH_WARMUP])
        relay.reset()
        searched = _search_all(db, account, asked)
        return relay.snapshot().per(searched)
    finally:
        db.dispose()


# -- campaign drain ----------------------------------------------------------------------------------


def campaign_run(
    url: str,
    contacts: int,
    seconds: float,
    rounds: int,
    database: str | None,
    backends_cpu: Callable[[str], float],
    *,
    warmup: int = DRAIN_WARMUP_MESSAGES,
) -> Rate:
    """Messages per second the send job hands to the sandbox (at most the campaign's highest rate)
    and CPU per message: the median of `rounds` runs of `seconds`, on a campaign to `contacts`
    (three quarters of them are its recipients), after `warmup` messages. The job sends in slices
    of 5 s (`campaigns.sender`): a run lasts at least one, and the warm-up too."""
    drain = campaigns.start(url, contacts)
    try:
        drain.run(messages=warmup)

        def sending() -> int:
            before = drain.sent()
            drain.run(seconds=seconds)
            return drain.sent() - before

        return _median([_measured(sending, database, backends_cpu) for _ in range(rounds)])
    finally:
        drain.close()


def campaign_count(url: str, contacts: int, messages: int, relay: WireCounter) -> Counts:
    """Statements and round trips per message sent, `url` connecting through the relay."""
    drain = campaigns.start(url, contacts)
    try:
        drain.run(messages=DRAIN_WARMUP_MESSAGES)
        relay.reset()
        before = drain.sent()
        drain.run(messages=messages)
        return relay.snapshot().per(drain.sent() - before)
    finally:
        drain.close()
