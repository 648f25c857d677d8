"""HostedMessagingClient against the local fake provider: accounts, QR links, credential logins
with checkpoint rounds, reconnecting, and sending messages, over real HTTP on 127.0.0.1."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fake_provider import Attachment, FakeProvider

from engage_connectors.hosted_messaging import (
    AccountStatus,
    CheckpointRejected,
    CheckpointRequired,
    Connected,
    CredentialsRejected,
    FileUpload,
    HostedMessagingClient,
    NotFound,
    Provider,
    ProviderAuthFailed,
    ProviderRejected,
    QrChallenge,
)

PHONE = "+966500000001"
CONTACT_PHONE = "+966512345678"


@pytest.fixture
def provider() -> Iterator[FakeProvider]:
    with FakeProvider() as fake:
        yield fake


@pytest.fixture
def client(provider: FakeProvider) -> Iterator[HostedMessagingClient]:
    client = HostedMessagingClient(provider.url, provider.api_key, timeout=5.0)
    yield client
    client.close()


def connected_whatsapp(provider: FakeProvider, client: HostedMessagingClient) -> str:
    challenge = client.connect_qr(Provider.WHATSAPP)
    provider.scan(challenge.account_id, phone=PHONE)
    return challenge.account_id


# -- QR links ----------------------------------------------------------------------------------------


def test_whatsapp_connect_returns_a_multi_device_qr_code(client: HostedMessagingClient) -> None:
    """WhatsApp connect answers the account id and a multi-device pairing string, not a URL."""
    challenge = client.connect_qr(Provider.WHATSAPP)
    assert challenge.account_id
    assert challenge.qr_code.startswith("2@") and challenge.qr_code.count(",") == 3


def test_telegram_connect_returns_a_login_link(client: HostedMessagingClient) -> None:
    """Telegram connect answers a tg://login link as the code to scan."""
    assert client.connect_qr(Provider.TELEGRAM).qr_code.startswith("tg://login?token=")


def test_a_qr_account_is_connecting_until_it_is_scanned(provider: FakeProvider, client: HostedMessagingClient) -> None:
    """Polling an unscanned QR link reports CONNECTING; after the scan it reports OK with the phone."""
    challenge = client.connect_qr(Provider.WHATSAPP)
    assert client.account(challenge.account_id).status is AccountStatus.CONNECTING
    provider.scan(challenge.account_id, phone=PHONE)
    account = client.account(challenge.account_id)
    assert (account.status, account.username, account.provider) == (AccountStatus.OK, PHONE, "WHATSAPP")


def test_a_failed_qr_attempt_is_not_an_account(provider: FakeProvider, client: HostedMessagingClient) -> None:
    """Once a QR code expires unscanned, polling the account raises NotFound."""
    challenge = client.connect_qr(Provider.TELEGRAM)
    provider.fail_qr(challenge.account_id)
    with pytest.raises(NotFound):
        client.account(challenge.account_id)


def test_qr_connect_refuses_a_credentials_network(client: HostedMessagingClient) -> None:
    """Asking for a QR code for LinkedIn is a programming error, caught before any request."""
    with pytest.raises(ValueError, match="credentials"):
        client.connect_qr(Provider.LINKEDIN)


# -- credential logins and checkpoints ----------------------------------------------------------------


def test_a_login_without_checkpoint_connects_at_once(provider: FakeProvider, client: HostedMessagingClient) -> None:
    """Credentials the network accepts outright give a Connected account that reports OK."""
    provider.add_login(Provider.INSTAGRAM, "ada", "secret-pw")
    result = client.connect_credentials(Provider.INSTAGRAM, "ada", "secret-pw")
    assert isinstance(result, Connected)
    assert client.account(result.account_id).status is AccountStatus.OK


def test_one_2fa_round_then_connected(provider: FakeProvider, client: HostedMessagingClient) -> None:
    """A login with one checkpoint asks for its type, and the right code connects the account."""
    provider.add_login(Provider.INSTAGRAM, "ada", "secret-pw", rounds=("2FA",))
    first = client.connect_credentials(Provider.INSTAGRAM, "ada", "secret-pw", country="sa")
    assert isinstance(first, CheckpointRequired) and first.checkpoint_type == "2FA"
    result = client.solve_checkpoint(Provider.INSTAGRAM, first.account_id, provider.code_for(first.account_id))
    assert result == Connected(first.account_id)


def test_two_rounds_are_answered_in_turn(provider: FakeProvider, client: HostedMessagingClient) -> None:
    """A second checkpoint follows the first; only the last code connects the account."""
    provider.add_login(Provider.LINKEDIN, "ada@example.com", "secret-pw", rounds=("2FA", "OTP"))
    first = client.connect_credentials(Provider.LINKEDIN, "ada@example.com", "secret-pw")
    assert isinstance(first, CheckpointRequired)
    second = client.solve_checkpoint(Provider.LINKEDIN, first.account_id, provider.code_for(first.account_id))
    assert second == CheckpointRequired(first.account_id, "OTP")
    assert client.account(first.account_id).status is AccountStatus.CONNECTING
    third = client.solve_checkpoint(Provider.LINKEDIN, first.account_id, provider.code_for(first.account_id))
    assert third == Connected(first.account_id)
    assert client.account(first.account_id).status is AccountStatus.OK


def test_a_wrong_code_is_rejected_and_the_checkpoint_stays_open(
    provider: FakeProvider, client: HostedMessagingClient
) -> None:
    """A wrong code raises CheckpointRejected; the right code afterwards still connects."""
    provider.add_login(Provider.INSTAGRAM, "ada", "secret-pw", rounds=("2FA",))
    first = client.connect_credentials(Provider.INSTAGRAM, "ada", "secret-pw")
    assert isinstance(first, CheckpointRequired)
    with pytest.raises(CheckpointRejected) as caught:
        client.solve_checkpoint(Provider.INSTAGRAM, first.account_id, "not-the-code")
    assert caught.value.error_type == "errors/invalid_checkpoint_solution"
    result = client.solve_checkpoint(Provider.INSTAGRAM, first.account_id, provider.code_for(first.account_id))
    assert isinstance(result, Connected)


def test_resend_replaces_the_code(provider: FakeProvider, client: HostedMessagingClient) -> None:
    """After a resend the earlier code is refused and the newly sent one connects."""
    provider.add_login(Provider.LINKEDIN, "ada@example.com", "secret-pw", rounds=("OTP",))
    first = client.connect_credentials(Provider.LINKEDIN, "ada@example.com", "secret-pw")
    assert isinstance(first, CheckpointRequired)
    old_code = provider.code_for(first.account_id)
    client.resend_checkpoint(Provider.LINKEDIN, first.account_id)
    assert provider.resends[first.account_id] == 1
    new_code = provider.code_for(first.account_id)
    with pytest.raises(CheckpointRejected):
        client.solve_checkpoint(Provider.LINKEDIN, first.account_id, old_code)
    assert isinstance(client.solve_checkpoint(Provider.LINKEDIN, first.account_id, new_code), Connected)


def test_resend_without_an_open_checkpoint_is_rejected(provider: FakeProvider, client: HostedMessagingClient) -> None:
    """Resending for an account with no checkpoint waiting is refused with the provider's message."""
    provider.add_login(Provider.INSTAGRAM, "ada", "secret-pw")
    result = client.connect_credentials(Provider.INSTAGRAM, "ada", "secret-pw")
    with pytest.raises(ProviderRejected, match="No checkpoint is waiting"):
        client.resend_checkpoint(Provider.INSTAGRAM, result.account_id)


def test_wrong_credentials_are_rejected(provider: FakeProvider, client: HostedMessagingClient) -> None:
    """A wrong password raises CredentialsRejected, not an API-key failure."""
    provider.add_login(Provider.INSTAGRAM, "ada", "secret-pw")
    with pytest.raises(CredentialsRejected) as caught:
        client.connect_credentials(Provider.INSTAGRAM, "ada", "wrong-pw")
    assert caught.value.status == 401


def test_a_wrong_api_key_is_an_auth_failure(provider: FakeProvider) -> None:
    """A key the provider does not know raises ProviderAuthFailed."""
    client = HostedMessagingClient(provider.url, "not-the-key", timeout=5.0)
    with pytest.raises(ProviderAuthFailed):
        client.connect_qr(Provider.WHATSAPP)
    client.close()


# -- account lifecycle ---------------------------------------------------------------------------------


def test_reconnecting_a_qr_account_keeps_its_id(provider: FakeProvider, client: HostedMessagingClient) -> None:
    """Reconnecting WhatsApp gives a new QR code for the same account, which a scan brings back to OK."""
    account_id = connected_whatsapp(provider, client)
    provider.set_status(account_id, AccountStatus.CREDENTIALS)
    result = client.reconnect(Provider.WHATSAPP, account_id)
    assert isinstance(result, QrChallenge) and result.account_id == account_id
    provider.scan(account_id, phone=PHONE)
    assert client.account(account_id).status is AccountStatus.OK


def test_reconnecting_with_credentials_goes_through_the_checkpoints(
    provider: FakeProvider, client: HostedMessagingClient
) -> None:
    """Reconnecting LinkedIn logs in again, checkpoint included, and reconnects the same account."""
    provider.add_login(Provider.LINKEDIN, "ada@example.com", "secret-pw", rounds=("2FA",))
    first = client.connect_credentials(Provider.LINKEDIN, "ada@example.com", "secret-pw")
    client.solve_checkpoint(Provider.LINKEDIN, first.account_id, provider.code_for(first.account_id))
    provider.set_status(first.account_id, AccountStatus.CREDENTIALS)
    again = client.reconnect(Provider.LINKEDIN, first.account_id, username="ada@example.com", password="secret-pw")
    assert again == CheckpointRequired(first.account_id, "2FA")
    code = provider.code_for(first.account_id)
    assert client.solve_checkpoint(Provider.LINKEDIN, first.account_id, code) == Connected(first.account_id)


def test_restart_brings_a_stopped_account_back(provider: FakeProvider, client: HostedMessagingClient) -> None:
    """Restarting an account whose synchronisation stopped makes it OK again."""
    account_id = connected_whatsapp(provider, client)
    provider.set_status(account_id, AccountStatus.STOPPED)
    client.restart(account_id)
    assert client.account(account_id).status is AccountStatus.OK


def test_delete_removes_the_account(provider: FakeProvider, client: HostedMessagingClient) -> None:
    """A deleted account is gone: reading it, or deleting it again, raises NotFound."""
    account_id = connected_whatsapp(provider, client)
    client.delete(account_id)
    with pytest.raises(NotFound):
        client.account(account_id)
    with pytest.raises(NotFound):
        client.delete(account_id)


def test_an_account_id_stays_one_path_segment(provider: FakeProvider, client: HostedMessagingClient) -> None:
    """An id containing a slash is escaped, so it cannot reach another route."""
    with pytest.raises(NotFound):
        client.account("x/restart")
    assert provider.requests[-1] == ("GET", "/api/v1/accounts/x%2Frestart")


# -- messages ------------------------------------------------------------------------------------------


def test_send_message_to_a_phone_reaches_the_whatsapp_user(
    provider: FakeProvider, client: HostedMessagingClient
) -> None:
    """A WhatsApp send names the recipient by phone; the provider gets its WhatsApp id and the text."""
    account_id = connected_whatsapp(provider, client)
    sent = client.send_message(Provider.WHATSAPP, account_id, "+966 51 234 5678", "Hello, Zoë")
    [record] = provider.sent
    assert (record.attendee_id, record.text, record.account_id) == (
        "966512345678@s.whatsapp.net",
        "Hello, Zoë",
        account_id,
    )
    assert (sent.chat_id, sent.message_id) == (record.chat_id, record.message_id)


def test_a_second_send_to_the_same_person_reuses_the_chat(
    provider: FakeProvider, client: HostedMessagingClient
) -> None:
    """Two sends to one person land in one chat, with distinct message ids."""
    account_id = connected_whatsapp(provider, client)
    first = client.send_message(Provider.WHATSAPP, account_id, CONTACT_PHONE, "one")
    second = client.send_message(Provider.WHATSAPP, account_id, CONTACT_PHONE, "two")
    assert first.chat_id == second.chat_id and first.message_id != second.message_id


def test_send_in_chat_and_list_its_messages(provider: FakeProvider, client: HostedMessagingClient) -> None:
    """Messages sent into a chat are listed newest first, marked as sent by the account."""
    account_id = connected_whatsapp(provider, client)
    started = client.send_message(Provider.WHATSAPP, account_id, CONTACT_PHONE, "first")
    followed = client.send_in_chat(started.chat_id, "second")
    page = client.messages(started.chat_id)
    assert [(m.id, m.text, m.is_sender) for m in page.items] == [
        (followed.message_id, "second", True),
        (started.message_id, "first", True),
    ]
    assert page.cursor is None


def test_messages_are_paged_with_a_cursor(provider: FakeProvider, client: HostedMessagingClient) -> None:
    """A limit cuts the list and the cursor leads to the older messages."""
    account_id = connected_whatsapp(provider, client)
    chat_id = client.send_message(Provider.WHATSAPP, account_id, CONTACT_PHONE, "m0").chat_id
    for index in range(1, 3):
        client.send_in_chat(chat_id, f"m{index}")
    first = client.messages(chat_id, limit=2)
    second = client.messages(chat_id, limit=2, cursor=first.cursor)
    assert [m.text for m in first.items + second.items] == ["m2", "m1", "m0"]
    assert second.cursor is None


def test_a_send_on_a_disconnected_account_is_rejected(provider: FakeProvider, client: HostedMessagingClient) -> None:
    """Sending through an account whose session ended is refused with the provider's reason."""
    account_id = connected_whatsapp(provider, client)
    provider.set_status(account_id, AccountStatus.CREDENTIALS)
    with pytest.raises(ProviderRejected, match="disconnected") as caught:
        client.send_message(Provider.WHATSAPP, account_id, CONTACT_PHONE, "hello")
    assert not isinstance(caught.value, CredentialsRejected)
    assert provider.sent == []


def test_a_send_to_an_invalid_phone_never_reaches_the_provider(
    provider: FakeProvider, client: HostedMessagingClient
) -> None:
    """A WhatsApp recipient that is not a valid international number is a ValueError, with no request made."""
    account_id = connected_whatsapp(provider, client)
    before = len(provider.requests)
    with pytest.raises(ValueError, match=r"E\.164"):
        client.send_message(Provider.WHATSAPP, account_id, "0512345678", "hello")
    assert len(provider.requests) == before


def test_other_networks_take_the_attendee_id_unchanged(provider: FakeProvider, client: HostedMessagingClient) -> None:
    """An Instagram recipient is the provider's attendee id, sent as given."""
    provider.add_login(Provider.INSTAGRAM, "ada", "secret-pw")
    account_id = client.connect_credentials(Provider.INSTAGRAM, "ada", "secret-pw").account_id
    client.send_message(Provider.INSTAGRAM, account_id, "340282366841710300949128", "hello")
    assert provider.sent[0].attendee_id == "340282366841710300949128"


def test_a_file_goes_with_the_text_in_one_request(provider: FakeProvider, client: HostedMessagingClient) -> None:
    """A send with a file reaches the provider as one message: the text and the file's name, type and bytes."""
    account_id = connected_whatsapp(provider, client)
    image = b"\x89PNG\r\n\x1a\n" + bytes(range(256))

    client.send_message(
        Provider.WHATSAPP, account_id, CONTACT_PHONE, "Our tea", FileUpload("tea.png", "image/png", image)
    )

    [record] = provider.sent
    assert (record.text, record.attachments) == ("Our tea", (Attachment("tea.png", "image/png", image),))
