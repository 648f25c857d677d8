"""Error mapping (SPEC 7): every failure, expected or not, answers in the error envelope."""

from __future__ import annotations

import logging
from collections.abc import Callable

import pytest
from http_support import Api, Tenant
from starlette.applications import Starlette
from starlette.testclient import TestClient

from engage_core.contacts.model import Contact
from engage_core.kernel.errors import Conflict, RateLimited
from engage_core.kernel.pagination import PageRequest
from engage_core.services import Services
from engage_http import create_app

ALL_TAGS = PageRequest(per_page=100)
"""Every tag of a test's workspace: one page."""


def test_an_unknown_route_is_an_enveloped_404(api: Api) -> None:
    """A path no route serves answers 404 in the error envelope."""
    response = api.get("/nothing-here")

    assert response.status_code == 404
    assert response.json() == {"success": False, "message": "Not found."}


def test_a_path_outside_the_api_is_an_enveloped_404(client: TestClient) -> None:
    """Paths outside `/api/v1` are 404 in the same envelope."""
    response = client.get("/")

    assert response.status_code == 404
    assert response.json()["success"] is False


def test_a_trailing_slash_is_not_redirected(api: Api) -> None:
    """`/contacts/` is a 404, not a redirect to `/contacts`."""
    response = api.get("/contacts/", follow_redirects=False)

    assert response.status_code == 404


def test_a_wrong_method_is_an_enveloped_405(api: Api) -> None:
    """A method the path does not serve answers 405 in the error envelope."""
    response = api.request("PATCH", "/contacts")

    assert response.status_code == 405
    assert response.json() == {"success": False, "message": "Method not allowed."}


def test_a_405_lists_every_method_of_the_path(api: Api) -> None:
    """`Allow` names all methods the path serves (OPTIONS too), not only those of one operation."""
    response = api.request("PATCH", "/contacts/1")

    assert set(response.headers["allow"].split(", ")) == {"GET", "HEAD", "PUT", "DELETE", "OPTIONS"}


def test_an_id_that_is_not_a_number_is_404(api: Api) -> None:
    """`/contacts/abc` matches no route."""
    assert api.get("/contacts/abc").status_code == 404


def test_an_id_too_long_for_any_column_is_404(api: Api) -> None:
    """An id of more than 18 digits matches no route, rather than overflowing a query."""
    assert api.get("/contacts/" + "9" * 30).status_code == 404


def test_an_absent_resource_is_a_404_naming_it(api: Api) -> None:
    """A missing resource answers 404 with the resource's name."""
    response = api.get("/contacts/424242")

    assert response.status_code == 404
    assert response.json() == {"success": False, "message": "Contact not found."}


def test_validation_failures_are_422_with_field_errors(api: Api) -> None:
    """A 422 carries `errors`, a map of field path to messages."""
    response = api.post("/tags", json={"title": 5})

    assert response.status_code == 422
    assert response.json() == {
        "success": False,
        "message": "The given data was invalid.",
        "errors": {"title": ["The title must be a string."]},
    }


def test_a_body_that_is_not_json_is_422(api: Api) -> None:
    """Malformed JSON answers 422 on `body`."""
    response = api.post("/tags", content=b"{not json", headers={"Content-Type": "application/json"})

    assert response.status_code == 422
    assert response.json()["errors"] == {"body": ["The request body is not valid JSON."]}


def test_a_missing_body_is_422(api: Api) -> None:
    """An operation that takes a body refuses an empty one."""
    response = api.post("/tags")

    assert response.status_code == 422
    assert response.json()["errors"] == {"body": ["The request body must be a JSON object."]}


def test_a_body_that_is_not_an_object_is_422(api: Api) -> None:
    """A JSON array where an object is expected answers 422."""
    response = api.post("/tags", json=["title"])

    assert response.status_code == 422
    assert response.json()["errors"] == {"body": ["The request body must be a JSON object."]}


def test_a_body_over_the_size_limit_is_413(api: Api) -> None:
    """A body above 1 MiB is refused with 413 in the envelope."""
    response = api.post("/tags", content=b" " * (1024 * 1024 + 1), headers={"Content-Type": "application/json"})

    assert response.status_code == 413
    assert response.json()["success"] is False


@pytest.mark.parametrize(
    "path",
    [
        "/contacts/{contact}",
        "/tags/{tag}",
        "/contacts/lists/{list}",
        "/contacts/segments/{segment}",
        "/contacts/{contact}/tags/{tag}",
        "/contacts/{contact}/lists/{list}",
        "/contacts/{contact}/segments/{segment}",
    ],
)
def test_deletes_answer_204_with_an_empty_body(api: Api, member_ids: Callable[[], dict[str, int]], path: str) -> None:
    """Every DELETE answers 204 with no body and no content type."""
    response = api.delete(path.format(**member_ids()))

    assert response.status_code == 204
    assert response.content == b""
    assert "content-type" not in response.headers


def test_an_unexpected_exception_is_a_generic_500(
    services: Services, app: Starlette, tenant: Tenant, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bug answers 500 in the envelope, without leaking the exception."""

    def explode(account_id: int, page: PageRequest) -> None:
        raise RuntimeError("secret database password in a stack trace")

    monkeypatch.setattr(services.tags, "list", explode)
    client = TestClient(app, raise_server_exceptions=False)

    response = client.get("/api/v1/tags", headers=tenant.headers)

    assert response.status_code == 500
    assert response.json() == {"success": False, "message": "Server error. The failure has been logged."}
    assert b"secret" not in response.content


def test_an_unexpected_exception_is_logged(
    services: Services, api: Api, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The 500's exception is logged with its traceback on `engage.http`."""

    def explode(account_id: int, page: PageRequest) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(services.tags, "list", explode)

    with caplog.at_level(logging.ERROR, logger="engage.http"):
        api.get("/tags")

    [record] = [r for r in caplog.records if r.name == "engage.http"]
    assert record.exc_info is not None
    assert "GET /api/v1/tags" in record.getMessage()


def test_a_conflict_is_409(services: Services, api: Api, monkeypatch: pytest.MonkeyPatch) -> None:
    """`Conflict` from the core maps to 409."""

    def collide(account_id: int, page: PageRequest) -> None:
        raise Conflict("Already connected.")

    monkeypatch.setattr(services.tags, "list", collide)

    response = api.get("/tags")

    assert response.status_code == 409
    assert response.json() == {"success": False, "message": "Already connected."}


def test_rate_limiting_is_429_with_retry_after(services: Services, api: Api, monkeypatch: pytest.MonkeyPatch) -> None:
    """`RateLimited` maps to 429 with `Retry-After`."""

    def throttle(account_id: int, page: PageRequest) -> None:
        raise RateLimited(limit=120, retry_after=17)

    monkeypatch.setattr(services.tags, "list", throttle)

    response = api.get("/tags")

    assert response.status_code == 429
    assert response.headers["retry-after"] == "17"
    assert response.json()["success"] is False


@pytest.fixture
def member_ids(
    tenant: Tenant,
    services: Services,
    make_contact: Callable[..., Contact],
    make_tag: Callable[..., object],
    make_list: Callable[..., object],
    make_segment: Callable[..., object],
) -> Callable[[], dict[str, int]]:
    """A contact carrying a tag and belonging to a list and a segment; their ids."""

    def make() -> dict[str, int]:
        contact = make_contact(tenant, tags=["VIP"])
        tag = services.tags.list(tenant.account_id, ALL_TAGS).items[0]
        contact_list = services.lists.create(tenant.account_id, "Newsletter")
        segment = services.segments.create(tenant.account_id, "Manual")
        services.contacts.add_to_list(tenant.account_id, contact.id, contact_list.id)
        services.contacts.add_to_segment(tenant.account_id, contact.id, segment.id)
        return {"contact": contact.id, "tag": tag.id, "list": contact_list.id, "segment": segment.id}

    return make


def test_debug_mode_lets_unexpected_exceptions_through(
    services: Services, tenant: Tenant, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With `debug=True` an unexpected exception reaches Starlette's traceback page (and the test client)."""

    def explode(account_id: int, page: PageRequest) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(services.tags, "list", explode)
    client = TestClient(create_app(services, debug=True))

    with pytest.raises(RuntimeError, match="boom"):
        client.get("/api/v1/tags", headers=tenant.headers)
