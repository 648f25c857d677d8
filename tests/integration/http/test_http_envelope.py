"""The success envelope (SPEC 1.3-1.4): `success`, `data`, optional `message`, `meta` on pages."""

from __future__ import annotations

import json
from collections.abc import Callable

from http_support import Api, Tenant

from engage_core.contacts.model import Contact
from engage_http.envelope import dumps, success_body
from engage_http.envelope_schemas import PageMeta


def test_a_read_has_success_and_data_only(api: Api, tenant: Tenant, make_contact: Callable[..., Contact]) -> None:
    """`GET` of one resource answers `{success: true, data}`."""
    contact = make_contact(tenant)

    body = api.get(f"/contacts/{contact.id}").json()

    assert set(body) == {"success", "data"}
    assert body["success"] is True


def test_a_create_adds_a_message(api: Api) -> None:
    """A create answers 201 with `data` and a `message`."""
    response = api.post("/tags", json={"title": "VIP"})

    assert response.status_code == 201
    assert response.json()["message"] == "Tag created."


def test_a_paginated_list_adds_meta(api: Api) -> None:
    """A paginated list carries `meta` with current_page, per_page, total and last_page."""
    body = api.get("/contacts").json()

    assert body["meta"] == {"current_page": 1, "per_page": 15, "total": 0, "last_page": 1}


def test_an_unpaginated_list_has_no_meta(api: Api) -> None:
    """`GET /contacts/lists` (every list) carries no `meta`."""
    assert "meta" not in api.get("/contacts/lists").json()


def test_responses_are_json(api: Api) -> None:
    """Bodies are `application/json`."""
    assert api.get("/tags").headers["content-type"] == "application/json"


def test_bodies_are_compact_utf8() -> None:
    """Serialisation uses no spaces and keeps non-ASCII text as UTF-8."""
    assert dumps({"a": [1, "é"]}) == '{"a":[1,"é"]}'.encode()


def test_timestamps_have_microseconds_and_z(api: Api, tenant: Tenant, make_contact: Callable[..., Contact]) -> None:
    """Timestamps are ISO 8601 with microseconds and `Z`."""
    contact = make_contact(tenant)

    data = api.get(f"/contacts/{contact.id}").json()["data"]

    assert data["created_at"] == "2026-01-01T12:00:00.000000Z"


def test_meta_is_rendered_in_field_order() -> None:
    """`meta` lists current_page, per_page, total, last_page in that order."""
    body = success_body([], meta=PageMeta(current_page=2, per_page=10, total=35, last_page=4))

    assert list(json.loads(dumps(body))["meta"]) == ["current_page", "per_page", "total", "last_page"]
