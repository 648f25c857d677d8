"""Entitlements: a workspace's plan and features, and race-free limit checks at the write
(`engage_core.plans.entitlements`)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import timedelta

import pytest

from engage_core.contacts.model import ContactDraft, ContactInput
from engage_core.kernel.errors import FeatureUnavailable, PlanLimitReached
from engage_core.messaging.messages import MessageDraft
from engage_core.partners.client_service import AdminInput, ClientInput
from engage_core.plans.entitlements import Entitlements, reserve
from engage_core.plans.model import Plan
from engage_core.plans.plan_service import PlanPatch
from engage_core.services import Services
from engage_core.testing import FakeClock, FakeMailer, FakePasswordHasher, InMemoryUnitOfWorkFactory

from ..factories import START

CONTACT = ContactInput(name="Ada", type="instagram")
ClientOn = Callable[[str], int]


@pytest.fixture
def services(uow: InMemoryUnitOfWorkFactory, clock: FakeClock) -> Services:
    return Services.build(uow, clock, hasher=FakePasswordHasher(), mailer=FakeMailer())


@pytest.fixture
def client_on(services: Services) -> ClientOn:
    """`client_on(plan) -> account id` of a new client workspace of a new partner."""
    partner = services.partners.create("Reseller", "ops@reseller.example").partner.id
    made = iter(range(1, 1000))

    def make(plan: str) -> int:
        n = next(made)
        admin = AdminInput("Ada", "Admin", f"admin{n}@client.example")
        return services.partner_clients.create(partner, ClientInput(f"Client {n}", plan, admin)).client.id

    return make


def _add_contacts(uow: InMemoryUnitOfWorkFactory, account: int, plan: Plan, clock: FakeClock, n: int) -> None:
    for i in range(n):
        with uow.workspace(account) as workspace:
            reserve(workspace, plan, "contacts", clock.now())
            workspace.contacts.add(ContactDraft(f"Contact {i}", "instagram"), clock.now())
            workspace.commit()


def test_a_workspace_without_a_partner_is_on_the_default_plan(services: Services, account_id: int) -> None:
    """An account created directly runs on business, the default."""
    assert services.entitlements.plan_of(account_id).slug == "business"


def test_the_default_plan_is_configurable(uow: InMemoryUnitOfWorkFactory, clock: FakeClock, account_id: int) -> None:
    """Entitlements(default_plan="starter") puts partnerless workspaces on starter."""
    assert Entitlements(uow, clock, "starter").plan_of(account_id).slug == "starter"


def test_an_unknown_default_plan_is_refused(uow: InMemoryUnitOfWorkFactory, clock: FakeClock) -> None:
    """A default plan that is not a plan slug is a configuration error."""
    with pytest.raises(ValueError, match="default plan"):
        Entitlements(uow, clock, "gold")


def test_a_client_is_on_its_own_plan(services: Services, client_on: ClientOn) -> None:
    """A partner client runs on the plan it was created with."""
    assert services.entitlements.plan_of(client_on("starter")).slug == "starter"


def test_the_gate_allows_what_the_plan_has(services: Services, client_on: ClientOn) -> None:
    """allows() is the plan's feature flag: pro has campaigns, not linkedin_access."""
    account = client_on("pro")
    assert services.entitlements.allows(account, "campaigns")
    assert not services.entitlements.allows(account, "linkedin_access")


def test_require_raises_with_the_feature_code(services: Services, client_on: ClientOn) -> None:
    """require() of a missing feature is FeatureUnavailable, 403 code feature_not_in_plan."""
    with pytest.raises(FeatureUnavailable) as caught:
        services.entitlements.require(client_on("starter"), "webhooks")
    assert caught.value.code == "feature_not_in_plan"


def test_a_plan_edit_reaches_its_workspaces(services: Services, client_on: ClientOn) -> None:
    """Switching a feature on in the plan enables it for every workspace on the plan."""
    account = client_on("starter")
    services.plans.update("starter", PlanPatch(features={"webhooks": True}))
    assert services.entitlements.allows(account, "webhooks")


def test_reserve_allows_writes_up_to_the_limit(
    services: Services, uow: InMemoryUnitOfWorkFactory, clock: FakeClock, account_id: int
) -> None:
    """With a limit of 3 contacts, three creates go through."""
    plan = services.plans.update("business", PlanPatch(limits={"contacts": 3}))
    _add_contacts(uow, account_id, plan, clock, 3)
    with uow.workspace(account_id, readonly=True) as workspace:
        assert workspace.contacts.count() == 3


def test_reserve_refuses_the_write_past_the_limit(
    services: Services, uow: InMemoryUnitOfWorkFactory, clock: FakeClock, account_id: int
) -> None:
    """The fourth contact on a limit of 3 is PlanLimitReached naming contacts, and is not stored."""
    plan = services.plans.update("business", PlanPatch(limits={"contacts": 3}))
    _add_contacts(uow, account_id, plan, clock, 3)
    with pytest.raises(PlanLimitReached) as caught:
        _add_contacts(uow, account_id, plan, clock, 1)
    assert caught.value.limit == "contacts"
    with uow.workspace(account_id, readonly=True) as workspace:
        assert workspace.contacts.count() == 3


def test_deleting_frees_room(
    services: Services, uow: InMemoryUnitOfWorkFactory, clock: FakeClock, account_id: int
) -> None:
    """Use is counted from the records: after a delete another create fits."""
    plan = services.plans.update("business", PlanPatch(limits={"contacts": 1}))
    services.contacts.delete(account_id, services.contacts.create(account_id, CONTACT).id)
    _add_contacts(uow, account_id, plan, clock, 1)


def test_racing_writes_never_pass_the_limit(
    services: Services, uow: InMemoryUnitOfWorkFactory, clock: FakeClock, account_id: int
) -> None:
    """Eight threads each trying five creates against a limit of 10 store exactly 10."""
    plan = services.plans.update("business", PlanPatch(limits={"contacts": 10}))
    refused: list[int] = []

    def attempt() -> None:
        for _ in range(5):
            try:
                _add_contacts(uow, account_id, plan, clock, 1)
            except PlanLimitReached:
                refused.append(1)

    threads = [threading.Thread(target=attempt) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    with uow.workspace(account_id, readonly=True) as workspace:
        assert (workspace.contacts.count(), len(refused)) == (10, 30)


def test_messages_per_month_counts_this_month_only(
    services: Services, uow: InMemoryUnitOfWorkFactory, clock: FakeClock, account_id: int
) -> None:
    """Outbound messages of an earlier month do not count against this month's limit."""
    plan = services.plans.update("business", PlanPatch(limits={"messages_per_month": 1}))
    contact = services.contacts.create(account_id, CONTACT).id
    with uow.workspace(account_id) as workspace:
        reserve(workspace, plan, "messages_per_month", clock.now())
        workspace.messages.add(MessageDraft(contact, "outbound", "instagram", "Hi", "sent"), clock.now())
        workspace.commit()
    clock.advance(days=31)
    with uow.workspace(account_id) as workspace:
        reserve(workspace, plan, "messages_per_month", clock.now())


def test_inbound_messages_do_not_count(
    services: Services, uow: InMemoryUnitOfWorkFactory, clock: FakeClock, account_id: int
) -> None:
    """Only outbound messages use the messages_per_month allowance."""
    plan = services.plans.update("business", PlanPatch(limits={"messages_per_month": 1}))
    contact = services.contacts.create(account_id, CONTACT).id
    with uow.workspace(account_id) as workspace:
        workspace.messages.add(MessageDraft(contact, "inbound", "instagram", "Hi", "delivered"), clock.now())
        workspace.commit()
    with uow.workspace(account_id) as workspace:
        reserve(workspace, plan, "messages_per_month", clock.now())


def test_the_subscription_reports_use_against_limits(services: Services, client_on: ClientOn, clock: FakeClock) -> None:
    """subscription() gives the plan, counts per limit, and the billing cycle from creation."""
    account = client_on("pro")
    services.contacts.create(account, CONTACT)
    subscription = services.entitlements.subscription(account)
    assert subscription.plan.slug == "pro"
    assert subscription.usage == {
        "contacts": 1,
        "messages_per_month": 0,
        "team_members": 1,
        "channels": 0,
        "media_files": 0,
    }
    assert (subscription.cycle_start, subscription.cycle_end) == (START, START + timedelta(days=31))
