"""Partner authentication (SPEC 5 item 6): `X-Partner-Key` only, and never crossing with workspace keys."""

from __future__ import annotations

from collections.abc import Callable

from http_support import Api, PartnerCaller, Tenant

from engage_core.services import Services


def test_a_partner_key_in_x_partner_key_is_accepted(make_partner: Callable[..., PartnerCaller]) -> None:
    """The partner key in `X-Partner-Key` opens the partner's profile."""
    partner = make_partner("Agency")

    response = partner.api.get("/partner/profile")

    assert response.status_code == 200
    assert response.json()["data"]["id"] == partner.partner_id


def test_a_missing_partner_key_is_401(anonymous: Api) -> None:
    """A partner route without `X-Partner-Key` is 401 naming the header."""
    response = anonymous.get("/partner/profile")

    assert response.status_code == 401
    assert "X-Partner-Key" in response.json()["message"]


def test_a_partner_key_as_bearer_token_is_401(make_partner: Callable[..., PartnerCaller], anonymous: Api) -> None:
    """The partner key is read from `X-Partner-Key` only, not from `Authorization: Bearer`."""
    partner = make_partner()

    response = anonymous.get("/partner/profile", headers={"Authorization": f"Bearer {partner.key}"})

    assert response.status_code == 401


def test_a_workspace_key_on_a_partner_route_is_401(tenant: Tenant, anonymous: Api) -> None:
    """A workspace key, even in `X-Partner-Key`, is refused by the partner API."""
    response = anonymous.get("/partner/clients", headers={"X-Partner-Key": tenant.key})

    assert response.status_code == 401


def test_a_workspace_key_in_its_own_header_on_a_partner_route_is_401(api: Api) -> None:
    """`X-Api-Key` with a valid workspace key does not open a partner route."""
    response = api.get("/partner/profile")

    assert response.status_code == 401


def test_a_partner_key_on_a_workspace_route_is_401_saying_where_it_belongs(
    make_partner: Callable[..., PartnerCaller],
) -> None:
    """A workspace route refuses a partner key in `X-Partner-Key` with a message naming the partner API."""
    partner = make_partner()

    response = partner.api.get("/contacts")

    assert response.status_code == 401
    assert "/api/v1/partner/" in response.json()["message"]


def test_a_partner_key_sent_as_workspace_key_is_401(make_partner: Callable[..., PartnerCaller], anonymous: Api) -> None:
    """A partner key in `X-Api-Key` is refused by workspace routes."""
    partner = make_partner()

    response = anonymous.get("/contacts", headers={"X-Api-Key": partner.key})

    assert response.status_code == 401
    assert "X-Partner-Key" in response.json()["message"]


def test_a_workspace_key_still_works_beside_a_partner_header(
    api: Api, make_partner: Callable[..., PartnerCaller]
) -> None:
    """A valid workspace key decides a workspace route, whatever else the request carries."""
    partner = make_partner()

    response = api.get("/contacts", headers={"X-Partner-Key": partner.key})

    assert response.status_code == 200


def test_a_suspended_partners_key_is_403(make_partner: Callable[..., PartnerCaller], services: Services) -> None:
    """A suspended partner's valid key is 403 with code `partner_suspended`."""
    partner = make_partner()
    services.partners.suspend(partner.partner_id)

    response = partner.api.get("/partner/profile")

    assert response.status_code == 403
    assert response.json()["code"] == "partner_suspended"


def test_a_rotated_partner_key_stops_working(make_partner: Callable[..., PartnerCaller], services: Services) -> None:
    """After `rotate_key` the old partner key is 401."""
    partner = make_partner()
    services.partners.rotate_key(partner.partner_id)

    response = partner.api.get("/partner/profile")

    assert response.status_code == 401


def test_the_document_declares_the_partner_key_scheme_on_partner_operations(anonymous: Api) -> None:
    """Partner operations name `PartnerKeyAuth` (header X-Partner-Key); workspace ones keep the default."""
    document = anonymous.get("/openapi.json").json()

    scheme = document["components"]["securitySchemes"]["PartnerKeyAuth"]
    assert (scheme["in"], scheme["name"]) == ("header", "X-Partner-Key")
    assert document["paths"]["/api/v1/partner/clients"]["get"]["security"] == [{"PartnerKeyAuth": []}]
    assert "security" not in document["paths"]["/api/v1/contacts"]["get"]
