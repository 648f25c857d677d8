"""One workspace's heaviest legal writes do not hold up another workspace's write on SQLite's write
lane (the app as composed on SQLite: real database, real lane)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Hashable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import httpx
import pytest

from engage_core.kernel.clock import SystemClock
from engage_core.kernel.rate_limits import InMemoryRateLimiter, RateLimitPolicy
from engage_core.services import Services
from engage_http import create_app
from engage_http.rate_limit import RequestRateLimiter
from engage_sql import Database
from engage_sql.write_lane import WriteLane

R = TypeVar("R")

ROUNDS = 5
HEAVY = 5
"""Heaviest requests of the busy workspace queued ahead of the other workspace's write, each round."""


class CountingLane:
    """The real lane, counting the write jobs that reached it (to know when the busy workspace's have,
    whether the lane took them or sent them to run outside it, as it does after a slow job)."""

    def __init__(self, lane: WriteLane) -> None:
        self.lane = lane
        self.arrived = 0

    def admits(self, key: Hashable, size: int) -> bool:
        self.arrived += 1
        return self.lane.admits(key, size)

    async def run(self, fn: Callable[[], R], *, key: Hashable = None) -> R:
        return await self.lane.run(fn, key=key)


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Any, CountingLane, str, str]]:
    """The app on a SQLite file with its lane, and the keys of a busy and a quiet workspace."""
    database = Database.connect(f"sqlite:///{tmp_path / 'engage.db'}")
    database.upgrade()
    clock = SystemClock()
    services = Services.build(database.uow, clock)
    busy, quiet = services.accounts.create("Busy"), services.accounts.create("Quiet")
    groups = database.uow.write_groups
    assert groups is not None
    lane = CountingLane(WriteLane(groups))
    limiter = RequestRateLimiter(InMemoryRateLimiter(), RateLimitPolicy(10_000, 60), clock)
    app = create_app(services, short_reads=database.short_reads(), write_lane=lane, rate_limiter=limiter)
    yield app, lane, busy.api_key, quiet.api_key
    lane.lane.close()
    database.dispose()


def _heaviest_contact(round_: int, n: int) -> dict[str, Any]:
    """The largest legal contact: 100 new tags of 100 characters each."""
    tags = [f"r{round_} c{n} t{t:03d} ".ljust(100, "x") for t in range(100)]
    return {"name": "N" * 255, "type": "whatsapp", "phone": f"+9665{round_:02d}{n:02d}{0:04d}", "tags": tags}


def test_a_workspaces_heaviest_writes_delay_anothers_by_under_100_ms(
    served: tuple[Any, CountingLane, str, str],
) -> None:
    """With five of the busiest workspace's heaviest writes queued first, another workspace's one-line write
    takes less than 100 ms longer than alone (the fastest of five rounds each, so a loaded machine's
    stalls do not count)."""
    app, lane, busy, quiet = served

    async def main() -> tuple[float, float]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://engage/api/v1") as client:

            async def post(key: str, body: dict[str, Any]) -> float:
                started = time.perf_counter()
                response = await client.post("/contacts", json=body, headers={"X-Api-Key": key})
                assert response.status_code == 201, response.text
                return time.perf_counter() - started

            alone = [await post(quiet, {"name": f"Alone {n}", "type": "instagram"}) for n in range(ROUNDS)]
            contended = []
            for round_ in range(ROUNDS):
                arrived = lane.arrived
                heavy = [asyncio.create_task(post(busy, _heaviest_contact(round_, n))) for n in range(HEAVY)]
                while lane.arrived < arrived + HEAVY:  # every heavy write reached the lane before the quiet one
                    await asyncio.sleep(0.001)
                contended.append(await post(quiet, {"name": f"Other {round_}", "type": "instagram"}))
                await asyncio.gather(*heavy)
            return min(alone), min(contended)

    alone, contended = asyncio.run(main())

    assert contended - alone < 0.1, f"alone {alone * 1000:.0f} ms, behind the heavy writes {contended * 1000:.0f} ms"
