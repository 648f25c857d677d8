"""The sandbox routes (`/sandbox/...`): served only with the sandbox gateway, scoped to the caller's
channels and messages, and setting off what a provider's callbacks would."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from http_support import Api, Tenant
from starlette.testclient import TestClient

from engage_core.contacts.model import Contact
from engage_core.messaging.channels import ChannelAccount
from engage_core.messaging.sandbox import SandboxGateway
from engage_core.messaging.sandbox_controls import SandboxControls
from engage_core.services import Services
from engage_core.testing import InMemoryUnitOfWorkFactory
from engage_http import create_app

PHONE = "+14155550123"


@pytest.fixture
def sandbox_client(services: Services, uow: InMemoryUnitOfWorkFactory, sandbox: SandboxGateway) -> TestClient:
    return TestClient(create_app(services, sandbox=SandboxControls(uow, sandbox)))


@pytest.fixture
def sapi(sandbox_client: TestClient, tenant: Tenant) -> Api:
    """The default tenant's client of the app with the sandbox routes."""
    return Api(sandbox_client, tenant.headers)


def sent_message(sapi: Api, tenant: Tenant, make_contact: Callable[..., Contact]) -> int:
    """A message sent to a WhatsApp contact through the tenant's connected WhatsApp; its id."""
    contact = make_contact(tenant, type="whatsapp", phone=PHONE)
    body = sapi.post("/messages/send", json={"contact_id": contact.id, "message": "Your order shipped."}).json()
    assert body["success"] is True, body
    return int(body["data"]["id"])


def test_the_routes_are_absent_without_the_sandbox(api: Api) -> None:
    """An app built without the sandbox answers 404 on the sandbox paths and does not document them."""
    api.post("/channels/whatsapp/connect")

    assert api.post("/sandbox/channels/whatsapp/scan").status_code == 404
    assert not [p for p in api.get("/openapi.json").json()["paths"] if "/sandbox/" in p]


def test_the_routes_are_documented_with_the_sandbox(sapi: Api) -> None:
    """An app built with the sandbox documents its routes in its OpenAPI document."""
    paths = sapi.get("/openapi.json").json()["paths"]

    assert "/api/v1/sandbox/channels/{channel}/scan" in paths


def test_scan_connects_the_waiting_qr_channel(sapi: Api) -> None:
    """Scanning connects the channel of the waiting QR code and answers it as polling would."""
    sapi.post("/channels/whatsapp/connect")

    response = sapi.post("/sandbox/channels/whatsapp/scan", json={"username": PHONE})

    data = response.json()["data"]
    assert response.status_code == 200
    assert (data["is_connected"], data["completed"], data["username"], data["sync_status"]) == (True, True, PHONE, "OK")


def test_scan_without_a_waiting_code_is_409(
    sapi: Api, tenant: Tenant, connect_channel: Callable[..., ChannelAccount]
) -> None:
    """Scanning when no code waits (the channel is already connected) answers 409."""
    connect_channel(tenant, "whatsapp")

    assert sapi.post("/sandbox/channels/whatsapp/scan").status_code == 409


def test_scan_of_a_channel_with_no_settings_is_404(sapi: Api) -> None:
    """Scanning for a channel the workspace never started connecting answers 404."""
    assert sapi.post("/sandbox/channels/telegram/scan").status_code == 404


def test_fail_makes_the_attempt_fail(sapi: Api) -> None:
    """Refusing the code fails the attempt: polling answers completed and in_progress false."""
    sapi.post("/channels/telegram/connect")

    data = sapi.post("/sandbox/channels/telegram/fail", json={"error": "Wrong phone."}).json()["data"]

    assert (data["completed"], data["in_progress"], data["sync_status"], data["error"]) == (
        False,
        False,
        "CREATION_FAIL",
        "Wrong phone.",
    )


def test_a_status_change_moves_the_channel(
    sapi: Api, tenant: Tenant, connect_channel: Callable[..., ChannelAccount]
) -> None:
    """Reporting `CREDENTIALS` takes a connected channel offline with that `sync_status`."""
    connect_channel(tenant, "instagram")

    data = sapi.post(
        "/sandbox/channels/instagram/status", json={"status": "CREDENTIALS", "reason": "Password changed."}
    ).json()["data"]

    assert (data["is_connected"], data["sync_status"], data["error"]) == (False, "CREDENTIALS", "Password changed.")


def test_a_deleted_account_answers_null(
    sapi: Api, tenant: Tenant, connect_channel: Callable[..., ChannelAccount]
) -> None:
    """Reporting `DELETED` removes the channel settings: `data` is null and polling answers 404."""
    connect_channel(tenant, "whatsapp")

    body = sapi.post("/sandbox/channels/whatsapp/status", json={"status": "DELETED"}).json()

    assert body["data"] is None
    assert sapi.get("/channels/whatsapp/status").status_code == 404


def test_an_unknown_status_is_422(sapi: Api, tenant: Tenant, connect_channel: Callable[..., ChannelAccount]) -> None:
    """A status that is not one of the provider's answers 422."""
    connect_channel(tenant, "whatsapp")

    assert sapi.post("/sandbox/channels/whatsapp/status", json={"status": "HAPPY"}).status_code == 422


def test_an_injected_message_is_stored_with_a_new_contact(
    sapi: Api, tenant: Tenant, connect_channel: Callable[..., ChannelAccount]
) -> None:
    """A message injected on a channel is stored inbound (201) and its unknown sender becomes a contact."""
    connect_channel(tenant, "whatsapp")

    response = sapi.post(
        "/sandbox/channels/whatsapp/messages", json={"sender": PHONE, "text": "Hi!", "sender_name": "Kim"}
    )

    message = response.json()["data"]
    assert response.status_code == 201
    assert (message["direction"], message["content"], message["channel"]) == ("inbound", "Hi!", "whatsapp")
    contact = sapi.get(f"/contacts/{message['contact_id']}").json()["data"]
    assert (contact["name"], contact["phone"]) == ("Kim", PHONE)


def test_receipts_move_a_sent_message_forward_only(
    sapi: Api, tenant: Tenant, make_contact: Callable[..., Contact], connect_channel: Callable[..., ChannelAccount]
) -> None:
    """`delivered` then `read` move a sent message forward; a later `delivered` changes nothing."""
    connect_channel(tenant, "whatsapp")
    message_id = sent_message(sapi, tenant, make_contact)

    statuses = [
        sapi.post(f"/sandbox/messages/{message_id}/receipts", json={"status": status}).json()["data"]["status"]
        for status in ("delivered", "read", "delivered")
    ]

    assert statuses == ["delivered", "read", "read"]


def test_a_receipt_for_an_inbound_message_is_409(
    sapi: Api, tenant: Tenant, connect_channel: Callable[..., ChannelAccount]
) -> None:
    """An inbound message never went through the network from us: a receipt for it answers 409."""
    connect_channel(tenant, "whatsapp")
    inbound = sapi.post("/sandbox/channels/whatsapp/messages", json={"sender": PHONE, "text": "Hi"}).json()["data"]

    assert sapi.post(f"/sandbox/messages/{inbound['id']}/receipts", json={"status": "read"}).status_code == 409


def test_a_receipt_for_another_accounts_message_is_404(
    sapi: Api,
    sandbox_client: TestClient,
    tenant: Tenant,
    make_tenant: Callable[..., Tenant],
    make_contact: Callable[..., Contact],
    connect_channel: Callable[..., ChannelAccount],
) -> None:
    """Another workspace's message id answers 404 and the message keeps its status."""
    connect_channel(tenant, "whatsapp")
    message_id = sent_message(sapi, tenant, make_contact)
    intruder = Api(sandbox_client, make_tenant("Intruder").headers)

    response = intruder.post(f"/sandbox/messages/{message_id}/receipts", json={"status": "read"})

    assert response.status_code == 404
    [contact] = [c for c in sapi.get("/contacts").json()["data"] if c["phone"] == PHONE]
    assert [m["status"] for m in sapi.get(f"/contacts/{contact['id']}/messages").json()["data"]] == ["sent"]


def test_actions_reach_only_the_callers_channel(
    sapi: Api, sandbox_client: TestClient, make_tenant: Callable[..., Tenant]
) -> None:
    """Scanning as another workspace does not connect this workspace's waiting channel (404 there)."""
    sapi.post("/channels/whatsapp/connect")
    intruder = Api(sandbox_client, make_tenant("Intruder").headers)

    assert intruder.post("/sandbox/channels/whatsapp/scan").status_code == 404
    assert sapi.get("/channels/whatsapp/status").json()["data"]["in_progress"] is True


def test_an_unknown_channel_path_is_404(sapi: Api) -> None:
    """A path naming no channel type does not match a sandbox route."""
    assert sapi.post("/sandbox/channels/fax/scan").status_code == 404
