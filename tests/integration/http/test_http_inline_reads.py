"""Short reads on the event loop (`create_app(short_reads=...)`): which requests, and the same answers."""

from __future__ import annotations

from typing import Any

import pytest
from http_support import Api, ThreadRecordingUnitOfWork
from starlette.testclient import TestClient

from engage_core.contacts.model import ContactFilter, ContactInput
from engage_core.kernel.pagination import PageRequest
from engage_core.services import Services
from engage_core.testing import AllowAllTargets, FakeCipher, FakeClock
from engage_http import create_app
from engage_sql.areas import SHORT_READS
from engage_sql.contacts.contacts import SHORT_PAGE_END, is_short_page


def _api(*, inline_reads: bool) -> tuple[Api, ThreadRecordingUnitOfWork]:
    uow = ThreadRecordingUnitOfWork()
    services = Services.build(uow, FakeClock(), cipher=FakeCipher(), guard=AllowAllTargets())
    issued = services.accounts.create("Acme")
    for n in range(3):
        services.contacts.create(issued.account.id, ContactInput(name=f"Contact {n}", type="instagram"))
    client = TestClient(create_app(services, short_reads=SHORT_READS if inline_reads else None))
    uow.threads.clear()
    return Api(client, {"X-Api-Key": issued.api_key}), uow


def _in_worker_thread(name: str) -> bool:
    return name.startswith("engage-")


def test_unfiltered_first_page_runs_on_the_event_loop() -> None:
    """With inline reads, `GET /contacts?per_page=15` is answered without a worker-thread hop."""
    api, uow = _api(inline_reads=True)

    assert api.get("/contacts", params={"per_page": 15}).status_code == 200
    assert [_in_worker_thread(name) for name in uow.threads] == [False]


def test_filtered_page_runs_in_a_worker_thread() -> None:
    """A search may scan every contact of the account: it keeps its worker thread."""
    api, uow = _api(inline_reads=True)

    assert api.get("/contacts", params={"search": "contact"}).status_code == 200
    assert [_in_worker_thread(name) for name in uow.threads] == [True]


def test_without_inline_reads_every_page_runs_in_a_worker_thread() -> None:
    """The default (PostgreSQL, the fakes): no request runs on the event loop."""
    api, uow = _api(inline_reads=False)

    assert api.get("/contacts").status_code == 200
    assert [_in_worker_thread(name) for name in uow.threads] == [True]


@pytest.mark.parametrize(
    "params",
    [{}, {"per_page": 2, "page": 2}, {"search": "contact 1"}, {"page": 0}, {"type": "fax"}],
    ids=["first-page", "second-page", "search", "invalid-page", "invalid-type"],
)
def test_inline_and_worker_thread_answers_are_the_same(params: dict[str, Any]) -> None:
    """Running on the event loop changes nothing a client sees: status and body, errors included."""
    inline, _ = _api(inline_reads=True)
    threaded, _ = _api(inline_reads=False)

    first, second = inline.get("/contacts", params=params), threaded.get("/contacts", params=params)

    assert (first.status_code, first.json()) == (second.status_code, second.json())


def test_unauthenticated_inline_read_is_refused() -> None:
    """Authentication runs on the event loop too, with the same 401."""
    api, uow = _api(inline_reads=True)

    response = api.get("/contacts", headers={"X-Api-Key": "eng_not-a-key"})

    assert (response.status_code, uow.threads) == (401, [])


@pytest.mark.parametrize(
    ("filters", "page", "short"),
    [
        (ContactFilter(), PageRequest(page=1, per_page=15), True),
        (ContactFilter(), PageRequest(page=SHORT_PAGE_END // 100, per_page=100), True),
        (ContactFilter(), PageRequest(page=SHORT_PAGE_END // 100 + 1, per_page=100), False),
        (ContactFilter(type="whatsapp"), PageRequest(), False),
        (ContactFilter(tag="VIP"), PageRequest(), False),
    ],
    ids=["first-page", "last-short-page", "deep-page", "type-filter", "tag-filter"],
)
def test_short_reads_are_unfiltered_pages_near_the_start(
    filters: ContactFilter, page: PageRequest, short: bool
) -> None:
    """Only unfiltered pages that end within `SHORT_PAGE_END` rows count as short reads."""
    assert is_short_page(filters, page) is short
