"""`engage db backup PATH`: an online copy of the SQLite database with the key of its secrets, which
restores into a database that delivers webhooks."""

from __future__ import annotations

import logging
import shutil
import stat
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result
from receiver import MakeReceiver

from engage_core import verify_signature
from engage_core.contacts.model import ContactDraft
from engage_core.kernel.clock import SystemClock
from engage_core.kernel.events import DomainEvent
from engage_core.kernel.pagination import PageRequest
from engage_core.services import Services
from engage_core.settings import Settings
from engage_core.webhooks.service import WebhookInput
from engage_http.bootstrap import build_services, start_worker
from engage_sql import Database

RunCli = Callable[..., Result]


def url_of(path: Path) -> str:
    return f"sqlite:///{path}"


def queue_a_delivery(database_url: str, receiver_url: str) -> tuple[int, int, str]:
    """A migrated database whose account has one `contact.created` delivery queued to `receiver_url`:
    the account id, the webhook id and its signing secret."""
    database = Database.connect(database_url)
    try:
        database.upgrade()
        services = build_services(Settings(database_url=database_url, webhook_allowed_hosts="127.0.0.1"), database)
        account_id = services.accounts.create("Acme").account.id
        hook = services.webhooks.create(account_id, WebhookInput("Receiver", receiver_url, ["contact.created"]))
        now = SystemClock().now()
        with database.uow.workspace(account_id) as uow:
            contact = uow.contacts.add(ContactDraft(name="Ada", type="instagram"), now)
            uow.emit(DomainEvent("contact.created", contact.event_payload(), now))
            uow.commit()
        return account_id, hook.subscription.id, hook.secret
    finally:
        database.dispose()


def restore(backup: Path, into: Path, *, with_key: bool = True) -> str:
    """Copy a backup (and its key file) to `into`, as an operator restores one; the restored URL."""
    into.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(backup, into)
    if with_key:
        shutil.copyfile(f"{backup}.secret-key", f"{into}.secret-key")
    return url_of(into)


def wait_for_a_failed_attempt(services: Services, account_id: int, webhook_id: int) -> None:
    """Return once the webhook's delivery log holds a failed attempt (generously bounded, for a loaded machine)."""
    deadline = time.monotonic() + 120
    while not services.webhooks.deliveries(account_id, webhook_id, "failed", PageRequest(1, 10)).items:
        assert time.monotonic() < deadline, "no failed attempt was recorded"
        time.sleep(0.05)


@pytest.fixture(autouse=True)
def _trusted_receivers(monkeypatch: pytest.MonkeyPatch, ca_file: Path) -> None:
    monkeypatch.setenv("SSL_CERT_FILE", str(ca_file))
    monkeypatch.delenv("ENGAGE_SECRET_KEY", raising=False)


def test_backup_copies_the_database_and_its_key(run_cli: RunCli, database_url: str, tmp_path: Path) -> None:
    """The backup holds the data, and the development key is copied beside it, readable by its owner only."""
    queue_a_delivery(database_url, "https://127.0.0.1:9/hook")
    backup = tmp_path / "backups" / "engage-backup.db"
    backup.parent.mkdir()

    result = run_cli("db", "backup", str(backup))

    assert result.exit_code == 0, result.output
    key = Path(f"{backup}.secret-key")
    assert key.read_bytes() == Path(f"{database_url.removeprefix('sqlite:///')}.secret-key").read_bytes()
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    copy = Database.connect(url_of(backup))
    try:
        assert [a.name for a in Services.build(copy.uow).accounts.list()] == ["Acme"]
    finally:
        copy.dispose()


def test_a_restored_backup_delivers_signed_webhooks(
    run_cli: RunCli, database_url: str, tmp_path: Path, make_receiver: MakeReceiver
) -> None:
    """A worker on the restored copy delivers the queued event, signed with the subscription's secret."""
    receiver = make_receiver()
    _, _, secret = queue_a_delivery(database_url, receiver.url("/hook"))
    backup = tmp_path / "engage-backup.db"
    assert run_cli("db", "backup", str(backup)).exit_code == 0
    restored_url = restore(backup, tmp_path / "restored" / "engage.db")

    restored = Database.connect(restored_url)
    worker = start_worker(Settings(database_url=restored_url, webhook_allowed_hosts="127.0.0.1"), restored)
    try:
        (request,) = receiver.wait_for(1, timeout=60)
    finally:
        worker.stop()
        restored.dispose()

    verify_signature(
        secret, request.body, request.header("X-Service-Signature-256"), request.header("X-Service-Timestamp")
    )


def test_a_restore_without_its_key_fails_loudly(
    run_cli: RunCli, database_url: str, tmp_path: Path, make_receiver: MakeReceiver, caplog: pytest.LogCaptureFixture
) -> None:
    """Restored without its key file, a delivery fails and an error says the key is not the right one."""
    receiver = make_receiver()
    account_id, webhook_id, _ = queue_a_delivery(database_url, receiver.url("/hook"))
    backup = tmp_path / "engage-backup.db"
    assert run_cli("db", "backup", str(backup)).exit_code == 0
    restored_url = restore(backup, tmp_path / "restored" / "engage.db", with_key=False)

    restored = Database.connect(restored_url)
    settings = Settings(database_url=restored_url, webhook_allowed_hosts="127.0.0.1")
    with caplog.at_level(logging.ERROR, logger="engage.delivery"):
        worker = start_worker(settings, restored)
        try:
            wait_for_a_failed_attempt(build_services(settings, restored), account_id, webhook_id)
        finally:
            worker.stop()
            restored.dispose()

    assert receiver.requests == []
    assert any("could not be decrypted" in record.getMessage() for record in caplog.records)


def test_with_a_secret_key_the_backup_says_the_key_is_not_in_it(run_cli: RunCli, tmp_path: Path) -> None:
    """With ENGAGE_SECRET_KEY set, no key file is written and the output says a restore needs the key."""
    backup = tmp_path / "engage-backup.db"

    result = run_cli("db", "backup", str(backup), env={"ENGAGE_SECRET_KEY": "a-key-kept-elsewhere"})

    assert result.exit_code == 0, result.output
    assert "ENGAGE_SECRET_KEY" in result.stdout
    assert not Path(f"{backup}.secret-key").exists()


def test_an_existing_backup_is_kept_without_force(run_cli: RunCli, tmp_path: Path) -> None:
    """A path that exists is refused, and left as it was, unless `--force`."""
    backup = tmp_path / "engage-backup.db"
    backup.write_bytes(b"an older backup")

    refused = run_cli("db", "backup", str(backup))
    forced = run_cli("db", "backup", "--force", str(backup))

    assert refused.exit_code == 1 and "--force" in refused.stderr
    assert forced.exit_code == 0, forced.output
    assert backup.read_bytes()[:16] == b"SQLite format 3\x00"


def test_postgresql_is_pointed_to_pg_dump(run_cli: RunCli, tmp_path: Path) -> None:
    """On PostgreSQL the command refuses in one line naming pg_dump, and writes nothing."""
    pytest.importorskip("psycopg")
    backup = tmp_path / "engage-backup.db"

    result = run_cli("db", "backup", str(backup), database="postgresql://engage@127.0.0.1:1/none")

    assert result.exit_code == 1
    assert "pg_dump" in result.stderr
    assert not backup.exists()
