"""Accounts through AccountService and the SQL account repository."""

from __future__ import annotations

from datetime import UTC

import pytest

from engage_core.accounts.profile_service import ProfilePatch
from engage_core.kernel.errors import Forbidden, Unauthenticated
from engage_core.services import Services
from engage_sql import Database

from .conftest import START


def test_created_account_is_read_back(services: Services) -> None:
    """A created account is active, has no origins, and reads back equal."""
    created = services.accounts.create("Acme").account

    assert (services.accounts.get(created.id), created.is_active, created.allowed_origins) == (created, True, ())


def test_accounts_are_listed_in_creation_order(services: Services) -> None:
    """list() returns every account, oldest first."""
    names = ["Acme", "Globex", "Initech"]
    for name in names:
        services.accounts.create(name)

    assert [a.name for a in services.accounts.list()] == names


def test_key_authenticates_its_account(services: Services) -> None:
    """The issued key finds its account by digest."""
    issued = services.accounts.create("Acme")

    assert services.accounts.authenticate(issued.api_key) == issued.account


def test_rotated_key_replaces_the_old_one(services: Services) -> None:
    """After rotation the new key works and the old one does not."""
    issued = services.accounts.create("Acme")
    rotated = services.accounts.rotate_key(issued.account.id)

    assert services.accounts.authenticate(rotated.api_key).id == issued.account.id
    with pytest.raises(Unauthenticated):
        services.accounts.authenticate(issued.api_key)


def test_inactive_account_is_refused(services: Services) -> None:
    """A deactivated account's key is refused with account_inactive."""
    issued = services.accounts.create("Acme")
    services.accounts.set_active(issued.account.id, False)

    with pytest.raises(Forbidden, match="inactive"):
        services.accounts.authenticate(issued.api_key)


def test_origins_are_stored_in_order(services: Services) -> None:
    """The origin whitelist is kept as given (normalised, without duplicates)."""
    account = services.accounts.create("Acme").account
    updated = services.accounts.set_origins(account.id, ["https://b.example", "https://A.example:443/x"])

    assert (
        services.accounts.get(account.id).allowed_origins
        == updated.allowed_origins
        == (
            "https://b.example",
            "https://a.example",
        )
    )


def test_missing_account_is_absent(database: Database) -> None:
    """get() and by_key_digest() of what does not exist return None."""
    with database.uow.admin(readonly=True) as uow:
        assert (uow.accounts.get(999), uow.accounts.by_key_digest("f" * 64)) == (None, None)


def test_by_key_digest_returns_the_stored_digest(database: Database) -> None:
    """by_key_digest() hands back the stored digest for the constant-time comparison."""
    with database.uow.admin() as uow:
        account = uow.accounts.add("Acme", "a" * 64, "eng_abcd…", START)
        uow.commit()

    with database.uow.admin(readonly=True) as uow:
        assert uow.accounts.by_key_digest("a" * 64) == (account, "a" * 64)


def test_authentication_reads_the_account_as_get_does(services: Services) -> None:
    """The key lookup (run on the driver's cursor) returns the very account `get` returns:
    origins, flags and timestamps converted alike on every database."""
    issued = services.accounts.create("Acme")
    services.accounts.set_origins(issued.account.id, ["https://b.example", "https://a.example"])
    services.accounts.set_active(issued.account.id, False)

    with pytest.raises(Forbidden):
        services.accounts.authenticate(issued.api_key)
    services.accounts.set_active(issued.account.id, True)
    authenticated = services.accounts.authenticate(issued.api_key, origin="https://a.example")

    assert authenticated == services.accounts.get(issued.account.id)
    assert authenticated.allowed_origins == ("https://b.example", "https://a.example")
    assert authenticated.created_at.tzinfo is UTC


def test_a_new_account_is_stored_with_the_default_locale(services: Services) -> None:
    """An account created through the repository reads back with locale `en`."""
    account = services.accounts.create("Acme").account

    assert (account.locale, services.accounts.get(account.id).locale) == ("en", "en")


def test_the_locale_round_trips(services: Services) -> None:
    """A locale set through the profile service is read back by `get`, by the key lookup and by admission."""
    issued = services.accounts.create("Acme")
    services.account_profile.update(issued.account.id, ProfilePatch(locale="zh-hant-tw"))

    assert (
        services.accounts.get(issued.account.id).locale,
        services.accounts.authenticate(issued.api_key).locale,
        services.accounts.admit(issued.api_key).account.locale,
    ) == ("zh-Hant-TW", "zh-Hant-TW", "zh-Hant-TW")
