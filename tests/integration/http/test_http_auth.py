"""Authentication (SPEC 5): API key headers, the 401 body, inactive accounts and the origin whitelist."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from http_support import Api, Tenant


@pytest.mark.parametrize(
    "headers",
    [
        pytest.param({}, id="missing"),
        pytest.param({"X-Api-Key": "not-a-key"}, id="malformed"),
        pytest.param({"X-Api-Key": "eng_" + "A" * 40}, id="bad-checksum"),
        pytest.param({"Authorization": "Basic dXNlcjpwYXNz"}, id="other-scheme"),
        pytest.param({"Authorization": "Bearer"}, id="empty-bearer"),
    ],
)
def test_every_bad_credential_gets_the_same_401(anonymous: Api, headers: dict[str, str], wrong_key: str) -> None:
    """Missing, malformed and wrong keys all answer 401 with byte-identical bodies."""
    expected = anonymous.get("/contacts", headers={"X-Api-Key": wrong_key})

    response = anonymous.get("/contacts", headers=headers)

    assert response.status_code == expected.status_code == 401
    assert response.content == expected.content


def test_the_401_body_is_the_error_envelope(anonymous: Api) -> None:
    """A 401 body is `success: false` with the unauthenticated message."""
    response = anonymous.get("/contacts")

    assert response.json() == {"success": False, "message": "Unauthenticated. Provide a valid API key."}


def test_a_401_names_the_bearer_scheme(anonymous: Api) -> None:
    """A 401 carries `WWW-Authenticate` as RFC 9110 requires."""
    assert anonymous.get("/tags").headers["www-authenticate"].startswith("Bearer")


def test_bearer_token_is_equivalent_to_x_api_key(anonymous: Api, tenant: Tenant) -> None:
    """`Authorization: Bearer <key>` authenticates exactly like `X-Api-Key`."""
    by_header = anonymous.get("/contacts", headers={"X-Api-Key": tenant.key})
    by_bearer = anonymous.get("/contacts", headers={"Authorization": f"Bearer {tenant.key}"})

    assert by_header.status_code == by_bearer.status_code == 200
    assert by_header.content == by_bearer.content


def test_the_bearer_scheme_is_case_insensitive(anonymous: Api, tenant: Tenant) -> None:
    """`bearer` in any case is accepted."""
    assert anonymous.get("/contacts", headers={"Authorization": f"bEaReR {tenant.key}"}).status_code == 200


def test_x_api_key_wins_over_authorization(anonymous: Api, tenant: Tenant) -> None:
    """When both headers are sent, `X-Api-Key` decides."""
    response = anonymous.get("/contacts", headers={"X-Api-Key": "wrong", "Authorization": f"Bearer {tenant.key}"})

    assert response.status_code == 401


def test_a_rotated_key_stops_working(anonymous: Api, tenant: Tenant, services_rotate: Callable[[int], str]) -> None:
    """After rotation the old key is refused and the new one accepted."""
    new_key = services_rotate(tenant.account_id)

    assert anonymous.get("/contacts", headers={"X-Api-Key": tenant.key}).status_code == 401
    assert anonymous.get("/contacts", headers={"X-Api-Key": new_key}).status_code == 200


def test_an_inactive_account_gets_403_with_its_code(
    make_tenant: Callable[..., Tenant], client_for: Callable[[Tenant], Api]
) -> None:
    """A valid key of an inactive account answers 403 `account_inactive`."""
    api = client_for(make_tenant(active=False))

    response = api.get("/contacts")

    assert response.status_code == 403
    assert response.json() == {"success": False, "message": "This account is inactive.", "code": "account_inactive"}


def test_an_unlisted_origin_gets_403(make_tenant: Callable[..., Tenant], client_for: Callable[[Tenant], Api]) -> None:
    """With a whitelist, an unlisted `Origin` answers 403 `origin_not_allowed` saying the origin is not allowed."""
    api = client_for(make_tenant(origins=["https://shop.example"]))

    response = api.get("/contacts", headers={"Origin": "https://evil.example"})

    assert response.status_code == 403
    body = response.json()
    assert body["success"] is False
    assert body["code"] == "origin_not_allowed"
    assert "origin is not allowed" in body["message"]


def test_an_unlisted_referer_gets_403(make_tenant: Callable[..., Tenant], client_for: Callable[[Tenant], Api]) -> None:
    """With a whitelist, a `Referer` from an unlisted origin answers 403."""
    api = client_for(make_tenant(origins=["https://shop.example"]))

    response = api.get("/contacts", headers={"Referer": "https://evil.example/page?x=1"})

    assert response.status_code == 403
    assert response.json()["code"] == "origin_not_allowed"


def test_a_listed_origin_is_served(make_tenant: Callable[..., Tenant], client_for: Callable[[Tenant], Api]) -> None:
    """A whitelisted `Origin` and `Referer` are served."""
    api = client_for(make_tenant(origins=["https://shop.example"]))

    response = api.get("/contacts", headers={"Origin": "https://shop.example", "Referer": "https://shop.example/a"})

    assert response.status_code == 200


def test_a_wildcard_whitelist_allows_any_origin(
    make_tenant: Callable[..., Tenant], client_for: Callable[[Tenant], Api]
) -> None:
    """`*` in the whitelist allows every origin."""
    api = client_for(make_tenant(origins=["*"]))

    assert api.get("/contacts", headers={"Origin": "https://anywhere.example"}).status_code == 200


def test_authentication_comes_before_validation(anonymous: Api) -> None:
    """An unauthenticated request with an invalid body gets 401, not 422."""
    assert anonymous.post("/tags", json={"title": ""}).status_code == 401


def test_authentication_comes_before_not_found(anonymous: Api) -> None:
    """An unauthenticated request for a missing resource gets 401, not 404."""
    assert anonymous.get("/contacts/999").status_code == 401


def test_the_openapi_document_needs_no_key(anonymous: Api) -> None:
    """`GET /api/v1/openapi.json` is public."""
    assert anonymous.get("/openapi.json").status_code == 200
