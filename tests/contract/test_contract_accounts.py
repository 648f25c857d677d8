"""Accounts: the account repository, authentication and admission, on every adapter."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, timedelta

import attrs
import pytest
from partner_workspace import PartnerServices, client_input, partner_services
from support import NOW

from engage_core.accounts.account_service import AccountService
from engage_core.accounts.model import Account, Admission
from engage_core.accounts.profile_service import ProfilePatch
from engage_core.kernel.errors import Forbidden, Unauthenticated
from engage_core.partners.client_service import ClientPatch
from engage_core.plans.plan_service import PlanPatch
from engage_core.services import Services
from engage_core.testing import FakeClock
from engage_core.unit_of_work import UnitOfWorkFactory

Admit = Callable[[int], Admission]


@pytest.fixture
def partner(uow: UnitOfWorkFactory, clock: FakeClock) -> PartnerServices:
    return partner_services(uow, clock)


@pytest.fixture
def accounts(uow: UnitOfWorkFactory, clock: FakeClock) -> AccountService:
    return AccountService(uow, clock, "pro")


@pytest.fixture
def partner_id(partner: PartnerServices) -> int:
    return partner.partners.create("Reseller", "ops@reseller.example").partner.id


@pytest.fixture
def admit(accounts: AccountService) -> Admit:
    """`admit(account id) -> Admission`, through a freshly issued key of the account."""
    return lambda account_id: accounts.admit(accounts.rotate_key(account_id).api_key)


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


def test_missing_account_is_absent(uow: UnitOfWorkFactory) -> None:
    """get() and by_key_digest() of what does not exist return None."""
    with uow.admin(readonly=True) as unit:
        assert (unit.accounts.get(999), unit.accounts.by_key_digest("f" * 64)) == (None, None)


def test_by_key_digest_returns_the_stored_digest(uow: UnitOfWorkFactory) -> None:
    """by_key_digest() hands back the stored digest for the constant-time comparison."""
    with uow.admin() as unit:
        account = unit.accounts.add("Acme", "a" * 64, "eng_abcd…", NOW)
        unit.commit()

    with uow.admin(readonly=True) as unit:
        assert unit.accounts.by_key_digest("a" * 64) == (account, "a" * 64)


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


def test_a_workspace_without_a_partner_is_admitted_on_the_default_plan(accounts: AccountService, admit: Admit) -> None:
    """No client row: the configured default plan, not suspended."""
    account_id = accounts.create("Acme").account.id

    admission = admit(account_id)

    assert (admission.account.id, admission.suspended, admission.plan and admission.plan.slug) == (
        account_id,
        False,
        "pro",
    )


def test_a_client_is_admitted_on_its_plan(partner: PartnerServices, partner_id: int, admit: Admit) -> None:
    """A partner's client runs on its own plan, read whole from the plans table."""
    client = partner.clients.create(partner_id, client_input(plan="starter")).client

    assert admit(client.id).plan == partner.plans.get("starter")


def test_a_pending_plan_waits_for_its_boundary(
    partner: PartnerServices, partner_id: int, admit: Admit, clock: FakeClock
) -> None:
    """Before `pending_from` the current plan is in force; from that instant on, the pending one."""
    client = partner.clients.create(partner_id, client_input(plan="starter")).client
    pending = partner.clients.update(partner_id, client.id, ClientPatch(plan="business"))
    assert pending.schedule.pending_from is not None
    clock.set(pending.schedule.pending_from - timedelta(microseconds=1))
    before = admit(client.id).plan
    clock.set(pending.schedule.pending_from)

    assert (before and before.slug, admit(client.id).plan) == ("starter", partner.plans.get("business"))


def test_a_suspended_client_is_admitted_as_suspended(partner: PartnerServices, partner_id: int, admit: Admit) -> None:
    """A suspended client's admission says so, and running on it is the 403 `workspace_suspended`."""
    client = partner.clients.create(partner_id, client_input()).client
    partner.clients.suspend(partner_id, client.id)

    admission = admit(client.id)

    assert admission.suspended
    with pytest.raises(Forbidden) as refused:
        admission.plan_to_run_on()
    assert refused.value.code == "workspace_suspended"


def test_a_plan_edit_is_seen_by_the_next_admission(partner: PartnerServices, partner_id: int, admit: Admit) -> None:
    """Admission parses each distinct stored plan once, yet an edited plan is read as edited."""
    client = partner.clients.create(partner_id, client_input(plan="starter")).client
    before = admit(client.id).plan
    partner.plans.update("starter", PlanPatch(limits={"contacts": 7}, features={"booking": False}))

    after = admit(client.id).plan

    assert before is not None and after is not None
    assert (before.limit("contacts"), after.limit("contacts"), after.has("booking")) == (1_000, 7, False)


def test_origins_are_admitted_as_stored(accounts: AccountService) -> None:
    """The allowed origins come with admission, as stored and in order."""
    issued = accounts.create("Acme")
    accounts.set_origins(issued.account.id, ["https://b.example", "https://a.example"])

    assert accounts.admit(issued.api_key, origin="https://b.example").account.allowed_origins == (
        "https://b.example",
        "https://a.example",
    )


def test_a_pending_change_ahead_is_the_admissions_changes_at(
    partner: PartnerServices, partner_id: int, admit: Admit
) -> None:
    """The stored `pending_from`, while ahead of `now`, comes back as `changes_at`."""
    client = partner.clients.create(partner_id, client_input(plan="starter")).client
    pending = partner.clients.update(partner_id, client.id, ClientPatch(plan="business"))

    assert admit(client.id).changes_at == pending.schedule.pending_from


def _add(uow: UnitOfWorkFactory, name: str = "Acme", digest: str = "a" * 64) -> Account:
    with uow.admin() as unit:
        account = unit.accounts.add(name, digest, "eng_abcd…", NOW)
        unit.commit()
    return account


def test_admission_of_an_unknown_digest_is_none(uow: UnitOfWorkFactory) -> None:
    """admission() of a digest no account has is None."""
    _add(uow)

    with uow.admin(readonly=True) as unit:
        assert unit.accounts.admission("f" * 64, NOW, "pro") is None


def test_admission_hands_back_the_stored_digest(uow: UnitOfWorkFactory) -> None:
    """admission() returns the account with its stored digest, as by_key_digest() does."""
    account = _add(uow)

    with uow.admin(readonly=True) as unit:
        found = unit.accounts.admission("a" * 64, NOW, "pro")

    assert found is not None and (found[0].account, found[1]) == (account, "a" * 64)


def test_admission_of_an_unknown_default_plan_has_no_plan(uow: UnitOfWorkFactory) -> None:
    """A workspace without a partner whose default plan slug has no plan is admitted without a plan."""
    _add(uow)

    with uow.admin(readonly=True) as unit:
        found = unit.accounts.admission("a" * 64, NOW, "no-such-plan")

    assert found is not None and (found[0].plan, found[0].suspended, found[0].changes_at) == (None, False, None)


def test_a_pending_change_behind_now_is_no_changes_at(
    partner: PartnerServices, partner_id: int, admit: Admit, clock: FakeClock
) -> None:
    """Once `now` reaches `pending_from`, admission has no `changes_at` left."""
    client = partner.clients.create(partner_id, client_input(plan="starter")).client
    pending = partner.clients.update(partner_id, client.id, ClientPatch(plan="business"))
    assert pending.schedule.pending_from is not None
    clock.set(pending.schedule.pending_from)

    assert admit(client.id).changes_at is None


def test_set_key_replaces_digest_and_hint(uow: UnitOfWorkFactory, clock: FakeClock) -> None:
    """set_key() makes the new digest find the account with the new hint, and the old one find nothing."""
    account = _add(uow)
    later = clock.advance(minutes=1)
    with uow.admin() as unit:
        unit.accounts.set_key(account.id, "b" * 64, "eng_wxyz…", later)
        unit.commit()

    with uow.admin(readonly=True) as unit:
        found, old = unit.accounts.by_key_digest("b" * 64), unit.accounts.by_key_digest("a" * 64)

    assert (found and (found[0].key_hint, found[0].updated_at, found[1]), old) == (("eng_wxyz…", later, "b" * 64), None)


def test_rename_changes_the_name_and_the_update_time(uow: UnitOfWorkFactory, clock: FakeClock) -> None:
    """rename() stores the new name and stamps `updated_at`, keeping `created_at`."""
    account = _add(uow)
    later = clock.advance(minutes=1)
    with uow.admin() as unit:
        unit.accounts.rename(account.id, "Globex", later)
        unit.commit()

    with uow.admin(readonly=True) as unit:
        assert unit.accounts.get(account.id) == attrs.evolve(account, name="Globex", updated_at=later)


def test_set_active_stamps_the_update_time(uow: UnitOfWorkFactory, clock: FakeClock) -> None:
    """set_active() stores the flag and stamps `updated_at`."""
    account = _add(uow)
    later = clock.advance(minutes=1)
    with uow.admin() as unit:
        unit.accounts.set_active(account.id, False, later)
        unit.commit()

    with uow.admin(readonly=True) as unit:
        assert unit.accounts.get(account.id) == attrs.evolve(account, is_active=False, updated_at=later)


def test_set_origins_and_locale_keep_the_other_fields(uow: UnitOfWorkFactory, clock: FakeClock) -> None:
    """set_origins() and set_locale() change their field only (and `updated_at`)."""
    account = _add(uow)
    later = clock.advance(minutes=1)
    with uow.admin() as unit:
        unit.accounts.set_origins(account.id, ("https://a.example",), later)
        unit.accounts.set_locale(account.id, "ar-SA", later)
        unit.commit()

    with uow.admin(readonly=True) as unit:
        assert unit.accounts.get(account.id) == attrs.evolve(
            account, allowed_origins=("https://a.example",), locale="ar-SA", updated_at=later
        )


def test_the_partners_unit_of_work_sees_the_same_accounts(uow: UnitOfWorkFactory) -> None:
    """An account added by administration is read alike through the partners' unit of work."""
    account = _add(uow)

    with uow.partners(readonly=True) as unit:
        assert (unit.accounts.get(account.id), unit.accounts.list()) == (account, [account])
