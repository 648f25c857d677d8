"""ChannelService over the in-memory fakes and the sandbox gateway: every connection path."""

from __future__ import annotations

import pytest

from engage_core.kernel.errors import Conflict, Forbidden, NotFound, Unavailable, ValidationFailed
from engage_core.messaging.channel_service import CredentialsInput
from engage_core.messaging.sandbox import QR_LIFETIME, SANDBOX_CODE
from engage_core.services import Services
from engage_core.testing import FakeClock, InMemoryUnitOfWorkFactory

from .fixtures import Messaging


@pytest.fixture
def world() -> Messaging:
    return Messaging()


# -- QR channels ---------------------------------------------------------------------------------


def test_connect_returns_a_pending_setting_and_the_qr(world: Messaging) -> None:
    """WhatsApp connect: account_id and a multi-device QR; the setting waits (CONNECTING)."""
    started = world.services.channels.connect_qr(world.account, "whatsapp")
    assert started.qr_code.startswith("2@")
    assert started.channel.provider_account_id == "sbx-whatsapp-1"
    assert (started.channel.sync_status, started.channel.completed, started.channel.in_progress) == (
        "CONNECTING",
        False,
        True,
    )


def test_polling_before_the_scan_says_waiting(world: Messaging) -> None:
    """completed false, in_progress true while the QR waits."""
    world.services.channels.connect_qr(world.account, "telegram")
    status = world.channel("telegram")
    assert (status.completed, status.in_progress) == (False, True)


def test_a_scan_connects_and_emits_channel_connected(world: Messaging) -> None:
    """After the scan the poll says completed, with the phone as username, and one event fired."""
    connected = world.connect_qr("whatsapp", "+966501112223")
    assert (connected.completed, connected.in_progress, connected.username) == (True, False, "+966501112223")
    assert [(e["status"], e["username"]) for e in world.events("channel.connected")] == [
        ("CREATION_SUCCESS", "+966501112223")
    ]


def test_polling_picks_up_a_scan_without_a_callback() -> None:
    """With no callbacks the poll itself finds the scan (status OK -> connected)."""
    world = Messaging(callbacks=False)
    started = world.services.channels.connect_qr(world.account, "whatsapp")
    world.sandbox.scan(started.channel.provider_account_id or "")
    assert world.channel("whatsapp").is_connected


def test_a_refused_qr_means_failed_for_telegram(world: Messaging) -> None:
    """completed false and in_progress false, sync_status CREATION_FAIL, channel.error."""
    started = world.services.channels.connect_qr(world.account, "telegram")
    world.sandbox.fail(started.channel.provider_account_id or "", "Refused")
    status = world.channel("telegram")
    assert (status.completed, status.in_progress, status.sync_status) == (False, False, "CREATION_FAIL")
    assert [e["error"] for e in world.events("channel.error")] == ["Refused"]


def test_an_expired_qr_fails_on_the_next_poll(world: Messaging) -> None:
    """Once QR_LIFETIME passes, polling records the failure with the expiry error."""
    world.services.channels.connect_qr(world.account, "whatsapp")
    world.clock.advance(seconds=QR_LIFETIME.total_seconds() + 1)
    status = world.channel("whatsapp")
    assert (status.sync_status, status.error) == ("CREATION_FAIL", "The QR code expired.")


def test_a_new_qr_replaces_a_failed_attempt(world: Messaging) -> None:
    """Connecting again after a failure restarts the same setting with a new provider account."""
    first = world.services.channels.connect_qr(world.account, "telegram")
    world.sandbox.fail(first.channel.provider_account_id or "")
    second = world.services.channels.connect_qr(world.account, "telegram")
    assert second.channel.id == first.channel.id
    assert second.channel.provider_account_id != first.channel.provider_account_id
    assert second.channel.in_progress


def test_a_replaced_pending_attempt_is_deleted_at_the_provider(world: Messaging) -> None:
    """Two connects in a row: the first provider account is disconnected."""
    first = world.services.channels.connect_qr(world.account, "whatsapp")
    world.services.channels.connect_qr(world.account, "whatsapp")
    assert first.channel.provider_account_id not in {a.id for a in world.sandbox.accounts()}


def test_connecting_while_connected_is_a_conflict(world: Messaging) -> None:
    """WhatsApp connect while connected: Conflict (409), no new provider account."""
    world.connect_qr("whatsapp")
    before = len(world.sandbox.accounts())
    with pytest.raises(Conflict, match="already connected"):
        world.services.channels.connect_qr(world.account, "whatsapp")
    assert len(world.sandbox.accounts()) == before


def test_status_with_another_account_id_is_not_found(world: Messaging) -> None:
    """An account_id that is not the current attempt's is 404."""
    world.services.channels.connect_qr(world.account, "whatsapp")
    with pytest.raises(NotFound):
        world.services.channels.status(world.account, "whatsapp", "sbx-whatsapp-99")


def test_status_without_a_setting_is_not_found(world: Messaging) -> None:
    """No setting for the channel: 404."""
    with pytest.raises(NotFound):
        world.channel("whatsapp")


def test_an_unknown_channel_is_not_found(world: Messaging) -> None:
    """`/channels/messenger/...` does not exist."""
    with pytest.raises(NotFound):
        world.services.channels.connect_qr(world.account, "messenger")


def test_instagram_does_not_connect_by_qr(world: Messaging) -> None:
    """The QR flow exists for WhatsApp and Telegram only."""
    with pytest.raises(NotFound):
        world.services.channels.connect_qr(world.account, "instagram")


def test_a_provider_outage_on_connect_is_unavailable(world: Messaging) -> None:
    """The provider does not answer: Unavailable, and nothing is stored."""
    world.sandbox.outage()
    with pytest.raises(Unavailable):
        world.services.channels.connect_qr(world.account, "whatsapp")
    assert world.services.channels.list(world.account) == []


# -- credentials and 2FA -------------------------------------------------------------------------


def test_credentials_without_2fa_connect_at_once(world: Messaging) -> None:
    """Instagram: a connected setting, syncing (CONNECTING), with the username."""
    connected = world.connect_credentials("instagram")
    assert (connected.is_connected, connected.sync_status, connected.username) == (True, "CONNECTING", "acme.shop")
    assert world.events("channel.connected")[0]["status"] == "CREATION_SUCCESS"


def test_credentials_with_2fa_ask_for_a_code(world: Messaging) -> None:
    """`#2fa`: requires_2fa with the account id and checkpoint type; not connected yet."""
    outcome = world.services.channels.connect_credentials(
        world.account, "instagram", CredentialsInput("acme.shop", "secret#2fa")
    )
    assert (outcome.requires_2fa, outcome.channel.checkpoint_type) == (True, "2FA")
    assert not outcome.channel.is_connected
    assert world.events("channel.connected") == []


def test_each_2fa_round_repeats_until_connected(world: Messaging) -> None:
    """LinkedIn with two rounds: the first code asks again, the second connects."""
    data = CredentialsInput("ada@example.com", "secret#2fa2")
    outcome = world.services.channels.connect_credentials(world.account, "linkedin", data)
    pid = outcome.channel.provider_account_id or ""
    second = world.services.channels.submit_code(world.account, "linkedin", pid, SANDBOX_CODE)
    assert (second.requires_2fa, second.channel.checkpoint_type) == (True, "IN_APP_VALIDATION")
    done = world.services.channels.submit_code(world.account, "linkedin", pid, SANDBOX_CODE)
    assert (done.requires_2fa, done.channel.is_connected, done.channel.type) == (False, True, "linkedin")


def test_a_wrong_code_is_422_and_the_round_keeps_waiting(world: Messaging) -> None:
    """A refused code is a ValidationFailed on `code`; the checkpoint still waits."""
    outcome = world.services.channels.connect_credentials(
        world.account, "instagram", CredentialsInput("acme.shop", "secret#2fa")
    )
    pid = outcome.channel.provider_account_id or ""
    with pytest.raises(ValidationFailed) as caught:
        world.services.channels.submit_code(world.account, "instagram", pid, "999999")
    assert "code" in caught.value.errors
    assert world.channel("instagram").checkpoint_type == "2FA"


def test_resend_reaches_the_provider(world: Messaging) -> None:
    """POST 2fa/resend asks the provider to send the code again."""
    outcome = world.services.channels.connect_credentials(
        world.account, "instagram", CredentialsInput("acme.shop", "secret#2fa")
    )
    pid = outcome.channel.provider_account_id or ""
    world.services.channels.resend_code(world.account, "instagram", pid)
    assert world.sandbox.account(pid).resends == 1


def test_a_code_without_a_waiting_checkpoint_is_a_conflict(world: Messaging) -> None:
    """Submitting or resending a code for a connected account: Conflict."""
    connected = world.connect_credentials("instagram")
    with pytest.raises(Conflict):
        world.services.channels.submit_code(world.account, "instagram", connected.provider_account_id or "", "1")


def test_refused_credentials_record_a_failed_attempt(world: Messaging) -> None:
    """422 on password; the setting is CREATION_FAIL and channel.error carries the provider's error."""
    with pytest.raises(ValidationFailed) as caught:
        world.connect_credentials("instagram", password="wrong")
    assert caught.value.errors == {"password": ["Invalid credentials."]}
    assert world.channel("instagram").sync_status == "CREATION_FAIL"
    assert [e["error"] for e in world.events("channel.error")] == ["Invalid credentials."]


def test_credentials_are_validated_before_the_provider_is_asked(world: Messaging) -> None:
    """Blank username and a bad country: one 422 naming both; no provider account made."""
    with pytest.raises(ValidationFailed) as caught:
        world.services.channels.connect_credentials(world.account, "instagram", CredentialsInput(" ", "x", "Saudi"))
    assert set(caught.value.errors) == {"username", "country"}
    assert world.sandbox.accounts() == []


def test_linkedin_needs_the_feature(world: Messaging) -> None:
    """Without linkedin_access: 403 with code linkedin_upgrade_required."""
    world.refuse_linkedin()
    with pytest.raises(Forbidden) as caught:
        world.connect_credentials("linkedin")
    assert caught.value.code == "linkedin_upgrade_required"


def test_the_feature_gate_leaves_other_channels_alone(world: Messaging) -> None:
    """Refusing linkedin_access does not affect Instagram."""
    world.refuse_linkedin()
    assert world.connect_credentials("instagram").is_connected


# -- refresh, status changes, disconnect -----------------------------------------------------------


def test_refresh_applies_the_provider_status_and_stamps_the_sync(world: Messaging) -> None:
    """A syncing Instagram account refreshed: OK, last_synced_at now."""
    world.connect_credentials("instagram")
    now = world.clock.advance(minutes=3)
    refreshed = world.services.channels.refresh(world.account, "instagram")
    assert (refreshed.sync_status, refreshed.last_synced_at) == ("OK", now)


def test_refresh_of_an_account_the_provider_forgot_is_an_error(world: Messaging) -> None:
    """The provider no longer knows the account: ERROR, channel.disconnected."""
    connected = world.connect_qr("whatsapp")
    world.sandbox.disconnect(connected.provider_account_id or "")  # deleted at the provider, no callback
    assert world.services.channels.refresh(world.account, "whatsapp").sync_status == "ERROR"
    assert [e["status"] for e in world.events("channel.disconnected")] == ["ERROR"]


def test_a_credentials_callback_disconnects_and_a_recovery_reconnects(world: Messaging) -> None:
    """CREDENTIALS then OK: channel.disconnected CREDENTIALS, then channel.connected RECONNECTED."""
    pid = world.connect_qr("whatsapp").provider_account_id or ""
    world.sandbox.set_status(pid, "CREDENTIALS", "Logged out on the phone")
    assert world.channel("whatsapp").sync_status == "CREDENTIALS"
    world.sandbox.set_status(pid, "OK")
    assert [e["reason"] for e in world.events("channel.disconnected")] == ["Logged out on the phone"]
    assert [e["status"] for e in world.events("channel.connected")] == ["CREATION_SUCCESS", "RECONNECTED"]


def test_a_callback_outside_the_table_is_ignored(world: Messaging) -> None:
    """CREATION_FAIL for a connected account changes nothing."""
    pid = world.connect_qr("whatsapp").provider_account_id or ""
    world.sandbox.set_status(pid, "CREATION_FAIL")
    assert world.channel("whatsapp").sync_status == "OK"


def test_a_deleted_callback_removes_the_setting(world: Messaging) -> None:
    """DELETED at the provider: the setting is gone, channel.disconnected DELETED."""
    pid = world.connect_qr("whatsapp").provider_account_id or ""
    world.sandbox.set_status(pid, "DELETED")
    assert world.services.channels.list(world.account) == []
    assert [e["status"] for e in world.events("channel.disconnected")] == ["DELETED"]


def test_a_callback_for_an_unknown_account_is_ignored(world: Messaging) -> None:
    """The inbox ignores accounts no workspace owns."""
    pid = world.sandbox.start_qr("whatsapp").provider_account_id
    world.sandbox.set_status(pid, "OK")
    assert world.services.channels.list(world.account) == []


def test_disconnect_deletes_the_setting_and_the_provider_account(world: Messaging) -> None:
    """Disconnect: no local setting, no provider account, channel.disconnected DELETED."""
    pid = world.connect_qr("whatsapp").provider_account_id
    world.services.channels.disconnect(world.account, "whatsapp")
    assert world.services.channels.list(world.account) == []
    assert pid not in {a.id for a in world.sandbox.accounts()}
    assert [e["status"] for e in world.events("channel.disconnected")] == ["DELETED"]


def test_disconnect_while_a_campaign_runs_is_422(world: Messaging) -> None:
    """WhatsApp with a running or paused campaign: ValidationFailed, the channel stays."""
    world.connect_qr("whatsapp")
    world.campaigns.active.add((world.account, "whatsapp"))
    with pytest.raises(ValidationFailed, match="campaign"):
        world.services.channels.disconnect(world.account, "whatsapp")
    assert world.channel("whatsapp").is_connected


def test_the_campaign_guard_is_about_whatsapp(world: Messaging) -> None:
    """Telegram disconnects whatever the guard says (SPEC names WhatsApp only)."""
    world.connect_qr("telegram")
    world.campaigns.active.add((world.account, "telegram"))
    world.services.channels.disconnect(world.account, "telegram")
    assert world.services.channels.list(world.account) == []


def test_disconnect_during_an_outage_keeps_the_setting(world: Messaging) -> None:
    """The provider does not answer: Unavailable, the setting stays so it can be retried."""
    world.connect_qr("whatsapp")
    world.sandbox.outage()
    with pytest.raises(Unavailable):
        world.services.channels.disconnect(world.account, "whatsapp")
    assert world.channel("whatsapp").is_connected


def test_disconnect_without_a_setting_is_not_found(world: Messaging) -> None:
    """Nothing to disconnect: 404."""
    with pytest.raises(NotFound):
        world.services.channels.disconnect(world.account, "telegram")


def test_settings_are_scoped_to_their_account(world: Messaging) -> None:
    """Another account sees no channel of this one."""
    world.connect_qr("whatsapp")
    other = world.services.accounts.create("Other").account.id
    assert world.services.channels.list(other) == []


def test_services_without_a_gateway_name_the_missing_port() -> None:
    """Services.build without gateway fails loudly when a channel is connected."""
    services = Services.build(InMemoryUnitOfWorkFactory(), FakeClock())
    account = services.accounts.create("Acme").account.id
    with pytest.raises(RuntimeError, match="gateway=ChannelGateway"):
        services.channels.connect_qr(account, "whatsapp")


# -- every provider status from every phase --------------------------------------------------------

PHASE_SETUP = {
    "pending": ("whatsapp", []),
    "failed": ("whatsapp", ["CREATION_FAIL"]),
    "syncing": ("instagram", []),
    "synced": ("whatsapp", ["OK", "SYNC_SUCCESS"]),
    "ok": ("whatsapp", ["OK"]),
    "credentials": ("whatsapp", ["OK", "CREDENTIALS"]),
    "error": ("whatsapp", ["OK", "ERROR"]),
    "stopped": ("whatsapp", ["OK", "STOPPED"]),
}
"""How to bring a setting into each phase: the channel, then provider statuses after connecting."""
EXPECTED = {
    "pending": {"OK": "ok", "SYNC_SUCCESS": "synced", "CREATION_FAIL": "failed", "CREDENTIALS": "failed",
                "ERROR": "failed", "STOPPED": "failed", "CONNECTING": "pending"},
    "failed": {"OK": "failed", "SYNC_SUCCESS": "failed", "CREATION_FAIL": "failed", "CREDENTIALS": "failed",
               "ERROR": "failed", "STOPPED": "failed", "CONNECTING": "failed"},
    "syncing": {"OK": "ok", "SYNC_SUCCESS": "synced", "CREATION_FAIL": "syncing", "CREDENTIALS": "credentials",
                "ERROR": "error", "STOPPED": "stopped", "CONNECTING": "syncing"},
    "synced": {"OK": "ok", "SYNC_SUCCESS": "synced", "CREATION_FAIL": "synced", "CREDENTIALS": "credentials",
               "ERROR": "error", "STOPPED": "stopped", "CONNECTING": "synced"},
    "ok": {"OK": "ok", "SYNC_SUCCESS": "synced", "CREATION_FAIL": "ok", "CREDENTIALS": "credentials",
           "ERROR": "error", "STOPPED": "stopped", "CONNECTING": "ok"},
    "credentials": {"OK": "ok", "SYNC_SUCCESS": "credentials", "CREATION_FAIL": "credentials",
                    "CREDENTIALS": "credentials", "ERROR": "error", "STOPPED": "stopped", "CONNECTING": "credentials"},
    "error": {"OK": "ok", "SYNC_SUCCESS": "error", "CREATION_FAIL": "error", "CREDENTIALS": "credentials",
              "ERROR": "error", "STOPPED": "stopped", "CONNECTING": "error"},
    "stopped": {"OK": "ok", "SYNC_SUCCESS": "stopped", "CREATION_FAIL": "stopped", "CREDENTIALS": "credentials",
                "ERROR": "error", "STOPPED": "stopped", "CONNECTING": "stopped"},
}  # fmt: skip
"""The designed lifecycle, as a provider's status callbacks drive it (DELETED is tested above)."""


def _into(world: Messaging, phase: str) -> str:
    channel, statuses = PHASE_SETUP[phase]
    if channel == "instagram":
        pid = world.connect_credentials("instagram").provider_account_id or ""
    else:
        pid = world.services.channels.connect_qr(world.account, channel).channel.provider_account_id or ""
    for status in statuses:
        world.sandbox.set_status(pid, status)
    assert world.channel(channel).phase == phase
    return pid


@pytest.mark.parametrize(
    ("phase", "status"), [(phase, status) for phase, moves in EXPECTED.items() for status in moves]
)
def test_a_status_callback_moves_the_setting_as_designed(world: Messaging, phase: str, status: str) -> None:
    """From each phase, each provider status lands in the designed phase, with one event per crossing."""
    pid = _into(world, phase)
    channel = PHASE_SETUP[phase][0]
    before = {name: len(world.events(name)) for name in ("channel.connected", "channel.disconnected", "channel.error")}
    world.sandbox.set_status(pid, status)
    after = world.channel(channel)
    assert after.phase == EXPECTED[phase][status]
    was, now = phase in {"syncing", "synced", "ok"}, after.is_connected
    grew = {name: len(world.events(name)) - count for name, count in before.items()}
    assert grew["channel.connected"] == int(now and (not was or (after.phase == "synced" and phase != "synced")))
    assert grew["channel.disconnected"] == int(was and not now)
    assert grew["channel.error"] == int(phase == "pending" and after.phase == "failed")


def test_a_qr_attempt_the_provider_forgot_fails_on_the_next_poll(world: Messaging) -> None:
    """Polling an attempt the provider no longer knows records a failed attempt, not an error."""
    started = world.services.channels.connect_qr(world.account, "whatsapp")
    world.sandbox.disconnect(started.channel.provider_account_id or "")
    assert world.channel("whatsapp").sync_status == "CREATION_FAIL"
