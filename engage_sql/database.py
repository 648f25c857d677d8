"""`Database`: the one object an application composes engage_sql through."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from typing import TYPE_CHECKING, TypeVar

from sqlalchemy import Engine, exists, func, select

from engage_core.kernel.clock import Clock
from engage_core.kernel.events import DomainEvent
from engage_sql import migrate
from engage_sql.accounts.admissions import AdmissionCache, admission_listener
from engage_sql.accounts.tables import accounts
from engage_sql.areas import SHORT_READS
from engage_sql.engines import create_engine, create_pool_engine, create_read_engine, readonly_options
from engage_sql.idempotency.store import SqlIdempotencyStore
from engage_sql.jobs.queue import SqlJobQueue
from engage_sql.notices import NoticeListener
from engage_sql.registry import ShortRead
from engage_sql.unit_of_work import SqlUnitOfWorkFactory
from engage_sql.webhooks import outbox
from engage_sql.webhooks.delivery_queue import SqlDeliveryQueue
from engage_sql.webhooks.tables import webhook_attempts, webhooks
from engage_sql.write_lane import WriteLane, loop_outbound_guard, outbound_guard

if TYPE_CHECKING:
    from engage_sql.loop_calls import LoopCalls, LoopWriteLane

P = TypeVar("P")

LOOP_CALLS = 8
"""How many short reads, and how many short writes, run on the event loop at once on PostgreSQL
(`Database.loop_calls`)."""


class Database:
    """An engine and the unit-of-work factory over it. Share one per process; it is thread-safe."""

    def __init__(self, engine: Engine, clock: Clock | None = None, *, read_only_guard: bool = True) -> None:
        self.engine = engine
        self.read_only_guard = read_only_guard
        self.read_engine = create_read_engine(engine, read_only_guard=read_only_guard)
        """PostgreSQL's engine of read-only units of work (`engines.create_read_engine`); None on SQLite."""
        self.admissions = AdmissionCache() if engine.dialect.name == "postgresql" else None
        """PostgreSQL's kept admissions (`engage_sql.accounts.admissions`): used once a listener hears
        every change (`admission_listener`); None on SQLite."""
        self.uow = SqlUnitOfWorkFactory(engine, clock, read_engine=self.read_engine, admissions=self.admissions)

    @classmethod
    def connect(cls, url: str, clock: Clock | None = None, *, read_only_guard: bool = True) -> Database:
        """`sqlite:///./engage.db` or `postgresql://user@host/db`. Connects lazily, on first use.

        `read_only_guard`: on PostgreSQL, open the read-only units of work's connections read-only
        (`engines.create_read_engine`); turn it off behind a pooler in transaction mode."""
        return cls(create_engine(url), clock, read_only_guard=read_only_guard)

    def upgrade(self) -> list[str]:
        """Apply pending migrations; the revisions applied, oldest first (empty when up to date)."""
        return migrate.upgrade(self.engine)

    def head_revision(self) -> str:
        """The latest migration this code knows (reads the scripts: once, at start-up)."""
        return migrate.head_revision()

    def stored_revision(self) -> str | None:
        """The migration the database is at (None: never migrated), in one short read-only
        transaction; raises when the database does not answer."""
        with self.engine.connect() as connection:
            readonly_options(connection)
            return migrate.stored_revision(connection)

    def newest_webhook_secret(self) -> str | None:
        """The encrypted signing secret of the newest webhook subscription (None: there is none), for
        a check that the secret key still decrypts what is stored."""
        with self.engine.connect() as connection:
            readonly_options(connection)
            newest = select(webhooks.c.secret_ciphertext).order_by(webhooks.c.id.desc()).limit(1)
            return connection.execute(newest).scalar_one_or_none()

    def webhook_backlog(self) -> tuple[int, datetime | None]:
        """The webhook attempts waiting to be sent (`pending`, leased or not) and the earliest moment
        one of them is due (None: none waits), in one read over the claim's index (metrics)."""
        with self.engine.connect() as connection:
            readonly_options(connection)
            pending = select(func.count(), func.min(webhook_attempts.c.due_at)).where(
                webhook_attempts.c.status == "pending"
            )
            depth, earliest = connection.execute(pending).one()
            return int(depth), earliest

    def is_empty(self) -> bool:
        """No account exists yet (a fresh installation)."""
        with self.engine.connect() as connection:
            readonly_options(connection)
            return not connection.execute(select(exists().select_from(accounts))).scalar_one()

    def outbox_events(self, account_id: int | None = None) -> list[DomainEvent]:
        """Events committed to the outbox, oldest first; of one account, or of all."""
        with self.engine.connect() as connection:
            readonly_options(connection)
            return outbox.read(connection, account_id)

    def delivery_queue(self) -> SqlDeliveryQueue:
        """The webhook delivery log as the worker's queue (`engage_core.webhooks.ports.DeliveryQueue`)."""
        return SqlDeliveryQueue(self.engine, groups=self.uow.write_groups)

    def job_queue(self) -> SqlJobQueue:
        """The jobs of every account as the worker's queue (`engage_core.jobs.ports.JobQueue`)."""
        return SqlJobQueue(self.engine, groups=self.uow.write_groups)

    def idempotency_store(self) -> SqlIdempotencyStore:
        """The idempotency keys of the HTTP API (`engage_core.kernel.idempotency.IdempotencyStore`),
        committing with the units of work's write groups on SQLite."""
        return SqlIdempotencyStore(self.engine, groups=self.uow.write_groups)

    def write_lane(self, loop_calls: LoopCalls | None = None) -> WriteLane | LoopWriteLane | None:
        """On SQLite, a new write lane over this database's write groups; on PostgreSQL, whose
        transactions commit concurrently, the short writes run on the event loop by `loop_calls`
        (`LoopCalls.write_lane`; None without it). Close it before disposing of the database."""
        groups = self.uow.write_groups
        if groups is not None:
            return WriteLane(groups)
        return None if loop_calls is None else loop_calls.write_lane()

    def short_reads(self) -> Mapping[type, ShortRead]:
        """The reads that may run on the event loop, by the core filter type they take: a read that
        is always a few indexed rows costs less there than the hand-off to a worker thread. On
        SQLite in WAL mode such a read takes no lock a writer holds and waits for no fsync; on
        PostgreSQL it runs through `loop_calls`, which waits for the server without blocking the loop."""
        return SHORT_READS

    def admission_listener(self) -> NoticeListener | None:
        """On PostgreSQL, a new listener for the changes of what admission reads: while it runs, the
        admissions this process reads are kept between requests (`engage_sql.accounts.admissions`).
        None on SQLite. Start it, and stop it before disposing of the database."""
        if self.admissions is None:
            return None
        return admission_listener(self.engine, self.admissions)

    def loop_calls(self, size: int = LOOP_CALLS) -> LoopCalls | None:
        """On PostgreSQL, a new runner of short requests on the event loop (`engage_sql.loop_calls`):
        the short reads, and the short writes through its `write_lane()`, at most `size` of each
        at once; None on SQLite, whose short reads run as they are (on a pinned reader,
        `SqlUnitOfWorkFactory.pin_reader`) and whose writes have their own lane (`write_lane`).
        Close it before disposing of the database."""
        if self.engine.dialect.name != "postgresql":
            return None
        from engage_sql.loop_calls import CooperativeConnection, LoopCalls, call_connection  # needs greenlet

        connect = CooperativeConnection.connect
        reads = create_read_engine(
            self.engine, read_only_guard=self.read_only_guard, pool_size=2 * size, max_overflow=0, connect=connect
        )
        assert reads is not None
        writes = create_pool_engine(self.engine, connect, pool_size=size, max_overflow=0)
        self.uow.use_call_connections(call_connection)
        return LoopCalls(reads, writes, self.uow, size=size)

    def outbound_guard(self) -> Callable[[P, str], P]:
        """What the composition root wraps every outbound port in: on SQLite, a call made in the
        middle of a write-lane batch (whose changes are not durable yet) raises
        `write_lane.OutboundCallInBatch` at once; on PostgreSQL, a call made by a short request
        running on the event loop (`loop_calls`) raises `write_lane.OutboundCallOnLoop`."""
        groups = self.uow.write_groups
        if groups is not None:
            return outbound_guard(groups)
        from engage_sql.loop_calls import in_loop_call  # needs greenlet, which PostgreSQL's extra brings

        return loop_outbound_guard(in_loop_call)

    def dispose(self) -> None:
        """Close every pooled connection."""
        if self.uow.write_groups is not None:
            self.uow.write_groups.close()
        if self.read_engine is not None:
            self.read_engine.pool.dispose()
        self.engine.dispose()

    def __repr__(self) -> str:
        return f"Database({self.engine.url.render_as_string(hide_password=True)!r})"
