"""`GET /health` (liveness) and `GET /ready` (readiness), for load balancers and orchestrators.

Both sit outside `/api/v1`: they take no key, are not rate limited and are not part of the workspace
API's OpenAPI document (they are operational, documented in docs/operations.md). `/health` answers 200
whenever the process answers. `/ready` runs the readiness probes the composition root hands over
(the database answers and is at the latest migration, the delivery worker is alive when this process
runs one, the secret key decrypts the stored webhook secrets) and answers 200 when every check
passes, else 503; the body names each check.

The probes block (they query the database), so they run in a thread, one run at a time, and their
report is kept for `ttl_seconds`: a flood of unauthenticated probes costs at most one run per
interval. A run that takes longer than `timeout_seconds` (a database that does not answer at all)
reports not ready. The body says which check failed in a fixed phrase; the reason (an error of the
database driver, say) is only logged, once when a check starts failing and once when it recovers.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Protocol

import attrs
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

logger = logging.getLogger("engage.health")

TTL_SECONDS = 2.0
TIMEOUT_SECONDS = 5.0
NO_STORE = {"Cache-Control": "no-store"}


@attrs.frozen
class Check:
    """One check's outcome: `detail` is shown in `/ready`'s body, `reason` (internal) only logged."""

    name: str
    ok: bool
    detail: str
    reason: str = ""


Probe = Callable[[], Iterable[Check]]
"""Runs one or more checks (blocking); never raises."""


@attrs.frozen
class Report:
    ready: bool
    checks: tuple[Check, ...]

    def body(self) -> dict[str, object]:
        return {
            "status": "ready" if self.ready else "not ready",
            "checks": {check.name: {"ok": check.ok, "detail": check.detail} for check in self.checks},
        }


class Readiness:
    """The probes' report, one run at a time, kept for `ttl_seconds`. Used on one event loop."""

    def __init__(
        self,
        probes: Sequence[Probe] = (),
        *,
        ttl_seconds: float = TTL_SECONDS,
        timeout_seconds: float = TIMEOUT_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._probes = tuple(probes)
        self._ttl = ttl_seconds
        self._timeout = timeout_seconds
        self._clock = clock
        self._report: Report | None = None
        self._reported_at = 0.0
        self._running: asyncio.Future[Report] | None = None
        self._failing: set[str] = set()

    async def report(self) -> Report:
        if self._report is not None and self._clock() - self._reported_at < self._ttl:
            return self._report
        if self._running is None:
            self._running = asyncio.get_running_loop().run_in_executor(None, self._run)
            self._running.add_done_callback(self._finished)
        try:
            return await asyncio.wait_for(asyncio.shield(self._running), self._timeout)
        except TimeoutError:
            failed = Check("probes", False, "the checks did not finish in time", f"over {self._timeout:g} s")
            self._log((failed,))
            return Report(False, (failed,))

    def _run(self) -> Report:
        checks = tuple(check for probe in self._probes for check in probe())
        self._log(checks)
        return Report(all(check.ok for check in checks), checks)

    def _finished(self, future: asyncio.Future[Report]) -> None:
        self._running = None
        if not future.cancelled() and future.exception() is None:
            self._report = future.result()
            self._reported_at = self._clock()

    def _log(self, checks: Iterable[Check]) -> None:
        """A warning when a check starts failing, a line when it passes again."""
        for check in checks:
            if not check.ok and check.name not in self._failing:
                self._failing.add(check.name)
                logger.warning("Not ready: %s: %s (%s)", check.name, check.detail, check.reason or "no reason given")
            elif check.ok and check.name in self._failing:
                self._failing.discard(check.name)
                logger.info("Ready again: %s", check.name)


def database_probe(stored_revision: Callable[[], str | None], head: str, *needing_schema: Probe) -> Probe:
    """`database`: a trivial query answers (reading the stored revision); `migrations`: the stored
    revision is `head`, the latest this code knows (computed once, at start-up). `needing_schema` run
    only when both pass (they read tables the schema may not have yet)."""

    def probe() -> Iterable[Check]:
        try:
            revision = stored_revision()
        except Exception as exc:  # any failure of the database is a failed check
            return (Check("database", False, "the database does not answer", _first_line(exc)),)
        database = Check("database", True, "answers")
        if revision != head:
            reason = f"stored revision {revision or 'none'}, latest {head}"
            return database, Check("migrations", False, "the schema is not at the latest migration", reason)
        return (
            database,
            Check("migrations", True, "at the latest migration"),
            *(c for p in needing_schema for c in p()),
        )

    return probe


class Running(Protocol):
    @property
    def running(self) -> bool: ...


def worker_probe(
    current: Callable[[], Running | None],
    *,
    expected: bool,
    jobs: Callable[[], Running | None] | None = None,
) -> Probe:
    """`worker`: when this process should run the delivery worker, `current()` is a running one;
    and when it runs a job runner (`jobs`, asked only then), `jobs()` is a running one too."""

    def probe() -> Iterable[Check]:
        if not expected:
            return (Check("worker", True, "not run by this process"),)
        worker = current()
        if worker is None:
            return (Check("worker", False, "the delivery worker has not started", "the app's lifespan has not run"),)
        if not worker.running:
            return (Check("worker", False, "the delivery worker is not running", "its thread has ended"),)
        if jobs is not None:
            runner = jobs()
            if runner is None:
                return (Check("worker", False, "the job runner has not started", "the app's lifespan has not run"),)
            if not runner.running:
                return (Check("worker", False, "the job runner is not running", "its thread has ended"),)
        return (Check("worker", True, "running"),)

    return probe


def secret_probe(newest_secret: Callable[[], str | None], decrypt: Callable[[str], str]) -> Probe:
    """`secret_key`: the newest stored webhook secret decrypts with this process's key (a key changed
    or mistyped would make every delivery fail)."""

    def probe() -> Iterable[Check]:
        try:
            ciphertext = newest_secret()
        except Exception as exc:  # the database failing between two checks
            return (Check("secret_key", False, "the stored secrets cannot be read", _first_line(exc)),)
        if ciphertext is None:
            return (Check("secret_key", True, "no secret stored yet"),)
        try:
            decrypt(ciphertext)
        except Exception as exc:  # a wrong key, a damaged value: not ready either way
            return (Check("secret_key", False, "the secret key does not decrypt the stored secrets", _first_line(exc)),)
        return (Check("secret_key", True, "decrypts the stored secrets"),)

    return probe


def _first_line(exc: BaseException) -> str:
    text = str(getattr(exc, "orig", None) or exc).strip()
    return f"{type(exc).__name__}: {text.splitlines()[0] if text else ''}"


async def health(request: Request) -> Response:
    return JSONResponse({"status": "ok"}, headers=NO_STORE)


def routes(readiness: Readiness) -> list[Route]:
    """`/health` and `/ready` (GET and HEAD)."""

    async def ready(request: Request) -> Response:
        report = await readiness.report()
        return JSONResponse(report.body(), status_code=200 if report.ready else 503, headers=NO_STORE)

    return [
        Route("/health", health, methods=["GET"], name="health"),
        Route("/ready", ready, methods=["GET"], name="ready"),
    ]
