"""Admission: a workspace key, its suspension and its plan in force, read together
(`AccountService.admit`, `Admission.plan_to_run_on`), over the in-memory storage."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import attrs
import pytest

from engage_core.accounts.model import Admission
from engage_core.contacts.model import ContactInput
from engage_core.kernel.errors import Forbidden, NotFound, PlanLimitReached, Unauthenticated
from engage_core.partners.client_service import AdminInput, ClientInput, ClientPatch
from engage_core.plans.model import CONTACTS, SEED_PLANS
from engage_core.services import Services
from engage_core.testing import (
    FakeClock,
    FakeMailer,
    FakePasswordHasher,
    InMemoryUnitOfWorkFactory,
)
from engage_core.unit_of_work import PartnerUnitOfWork

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


class _CountingPlanReads(InMemoryUnitOfWorkFactory):
    """Counts the read-only partners' units of work opened: where the plan in force is read."""

    def __init__(self) -> None:
        super().__init__()
        self.plan_reads = 0

    def partners(self, *, readonly: bool = False) -> PartnerUnitOfWork:
        self.plan_reads += readonly
        return super().partners(readonly=readonly)


@pytest.fixture
def counting() -> _CountingPlanReads:
    return _CountingPlanReads()


@pytest.fixture
def counted(counting: _CountingPlanReads, clock: FakeClock) -> Services:
    return Services.build(counting, clock, hasher=FakePasswordHasher(), mailer=FakeMailer(), default_plan="pro")


def test_a_plan_given_to_a_limited_write_is_not_read_again(counted: Services, counting: _CountingPlanReads) -> None:
    """A create given the plan its request was admitted with reads no plan."""
    account = counted.accounts.create("Acme").account.id
    reads = counting.plan_reads

    counted.contacts.create(account, ContactInput(name="Ada", type="instagram"), plan=SEED_PLANS[2])

    assert counting.plan_reads == reads


def test_a_limited_write_given_no_plan_reads_it(counted: Services, counting: _CountingPlanReads) -> None:
    """Without a plan, a create reads the plan in force (a library caller's path)."""
    account = counted.accounts.create("Acme").account.id
    reads = counting.plan_reads

    counted.contacts.create(account, ContactInput(name="Ada", type="instagram"))

    assert counting.plan_reads == reads + 1


def test_the_plan_given_is_the_one_the_limit_is_checked_against(counted: Services) -> None:
    """A plan given with no room for one more contact refuses the create."""
    account = counted.accounts.create("Acme").account.id
    full = attrs.evolve(SEED_PLANS[2], limits={**SEED_PLANS[2].limits, CONTACTS: 0})

    with pytest.raises(PlanLimitReached):
        counted.contacts.create(account, ContactInput(name="Ada", type="instagram"), plan=full)


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


def test_a_key_of_the_wrong_length_is_unauthenticated(services: Services) -> None:
    """A key one character short is the one 401."""
    key = services.accounts.create("Acme").api_key

    with pytest.raises(Unauthenticated):
        services.accounts.admit(key[:-1])
