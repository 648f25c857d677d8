"""Channel settings and the channel directory through SQL, and ChannelService over SQL with the
sandbox gateway (reference: engage_core.testing)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

import attrs
import pytest
from sqlalchemy.exc import IntegrityError

from engage_core.messaging.channels import ChannelAccount, ChannelDraft
from engage_core.messaging.sandbox import SandboxGateway
from engage_core.services import Services
from engage_core.testing import FakeClock
from engage_sql import Database

from .conftest import START

DEADLINE_SECONDS = 120.0


@pytest.fixture
def sandbox(clock: FakeClock) -> SandboxGateway:
    return SandboxGateway(clock)


@pytest.fixture
def messaging(database: Database, clock: FakeClock, sandbox: SandboxGateway) -> Services:
    """The services over SQL with the sandbox gateway calling back into their inbox."""
    services = Services.build(database.uow, clock, gateway=sandbox)
    sandbox.attach(services.inbox)
    return services


@pytest.fixture
def other(make_account: Callable[..., int]) -> int:
    return make_account("Other")


def _add(database: Database, account: int, draft: ChannelDraft) -> ChannelAccount:
    with database.uow.workspace(account) as uow:
        channel = uow.channels.add(draft, START)
        uow.commit()
    return channel


def _by_type(database: Database, account: int, type: str) -> ChannelAccount | None:
    with database.uow.workspace(account, readonly=True) as uow:
        return uow.channels.by_type(type)


def _event_names(database: Database, account: int) -> list[str]:
    return [e.name for e in database.outbox_events(account) if e.name.startswith("channel.")]


# -- the repository ------------------------------------------------------------------------------


def test_a_new_setting_is_pending_and_reads_back(database: Database, account: int) -> None:
    """add stores phase pending (CONNECTING, not connected) with the draft's fields."""
    added = _add(database, account, ChannelDraft("instagram", "acc-1", "acme.shop", "2FA"))
    assert _by_type(database, account, "instagram") == added
    assert (added.sync_status, added.is_connected, added.checkpoint_type, added.created_at) == (
        "CONNECTING",
        False,
        "2FA",
        START,
    )


def test_update_stores_every_field_but_type_and_created_at(database: Database, account: int) -> None:
    """Every lifecycle field round-trips; type and created_at stay as stored."""
    added = _add(database, account, ChannelDraft("whatsapp", "acc-1"))
    later = START + timedelta(hours=1)
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
    with database.uow.workspace(account) as uow:
        uow.channels.update(changed)
        uow.commit()
    assert _by_type(database, account, "whatsapp") == attrs.evolve(changed, type="whatsapp", created_at=START)


def test_list_is_ascending_id_and_the_accounts_own(database: Database, account: int, other: int) -> None:
    """Only the account's settings, oldest first."""
    _add(database, other, ChannelDraft("whatsapp", "theirs"))
    first = _add(database, account, ChannelDraft("telegram", "acc-1"))
    second = _add(database, account, ChannelDraft("whatsapp", "acc-2"))
    with database.uow.workspace(account, readonly=True) as uow:
        assert list(uow.channels.list()) == [first, second]


def test_by_provider_account_finds_only_the_accounts_own(database: Database, account: int, other: int) -> None:
    """Another account's provider account is not found through this account."""
    mine = _add(database, account, ChannelDraft("whatsapp", "acc-1"))
    _add(database, other, ChannelDraft("whatsapp", "acc-2"))
    with database.uow.workspace(account, readonly=True) as uow:
        assert (uow.channels.by_provider_account("acc-1"), uow.channels.by_provider_account("acc-2")) == (mine, None)


def test_delete_removes_only_the_accounts_setting(database: Database, account: int, other: int) -> None:
    """Deleting another account's id changes nothing; deleting one's own removes it."""
    mine = _add(database, account, ChannelDraft("whatsapp", "acc-1"))
    theirs = _add(database, other, ChannelDraft("whatsapp", "acc-2"))
    with database.uow.workspace(account) as uow:
        uow.channels.delete(theirs.id)
        uow.channels.delete(mine.id)
        uow.commit()
    assert (_by_type(database, account, "whatsapp"), _by_type(database, other, "whatsapp")) == (None, theirs)


def test_a_second_setting_of_a_type_is_refused_by_the_schema(database: Database, account: int) -> None:
    """The unique index on (account_id, type)."""
    _add(database, account, ChannelDraft("whatsapp", "acc-1"))
    with pytest.raises(IntegrityError):
        _add(database, account, ChannelDraft("whatsapp", "acc-2"))


def test_a_provider_account_has_one_setting_across_accounts(database: Database, account: int, other: int) -> None:
    """The unique index on provider_account_id spans accounts."""
    _add(database, account, ChannelDraft("whatsapp", "acc-1"))
    with pytest.raises(IntegrityError):
        _add(database, other, ChannelDraft("whatsapp", "acc-1"))


def test_refused_logins_without_a_provider_account_do_not_collide(database: Database, account: int, other: int) -> None:
    """Two settings without a provider account id are both stored."""
    _add(database, account, ChannelDraft("instagram", None, "a"))
    _add(database, other, ChannelDraft("instagram", None, "b"))
    assert [_by_type(database, a, "instagram") is not None for a in (account, other)] == [True, True]


def test_the_directory_names_the_owner_of_a_provider_account(database: Database, account: int, other: int) -> None:
    """owner_of answers across accounts; an unknown id is None."""
    _add(database, account, ChannelDraft("whatsapp", "acc-1"))
    _add(database, other, ChannelDraft("whatsapp", "acc-2"))
    with database.uow.admin(readonly=True) as admin:
        owners = [admin.channel_directory.owner_of(pid) for pid in ("acc-1", "acc-2", "acc-3")]
    assert owners == [account, other, None]


def test_a_write_reads_a_setting_only_after_a_concurrent_change_commits(database: Database, account: int) -> None:
    """A reader in a write unit of work sees the change another one was making (a locked read on
    PostgreSQL; SQLite's writers take turns)."""
    added = _add(database, account, ChannelDraft("whatsapp", "acc-1"))
    reading = threading.Event()

    def change_slowly() -> None:
        with database.uow.workspace(account) as uow:
            current = uow.channels.by_provider_account("acc-1")
            assert current is not None
            reading.set()
            time.sleep(0.3)  # the other transaction tries to read meanwhile
            uow.channels.update(attrs.evolve(current, sync_status="OK", is_connected=True))
            uow.commit()

    def read_for_writing() -> ChannelAccount | None:
        reading.wait(timeout=30)
        with database.uow.workspace(account) as uow:
            return uow.channels.by_type("whatsapp")

    with ThreadPoolExecutor(2) as pool:
        changer, reader = pool.submit(change_slowly), pool.submit(read_for_writing)
        changer.result(timeout=DEADLINE_SECONDS)
        seen = reader.result(timeout=DEADLINE_SECONDS)
    assert seen == attrs.evolve(added, sync_status="OK", is_connected=True)


# -- the service over SQL and the sandbox --------------------------------------------------------


def test_connecting_whatsapp_emits_channel_connected_with_the_setting(
    database: Database, account: int, messaging: Services, sandbox: SandboxGateway
) -> None:
    """Scanning the QR: the stored setting is OK and connected; channel.connected is in the outbox."""
    pid = messaging.channels.connect_qr(account, "whatsapp").channel.provider_account_id or ""
    sandbox.scan(pid, "+966501234567")
    stored = _by_type(database, account, "whatsapp")
    assert stored is not None and (stored.sync_status, stored.is_connected, stored.username) == (
        "OK",
        True,
        "+966501234567",
    )
    connected = [e.payload for e in database.outbox_events(account) if e.name == "channel.connected"]
    assert [(p["channel_id"], p["status"]) for p in connected] == [(stored.id, "CREATION_SUCCESS")]


def test_a_provider_status_callback_reaches_the_owning_account(
    database: Database, account: int, other: int, messaging: Services, sandbox: SandboxGateway
) -> None:
    """CREDENTIALS from the provider: the owner's setting moves and channel.disconnected is emitted."""
    messaging.channels.connect_qr(other, "whatsapp")
    pid = messaging.channels.connect_qr(account, "whatsapp").channel.provider_account_id or ""
    sandbox.scan(pid)
    sandbox.set_status(pid, "CREDENTIALS", "Password changed")
    stored = _by_type(database, account, "whatsapp")
    assert stored is not None and (stored.sync_status, stored.error) == ("CREDENTIALS", "Password changed")
    assert (_event_names(database, account), _event_names(database, other)) == (
        ["channel.connected", "channel.disconnected"],
        [],
    )


def test_disconnecting_deletes_the_setting_and_emits_channel_disconnected(
    database: Database, account: int, messaging: Services, sandbox: SandboxGateway
) -> None:
    """The local setting is gone, and with it the directory's entry."""
    pid = messaging.channels.connect_qr(account, "telegram").channel.provider_account_id or ""
    sandbox.scan(pid)
    messaging.channels.disconnect(account, "telegram")
    with database.uow.admin(readonly=True) as admin:
        owner = admin.channel_directory.owner_of(pid)
    assert (_by_type(database, account, "telegram"), owner) == (None, None)
    assert _event_names(database, account) == ["channel.connected", "channel.disconnected"]


def test_a_failed_qr_attempt_emits_channel_error(
    database: Database, account: int, messaging: Services, sandbox: SandboxGateway
) -> None:
    """The phone refuses the code: CREATION_FAIL stored with the error, channel.error emitted."""
    pid = messaging.channels.connect_qr(account, "whatsapp").channel.provider_account_id or ""
    sandbox.fail(pid, "Refused")
    stored = _by_type(database, account, "whatsapp")
    assert stored is not None and (stored.sync_status, stored.error) == ("CREATION_FAIL", "Refused")
    assert _event_names(database, account) == ["channel.error"]
