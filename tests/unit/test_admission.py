"""Admission: a workspace key, its suspension and its plan in force, read together
(`AccountService.admit`, `Admission.plan_to_run_on`), over the in-memory storage."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from datetime import timedelta
from typing import Any

import attrs
import pytest

from engage_core.accounts.model import Admission
from engage_core.kernel.errors import Forbidden, NotFound, Unauthenticated
from engage_core.partners.client_service import AdminInput, ClientInput, ClientPatch
from engage_core.plans.model import SEED_PLANS
from engage_core.services import Services
from engage_core.testing import (
    FakeClock,
    FakeMailer,
    FakePasswordHasher,
    InMemoryAdminUnitOfWork,
    InMemoryUnitOfWorkFactory,
)

ClientOn = Callable[[str], int]
Admit = Callable[[int], Admission]


@pytest.fixture
def services(uow: InMemoryUnitOfWorkFactory, clock: FakeClock) -> Services:
    return Services.build(uow, clock, hasher=FakePasswordHasher(), mailer=FakeMailer(), default_plan="pro")


@pytest.fixture
def partner_id(services: Services) -> int:
    return services.partners.create("Reseller", "ops@reseller.example").partner.id


@pytest.fixture
def client_on(services: Services, partner_id: int) -> ClientOn:
    """`client_on(plan) -> account id` of a new client workspace."""
    made = iter(range(1, 1000))

    def make(plan: str) -> int:
        n = next(made)
        admin = AdminInput("Ada", "Admin", f"admin{n}@client.example")
        return services.partner_clients.create(partner_id, ClientInput(f"Client {n}", plan, admin)).client.id

    return make


@pytest.fixture
def admit(services: Services) -> Admit:
    """`admit(account id) -> Admission`, through a freshly issued key of the account."""
    return lambda account_id: services.accounts.admit(services.accounts.rotate_key(account_id).api_key)


def test_an_unknown_key_is_unauthenticated(services: Services) -> None:
    """A well-formed key nobody holds is the one 401, before anything else is looked at."""
    with pytest.raises(Unauthenticated):
        services.accounts.admit("k" * 44)


def test_an_inactive_account_is_refused_before_admission(services: Services, account_id: int) -> None:
    """The account checks of `authenticate` apply: an inactive account is the 403 `account_inactive`."""
    key = services.accounts.rotate_key(account_id).api_key
    services.accounts.set_active(account_id, False)

    with pytest.raises(Forbidden) as refused:
        services.accounts.admit(key)
    assert refused.value.code == "account_inactive"


def test_a_workspace_without_a_partner_is_on_the_default_plan(account_id: int, admit: Admit) -> None:
    """No client: the configured default plan, not suspended."""
    admission = admit(account_id)

    assert (admission.account.id, admission.suspended, admission.plan_to_run_on().slug) == (account_id, False, "pro")


def test_a_client_is_on_its_plan(services: Services, client_on: ClientOn, admit: Admit) -> None:
    """A partner's client runs on its own plan, as `Entitlements.plan_of` says."""
    account = client_on("starter")

    assert admit(account).plan == services.entitlements.plan_of(account) == SEED_PLANS[0]


def test_a_pending_plan_waits_for_its_boundary(
    services: Services, partner_id: int, client_on: ClientOn, admit: Admit, clock: FakeClock
) -> None:
    """Before `pending_from` the current plan is in force; from that instant on, the pending one."""
    account = client_on("starter")
    pending = services.partner_clients.update(partner_id, account, ClientPatch(plan="business")).schedule.pending_from
    assert pending is not None
    clock.set(pending - timedelta(microseconds=1))
    before = admit(account).plan_to_run_on().slug
    clock.set(pending)

    assert (before, admit(account).plan_to_run_on().slug) == ("starter", "business")


def test_a_suspended_client_is_refused(services: Services, partner_id: int, client_on: ClientOn, admit: Admit) -> None:
    """A suspended client's admission is the 403 `workspace_suspended`, as `ensure_not_suspended` says."""
    account = client_on("pro")
    services.partner_clients.suspend(partner_id, account)

    with pytest.raises(Forbidden) as refused:
        admit(account).plan_to_run_on()
    assert refused.value.code == "workspace_suspended"


def test_suspension_is_refused_before_a_missing_plan(account_id: int, admit: Admit) -> None:
    """A suspended workspace whose plan is not stored is refused as suspended, not as a 404."""
    admission = attrs.evolve(admit(account_id), suspended=True, plan=None)

    with pytest.raises(Forbidden):
        admission.plan_to_run_on()


def test_a_missing_plan_is_not_found(account_id: int, admit: Admit) -> None:
    """A plan slug with no stored plan is NotFound("Plan"), as `Entitlements.plan_of` raises."""
    with pytest.raises(NotFound):
        attrs.evolve(admit(account_id), plan=None).plan_to_run_on()


def test_an_admitted_plan_is_lent_to_the_services(services: Services, client_on: ClientOn) -> None:
    """Within `Entitlements.admitted`, `plan_of` answers the admitted plan without reading storage."""
    account = client_on("starter")
    lent = SEED_PLANS[2]

    with services.entitlements.admitted(account, lent):
        assert services.entitlements.plan_of(account) == lent
    assert services.entitlements.plan_of(account) == SEED_PLANS[0]


def test_an_admitted_plan_is_only_its_workspaces(services: Services, client_on: ClientOn) -> None:
    """The lent plan answers for the admitted workspace only; any other one is read as usual."""
    admitted, other = client_on("business"), client_on("starter")

    with services.entitlements.admitted(admitted, SEED_PLANS[2]):
        assert services.entitlements.plan_of(other) == SEED_PLANS[0]


class _SharedTransaction(InMemoryUnitOfWorkFactory):
    """Units of work inside one long transaction: a memo, and a count of the admin ones opened."""

    def __init__(self) -> None:
        super().__init__()
        self.memo: dict[Hashable, Any] = {}
        self.admin_opened = 0

    def admin(self, *, readonly: bool = False) -> InMemoryAdminUnitOfWork:
        self.admin_opened += 1
        return super().admin(readonly=readonly)

    def transaction_memo(self) -> dict[Hashable, Any]:  # type: ignore[override]
        return self.memo


@pytest.fixture
def shared() -> _SharedTransaction:
    return _SharedTransaction()


@pytest.fixture
def in_transaction(shared: _SharedTransaction, clock: FakeClock) -> Services:
    return Services.build(shared, clock, hasher=FakePasswordHasher(), mailer=FakeMailer(), default_plan="pro")


def test_a_plan_holds_until_its_change(account_id: int, admit: Admit, clock: FakeClock) -> None:
    """An admission read before a scheduled change holds up to the instant before it."""
    admission = attrs.evolve(admit(account_id), changes_at=clock.now() + timedelta(seconds=1))

    assert (admission.holds_at(clock.now()), admission.holds_at(clock.now() + timedelta(seconds=1))) == (True, False)


def test_a_pending_change_ahead_is_the_admissions_changes_at(
    services: Services, partner_id: int, client_on: ClientOn, admit: Admit
) -> None:
    """The pending plan's `pending_from`, while ahead, is when the admission stops holding."""
    account = client_on("starter")
    pending = services.partner_clients.update(partner_id, account, ClientPatch(plan="business")).schedule.pending_from

    assert admit(account).changes_at == pending


def test_a_key_admitted_in_a_transaction_is_not_read_again(
    in_transaction: Services, shared: _SharedTransaction
) -> None:
    """Within one transaction's memo, the second admission of a key reads nothing."""
    key = in_transaction.accounts.create("Acme").api_key
    in_transaction.accounts.admit(key)
    opened = shared.admin_opened

    in_transaction.accounts.admit(key)

    assert shared.admin_opened == opened


def test_an_admission_past_its_change_is_read_again(in_transaction: Services, clock: FakeClock) -> None:
    """Once `now` reaches the memoised admission's `changes_at`, the plan in force is read anew."""
    services = in_transaction
    partner_id = services.partners.create("Reseller", "ops@reseller.example").partner.id
    admin = AdminInput("Ada", "Admin", "admin@client.example")
    account = services.partner_clients.create(partner_id, ClientInput("Client", "starter", admin)).client.id
    pending = services.partner_clients.update(partner_id, account, ClientPatch(plan="business")).schedule.pending_from
    assert pending is not None
    key = services.accounts.rotate_key(account).api_key
    before = services.accounts.admit(key).plan_to_run_on().slug
    clock.set(pending)

    assert (before, services.accounts.admit(key).plan_to_run_on().slug) == ("starter", "business")


def test_a_key_of_the_wrong_length_is_unauthenticated(in_transaction: Services) -> None:
    """A key one character short is the one 401, memo or not."""
    key = in_transaction.accounts.create("Acme").api_key

    with pytest.raises(Unauthenticated):
        in_transaction.accounts.admit(key[:-1])
