"""AccountService: creation, keys, activation, origin whitelist and authentication (SPEC 5)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from engage_core.accounts.fakes import AccountsTables
from engage_core.accounts.keys import digest_key, generate_key, is_well_formed
from engage_core.kernel.errors import Forbidden, NotFound, Unauthenticated, ValidationFailed
from engage_core.services import Services
from engage_core.testing import FakeClock, InMemoryUnitOfWorkFactory

from ..factories import START


@pytest.fixture
def issued(services: Services) -> Callable[..., tuple[int, str]]:
    """`issued(name="Acme", origins=()) -> (account id, plaintext key)`."""

    def make(name: str = "Acme", origins: tuple[str, ...] = ()) -> tuple[int, str]:
        created = services.accounts.create(name)
        if origins:
            services.accounts.set_origins(created.account.id, origins)
        return created.account.id, created.api_key

    return make


# -- create, list, get ----------------------------------------------------------------------------


def test_create_returns_a_key_that_authenticates(services: Services) -> None:
    """The key returned by `create` authenticates as the new account."""
    created = services.accounts.create("Acme")
    assert services.accounts.authenticate(created.api_key).id == created.account.id


def test_create_returns_a_well_formed_key(services: Services) -> None:
    """The issued key is a 44-character workspace key."""
    key = services.accounts.create("Acme").api_key
    assert len(key) == 44
    assert is_well_formed(key)


def test_create_stores_only_the_digest(services: Services, uow: InMemoryUnitOfWorkFactory) -> None:
    """Storage holds the SHA-256 digest of the key, never the key."""
    created = services.accounts.create("Acme")
    row = uow.store.state.of(AccountsTables).accounts[created.account.id]
    assert row.key_digest == digest_key(created.api_key)
    assert created.api_key not in repr(row)


def test_create_keeps_a_hint_not_the_key(services: Services) -> None:
    """The account shows a short hint of its key."""
    created = services.accounts.create("Acme")
    assert created.account.key_hint == created.api_key[:8] + "…"


def test_new_account_is_active_and_open_to_every_origin(services: Services) -> None:
    """A new account is active, has no whitelist, and records its creation time."""
    account = services.accounts.create(" Acme ").account
    assert (account.name, account.is_active, account.allowed_origins, account.created_at) == ("Acme", True, (), START)


def test_create_requires_a_name(services: Services) -> None:
    """A blank account name is refused on `name`."""
    with pytest.raises(ValidationFailed) as caught:
        services.accounts.create("  ")
    assert list(caught.value.errors) == ["name"]


def test_list_returns_accounts_in_creation_order(services: Services, issued: Callable[..., tuple[int, str]]) -> None:
    """`list` returns every account, oldest first."""
    first, _ = issued("One")
    second, _ = issued("Two")
    assert [a.id for a in services.accounts.list()] == [first, second]


def test_get_unknown_account_is_not_found(services: Services) -> None:
    """Getting an account that does not exist raises NotFound."""
    with pytest.raises(NotFound):
        services.accounts.get(999)


# -- rotate ----------------------------------------------------------------------------------------


def test_rotate_issues_a_key_that_authenticates(services: Services, issued: Callable[..., tuple[int, str]]) -> None:
    """The rotated key authenticates as the same account."""
    account_id, _ = issued()
    new = services.accounts.rotate_key(account_id)
    assert services.accounts.authenticate(new.api_key).id == account_id


def test_rotate_invalidates_the_old_key_at_once(services: Services, issued: Callable[..., tuple[int, str]]) -> None:
    """After rotation the old key is refused (SPEC 5.3)."""
    account_id, old_key = issued()
    services.accounts.rotate_key(account_id)
    with pytest.raises(Unauthenticated):
        services.accounts.authenticate(old_key)


def test_rotate_changes_the_hint_and_updated_at(
    services: Services, issued: Callable[..., tuple[int, str]], clock: FakeClock
) -> None:
    """The account's hint follows the new key and `updated_at` moves."""
    account_id, _ = issued()
    later = clock.advance(minutes=1)
    new = services.accounts.rotate_key(account_id)
    assert (new.account.key_hint, new.account.updated_at) == (new.api_key[:8] + "…", later)


def test_rotate_unknown_account_is_not_found(services: Services) -> None:
    """Rotating the key of an unknown account raises NotFound."""
    with pytest.raises(NotFound):
        services.accounts.rotate_key(999)


def test_rotating_one_account_leaves_others_alone(services: Services, issued: Callable[..., tuple[int, str]]) -> None:
    """Another account's key keeps working after a rotation."""
    first, _ = issued("One")
    second, second_key = issued("Two")
    services.accounts.rotate_key(first)
    assert services.accounts.authenticate(second_key).id == second


# -- authenticate: 401 ----------------------------------------------------------------------------

EXPECTED_401 = "Unauthenticated. Provide a valid API key."


@pytest.mark.parametrize(
    "bad_key",
    [
        pytest.param(None, id="missing"),
        pytest.param("", id="empty"),
        pytest.param("not-a-key", id="malformed"),
        pytest.param("eng_" + "a" * 40, id="bad-checksum"),
        pytest.param(generate_key().plaintext, id="well-formed-but-unknown"),
        pytest.param(generate_key("enp_").plaintext, id="partner-key"),
    ],
)
def test_every_bad_key_gets_the_same_401(
    services: Services, issued: Callable[..., tuple[int, str]], bad_key: str | None
) -> None:
    """Missing, malformed and wrong keys raise the same Unauthenticated with the same message."""
    issued()
    with pytest.raises(Unauthenticated) as caught:
        services.accounts.authenticate(bad_key)
    assert (type(caught.value), caught.value.message) == (Unauthenticated, EXPECTED_401)


def test_key_with_surrounding_space_is_refused(services: Services, issued: Callable[..., tuple[int, str]]) -> None:
    """The key must be sent exactly; stripping is the adapter's job."""
    _, key = issued()
    with pytest.raises(Unauthenticated):
        services.accounts.authenticate(f" {key}")


# -- authenticate: 403 ----------------------------------------------------------------------------


def test_inactive_account_is_forbidden(services: Services, issued: Callable[..., tuple[int, str]]) -> None:
    """A valid key of an inactive account raises Forbidden with code `account_inactive` (SPEC 5.5)."""
    account_id, key = issued()
    services.accounts.set_active(account_id, False)
    with pytest.raises(Forbidden) as caught:
        services.accounts.authenticate(key)
    assert caught.value.code == "account_inactive"


def test_reactivated_account_authenticates(services: Services, issued: Callable[..., tuple[int, str]]) -> None:
    """Re-activating an account lets its key in again."""
    account_id, key = issued()
    services.accounts.set_active(account_id, False)
    services.accounts.set_active(account_id, True)
    assert services.accounts.authenticate(key).id == account_id


def test_set_active_unknown_account_is_not_found(services: Services) -> None:
    """Deactivating an unknown account raises NotFound."""
    with pytest.raises(NotFound):
        services.accounts.set_active(999, False)


def test_origin_is_checked_before_activity(services: Services, issued: Callable[..., tuple[int, str]]) -> None:
    """An inactive account with a refused origin reports `origin_not_allowed`: that page learns nothing of it."""
    account_id, key = issued(origins=("https://app.example.com",))
    services.accounts.set_active(account_id, False)
    with pytest.raises(Forbidden) as caught:
        services.accounts.authenticate(key, origin="https://evil.example")
    assert caught.value.code == "origin_not_allowed"


# -- origin whitelist -----------------------------------------------------------------------------


@pytest.mark.parametrize("origins", [(), ("*",), ("https://app.example.com", "*")])
def test_open_whitelist_allows_any_origin(
    services: Services, issued: Callable[..., tuple[int, str]], origins: tuple[str, ...]
) -> None:
    """An empty whitelist or one containing `*` lets any origin in (SPEC 5.4)."""
    account_id, key = issued(origins=origins)
    assert services.accounts.authenticate(key, origin="https://evil.example").id == account_id


def test_listed_origin_is_let_in(services: Services, issued: Callable[..., tuple[int, str]]) -> None:
    """A request whose Origin is listed authenticates."""
    account_id, key = issued(origins=("https://app.example.com",))
    assert services.accounts.authenticate(key, origin="https://app.example.com").id == account_id


def test_unlisted_origin_is_refused(services: Services, issued: Callable[..., tuple[int, str]]) -> None:
    """An unlisted Origin raises Forbidden with code `origin_not_allowed`."""
    _, key = issued(origins=("https://app.example.com",))
    with pytest.raises(Forbidden) as caught:
        services.accounts.authenticate(key, origin="https://evil.example")
    assert caught.value.code == "origin_not_allowed"


def test_origin_refusal_says_the_origin_is_not_allowed(
    services: Services, issued: Callable[..., tuple[int, str]]
) -> None:
    """The 403 message says the origin is not allowed (SPEC 5.4)."""
    _, key = issued(origins=("https://app.example.com",))
    with pytest.raises(Forbidden, match="origin is not allowed"):
        services.accounts.authenticate(key, origin="https://evil.example")


def test_unlisted_referer_is_refused(services: Services, issued: Callable[..., tuple[int, str]]) -> None:
    """An unlisted Referer raises Forbidden with code `origin_not_allowed`."""
    _, key = issued(origins=("https://app.example.com",))
    with pytest.raises(Forbidden) as caught:
        services.accounts.authenticate(key, referer="https://evil.example/page")
    assert caught.value.code == "origin_not_allowed"


def test_listed_referer_is_let_in(services: Services, issued: Callable[..., tuple[int, str]]) -> None:
    """A Referer on a listed origin authenticates whatever its path."""
    account_id, key = issued(origins=("https://app.example.com",))
    assert services.accounts.authenticate(key, referer="https://app.example.com/a/b?c").id == account_id


def test_request_without_origin_passes_the_whitelist(
    services: Services, issued: Callable[..., tuple[int, str]]
) -> None:
    """A server-to-server request (no Origin, no Referer) passes a configured whitelist."""
    account_id, key = issued(origins=("https://app.example.com",))
    assert services.accounts.authenticate(key).id == account_id


@pytest.mark.parametrize(
    ("configured", "sent"),
    [
        ("HTTPS://App.Example.com:443/", "https://app.example.com"),
        ("https://app.example.com", "HTTPS://APP.EXAMPLE.COM:443"),
        ("app.example.com", "https://app.example.com"),
        ("http://localhost:3000/", "http://LOCALHOST:3000"),
    ],
)
def test_whitelist_normalises_ports_and_case(
    services: Services, issued: Callable[..., tuple[int, str]], configured: str, sent: str
) -> None:
    """Case, default ports and paths are ignored on both the configured and the sent origin."""
    account_id, key = issued(origins=(configured,))
    assert services.accounts.authenticate(key, origin=sent).id == account_id


def test_set_origins_stores_normalised_unique_origins(
    services: Services, issued: Callable[..., tuple[int, str]]
) -> None:
    """Origins are stored normalised, duplicates dropped, order kept."""
    account_id, _ = issued()
    account = services.accounts.set_origins(
        account_id, ["https://B.example.com/x", "https://a.example.com:443", "https://b.example.com"]
    )
    assert account.allowed_origins == ("https://b.example.com", "https://a.example.com")


def test_set_origins_to_nothing_reopens_the_account(services: Services, issued: Callable[..., tuple[int, str]]) -> None:
    """Clearing the whitelist lets every origin in again."""
    account_id, key = issued(origins=("https://app.example.com",))
    services.accounts.set_origins(account_id, [])
    assert services.accounts.authenticate(key, origin="https://evil.example").id == account_id


@pytest.mark.parametrize("bad", ["ftp://example.com", "https://", "https://example.com:99999", ""])
def test_set_origins_rejects_bad_origins(services: Services, issued: Callable[..., tuple[int, str]], bad: str) -> None:
    """A value that is not an origin is refused on its index (`origins.1`)."""
    account_id, _ = issued()
    with pytest.raises(ValidationFailed) as caught:
        services.accounts.set_origins(account_id, ["https://ok.example.com", bad])
    assert list(caught.value.errors) == ["origins.1"]


def test_rejected_set_origins_changes_nothing(services: Services, issued: Callable[..., tuple[int, str]]) -> None:
    """A refused whitelist leaves the previous one in place."""
    account_id, _ = issued(origins=("https://app.example.com",))
    with pytest.raises(ValidationFailed):
        services.accounts.set_origins(account_id, ["ftp://nope"])
    assert services.accounts.get(account_id).allowed_origins == ("https://app.example.com",)


def test_set_origins_unknown_account_is_not_found(services: Services) -> None:
    """Setting origins on an unknown account raises NotFound."""
    with pytest.raises(NotFound):
        services.accounts.set_origins(999, ["https://app.example.com"])


def test_services_build_defaults_to_the_system_clock() -> None:
    """`Services.build` without a clock works on real time."""
    services = Services.build(InMemoryUnitOfWorkFactory())
    assert services.accounts.create("Acme").account.created_at.tzinfo is not None
