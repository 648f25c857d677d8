"""Writes on the write lane (`create_app(write_lane=...)`): which requests go there, and the same answers."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import Any, TypeVar

from http_support import Api, ThreadRecordingUnitOfWork
from starlette.testclient import TestClient

from engage_core.kernel.clock import SystemClock
from engage_core.kernel.rate_limits import InMemoryRateLimiter, RateLimitPolicy
from engage_core.services import Services
from engage_core.settings import Settings
from engage_core.testing import AllowAllTargets, FakeCipher, FakeClock
from engage_http import create_app
from engage_http.areas import OPERATIONS
from engage_http.bootstrap import build_app
from engage_http.rate_limit import RequestRateLimiter
from engage_sql import Database
from engage_sql.areas import SHORT_READS

R = TypeVar("R")

LANE_THREAD = "test-lane"


class OneThreadLane:
    """A write lane that runs each job on a thread of its own name and counts them (and their keys);
    it admits bodies up to `max_bytes`."""

    def __init__(self, max_bytes: int = 1 << 20) -> None:
        self.jobs = 0
        self.keys: list[Hashable] = []
        self.max_bytes = max_bytes

    def admits(self, key: Hashable, size: int) -> bool:
        return size <= self.max_bytes

    async def run(self, fn: Callable[[], R], *, key: Hashable = None) -> R:
        self.jobs += 1
        self.keys.append(key)
        result: list[R] = []
        errors: list[BaseException] = []

        def target() -> None:
            try:
                result.append(fn())
            except BaseException as exc:
                errors.append(exc)

        thread = threading.Thread(target=target, name=LANE_THREAD)
        thread.start()
        await asyncio.to_thread(thread.join)
        if errors:
            raise errors[0]
        return result[0]


def _api(*, limit: int = 1000, max_bytes: int = 1 << 20) -> tuple[Api, ThreadRecordingUnitOfWork, OneThreadLane]:
    uow = ThreadRecordingUnitOfWork()
    clock = FakeClock()
    services = Services.build(uow, clock, cipher=FakeCipher(), guard=AllowAllTargets())
    issued = services.accounts.create("Acme")
    lane = OneThreadLane(max_bytes)
    limiter = RequestRateLimiter(InMemoryRateLimiter(), RateLimitPolicy(limit, 60), clock)
    client = TestClient(create_app(services, short_reads=SHORT_READS, write_lane=lane, rate_limiter=limiter))
    uow.threads.clear()
    return Api(client, {"X-Api-Key": issued.api_key}), uow, lane


def test_a_contact_is_created_on_the_lane() -> None:
    """`POST /contacts` runs its unit of work on the lane's thread and answers 201 as usual."""
    api, uow, lane = _api()

    response = api.post("/contacts", json={"name": "Ada", "type": "instagram"})

    assert (response.status_code, response.json()["data"]["name"]) == (201, "Ada")
    assert (lane.jobs, uow.threads) == (1, [LANE_THREAD])


def test_a_write_the_lane_refuses_runs_in_a_worker_thread() -> None:
    """A body the lane does not admit is handled in a worker thread, in its own transaction, with the same answer."""
    api, uow, lane = _api(max_bytes=10)

    response = api.post("/contacts", json={"name": "Ada", "type": "instagram"})

    assert (response.status_code, lane.jobs) == (201, 0)
    assert uow.threads and LANE_THREAD not in uow.threads


def test_lane_jobs_take_the_turn_of_their_credential() -> None:
    """Each write's key on the lane is the credential it was sent with, so each workspace has its turn."""
    api, _, lane = _api()

    api.post("/contacts", json={"name": "Ada", "type": "instagram"})

    assert lane.keys == [api.headers["X-Api-Key"].encode()]


def test_a_read_is_not_sent_to_the_lane() -> None:
    """A read keeps its own path: the lane sees only writes."""
    api, _, lane = _api()
    created = api.post("/contacts", json={"name": "Ada", "type": "instagram"}).json()["data"]

    assert api.get(f"/contacts/{created['id']}").status_code == 200
    assert lane.jobs == 1


def test_an_invalid_body_on_the_lane_is_the_usual_422() -> None:
    """A write refused on the lane answers with the same envelope and field errors as anywhere."""
    api, _, _ = _api()

    body = api.post("/contacts", json={"name": "Ada", "type": "whatsapp"}).json()

    assert body["success"] is False
    assert "phone" in body["errors"]


def test_a_bad_key_on_the_lane_is_the_usual_401() -> None:
    """Authentication runs on the lane too, and refuses with the one 401 body."""
    api, uow, _ = _api()

    response = api.post("/contacts", json={"name": "Ada", "type": "instagram"}, headers={"X-Api-Key": "nope"})

    assert (response.status_code, response.json()["success"], uow.threads) == (401, False, [])


def test_answers_from_the_lane_carry_the_rate_limit_headers() -> None:
    """The rate limit applies to lane writes as to every request, headers included."""
    api, _, _ = _api(limit=1)

    first = api.post("/contacts", json={"name": "Ada", "type": "instagram"})
    second = api.post("/contacts", json={"name": "Bob", "type": "instagram"})

    assert (first.headers["X-RateLimit-Remaining"], second.status_code) == ("0", 429)


LANE_AREAS = {"Contacts", "Tags", "Lists", "Segments", "Support tickets", "Bookings", "Booking setup", "AI agents"}
"""The areas (operation tags) whose writes are database work only, so may run on the lane."""


def test_every_write_of_the_lane_areas_goes_to_the_lane() -> None:
    """Each write of the lane's areas is declared for the lane."""
    writes = [op for op in OPERATIONS if op.tag in LANE_AREAS and op.method not in ("GET", "HEAD")]

    assert writes and all(op.write_lane for op in writes)


CAMPAIGN_LANE = {
    ("POST", "/campaigns"),
    ("PUT", "/campaigns/{id:id}"),
    ("DELETE", "/campaigns/{id:id}"),
    ("POST", "/campaigns/{id:id}/pause"),
    ("POST", "/campaigns/{id:id}/resume"),
}
"""The campaigns' short writes; starting (the snapshot) and cancelling (every pending recipient) may
write many rows, so they keep their worker thread."""
LANE_OPERATIONS = {
    ("POST", "/orders"),
    ("POST", "/conversations/{contact_id:id}/take-over"),
    ("POST", "/conversations/{contact_id:id}/release"),
    *CAMPAIGN_LANE,
}
"""Outside the lane's areas, the writes that are database work only: placing an order, taking a
conversation over from the AI or releasing it (marking one read is not declared), and the
campaigns' short writes."""


def test_no_write_of_another_area_goes_to_the_lane_but_those_listed() -> None:
    """Outside the lane's areas, only placing an order, the conversation's take-over and release, and
    the campaigns' short writes are declared for the lane."""
    others = {(op.method, op.path) for op in OPERATIONS if op.write_lane and op.tag not in LANE_AREAS}

    assert others == LANE_OPERATIONS


def test_a_take_over_runs_on_the_lane() -> None:
    """`POST /conversations/{id}/take-over` runs its unit of work on the lane's thread and answers 200."""
    api, uow, lane = _api()
    contact = api.post("/contacts", json={"name": "Ada", "type": "instagram"}).json()["data"]
    uow.threads.clear()

    response = api.post(f"/conversations/{contact['id']}/take-over")

    assert (response.status_code, response.json()["data"]["handled_by"]) == (200, "human")
    assert (lane.jobs, uow.threads) == (2, [LANE_THREAD])


def test_only_writes_go_to_the_lane() -> None:
    """No read is marked for the lane: reads have the inline path and the readers' pool."""
    assert not [op for op in OPERATIONS if op.write_lane and op.method in ("GET", "HEAD")]


def test_the_sqlite_app_writes_through_its_lane_and_stops_it(tmp_path: Path) -> None:
    """The composed app on SQLite creates contacts through its lane; leaving its lifespan stops the lane."""
    url = f"sqlite:///{tmp_path / 'engage.db'}"
    database = Database.connect(url)
    database.upgrade()
    issued = Services.build(database.uow, SystemClock()).accounts.create("Acme")
    database.dispose()
    settings = Settings.from_env({"ENGAGE_DATABASE_URL": url, "ENGAGE_RUN_WORKER": "0"})

    before = _lane_threads()  # other apps' lanes (of tests in this process) are not this one's
    with TestClient(build_app(settings)) as client:
        statuses = [
            client.post(
                "/api/v1/contacts", json={"name": f"C{n}", "type": "instagram"}, headers={"X-Api-Key": issued.api_key}
            ).status_code
            for n in range(3)
        ]
        started = _lane_threads() - before
        listed: Any = client.get("/api/v1/contacts", headers={"X-Api-Key": issued.api_key}).json()

    assert (statuses, len(started), listed["meta"]["total"]) == ([201, 201, 201], 1, 3)
    assert not any(thread.is_alive() for thread in started)


def _lane_threads() -> set[threading.Thread]:
    return {thread for thread in threading.enumerate() if thread.name == "engage-write-lane"}


def test_of_the_orders_only_placing_one_goes_to_the_lane() -> None:
    """Placing an order is database work only; status changes may call the store connector, so they
    keep their worker thread."""
    assert {(op.method, op.path) for op in OPERATIONS if op.tag == "Orders" and op.write_lane} == {("POST", "/orders")}
