"""SandboxControls: the sandbox's actions scoped to one workspace's channels and messages."""

from __future__ import annotations

import pytest

from engage_core.kernel.errors import Conflict, NotFound, ValidationFailed
from engage_core.messaging.message_service import SendInput
from engage_core.messaging.sandbox_controls import SandboxControls

from .fixtures import PHONE, Messaging


@pytest.fixture
def world() -> Messaging:
    return Messaging()


@pytest.fixture
def controls(world: Messaging) -> SandboxControls:
    return SandboxControls(world.uow, world.sandbox)


def sent_message_id(world: Messaging) -> int:
    world.connect_qr("whatsapp")
    result = world.services.messages.send(world.account, SendInput(world.contact().id, "Hello"))
    assert result.success
    return result.message.id


def test_scan_connects_the_workspaces_waiting_channel(world: Messaging, controls: SandboxControls) -> None:
    """Scanning links the channel's waiting QR code: the setting comes back connected, with the username."""
    world.services.channels.connect_qr(world.account, "telegram")

    channel = controls.scan(world.account, "telegram", "@acme")

    assert channel is not None
    assert (channel.is_connected, channel.sync_status, channel.username) == (True, "OK", "@acme")


def test_scan_without_a_channel_setting_is_not_found(world: Messaging, controls: SandboxControls) -> None:
    """A channel the workspace never started connecting is NotFound."""
    with pytest.raises(NotFound):
        controls.scan(world.account, "whatsapp")


def test_scan_of_another_workspaces_channel_is_not_found(world: Messaging, controls: SandboxControls) -> None:
    """Another workspace's waiting code cannot be scanned: the caller has no such channel."""
    world.services.channels.connect_qr(world.account, "whatsapp")
    other = world.services.accounts.create("Other").account.id

    with pytest.raises(NotFound):
        controls.scan(other, "whatsapp")


def test_scan_of_a_connected_channel_is_a_conflict(world: Messaging, controls: SandboxControls) -> None:
    """With no code waiting (already connected), scanning is a Conflict."""
    world.connect_qr("whatsapp")

    with pytest.raises(Conflict):
        controls.scan(world.account, "whatsapp")


def test_fail_records_the_error(world: Messaging, controls: SandboxControls) -> None:
    """Refusing the code fails the attempt with the given error and emits `channel.error`."""
    world.services.channels.connect_qr(world.account, "whatsapp")

    channel = controls.fail(world.account, "whatsapp", "Wrong phone.")

    assert channel is not None and (channel.sync_status, channel.error) == ("CREATION_FAIL", "Wrong phone.")
    assert [e["error"] for e in world.events("channel.error")] == ["Wrong phone."]


def test_set_status_accepts_lowercase_provider_words(world: Messaging, controls: SandboxControls) -> None:
    """A status is the provider's word in any case: `stopped` stops the account."""
    world.connect_credentials("instagram")

    channel = controls.set_status(world.account, "instagram", "stopped", "Plan limit reached.")

    assert channel is not None and (channel.sync_status, channel.is_connected) == ("STOPPED", False)


def test_set_status_deleted_removes_the_setting(world: Messaging, controls: SandboxControls) -> None:
    """`DELETED` removes the channel setting: the answer is None."""
    world.connect_qr("whatsapp")

    assert controls.set_status(world.account, "whatsapp", "DELETED") is None


def test_an_unknown_status_is_refused(world: Messaging, controls: SandboxControls) -> None:
    """A status the provider does not have is a ValidationFailed on `status`."""
    world.connect_qr("whatsapp")

    with pytest.raises(ValidationFailed) as refused:
        controls.set_status(world.account, "whatsapp", "HAPPY")

    assert "status" in refused.value.errors


def test_an_injected_message_is_stored_and_returned(world: Messaging, controls: SandboxControls) -> None:
    """An injected message comes back as stored: inbound, from a contact matched by phone."""
    world.connect_qr("whatsapp")
    contact = world.contact()

    message = controls.inject_message(world.account, "whatsapp", PHONE, "Hi!")

    assert (message.direction, message.contact_id, message.content) == ("inbound", contact.id, "Hi!")


def test_a_blank_injected_text_is_refused(world: Messaging, controls: SandboxControls) -> None:
    """A blank `text` is a ValidationFailed naming it."""
    world.connect_qr("whatsapp")

    with pytest.raises(ValidationFailed) as refused:
        controls.inject_message(world.account, "whatsapp", PHONE, "  ")

    assert "text" in refused.value.errors


def test_a_receipt_moves_the_sent_message(world: Messaging, controls: SandboxControls) -> None:
    """A `read` receipt on a sent message answers it `read`."""
    message_id = sent_message_id(world)

    assert controls.inject_receipt(world.account, message_id, "read").status == "read"


def test_a_receipt_for_another_workspaces_message_is_not_found(world: Messaging, controls: SandboxControls) -> None:
    """A message id of another workspace is NotFound, and the message keeps its status."""
    message_id = sent_message_id(world)
    other = world.services.accounts.create("Other").account.id

    with pytest.raises(NotFound):
        controls.inject_receipt(other, message_id, "read")

    with world.uow.workspace(world.account, readonly=True) as uow:
        stored = uow.messages.get(message_id)
    assert stored is not None and stored.status == "sent"


def test_a_receipt_for_a_failed_message_is_a_conflict(world: Messaging, controls: SandboxControls) -> None:
    """A message the network never accepted (failed: no channel) cannot have a receipt."""
    result = world.services.messages.send(world.account, SendInput(world.contact().id, "Hello"))

    with pytest.raises(Conflict):
        controls.inject_receipt(world.account, result.message.id, "delivered")


def test_a_receipt_status_other_than_delivered_or_read_is_refused(world: Messaging, controls: SandboxControls) -> None:
    """Only `delivered` and `read` are receipts."""
    message_id = sent_message_id(world)

    with pytest.raises(ValidationFailed):
        controls.inject_receipt(world.account, message_id, "sent")
