"""Pagination query parameters (SPEC 1.8, 8): integers, defaults, clamping and `meta`."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from http_support import Api, Tenant

from engage_core.contacts.model import Contact
from engage_core.testing import FakeClock
from engage_http.areas import OPERATIONS
from engage_http.operations import Shape


@pytest.fixture
def twenty_contacts(tenant: Tenant, make_contact: Callable[..., Contact], clock: FakeClock) -> list[Contact]:
    """Twenty contacts created a minute apart (oldest first)."""
    made = []
    for _ in range(20):
        made.append(make_contact(tenant))
        clock.advance(minutes=1)
    return made


def test_the_default_page_size_is_15(api: Api, twenty_contacts: list[Contact]) -> None:
    """Without `per_page`, a page holds 15 contacts."""
    body = api.get("/contacts").json()

    assert len(body["data"]) == 15
    assert body["meta"] == {"current_page": 1, "per_page": 15, "total": 20, "last_page": 2}


def test_the_second_page_holds_the_rest(api: Api, twenty_contacts: list[Contact]) -> None:
    """`page=2` holds what the first page did not, newest first."""
    body = api.get("/contacts", params={"page": 2}).json()

    assert [c["id"] for c in body["data"]] == [c.id for c in reversed(twenty_contacts[:5])]


def test_per_page_above_the_maximum_is_clamped(api: Api, twenty_contacts: list[Contact]) -> None:
    """`per_page=1000` is served as 100, and `meta.per_page` says so."""
    body = api.get("/contacts", params={"per_page": 1000}).json()

    assert body["meta"]["per_page"] == 100
    assert len(body["data"]) == 20


def test_a_page_past_the_end_is_empty(api: Api, twenty_contacts: list[Contact]) -> None:
    """A page beyond the last one is empty, with the real `last_page`."""
    body = api.get("/contacts", params={"page": 9}).json()

    assert body["data"] == []
    assert body["meta"]["last_page"] == 2


@pytest.mark.parametrize("value", ["abc", "1.5", "", "true", "0x10"])
def test_a_non_integer_per_page_is_422(api: Api, value: str) -> None:
    """`per_page` must be an integer."""
    response = api.get("/contacts", params={"per_page": value})

    assert response.status_code == 422
    assert response.json()["errors"] == {"per_page": ["The per_page must be an integer."]}


@pytest.mark.parametrize("name", ["page", "per_page"])
def test_zero_is_422(api: Api, name: str) -> None:
    """`page` and `per_page` must be at least 1."""
    response = api.get("/contacts", params={name: 0})

    assert response.status_code == 422
    assert response.json()["errors"] == {name: [f"The {name} must be at least 1."]}


def test_an_integral_number_is_an_integer(api: Api) -> None:
    """`per_page=5.0` is the integer 5, as JSON Schema reads numbers."""
    assert api.get("/contacts", params={"per_page": "5.0"}).json()["meta"]["per_page"] == 5


def test_errors_of_filters_and_paging_are_reported_together(api: Api) -> None:
    """One 422 names every bad query parameter."""
    response = api.get("/contacts", params={"page": "x", "type": "fax"})

    assert set(response.json()["errors"]) == {"page", "type"}


def test_list_members_are_paginated(
    api: Api, tenant: Tenant, make_contact: Callable[..., Contact], services_add_to_list: Callable[..., int]
) -> None:
    """`GET /contacts/lists/{id}/members` pages with `per_page` and reports `meta`."""
    list_id = services_add_to_list(tenant, [make_contact(tenant) for _ in range(3)])

    body = api.get(f"/contacts/lists/{list_id}/members", params={"per_page": 2}).json()

    assert len(body["data"]) == 2
    assert body["meta"] == {"current_page": 1, "per_page": 2, "total": 3, "last_page": 2}


def test_list_members_per_page_is_clamped(
    api: Api, tenant: Tenant, make_contact: Callable[..., Contact], services_add_to_list: Callable[..., int]
) -> None:
    """Members' `per_page` above 100 is clamped to 100."""
    list_id = services_add_to_list(tenant, [make_contact(tenant)])

    assert api.get(f"/contacts/lists/{list_id}/members", params={"per_page": 101}).json()["meta"]["per_page"] == 100


def test_repeated_query_strings_answer_alike(api: Api, twenty_contacts: list[Contact]) -> None:
    """A query string parsed before (and kept) gives the same page again, and a bad one the same 422."""
    first = [api.get("/contacts", params={"page": 2, "per_page": 5}).json() for _ in range(2)]
    other = api.get("/contacts", params={"page": 3, "per_page": 5}).json()
    refused = [api.get("/contacts", params={"page": "abc"}) for _ in range(2)]

    assert first[0] == first[1] != other
    assert [r.status_code for r in refused] == [422, 422]
    assert refused[0].json() == refused[1].json()


UNPAGINATED_LISTS = {
    ("GET", "/contacts/{id:id}/notes"),
    ("GET", "/contacts/lists"),
    ("GET", "/contacts/segments"),
    ("GET", "/account/channels"),
    ("GET", "/webhooks/events"),
    ("GET", "/webhooks"),
    ("GET", "/tickets/departments"),
    ("GET", "/bookings/types"),
    ("GET", "/bookings/resources"),
    ("GET", "/ai-agents"),
    ("GET", "/contacts/{id:id}/memories"),
    ("GET", "/voice/dialects"),
}
"""The lists still served whole (SPEC shows them without `meta`; AI agents are at most 100 a
workspace, a contact's memories at most 50, the voice dialects a fixed list of 13); `GET /tags` left
them, since a workspace's tags grow with every contact request and were megabytes in one response."""


def test_only_the_known_lists_are_served_whole() -> None:
    """Every other list operation is paginated: a new unpaginated list must be added here on purpose."""
    whole = {(op.method, op.path) for op in OPERATIONS if op.shape is Shape.MANY}

    assert whole == UNPAGINATED_LISTS
