"""The provider's callbacks: the shared-secret check, parsing recorded-style bodies, and end to end
from the fake provider's webhooks (registered through the client) to a local receiver."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import pytest
from fake_provider import FakeProvider
from receiver import MakeReceiver, Received, Receiver

from engage_connectors.hosted_messaging import (
    CALLBACK_SECRET_HEADER,
    SOURCE_ACCOUNT_STATUS,
    SOURCE_MESSAGING,
    AccountStatus,
    AccountStatusChange,
    CallbackAuthenticator,
    CallbackRefused,
    HostedMessagingClient,
    IgnoredCallback,
    InboundMessage,
    MalformedCallback,
    Provider,
    Receipt,
    ReceiptKind,
    SentMessage,
    parse_callback,
)
from engage_connectors.hosted_messaging.callbacks import MAX_CALLBACK_BYTES

SECRET = "s3cret-shared-with-the-provider"

WHATSAPP_MESSAGE: dict[str, Any] = {
    "account_id": "Xk2_wHq3TmeY8xJpQe0V1A",
    "account_type": "WHATSAPP",
    "account_info": {"type": "WHATSAPP", "feature": "classic", "user_id": "966500000001@s.whatsapp.net"},
    "event": "message_received",
    "chat_id": "9fGf3n8WQbqk3yF1P0nY7w",
    "timestamp": "2026-03-02T09:15:27.402Z",
    "webhook_name": "engage",
    "message_id": "3EB0C767D71D8AF2B9E1",
    "message": "Is the blue one still in stock?",
    "sender": {
        "attendee_id": "p1m8Ck9CVtWv4vG0Kf3y2Q",
        "attendee_name": "Zoë Haddad",
        "attendee_provider_id": "966512345678@s.whatsapp.net",
        "attendee_profile_url": None,
    },
    "attendees": [],
    "attachments": [],
}

LINKEDIN_MESSAGE: dict[str, Any] = {
    "account_id": "dfXlh46vQYCsMbVarumWlg",
    "account_type": "LINKEDIN",
    "event": "message_received",
    "chat_id": "R8J-xM9WX7eoHLp6gSVtWQ",
    "timestamp": "2023-09-24T13:49:07.965Z",
    "webhook_name": "Webhook demo",
    "message_id": "ykmhfXlRW0W_cqReJYrfBw",
    "message": "Hello World !",
    "sender": {
        "attendee_id": "C8zaRZTlVcmfnke_Vai4Gg",
        "attendee_name": "Kim",
        "attendee_provider_id": "ACoAAAcDMMQBODyLwZrRcgYhrkCafURGqva0U4E",
        "attendee_profile_url": "https://www.linkedin.com/in/ACoAAAcDMMQBODyLwZrRcgYhrkCafURGqva0U4E/",
    },
}


def body(data: Any) -> bytes:
    return json.dumps(data).encode()


def changed(data: dict[str, Any], **changes: Any) -> dict[str, Any]:
    return {**data, **changes}


# -- parsing -------------------------------------------------------------------------------------------


def test_a_whatsapp_message_names_its_sender_by_phone() -> None:
    """A WhatsApp message_received becomes an InboundMessage with the sender's E.164 phone."""
    assert parse_callback(body(WHATSAPP_MESSAGE)) == InboundMessage(
        account_id="Xk2_wHq3TmeY8xJpQe0V1A",
        provider="WHATSAPP",
        provider_message_id="3EB0C767D71D8AF2B9E1",
        chat_id="9fGf3n8WQbqk3yF1P0nY7w",
        sender_id="966512345678@s.whatsapp.net",
        sender_phone="+966512345678",
        sender_name="Zoë Haddad",
        text="Is the blue one still in stock?",
        timestamp=datetime(2026, 3, 2, 9, 15, 27, 402000, tzinfo=UTC),
    )


def test_a_linkedin_message_has_a_sender_id_and_no_phone() -> None:
    """On LinkedIn the sender is the member id; there is no phone."""
    message = parse_callback(body(LINKEDIN_MESSAGE))
    assert isinstance(message, InboundMessage)
    assert (message.sender_id, message.sender_phone, message.sender_name) == (
        "ACoAAAcDMMQBODyLwZrRcgYhrkCafURGqva0U4E",
        None,
        "Kim",
    )


def test_a_message_with_only_attachments_has_no_text() -> None:
    """A null message text (attachments only) gives text None."""
    message = parse_callback(body(changed(WHATSAPP_MESSAGE, message=None)))
    assert isinstance(message, InboundMessage) and message.text is None


def test_a_timestamp_without_offset_is_taken_as_utc() -> None:
    """A naive timestamp is read as UTC, so every timestamp is timezone-aware."""
    message = parse_callback(body(changed(WHATSAPP_MESSAGE, timestamp="2026-03-02T09:15:27")))
    assert isinstance(message, InboundMessage) and message.timestamp == datetime(2026, 3, 2, 9, 15, 27, tzinfo=UTC)


def test_the_accounts_own_message_is_ignored() -> None:
    """A message the account's owner sent from the phone app is not an inbound message."""
    own = changed(WHATSAPP_MESSAGE, sender={"attendee_provider_id": "966500000001@s.whatsapp.net"})
    assert isinstance(parse_callback(body(own)), IgnoredCallback)


def test_a_message_flagged_is_sender_is_ignored() -> None:
    """is_sender true marks the account's own message even without account_info."""
    assert isinstance(parse_callback(body(changed(LINKEDIN_MESSAGE, is_sender=True))), IgnoredCallback)


@pytest.mark.parametrize(
    ("event", "kind"), [("message_read", ReceiptKind.READ), ("message_delivered", ReceiptKind.DELIVERED)]
)
def test_read_and_delivered_events_are_receipts(event: str, kind: ReceiptKind) -> None:
    """message_read and message_delivered become receipts for the message id."""
    data = {
        "event": event,
        "account_id": "Xk2_wHq3TmeY8xJpQe0V1A",
        "account_type": "WHATSAPP",
        "chat_id": "9fGf3n8WQbqk3yF1P0nY7w",
        "message_id": "3EB0C767D71D8AF2B9E1",
        "timestamp": "2026-03-02T09:16:00.000Z",
    }
    assert parse_callback(body(data)) == Receipt(
        "Xk2_wHq3TmeY8xJpQe0V1A", "3EB0C767D71D8AF2B9E1", kind, datetime(2026, 3, 2, 9, 16, tzinfo=UTC)
    )


def test_an_account_status_callback_is_a_status_change() -> None:
    """An AccountStatus body becomes an AccountStatusChange with an explanation."""
    data = {
        "AccountStatus": {"account_id": "h_EKCy2lRLef5NzHp0iw4A", "account_type": "LINKEDIN", "message": "CREDENTIALS"}
    }
    change = parse_callback(body(data))
    assert isinstance(change, AccountStatusChange)
    assert (change.account_id, change.provider, change.status) == ("h_EKCy2lRLef5NzHp0iw4A", "LINKEDIN", "CREDENTIALS")
    assert "reconnected" in change.message


@pytest.mark.parametrize("status", list(AccountStatus))
def test_every_known_status_is_read(status: AccountStatus) -> None:
    """Each status the provider documents parses to itself."""
    data = {"AccountStatus": {"account_id": "a1", "account_type": "WHATSAPP", "message": status.value}}
    change = parse_callback(body(data))
    assert isinstance(change, AccountStatusChange) and change.status is status


def test_an_unknown_status_is_ignored_not_refused() -> None:
    """A status the provider adds later is acknowledged and ignored rather than failing the callback."""
    data = {"AccountStatus": {"account_id": "a1", "account_type": "WHATSAPP", "message": "HIBERNATING"}}
    assert parse_callback(body(data)) == IgnoredCallback("The account status 'HIBERNATING' is not known.")


def test_other_events_are_ignored() -> None:
    """A reaction is a well-formed callback we do not act on."""
    assert isinstance(parse_callback(body(changed(LINKEDIN_MESSAGE, event="message_reaction"))), IgnoredCallback)


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        (b"not json", "not JSON"),
        (b"[1, 2]", "not a JSON object"),
        (b"\xff\xfe", "not JSON"),
        (b'{"hello": "world"}', "neither an AccountStatus nor an event"),
        (body(changed(WHATSAPP_MESSAGE, message_id=None)), "'message_id'"),
        (body(changed(WHATSAPP_MESSAGE, sender="Zoë")), "'sender'"),
        (body(changed(WHATSAPP_MESSAGE, timestamp="yesterday")), "ISO 8601"),
        (body({"AccountStatus": {"account_id": "a1", "account_type": "WHATSAPP"}}), "'message'"),
    ],
)
def test_a_body_that_is_not_a_callback_is_malformed(raw: bytes, reason: str) -> None:
    """Bodies that are not callbacks raise MalformedCallback saying what is wrong."""
    with pytest.raises(MalformedCallback, match=reason):
        parse_callback(raw)


def test_an_oversized_body_is_malformed() -> None:
    """A body over the size limit is refused before it is parsed."""
    with pytest.raises(MalformedCallback, match="too large"):
        parse_callback(b" " * (MAX_CALLBACK_BYTES + 1))


# -- authentication ------------------------------------------------------------------------------------


def test_the_right_secret_is_accepted_whatever_the_header_case() -> None:
    """The secret header is found case-insensitively, in a mapping or a list of pairs."""
    authenticator = CallbackAuthenticator(SECRET)
    authenticator.authenticate({"x-engage-provider-secret": SECRET})
    authenticator.authenticate([("Content-Type", "application/json"), (CALLBACK_SECRET_HEADER, SECRET)])


@pytest.mark.parametrize(
    "headers",
    [
        [],
        [(CALLBACK_SECRET_HEADER, "")],
        [(CALLBACK_SECRET_HEADER, SECRET[:-1])],
        [(CALLBACK_SECRET_HEADER, SECRET + "x")],
        [(CALLBACK_SECRET_HEADER, SECRET), (CALLBACK_SECRET_HEADER, "other")],
        [("X-API-KEY", SECRET)],
    ],
)
def test_a_missing_wrong_or_doubled_secret_is_refused(headers: list[tuple[str, str]]) -> None:
    """Anything but exactly one header with exactly the secret raises CallbackRefused."""
    with pytest.raises(CallbackRefused):
        CallbackAuthenticator(SECRET).authenticate(headers)


def test_a_short_secret_is_refused_at_configuration() -> None:
    """A guessable secret (under 16 characters) cannot be configured."""
    with pytest.raises(ValueError, match="16 characters"):
        CallbackAuthenticator("short")


# -- end to end: fake provider -> webhook -> receiver ------------------------------------------------------


@pytest.fixture
def provider() -> Iterator[FakeProvider]:
    with FakeProvider() as fake:
        yield fake


@pytest.fixture
def client(provider: FakeProvider) -> Iterator[HostedMessagingClient]:
    client = HostedMessagingClient(provider.url, provider.api_key, timeout=5.0)
    yield client
    client.close()


@pytest.fixture
def listen(client: HostedMessagingClient, make_receiver: MakeReceiver) -> Callable[..., Receiver]:
    """`listen(source, secret=SECRET)`: a local receiver, registered as the webhook of `source`."""

    def listen(source: str, *, secret: str = SECRET) -> Receiver:
        receiver = make_receiver(tls=False)
        client.register_webhook(receiver.url(), source, {CALLBACK_SECRET_HEADER: secret}, name="engage")
        return receiver

    return listen


@pytest.fixture
def connect(provider: FakeProvider, client: HostedMessagingClient) -> Callable[..., str]:
    """`connect(network=Provider.WHATSAPP)`: the id of a new account whose QR code the owner scanned."""

    def connect(network: Provider = Provider.WHATSAPP) -> str:
        challenge = client.connect_qr(network)
        provider.scan(challenge.account_id)
        return challenge.account_id

    return connect


@dataclass(frozen=True)
class Outgoing:
    """A message sent from a connected account, and the receiver of the account's `messaging` callbacks."""

    receiver: Receiver
    account_id: str
    sent: SentMessage


@pytest.fixture
def outgoing(client: HostedMessagingClient, listen: Callable[..., Receiver], connect: Callable[..., str]) -> Outgoing:
    """`hello` sent to +966512345678 from a connected WhatsApp account whose `messaging` webhook is listened to."""
    receiver = listen(SOURCE_MESSAGING)
    account_id = connect()
    sent = client.send_message(Provider.WHATSAPP, account_id, "+966512345678", "hello")
    return Outgoing(receiver, account_id, sent)


def read(request: Received, authenticator: CallbackAuthenticator) -> object:
    """What the callback route does with a request: authenticate, then parse."""
    authenticator.authenticate(request.raw_headers)
    return parse_callback(request.body)


def test_registering_webhooks_sends_the_secret_header(
    provider: FakeProvider, client: HostedMessagingClient, make_receiver: MakeReceiver
) -> None:
    """register_webhook gives the provider the URL, the source and the secret header to send back."""
    url = make_receiver(tls=False).url("/channels/provider/callbacks")
    webhook_id = client.register_webhook(url, SOURCE_MESSAGING, {CALLBACK_SECRET_HEADER: SECRET}, name="engage")
    [webhook] = provider.webhooks()
    assert (webhook.id, webhook.url, webhook.source) == (webhook_id, url, "messaging")
    assert (CALLBACK_SECRET_HEADER, SECRET) in webhook.headers


def test_a_status_callback_arrives_authenticated_and_parsed(
    listen: Callable[..., Receiver], connect: Callable[..., str]
) -> None:
    """Scanning a QR code posts CREATION_SUCCESS, which authenticates and parses on our side."""
    receiver = listen(SOURCE_ACCOUNT_STATUS)
    account_id = connect()
    [request] = receiver.wait_for(1)
    change = read(request, CallbackAuthenticator(SECRET))
    assert change == AccountStatusChange(
        account_id, "WHATSAPP", AccountStatus.CREATION_SUCCESS, AccountStatus.CREATION_SUCCESS.description
    )


def test_a_session_ending_posts_credentials(
    provider: FakeProvider, listen: Callable[..., Receiver], connect: Callable[..., str]
) -> None:
    """An account whose session ends is announced as CREDENTIALS, needing a reconnect."""
    receiver = listen(SOURCE_ACCOUNT_STATUS)
    account_id = connect(Provider.TELEGRAM)
    provider.set_status(account_id, AccountStatus.CREDENTIALS)
    change = read(receiver.wait_for(2)[1], CallbackAuthenticator(SECRET))
    assert isinstance(change, AccountStatusChange) and change.status.needs_reconnect


def test_an_inbound_message_arrives_parsed(
    provider: FakeProvider, listen: Callable[..., Receiver], connect: Callable[..., str]
) -> None:
    """A message written to the account reaches the messaging webhook as an InboundMessage."""
    receiver = listen(SOURCE_MESSAGING)
    account_id = connect()
    message_id, [delivery] = provider.receive_message(account_id, "966512345678@s.whatsapp.net", "Hi there")
    assert delivery.status == 200
    message = read(receiver.wait_for(1)[0], CallbackAuthenticator(SECRET))
    assert isinstance(message, InboundMessage)
    assert (message.provider_message_id, message.sender_phone, message.text) == (
        message_id,
        "+966512345678",
        "Hi there",
    )


def test_our_own_message_from_the_phone_is_ignored(provider: FakeProvider, outgoing: Outgoing) -> None:
    """The owner's message typed on the phone comes back as a callback that is ignored."""
    provider.echo_own_message(outgoing.account_id, outgoing.sent.chat_id, "typed on the phone")
    assert isinstance(read(outgoing.receiver.wait_for(1)[0], CallbackAuthenticator(SECRET)), IgnoredCallback)


def test_receipts_name_the_sent_message(provider: FakeProvider, outgoing: Outgoing) -> None:
    """Delivered then read receipts carry the message id send_message returned."""
    sent = outgoing.sent
    assert sent.message_id is not None
    provider.receipt(sent.message_id, "message_delivered")
    provider.receipt(sent.message_id, "message_read")
    receipts = [read(request, CallbackAuthenticator(SECRET)) for request in outgoing.receiver.wait_for(2)]
    assert [(r.provider_message_id, r.kind) for r in receipts if isinstance(r, Receipt)] == [
        (sent.message_id, ReceiptKind.DELIVERED),
        (sent.message_id, ReceiptKind.READ),
    ]


def test_a_callback_with_the_wrong_secret_is_refused(
    listen: Callable[..., Receiver], connect: Callable[..., str]
) -> None:
    """A webhook registered with another secret delivers callbacks our authenticator refuses."""
    receiver = listen(SOURCE_ACCOUNT_STATUS, secret="an-attackers-guess-123")
    connect()
    with pytest.raises(CallbackRefused):
        read(receiver.wait_for(1)[0], CallbackAuthenticator(SECRET))
