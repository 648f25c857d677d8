"""The sandbox gateway: real QR texts, scans, expiry, 2FA rounds, sends, outages and callbacks."""

from __future__ import annotations

import base64
import re

import pytest

from engage_core.messaging.channels import ChannelAccount
from engage_core.messaging.gateway import (
    Authenticated,
    Checkpoint,
    GatewayRejected,
    GatewayUnavailable,
    InboundMessage,
    Receipt,
    StatusChange,
)
from engage_core.messaging.messages import Message
from engage_core.messaging.sandbox import QR_LIFETIME, SANDBOX_CODE, SandboxGateway, SandboxRefused
from engage_core.testing import FakeClock

from ..factories import START
from .fixtures import CountingBytes


class RecordingSink:
    """An inbound sink that keeps what it is handed."""

    def __init__(self) -> None:
        self.received: list[object] = []

    def receive(self, message: InboundMessage) -> Message | None:
        self.received.append(message)
        return None

    def receipt(self, receipt: Receipt) -> Message | None:
        self.received.append(receipt)
        return None

    def status_changed(self, change: StatusChange) -> ChannelAccount | None:
        self.received.append(change)
        return None


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(START)


@pytest.fixture
def sink() -> RecordingSink:
    return RecordingSink()


@pytest.fixture
def sandbox(clock: FakeClock, sink: RecordingSink) -> SandboxGateway:
    return SandboxGateway(clock, token_bytes=CountingBytes(), sink=sink)


def _b64_size(part: str) -> int:
    return len(base64.b64decode(part, validate=True))


def test_whatsapp_qr_is_a_multi_device_pairing_string(sandbox: SandboxGateway) -> None:
    """`2@ref,noise-key,identity-key,adv-secret`, each part valid base64, keys of 32 bytes."""
    qr = sandbox.start_qr("whatsapp").qr_code
    ref, *keys = qr.split(",")
    assert ref.startswith("2@") and _b64_size(ref[2:]) == 48
    assert [_b64_size(k) for k in keys] == [32, 32, 32]


def test_telegram_qr_is_a_login_link(sandbox: SandboxGateway) -> None:
    """`tg://login?token=<base64url>` without padding, 32 token bytes."""
    qr = sandbox.start_qr("telegram").qr_code
    match = re.fullmatch(r"tg://login\?token=([A-Za-z0-9_-]+)", qr)
    assert match is not None
    assert len(base64.urlsafe_b64decode(match.group(1) + "=" * (-len(match.group(1)) % 4))) == 32


def test_each_qr_attempt_has_a_new_code_and_account(sandbox: SandboxGateway) -> None:
    """Two attempts never share an account id or a QR text."""
    first, second = sandbox.start_qr("whatsapp"), sandbox.start_qr("whatsapp")
    assert first.provider_account_id != second.provider_account_id
    assert first.qr_code != second.qr_code


def test_a_waiting_qr_polls_connecting(sandbox: SandboxGateway) -> None:
    """Before the scan the account is CONNECTING."""
    login = sandbox.start_qr("whatsapp")
    assert sandbox.poll(login.provider_account_id).status == "CONNECTING"


def test_scanning_links_the_account_and_calls_back(sandbox: SandboxGateway, sink: RecordingSink) -> None:
    """scan: the poll says OK with the phone, and the sink hears CREATION_SUCCESS."""
    login = sandbox.start_qr("whatsapp")
    sandbox.scan(login.provider_account_id, "+966501234567")
    report = sandbox.poll(login.provider_account_id)
    assert (report.status, report.username) == ("OK", "+966501234567")
    assert sink.received == [StatusChange(login.provider_account_id, "CREATION_SUCCESS", username="+966501234567")]


def test_a_refused_qr_fails_the_attempt(sandbox: SandboxGateway) -> None:
    """fail: the poll says CREATION_FAIL with the error."""
    login = sandbox.start_qr("telegram")
    sandbox.fail(login.provider_account_id, "Refused on the phone")
    report = sandbox.poll(login.provider_account_id)
    assert (report.status, report.error) == ("CREATION_FAIL", "Refused on the phone")


def test_a_qr_expires_after_its_lifetime(sandbox: SandboxGateway, clock: FakeClock) -> None:
    """Not scanned within QR_LIFETIME: CREATION_FAIL, and a late scan is refused."""
    login = sandbox.start_qr("whatsapp")
    clock.advance(seconds=QR_LIFETIME.total_seconds())
    assert sandbox.poll(login.provider_account_id).error == "The QR code expired."
    with pytest.raises(SandboxRefused):
        sandbox.scan(login.provider_account_id)


def test_a_plain_password_logs_in_at_once(sandbox: SandboxGateway) -> None:
    """No `#2fa` suffix: authenticated straight away."""
    outcome = sandbox.connect_credentials("instagram", "acme.shop", "secret", "SA")
    assert outcome == Authenticated(outcome.provider_account_id, "acme.shop")


def test_a_wrong_password_is_refused(sandbox: SandboxGateway) -> None:
    """A password starting with `wrong` is GatewayRejected."""
    with pytest.raises(GatewayRejected, match="Invalid credentials"):
        sandbox.connect_credentials("instagram", "acme.shop", "wrong-one", "SA")


def test_linkedin_rounds_cycle_through_checkpoint_types(sandbox: SandboxGateway) -> None:
    """`#2fa3`: three rounds, OTP then IN_APP_VALIDATION then CAPTCHA, then authenticated."""
    outcome = sandbox.connect_credentials("linkedin", "ada@example.com", "secret#2fa3", "SA")
    seen = []
    while isinstance(outcome, Checkpoint):
        seen.append(outcome.checkpoint_type)
        outcome = sandbox.solve_checkpoint(outcome.provider_account_id, SANDBOX_CODE)
    assert seen == ["OTP", "IN_APP_VALIDATION", "CAPTCHA"]
    assert isinstance(outcome, Authenticated)


def test_a_wrong_code_keeps_the_checkpoint_waiting(sandbox: SandboxGateway) -> None:
    """A wrong code is refused; the right one afterwards still passes."""
    checkpoint = sandbox.connect_credentials("instagram", "acme.shop", "secret#2fa", "SA")
    with pytest.raises(GatewayRejected, match="not valid"):
        sandbox.solve_checkpoint(checkpoint.provider_account_id, "000000")
    assert isinstance(sandbox.solve_checkpoint(checkpoint.provider_account_id, SANDBOX_CODE), Authenticated)


def test_resending_counts_and_needs_a_checkpoint(sandbox: SandboxGateway) -> None:
    """resend_checkpoint is counted; without a waiting checkpoint it is refused."""
    checkpoint = sandbox.connect_credentials("instagram", "acme.shop", "secret#2fa", "SA")
    sandbox.resend_checkpoint(checkpoint.provider_account_id)
    assert sandbox.account(checkpoint.provider_account_id).resends == 1
    sandbox.solve_checkpoint(checkpoint.provider_account_id, SANDBOX_CODE)
    with pytest.raises(GatewayRejected):
        sandbox.resend_checkpoint(checkpoint.provider_account_id)


def test_a_connected_account_sends_with_provider_ids(sandbox: SandboxGateway) -> None:
    """Sends get distinct `sbx-msg-<n>` ids and are kept on the account."""
    account = sandbox.connect_credentials("instagram", "acme.shop", "secret", "SA").provider_account_id
    first = sandbox.send(account, "ada", "Hello")
    second = sandbox.send(account, "ada", "Again")
    assert (first.provider_message_id, second.provider_message_id) == ("sbx-msg-1", "sbx-msg-2")
    assert [s.text for s in sandbox.account(account).sent] == ["Hello", "Again"]


def test_an_account_not_connected_cannot_send(sandbox: SandboxGateway) -> None:
    """A send from a waiting QR account is refused."""
    login = sandbox.start_qr("whatsapp")
    with pytest.raises(GatewayRejected, match="not connected"):
        sandbox.send(login.provider_account_id, "+966501234567", "Hello")


def test_an_outage_fails_every_call_until_restored(sandbox: SandboxGateway) -> None:
    """outage(): GatewayUnavailable with the message; restore() ends it."""
    sandbox.outage("Provider down")
    with pytest.raises(GatewayUnavailable, match="Provider down"):
        sandbox.start_qr("whatsapp")
    sandbox.restore()
    assert sandbox.start_qr("whatsapp").qr_code


def test_injected_messages_reach_the_sink(sandbox: SandboxGateway, sink: RecordingSink, clock: FakeClock) -> None:
    """inject_message hands an InboundMessage stamped with the clock to the sink."""
    login = sandbox.start_qr("whatsapp")
    message = sandbox.inject_message(login.provider_account_id, "+966501234567", "Hi", sender_name="Ada")
    assert sink.received == [message]
    assert (message.text, message.sender_name, message.received_at) == ("Hi", "Ada", clock.now())


def test_injected_receipts_reach_the_sink(sandbox: SandboxGateway, sink: RecordingSink) -> None:
    """inject_receipt hands a Receipt to the sink; only delivered or read are accepted."""
    login = sandbox.start_qr("whatsapp")
    receipt = sandbox.inject_receipt(login.provider_account_id, "sbx-msg-1", "read")
    assert sink.received == [receipt]
    with pytest.raises(SandboxRefused):
        sandbox.inject_receipt(login.provider_account_id, "sbx-msg-1", "lost")


def test_status_changes_reach_the_sink(sandbox: SandboxGateway, sink: RecordingSink) -> None:
    """set_status changes the provider status and calls back with the reason."""
    login = sandbox.start_qr("whatsapp")
    sandbox.set_status(login.provider_account_id, "stopped", "Paused by the provider")
    assert sandbox.poll(login.provider_account_id).status == "STOPPED"
    assert sink.received[-1] == StatusChange(login.provider_account_id, "STOPPED", "Paused by the provider")


def test_disconnect_forgets_the_account(sandbox: SandboxGateway) -> None:
    """After disconnect the account is unknown; disconnecting again is not an error."""
    login = sandbox.start_qr("whatsapp")
    sandbox.disconnect(login.provider_account_id)
    sandbox.disconnect(login.provider_account_id)
    with pytest.raises(GatewayRejected, match="Unknown account"):
        sandbox.poll(login.provider_account_id)
