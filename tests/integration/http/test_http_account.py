"""The workspace's own account over HTTP (SPEC 4, Account): profile, update, subscription, channels."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

from http_support import Api, Tenant

from engage_core.contacts.model import Contact
from engage_core.messaging.channels import ChannelAccount
from engage_core.plans.plan_service import PlanPatch
from engage_core.services import Services
from engage_core.testing import FakeClock


def test_get_account_returns_the_profile(api: Api, tenant: Tenant) -> None:
    """`GET /account` has the workspace's id, name and timezone (`UTC` until set)."""
    data = api.get("/account").json()["data"]

    assert (data["id"], data["name"], data["timezone"], data["is_active"]) == (tenant.account_id, "Acme", "UTC", True)


def test_the_profile_never_contains_the_key(api: Api, tenant: Tenant) -> None:
    """Only the key's hint is returned, never the key."""
    assert tenant.key not in api.get("/account").text


def test_the_key_hint_is_what_the_api_document_says(api: Api, tenant: Tenant) -> None:
    """`api_key_hint` is the key's first eight characters and an ellipsis, as its description says."""
    hint = api.get("/account").json()["data"]["api_key_hint"]
    described = api.client.get("/api/v1/openapi.json").json()["components"]["schemas"]["Account"]
    description = described["properties"]["api_key_hint"]["description"]

    assert hint == tenant.key[:8] + "…"
    assert "first eight characters" in description and "last" not in description


def test_patch_account_renames_the_workspace(api: Api) -> None:
    """`PATCH /account` with `name` changes it, and a later read sees it."""
    api.request("PATCH", "/account", json={"name": "Acme Trading"})

    assert api.get("/account").json()["data"]["name"] == "Acme Trading"


def test_patch_account_timezone_is_the_working_hours_timezone(api: Api) -> None:
    """The account timezone is the one bookings' working hours are read in."""
    api.request("PATCH", "/account", json={"timezone": "Europe/Berlin"})

    assert api.get("/bookings/working-hours").json()["data"]["timezone"] == "Europe/Berlin"


def test_the_booking_timezone_shows_on_the_account(api: Api) -> None:
    """Changing the working hours' timezone changes the account's."""
    api.put("/bookings/working-hours/timezone", json={"timezone": "Asia/Riyadh"})

    assert api.get("/account").json()["data"]["timezone"] == "Asia/Riyadh"


def test_an_unknown_timezone_is_422_and_changes_nothing(api: Api) -> None:
    """A timezone that is no IANA name is a 422 on `timezone`; the name sent with it is not stored."""
    response = api.request("PATCH", "/account", json={"name": "Renamed", "timezone": "Mars/Olympus"})

    assert (response.status_code, list(response.json()["errors"]), api.get("/account").json()["data"]["name"]) == (
        422,
        ["timezone"],
        "Acme",
    )


def test_a_blank_name_is_422(api: Api) -> None:
    """An empty `name` is refused on `name`."""
    response = api.request("PATCH", "/account", json={"name": "  "})

    assert (response.status_code, list(response.json()["errors"])) == (422, ["name"])


def test_subscription_shows_the_default_plan(api: Api) -> None:
    """A workspace without a partner is on `business`, with every feature."""
    data = api.get("/account/subscription").json()["data"]

    assert (data["plan"]["slug"], all(data["plan"]["features"].values())) == ("business", True)


def test_subscription_counts_usage_against_the_limits(
    api: Api, tenant: Tenant, services: Services, make_contact: Callable[..., Contact]
) -> None:
    """`usage` counts the stored contacts and `remaining` is the limit minus them."""
    services.plans.update("business", PlanPatch(limits={"contacts": 5}))
    make_contact(tenant)
    make_contact(tenant)

    data = api.get("/account/subscription").json()["data"]

    assert (data["usage"]["contacts"], data["remaining"]["contacts"]) == (2, 3)


def test_subscription_shows_the_billing_cycle(api: Api, clock: FakeClock) -> None:
    """Without a partner the cycle is monthly from the workspace's creation (here: now)."""
    cycle = api.get("/account/subscription").json()["data"]["cycle"]

    start = datetime.fromisoformat(cycle["start"])
    end = datetime.fromisoformat(cycle["end"])
    assert (start, end.month - start.month) == (clock.now().astimezone(UTC), 1)


def test_account_channels_lists_the_channel_settings(
    api: Api, tenant: Tenant, connect_channel: Callable[..., ChannelAccount]
) -> None:
    """`GET /account/channels` lists each channel setting with its connection status."""
    connect_channel(tenant, "whatsapp")

    data = api.get("/account/channels").json()["data"]

    assert [(c["type"], c["is_connected"]) for c in data] == [("whatsapp", True)]


def test_account_channels_of_another_workspace_are_not_shown(
    client_for: Callable[[Tenant], Api],
    make_tenant: Callable[..., Tenant],
    connect_channel: Callable[..., ChannelAccount],
) -> None:
    """One workspace's channels never appear on another's account."""
    connect_channel(make_tenant("Acme"), "whatsapp")

    assert client_for(make_tenant("Globex")).get("/account/channels").json()["data"] == []


def test_a_new_account_has_locale_en(api: Api) -> None:
    """`GET /account` shows locale `en` until one is set."""
    assert api.get("/account").json()["data"]["locale"] == "en"


def test_patch_account_stores_the_locale_in_canonical_case(api: Api) -> None:
    """`PATCH /account` with `ar-sa` answers, and later reads, `ar-SA`."""
    patched = api.request("PATCH", "/account", json={"locale": "ar-sa"}).json()["data"]["locale"]

    assert (patched, api.get("/account").json()["data"]["locale"]) == ("ar-SA", "ar-SA")


def test_a_malformed_locale_is_422_and_changes_nothing(api: Api) -> None:
    """A locale that is no language tag is a 422 on `locale`; the name sent with it is not stored."""
    response = api.request("PATCH", "/account", json={"name": "Renamed", "locale": "en_US"})

    assert (response.status_code, list(response.json()["errors"]), api.get("/account").json()["data"]["name"]) == (
        422,
        ["locale"],
        "Acme",
    )
