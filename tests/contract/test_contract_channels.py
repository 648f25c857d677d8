"""Channel settings and the channel directory, and the channel service over them with the
sandbox gateway (connect, provider callbacks, disconnect), on every adapter."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import attrs
import pytest
from support import NOW, MakeContact, add_message, draft_for, get_message

from engage_core.kernel.events import DomainEvent
from engage_core.messaging.channel_service import CredentialsInput
from engage_core.messaging.channels import ChannelAccount, ChannelDraft
from engage_core.messaging.sandbox import SandboxGateway
from engage_core.services import Services
from engage_core.unit_of_work import UnitOfWorkFactory

CREDENTIALS = CredentialsInput(username="acme.shop", password="secret")
"""A sandbox login that needs no 2FA."""
Events = Callable[..., list[DomainEvent]]


@pytest.fixture
def other(make_account: Callable[..., int]) -> int:
    return make_account("Other")


def _add_channel(uow: UnitOfWorkFactory, account: int, draft: ChannelDraft) -> ChannelAccount:
    with uow.workspace(account) as unit:
        channel = unit.channels.add(draft, NOW)
        unit.commit()
    return channel


def _by_type(uow: UnitOfWorkFactory, account: int, type: str) -> ChannelAccount | None:
    with uow.workspace(account, readonly=True) as unit:
        return unit.channels.by_type(type)


def _event_names(outbox_events: Events, account: int) -> list[str]:
    return [e.name for e in outbox_events(account) if e.name.startswith("channel.")]


def test_a_new_setting_is_pending_and_reads_back(uow: UnitOfWorkFactory, account: int) -> None:
    """add stores phase pending (CONNECTING, not connected) with the draft's fields."""
    added = _add_channel(uow, account, ChannelDraft("instagram", "acc-1", "acme.shop", "2FA"))
    assert _by_type(uow, account, "instagram") == added
    assert (added.sync_status, added.is_connected, added.checkpoint_type, added.created_at) == (
        "CONNECTING",
        False,
        "2FA",
        NOW,
    )


def test_update_stores_every_field_but_type_and_created_at(uow: UnitOfWorkFactory, account: int) -> None:
    """Every lifecycle field round-trips; type and created_at stay as stored."""
    added = _add_channel(uow, account, ChannelDraft("whatsapp", "acc-1"))
    later = NOW + timedelta(hours=1)
    changed = attrs.evolve(
        added,
        type="telegram",
        provider_account_id="acc-2",
        username="+966501234567",
        sync_status="OK",
        is_connected=True,
        last_synced_at=later,
        created_at=later,
        updated_at=later,
        checkpoint_type="OTP",
        error="was down",
        connected_at=later,
    )
    with uow.workspace(account) as unit:
        unit.channels.update(changed)
        unit.commit()
    assert _by_type(uow, account, "whatsapp") == attrs.evolve(changed, type="whatsapp", created_at=NOW)


def test_list_is_ascending_id_and_the_accounts_own(uow: UnitOfWorkFactory, account: int, other: int) -> None:
    """Only the account's settings, oldest first."""
    _add_channel(uow, other, ChannelDraft("whatsapp", "theirs"))
    first = _add_channel(uow, account, ChannelDraft("telegram", "acc-1"))
    second = _add_channel(uow, account, ChannelDraft("whatsapp", "acc-2"))
    with uow.workspace(account, readonly=True) as unit:
        assert list(unit.channels.list()) == [first, second]


def test_by_provider_account_finds_only_the_accounts_own(uow: UnitOfWorkFactory, account: int, other: int) -> None:
    """Another account's provider account is not found through this account."""
    mine = _add_channel(uow, account, ChannelDraft("whatsapp", "acc-1"))
    _add_channel(uow, other, ChannelDraft("whatsapp", "acc-2"))
    with uow.workspace(account, readonly=True) as unit:
        assert (unit.channels.by_provider_account("acc-1"), unit.channels.by_provider_account("acc-2")) == (mine, None)


def test_delete_removes_only_the_accounts_setting(uow: UnitOfWorkFactory, account: int, other: int) -> None:
    """Deleting another account's id changes nothing; deleting one's own removes it."""
    mine = _add_channel(uow, account, ChannelDraft("whatsapp", "acc-1"))
    theirs = _add_channel(uow, other, ChannelDraft("whatsapp", "acc-2"))
    with uow.workspace(account) as unit:
        unit.channels.delete(theirs.id)
        unit.channels.delete(mine.id)
        unit.commit()
    assert (_by_type(uow, account, "whatsapp"), _by_type(uow, other, "whatsapp")) == (None, theirs)


def test_refused_logins_without_a_provider_account_do_not_collide(
    uow: UnitOfWorkFactory, account: int, other: int
) -> None:
    """Two settings without a provider account id are both stored."""
    _add_channel(uow, account, ChannelDraft("instagram", None, "a"))
    _add_channel(uow, other, ChannelDraft("instagram", None, "b"))
    assert [_by_type(uow, a, "instagram") is not None for a in (account, other)] == [True, True]


def test_the_directory_names_the_owner_of_a_provider_account(uow: UnitOfWorkFactory, account: int, other: int) -> None:
    """owner_of answers across accounts; an unknown id is None."""
    _add_channel(uow, account, ChannelDraft("whatsapp", "acc-1"))
    _add_channel(uow, other, ChannelDraft("whatsapp", "acc-2"))
    with uow.admin(readonly=True) as admin:
        owners = [admin.channel_directory.owner_of(pid) for pid in ("acc-1", "acc-2", "acc-3")]
    assert owners == [account, other, None]


def test_connecting_whatsapp_emits_channel_connected_with_the_setting(
    uow: UnitOfWorkFactory,
    account: int,
    services: Services,
    sandbox: SandboxGateway,
    outbox_events: Callable[..., list[DomainEvent]],
) -> None:
    """Scanning the QR: the stored setting is OK and connected; channel.connected is in the outbox."""
    pid = services.channels.connect_qr(account, "whatsapp").channel.provider_account_id or ""
    sandbox.scan(pid, "+966501234567")
    stored = _by_type(uow, account, "whatsapp")
    assert stored is not None and (stored.sync_status, stored.is_connected, stored.username) == (
        "OK",
        True,
        "+966501234567",
    )
    connected = [e.payload for e in outbox_events(account) if e.name == "channel.connected"]
    assert [(p["channel_id"], p["status"]) for p in connected] == [(stored.id, "CREATION_SUCCESS")]


def test_a_provider_status_callback_reaches_the_owning_account(
    uow: UnitOfWorkFactory,
    account: int,
    other: int,
    services: Services,
    sandbox: SandboxGateway,
    outbox_events: Callable[..., list[DomainEvent]],
) -> None:
    """CREDENTIALS from the provider: the owner's setting moves and channel.disconnected is emitted."""
    services.channels.connect_qr(other, "whatsapp")
    pid = services.channels.connect_qr(account, "whatsapp").channel.provider_account_id or ""
    sandbox.scan(pid)
    sandbox.set_status(pid, "CREDENTIALS", "Password changed")
    stored = _by_type(uow, account, "whatsapp")
    assert stored is not None and (stored.sync_status, stored.error) == ("CREDENTIALS", "Password changed")
    assert (_event_names(outbox_events, account), _event_names(outbox_events, other)) == (
        ["channel.connected", "channel.disconnected"],
        [],
    )


def test_disconnecting_deletes_the_setting_and_emits_channel_disconnected(
    uow: UnitOfWorkFactory,
    account: int,
    services: Services,
    sandbox: SandboxGateway,
    outbox_events: Callable[..., list[DomainEvent]],
) -> None:
    """The local setting is gone, and with it the directory's entry."""
    pid = services.channels.connect_qr(account, "telegram").channel.provider_account_id or ""
    sandbox.scan(pid)
    services.channels.disconnect(account, "telegram")
    with uow.admin(readonly=True) as admin:
        owner = admin.channel_directory.owner_of(pid)
    assert (_by_type(uow, account, "telegram"), owner) == (None, None)
    assert _event_names(outbox_events, account) == ["channel.connected", "channel.disconnected"]


def test_a_failed_qr_attempt_emits_channel_error(
    uow: UnitOfWorkFactory,
    account: int,
    services: Services,
    sandbox: SandboxGateway,
    outbox_events: Callable[..., list[DomainEvent]],
) -> None:
    """The phone refuses the code: CREATION_FAIL stored with the error, channel.error emitted."""
    pid = services.channels.connect_qr(account, "whatsapp").channel.provider_account_id or ""
    sandbox.fail(pid, "Refused")
    stored = _by_type(uow, account, "whatsapp")
    assert stored is not None and (stored.sync_status, stored.error) == ("CREATION_FAIL", "Refused")
    assert _event_names(outbox_events, account) == ["channel.error"]


def test_a_new_setting_has_no_sync_error_or_connection_yet(uow: UnitOfWorkFactory, account: int) -> None:
    """add() leaves `last_synced_at`, `error` and `connected_at` None and sets `updated_at` to `now`."""
    added = _add_channel(uow, account, ChannelDraft("whatsapp", "acc-1"))

    assert (added.last_synced_at, added.error, added.connected_at, added.updated_at) == (None, None, None, NOW)


def test_by_type_sees_only_the_accounts_own(uow: UnitOfWorkFactory, account: int, other: int) -> None:
    """Another account's setting of a type is not this account's."""
    _add_channel(uow, other, ChannelDraft("whatsapp", "acc-1"))

    assert _by_type(uow, account, "whatsapp") is None


def test_updating_another_accounts_setting_changes_nothing(uow: UnitOfWorkFactory, account: int, other: int) -> None:
    """update() with another account's setting id leaves it as stored."""
    theirs = _add_channel(uow, other, ChannelDraft("whatsapp", "acc-1"))
    with uow.workspace(account) as unit:
        unit.channels.update(attrs.evolve(theirs, sync_status="OK", is_connected=True))
        unit.commit()

    assert _by_type(uow, other, "whatsapp") == theirs


def test_deleting_a_setting_keeps_its_messages(uow: UnitOfWorkFactory, account: int, make_contact: MakeContact) -> None:
    """The messages of a deleted channel setting stay: they belong to the contacts."""
    channel = _add_channel(uow, account, ChannelDraft("whatsapp", "acc-1"))
    message = add_message(uow, account, draft_for(make_contact()))
    with uow.workspace(account) as unit:
        unit.channels.delete(channel.id)
        unit.commit()

    assert get_message(uow, account, message.id) == message


def test_the_directory_forgets_a_deleted_setting(uow: UnitOfWorkFactory, account: int) -> None:
    """owner_of() a provider account whose setting was deleted is None."""
    channel = _add_channel(uow, account, ChannelDraft("whatsapp", "acc-1"))
    with uow.workspace(account) as unit:
        unit.channels.delete(channel.id)
        unit.commit()

    with uow.admin(readonly=True) as admin:
        assert admin.channel_directory.owner_of("acc-1") is None
