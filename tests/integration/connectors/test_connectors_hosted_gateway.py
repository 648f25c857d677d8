"""The hosted-provider gateway end to end: the app (over the in-memory fakes) served by uvicorn on
127.0.0.1, talking to the fake provider on 127.0.0.1, which posts its callbacks back to the app's
callback route. Every step goes over real HTTP both ways."""

from __future__ import annotations

import io
import time
from collections.abc import Callable, Iterator

import httpx
import pytest
from fake_provider import FakeProvider
from served_app import served

from engage_connectors.hosted_gateway import HostedCallbackReader, HostedGateway, register_callbacks
from engage_connectors.hosted_messaging import (
    CALLBACK_SECRET_HEADER,
    AccountStatus,
    CallbackAuthenticator,
    HostedMessagingClient,
    Provider,
)
from engage_core.contacts.model import ContactInput
from engage_core.messaging.gateway import Attachment
from engage_core.messaging.message_service import SendInput
from engage_core.services import Services
from engage_core.testing import AllowAllTargets, FakeCipher, FakeClock, InMemoryUnitOfWorkFactory
from engage_http import create_app

SECRET = "callback-secret-0123456789abcdef"
OWN_PHONE = "+966500000001"
CONTACT_PHONE = "+966512345678"
CONTACT_ID = "966512345678@s.whatsapp.net"


class Engage:
    """The app served on loopback, its services and fakes, and a client of one workspace."""

    def __init__(
        self, services: Services, uow: InMemoryUnitOfWorkFactory, base_url: str, account_id: int, api_key: str
    ) -> None:
        self.services = services
        self.uow = uow
        self.base_url = base_url
        self.account_id = account_id
        self.http = httpx.Client(base_url=base_url + "/api/v1", headers={"X-Api-Key": api_key}, trust_env=False)

    @property
    def callback_url(self) -> str:
        return self.base_url + "/api/v1/channels/provider/callbacks"


@pytest.fixture
def provider() -> Iterator[FakeProvider]:
    with FakeProvider() as fake:
        yield fake


@pytest.fixture
def engage(provider: FakeProvider) -> Iterator[Engage]:
    clock = FakeClock()
    uow = InMemoryUnitOfWorkFactory()
    client = HostedMessagingClient(provider.url, provider.api_key, timeout=5.0)
    gateway = HostedGateway(client, clock)
    services = Services.build(uow, clock, cipher=FakeCipher(), guard=AllowAllTargets(), gateway=gateway)
    reader = HostedCallbackReader(CallbackAuthenticator(SECRET), gateway)
    issued = services.accounts.create("Acme")
    with served(create_app(services, provider_callbacks=reader)) as base_url:
        engage = Engage(services, uow, base_url, issued.account.id, issued.api_key)
        register_callbacks(client, engage.callback_url, SECRET)
        yield engage
        engage.http.close()
    gateway.close()


def eventually(check: Callable[[], bool], what: str) -> None:
    """Wait (up to 5 s) for a callback the provider posts from a thread of its own."""
    deadline = time.monotonic() + 5
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


def connected_whatsapp(engage: Engage, provider: FakeProvider) -> str:
    account_id = str(engage.http.post("/channels/whatsapp/connect").json()["data"]["account_id"])
    provider.scan(account_id, phone=OWN_PHONE)
    return account_id


def whatsapp_contact(engage: Engage) -> int:
    contact = engage.services.contacts.create(
        engage.account_id, ContactInput(name="Kim", type="whatsapp", phone=CONTACT_PHONE)
    )
    return contact.id


# -- connecting ------------------------------------------------------------------------------------


def test_whatsapp_connect_shows_the_providers_qr_code(engage: Engage, provider: FakeProvider) -> None:
    """Connect answers the provider's account id and its multi-device QR code; polling waits for the scan."""
    data = engage.http.post("/channels/whatsapp/connect").json()["data"]

    status = engage.http.get("/channels/whatsapp/status").json()["data"]

    assert data["qr_code"] == provider.accounts[data["account_id"]].qr_code
    assert data["qr_code"].startswith("2@")
    assert (status["completed"], status["in_progress"]) == (False, True)


def test_scanning_connects_through_the_status_callback(engage: Engage, provider: FakeProvider) -> None:
    """The provider's `CREATION_SUCCESS` callback connects the channel, with the phone as username."""
    connected_whatsapp(engage, provider)

    status = engage.http.get("/channels/whatsapp/status").json()["data"]

    assert [d.status for d in provider.deliveries] == [200]
    assert (status["completed"], status["is_connected"], status["sync_status"]) == (True, True, "OK")
    assert status["username"] == OWN_PHONE


def test_a_failed_qr_code_polls_as_failed(engage: Engage, provider: FakeProvider) -> None:
    """A code that expires at the provider (`CREATION_FAIL`) polls as neither completed nor in progress."""
    account_id = engage.http.post("/channels/telegram/connect").json()["data"]["account_id"]
    provider.fail_qr(account_id)

    status = engage.http.get("/channels/telegram/status").json()["data"]

    assert (status["completed"], status["in_progress"], status["sync_status"]) == (False, False, "CREATION_FAIL")


def test_credentials_with_one_2fa_round(engage: Engage, provider: FakeProvider) -> None:
    """Instagram credentials hit one checkpoint; the code the network sent connects the account."""
    provider.add_login(Provider.INSTAGRAM, "acme.shop", "pw", rounds=("2FA",))
    login = engage.http.post("/channels/instagram/connect", json={"username": "acme.shop", "password": "pw"}).json()
    account_id = login["data"]["account_id"]

    answer = engage.http.post(
        "/channels/instagram/2fa", json={"account_id": account_id, "code": provider.code_for(account_id)}
    ).json()

    assert (login["data"]["requires_2fa"], login["data"]["checkpoint_type"]) == (True, "2FA")
    assert (answer["data"]["type"], answer["data"]["is_connected"]) == ("instagram", True)


def test_credentials_with_two_rounds_and_a_resend(engage: Engage, provider: FakeProvider) -> None:
    """Two LinkedIn rounds: a resend replaces the code (the old one is refused), then each round's code passes."""
    provider.add_login(Provider.LINKEDIN, "ada@example.com", "pw", rounds=("OTP", "IN_APP_VALIDATION"))
    login = engage.http.post("/channels/linkedin/connect", json={"username": "ada@example.com", "password": "pw"})
    account_id = login.json()["data"]["account_id"]
    old_code = provider.code_for(account_id)

    resent = engage.http.post("/channels/linkedin/2fa/resend", json={"account_id": account_id})
    refused = engage.http.post("/channels/linkedin/2fa", json={"account_id": account_id, "code": old_code})
    second = engage.http.post(
        "/channels/linkedin/2fa", json={"account_id": account_id, "code": provider.code_for(account_id)}
    ).json()["data"]
    done = engage.http.post(
        "/channels/linkedin/2fa", json={"account_id": account_id, "code": provider.code_for(account_id)}
    ).json()["data"]

    assert (resent.json()["success"], provider.resends[account_id]) == (True, 1)
    assert refused.status_code == 422
    assert (second["requires_2fa"], second["checkpoint_type"]) == (True, "IN_APP_VALIDATION")
    assert (done["type"], done["is_connected"]) == ("linkedin", True)


def test_refused_credentials_are_422(engage: Engage, provider: FakeProvider) -> None:
    """Credentials the network refuses answer 422 on `password`."""
    provider.add_login(Provider.INSTAGRAM, "acme.shop", "right")

    response = engage.http.post("/channels/instagram/connect", json={"username": "acme.shop", "password": "wrong"})

    assert response.status_code == 422
    assert "password" in response.json()["errors"]


# -- messages --------------------------------------------------------------------------------------


def test_a_send_goes_to_the_provider(engage: Engage, provider: FakeProvider) -> None:
    """A send to a WhatsApp contact reaches the provider as a message to its WhatsApp id, and is `sent`."""
    account_id = connected_whatsapp(engage, provider)
    contact_id = whatsapp_contact(engage)

    body = engage.http.post("/messages/send", json={"contact_id": contact_id, "message": "Hello Kim"}).json()

    assert (body["success"], body["data"]["status"]) == (True, "sent")
    assert [(s.account_id, s.attendee_id, s.text) for s in provider.sent] == [(account_id, CONTACT_ID, "Hello Kim")]


def test_an_inbound_message_arrives_by_callback(engage: Engage, provider: FakeProvider) -> None:
    """A message the provider calls back about is stored, with a new contact, and shows in conversations."""
    account_id = connected_whatsapp(engage, provider)

    _, deliveries = provider.receive_message(account_id, CONTACT_ID, "Is my order ready?", sender_name="Kim")

    [conversation] = engage.http.get("/conversations").json()["data"]
    assert [d.status for d in deliveries] == [200]
    assert (conversation["contact_name"], conversation["last_message"], conversation["unread_count"]) == (
        "Kim",
        "Is my order ready?",
        1,
    )


def test_the_same_callback_twice_stores_one_message(engage: Engage, provider: FakeProvider) -> None:
    """A callback the provider retries is stored once (deduplicated on the provider's message id)."""
    account_id = connected_whatsapp(engage, provider)
    _, [delivery] = provider.receive_message(account_id, CONTACT_ID, "Hello")

    provider.post_callback("messaging", delivery.body)

    [conversation] = engage.http.get("/conversations").json()["data"]
    assert conversation["unread_count"] == 1


def test_receipts_move_the_sent_message_to_read(engage: Engage, provider: FakeProvider) -> None:
    """Delivered and read callbacks move the sent message forward to `read`."""
    connected_whatsapp(engage, provider)
    contact_id = whatsapp_contact(engage)
    engage.http.post("/messages/send", json={"contact_id": contact_id, "message": "Hello"})
    [sent] = provider.sent

    provider.receipt(sent.message_id, "message_delivered")
    provider.receipt(sent.message_id, "message_read")

    [message] = engage.http.get(f"/contacts/{contact_id}/messages").json()["data"]
    assert message["status"] == "read"


def test_a_status_callback_takes_the_channel_offline(engage: Engage, provider: FakeProvider) -> None:
    """A `CREDENTIALS` status callback disconnects the channel and records `channel.disconnected`."""
    account_id = connected_whatsapp(engage, provider)

    provider.set_status(account_id, AccountStatus.CREDENTIALS)

    status = engage.http.get("/channels/whatsapp/status").json()["data"]
    assert (status["is_connected"], status["sync_status"]) == (False, "CREDENTIALS")
    events = [e for e in engage.uow.store.events(engage.account_id) if e.name == "channel.disconnected"]
    assert [e.payload["status"] for e in events] == ["CREDENTIALS"]


def test_a_provider_outage_stores_the_send_failed_with_its_error(engage: Engage, provider: FakeProvider) -> None:
    """During an outage the send is stored `failed` with the provider's error, and is listed (nothing lost)."""
    connected_whatsapp(engage, provider)
    contact_id = whatsapp_contact(engage)
    provider.outage("error")

    body = engage.http.post("/messages/send", json={"contact_id": contact_id, "message": "Hello"}).json()

    provider.outage(None)
    assert (body["success"], body["data"]["status"]) == (False, "failed")
    assert "500" in body["data"]["error"]
    [listed] = engage.http.get(f"/contacts/{contact_id}/messages").json()["data"]
    assert (listed["id"], listed["status"]) == (body["data"]["id"], "failed")


def test_disconnect_deletes_the_account_at_the_provider(engage: Engage, provider: FakeProvider) -> None:
    """Disconnect answers 204 and the provider no longer has the account."""
    account_id = connected_whatsapp(engage, provider)

    response = engage.http.post("/channels/whatsapp/disconnect")

    assert response.status_code == 204
    assert account_id not in provider.accounts
    eventually(lambda: len(provider.deliveries) == 2, "the DELETED callback")  # acknowledged, not an error
    assert provider.deliveries[-1].status == 202


# -- the callback route ----------------------------------------------------------------------------


def test_a_callback_without_the_secret_is_401(engage: Engage) -> None:
    """A callback with a wrong secret answers 401 and is not applied."""
    body = {"AccountStatus": {"account_id": "acc_x", "account_type": "WHATSAPP", "message": "OK"}}

    response = httpx.post(engage.callback_url, json=body, headers={CALLBACK_SECRET_HEADER: "not-the-secret"})

    assert response.status_code == 401
    assert response.json()["success"] is False


def test_a_callback_for_an_unknown_account_is_202(engage: Engage) -> None:
    """A well-formed callback about an account no workspace owns is acknowledged with 202."""
    body = {"AccountStatus": {"account_id": "acc_unknown", "account_type": "WHATSAPP", "message": "STOPPED"}}

    response = httpx.post(engage.callback_url, json=body, headers={CALLBACK_SECRET_HEADER: SECRET})

    assert (response.status_code, response.json()["data"]) == (202, {"outcome": "ignored"})


def test_a_malformed_callback_is_400(engage: Engage) -> None:
    """A body that is not a provider callback answers 400."""
    response = httpx.post(engage.callback_url, content=b"[1, 2]", headers={CALLBACK_SECRET_HEADER: SECRET})

    assert response.status_code == 400


def test_a_send_with_an_image_gives_the_provider_the_file(engage: Engage, provider: FakeProvider) -> None:
    """A message sent with an attachment reaches the provider with the file's bytes beside the text."""
    connected_whatsapp(engage, provider)
    image = b"\x89PNG\r\n\x1a\n" + b"\x01" * 100
    attachment = Attachment("tea.png", "image/png", "https://files.example/tea.png", lambda: io.BytesIO(image))

    result = engage.services.messages.send(
        engage.account_id, SendInput(whatsapp_contact(engage), "Our tea", attachment)
    )

    [record] = provider.sent
    assert (result.success, record.text, [(a.filename, a.content) for a in record.attachments]) == (
        True,
        "Our tea",
        [("tea.png", image)],
    )
