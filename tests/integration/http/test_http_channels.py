"""Channel endpoints (SPEC 3 and 4 Channels) over the in-memory fakes and the sandbox gateway."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from http_support import Api, Tenant
from starlette.testclient import TestClient

from engage_core.messaging.channels import ChannelAccount
from engage_core.messaging.sandbox import SANDBOX_CODE, SandboxGateway
from engage_core.services import Services
from engage_core.testing import AllowAllTargets, FakeCipher, FakeClock, InMemoryUnitOfWorkFactory
from engage_http import create_app

NUMERIC_OFFSET = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$")


def pending_whatsapp(api: Api) -> str:
    """Start a WhatsApp QR attempt; its account id."""
    response = api.post("/channels/whatsapp/connect")
    assert response.status_code == 200, response.text
    return str(response.json()["data"]["account_id"])


class HoldingCampaigns:
    """A campaign guard under which every channel has a running campaign."""

    def active_on(self, account_id: int, channel: str) -> bool:
        return True


class NoFeatures:
    """A plan without any feature."""

    def allows(self, account_id: int, feature: str) -> bool:
        return False


def api_over(services: Services, tenant_name: str = "Acme") -> Api:
    """A client of a new tenant of an app over `services`."""
    issued = services.accounts.create(tenant_name)
    return Api(TestClient(create_app(services)), Tenant(issued.account.id, issued.api_key).headers)


def test_whatsapp_connect_answers_a_multi_device_qr_code(api: Api) -> None:
    """WhatsApp connect answers `account_id` and a multi-device pairing string (not a URL), with a message."""
    body = api.post("/channels/whatsapp/connect").json()

    assert body["success"] is True and body["message"]
    assert body["data"]["account_id"]
    assert body["data"]["qr_code"].startswith("2@") and body["data"]["qr_code"].count(",") == 3


def test_telegram_connect_answers_a_login_link(api: Api) -> None:
    """Telegram connect answers a `tg://login` link as its `qr_code`."""
    body = api.post("/channels/telegram/connect").json()

    assert body["data"]["qr_code"].startswith("tg://login?token=")


def test_polling_a_waiting_qr_code_is_in_progress(api: Api) -> None:
    """While the code waits, polling answers `completed` false and `in_progress` true (CONNECTING)."""
    pending_whatsapp(api)

    data = api.get("/channels/whatsapp/status").json()["data"]

    assert (data["completed"], data["in_progress"], data["sync_status"], data["is_connected"]) == (
        False,
        True,
        "CONNECTING",
        False,
    )


def test_polling_after_the_scan_is_completed(api: Api, sandbox: SandboxGateway) -> None:
    """Once the phone scans the code, polling answers `completed` true, `in_progress` false, connected."""
    account_id = pending_whatsapp(api)
    sandbox.scan(account_id, "+14155550123")

    data = api.get("/channels/whatsapp/status", params={"account_id": account_id}).json()["data"]

    assert (data["completed"], data["in_progress"], data["is_connected"]) == (True, False, True)
    assert (data["type"], data["username"], data["sync_status"]) == ("whatsapp", "+14155550123", "OK")


def test_last_synced_at_keeps_a_numeric_offset(api: Api, sandbox: SandboxGateway) -> None:
    """`last_synced_at` is ISO 8601 with microseconds and `+00:00`, not `Z` (SPEC 1 item 5)."""
    sandbox.scan(pending_whatsapp(api))

    data = api.get("/channels/whatsapp/status").json()["data"]

    assert NUMERIC_OFFSET.match(data["last_synced_at"]), data["last_synced_at"]


def test_a_failed_telegram_code_is_neither_completed_nor_in_progress(api: Api, sandbox: SandboxGateway) -> None:
    """A refused Telegram code polls as `completed` false and `in_progress` false: failed (SPEC 3)."""
    account_id = api.post("/channels/telegram/connect").json()["data"]["account_id"]
    sandbox.fail(account_id)

    data = api.get("/channels/telegram/status").json()["data"]

    assert (data["completed"], data["in_progress"], data["sync_status"]) == (False, False, "CREATION_FAIL")


def test_a_new_code_after_a_failure_waits_again(api: Api, sandbox: SandboxGateway) -> None:
    """Connecting again after a failed attempt shows a new code and polls as in progress."""
    sandbox.fail(api.post("/channels/telegram/connect").json()["data"]["account_id"])

    again = api.post("/channels/telegram/connect")

    assert again.status_code == 200
    assert api.get("/channels/telegram/status").json()["data"]["in_progress"] is True


def test_whatsapp_connect_while_connected_is_409(
    api: Api, tenant: Tenant, connect_channel: Callable[..., ChannelAccount]
) -> None:
    """Connecting WhatsApp while it is connected answers 409 (SPEC 7)."""
    connect_channel(tenant, "whatsapp")

    response = api.post("/channels/whatsapp/connect")

    assert response.status_code == 409
    assert response.json()["success"] is False


def test_polling_another_attempt_is_404(api: Api) -> None:
    """An `account_id` that is not the channel's current attempt answers 404."""
    pending_whatsapp(api)

    assert api.get("/channels/whatsapp/status", params={"account_id": "sbx-whatsapp-999"}).status_code == 404


def test_status_of_a_channel_never_connected_is_404(api: Api) -> None:
    """Polling a channel with no settings answers 404."""
    assert api.get("/channels/instagram/status").status_code == 404


def test_instagram_credentials_connect_answers_the_channel(api: Api) -> None:
    """Credentials with no checkpoint answer the channel object, connected."""
    response = api.post("/channels/instagram/connect", json={"username": "acme.shop", "password": "secret"})

    data = response.json()["data"]
    assert response.status_code == 200
    assert (data["type"], data["username"], data["is_connected"]) == ("instagram", "acme.shop", True)


def test_instagram_credentials_with_2fa_answer_requires_2fa(api: Api) -> None:
    """Credentials that hit a checkpoint answer `requires_2fa` true, the `account_id` and `checkpoint_type`."""
    response = api.post("/channels/instagram/connect", json={"username": "acme.shop", "password": "secret#2fa"})

    data = response.json()["data"]
    assert data["requires_2fa"] is True
    assert data["account_id"] and data["checkpoint_type"] == "2FA"


def test_the_right_code_connects_instagram_as_connecting(api: Api) -> None:
    """The right 2FA code answers the channel object, `sync_status` CONNECTING while history imports (SPEC 4)."""
    login = api.post("/channels/instagram/connect", json={"username": "acme.shop", "password": "pw#2fa"}).json()

    response = api.post(
        "/channels/instagram/2fa", json={"account_id": login["data"]["account_id"], "code": SANDBOX_CODE}
    )

    data = response.json()["data"]
    assert (data["type"], data["is_connected"], data["sync_status"]) == ("instagram", True, "CONNECTING")


def test_a_second_checkpoint_round_repeats_requires_2fa(api: Api) -> None:
    """With two rounds, the first code answers another `requires_2fa` round, the second the channel."""
    login = api.post("/channels/linkedin/connect", json={"username": "ada@example.com", "password": "pw#2fa2"}).json()
    account_id = login["data"]["account_id"]

    first = api.post("/channels/linkedin/2fa", json={"account_id": account_id, "code": SANDBOX_CODE}).json()["data"]
    second = api.post("/channels/linkedin/2fa", json={"account_id": account_id, "code": SANDBOX_CODE}).json()["data"]

    assert (first["requires_2fa"], first["checkpoint_type"]) == (True, "IN_APP_VALIDATION")
    assert (second["type"], second["is_connected"]) == ("linkedin", True)


def test_a_wrong_code_is_422_on_code(api: Api) -> None:
    """A code the network refuses answers 422 naming `code`."""
    login = api.post("/channels/instagram/connect", json={"username": "acme.shop", "password": "pw#2fa"}).json()

    response = api.post("/channels/instagram/2fa", json={"account_id": login["data"]["account_id"], "code": "000000"})

    assert response.status_code == 422
    assert "code" in response.json()["errors"]


def test_resending_a_code_answers_success_and_a_message(api: Api, sandbox: SandboxGateway) -> None:
    """`2fa/resend` answers success true with a message, and the network sends the code again."""
    login = api.post("/channels/instagram/connect", json={"username": "acme.shop", "password": "pw#2fa"}).json()
    account_id = login["data"]["account_id"]

    body = api.post("/channels/instagram/2fa/resend", json={"account_id": account_id}).json()

    assert body["success"] is True and body["message"]
    assert sandbox.account(account_id).resends == 1


def test_resending_without_a_waiting_checkpoint_is_409(
    api: Api, tenant: Tenant, connect_channel: Callable[..., ChannelAccount]
) -> None:
    """Resending a code for a connected account (no checkpoint waits) answers 409."""
    channel = connect_channel(tenant, "instagram")

    assert (
        api.post("/channels/instagram/2fa/resend", json={"account_id": channel.provider_account_id}).status_code == 409
    )


def test_refused_credentials_are_422_on_password(api: Api) -> None:
    """Credentials the network refuses answer 422 naming `password`."""
    response = api.post("/channels/instagram/connect", json={"username": "acme.shop", "password": "wrong-one"})

    assert response.status_code == 422
    assert "password" in response.json()["errors"]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"password": "pw"}, "username"),
        ({"username": "a", "password": ""}, "password"),
        ({"username": "a", "password": "pw", "country": "SAU"}, "country"),
    ],
)
def test_invalid_credentials_bodies_are_422(api: Api, body: dict[str, str], field: str) -> None:
    """A missing username, an empty password or a country that is not two letters answers 422 on that field."""
    response = api.post("/channels/instagram/connect", json=body)

    assert response.status_code == 422
    assert field in response.json()["errors"]


def test_refresh_stamps_last_synced_at(
    api: Api, tenant: Tenant, clock: FakeClock, connect_channel: Callable[..., ChannelAccount]
) -> None:
    """Refreshing a connected channel answers it with `last_synced_at` moved to now."""
    before = connect_channel(tenant, "whatsapp")
    clock.advance(seconds=60)

    data = api.post("/channels/whatsapp/refresh").json()["data"]

    assert before.last_synced_at is not None
    assert data["last_synced_at"] > before.last_synced_at.isoformat()


def test_disconnect_is_204_and_deletes_the_settings(
    api: Api, tenant: Tenant, connect_channel: Callable[..., ChannelAccount]
) -> None:
    """Disconnect answers 204 with no body; the channel then has no settings (404)."""
    connect_channel(tenant, "telegram")

    response = api.post("/channels/telegram/disconnect")

    assert (response.status_code, response.content) == (204, b"")
    assert api.get("/channels/telegram/status").status_code == 404


def test_whatsapp_disconnect_under_a_campaign_is_422(clock: FakeClock) -> None:
    """Disconnecting WhatsApp while a campaign runs or is paused on it answers 422 and keeps it."""
    sandbox = SandboxGateway(clock)
    services = Services.build(
        InMemoryUnitOfWorkFactory(), clock, cipher=FakeCipher(), guard=AllowAllTargets(), gateway=sandbox,
        campaigns=HoldingCampaigns(),
    )  # fmt: skip
    sandbox.attach(services.inbox)
    api = api_over(services)
    sandbox.scan(pending_whatsapp(api))

    response = api.post("/channels/whatsapp/disconnect")

    assert response.status_code == 422
    assert api.get("/channels/whatsapp/status").json()["data"]["is_connected"] is True


def test_linkedin_without_the_feature_is_403_linkedin_upgrade_required(clock: FakeClock) -> None:
    """Without `linkedin_access`, LinkedIn routes answer 403 with code `linkedin_upgrade_required`."""
    services = Services.build(
        InMemoryUnitOfWorkFactory(), clock, cipher=FakeCipher(), guard=AllowAllTargets(),
        gateway=SandboxGateway(clock), features=NoFeatures(),
    )  # fmt: skip
    api = api_over(services)

    response = api.post("/channels/linkedin/connect", json={"username": "ada@example.com", "password": "pw"})

    assert response.status_code == 403
    assert response.json()["code"] == "linkedin_upgrade_required"


def test_a_provider_outage_is_503_and_stores_nothing(api: Api, sandbox: SandboxGateway) -> None:
    """When the provider is unreachable, connect answers 503 and no channel setting is stored."""
    sandbox.outage("The messaging provider is unavailable.")

    response = api.post("/channels/whatsapp/connect")

    assert response.status_code == 503
    assert response.json() == {"success": False, "message": "The messaging provider is unavailable."}
    assert api.get("/channels/whatsapp/status").status_code == 404


def test_each_flow_has_its_own_routes(api: Api) -> None:
    """Instagram connect needs credentials (422 without a body); WhatsApp has no 2fa route (404)."""
    assert api.post("/channels/instagram/connect").status_code == 422
    assert api.post("/channels/whatsapp/2fa", json={"account_id": "x", "code": "1"}).status_code == 404
