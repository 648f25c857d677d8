"""Plan limits at the writes of the services (contacts, team members, channels, messages) and the
sign-in of a suspended workspace, over the in-memory fakes."""

from __future__ import annotations

import pytest

from engage_core.contacts.contact_service import ContactService
from engage_core.contacts.model import ContactFilter, ContactInput
from engage_core.kernel.errors import Forbidden, PlanLimitReached
from engage_core.kernel.pagination import PageRequest
from engage_core.messaging.message_service import SendInput
from engage_core.partners.client_service import AdminInput, ClientInput
from engage_core.plans.model import MESSAGES_PER_MONTH, month_of
from engage_core.plans.plan_service import PlanPatch
from engage_core.services import Services
from engage_core.team.service import MemberInput
from engage_core.testing import FakeClock, FakeMailer, FakePasswordHasher, InMemoryUnitOfWorkFactory

from ..messaging.fixtures import Messaging

CONTACT = ContactInput(name="Ada", type="instagram")
PAGE = PageRequest(page=1, per_page=100)


def limit_default_plan(services: Services, **limits: int) -> None:
    """Lower limits of `business`, the plan of every workspace without a partner."""
    services.plans.update("business", PlanPatch(limits=limits))


@pytest.fixture
def services(uow: InMemoryUnitOfWorkFactory, clock: FakeClock) -> Services:
    return Services.build(uow, clock, hasher=FakePasswordHasher(), mailer=FakeMailer())


def member(email: str) -> MemberInput:
    return MemberInput(name="Ada", email=email, role="agent", password="correct horse")


def test_a_contact_past_the_limit_is_refused_naming_it(services: Services, account_id: int) -> None:
    """The create that would pass `contacts` raises PlanLimitReached for `contacts`."""
    limit_default_plan(services, contacts=1)
    services.contacts.create(account_id, CONTACT)

    with pytest.raises(PlanLimitReached) as refused:
        services.contacts.create(account_id, ContactInput(name="Grace", type="instagram"))

    assert (refused.value.limit, refused.value.code) == ("contacts", "plan_limit_reached")


def test_a_refused_contact_is_not_stored(services: Services, account_id: int) -> None:
    """After the refusal the workspace still has only the contacts within the limit."""
    limit_default_plan(services, contacts=1)
    services.contacts.create(account_id, CONTACT)

    with pytest.raises(PlanLimitReached):
        services.contacts.create(account_id, ContactInput(name="Grace", type="instagram"))

    assert services.contacts.find(account_id, ContactFilter(), PAGE).total == 1


def test_a_deleted_contact_frees_its_place(services: Services, account_id: int) -> None:
    """Limits count what is stored: deleting a contact makes room for another."""
    limit_default_plan(services, contacts=1)
    first = services.contacts.create(account_id, CONTACT)
    services.contacts.delete(account_id, first.id)

    assert services.contacts.create(account_id, ContactInput(name="Grace", type="instagram")).name == "Grace"


def test_a_service_built_without_entitlements_has_no_limits(
    services: Services, uow: InMemoryUnitOfWorkFactory, clock: FakeClock, account_id: int
) -> None:
    """A ContactService made without a plan source (a library user's) creates past any plan limit."""
    limit_default_plan(services, contacts=0)

    created = ContactService(uow, clock).create(account_id, CONTACT)

    assert created.id > 0


def test_a_team_member_past_the_limit_is_refused(services: Services, account_id: int) -> None:
    """The member that would pass `team_members` raises PlanLimitReached and is not stored."""
    limit_default_plan(services, team_members=1)
    services.team.create(account_id, member("ada@example.com"))

    with pytest.raises(PlanLimitReached) as refused:
        services.team.create(account_id, member("grace@example.com"))

    assert refused.value.limit == "team_members"
    assert services.team.find(account_id, None, PAGE).total == 1


def test_a_channel_past_the_limit_is_refused_before_the_provider_is_asked() -> None:
    """A second channel type past `channels` is refused, and no attempt of it is stored."""
    world = Messaging()
    limit_default_plan(world.services, channels=1)
    world.connect_qr("whatsapp")

    with pytest.raises(PlanLimitReached) as refused:
        world.services.channels.connect_qr(world.account, "telegram")

    assert refused.value.limit == "channels"
    assert [c.type for c in world.services.channels.list(world.account)] == ["whatsapp"]


def test_reconnecting_an_existing_channel_needs_no_room() -> None:
    """A channel setting that exists is restarted, not added: at the limit it may reconnect."""
    world = Messaging()
    limit_default_plan(world.services, channels=1)
    world.connect_qr("whatsapp")
    world.services.channels.disconnect(world.account, "whatsapp")

    assert world.connect_qr("whatsapp").is_connected


def test_a_message_past_the_monthly_limit_is_refused_and_not_stored() -> None:
    """The send that would pass `messages_per_month` raises and stores nothing."""
    world = Messaging()
    limit_default_plan(world.services, messages_per_month=1)
    world.connect_qr("whatsapp")
    contact = world.contact()
    world.services.messages.send(world.account, SendInput(contact.id, "Hello"))

    with pytest.raises(PlanLimitReached) as refused:
        world.services.messages.send(world.account, SendInput(contact.id, "Again"))

    assert refused.value.limit == MESSAGES_PER_MONTH
    with world.uow.workspace(world.account, readonly=True) as uow:
        assert uow.usage.count(MESSAGES_PER_MONTH, month_of(world.clock.now())[0]) == 1


def test_the_monthly_message_limit_starts_again_next_month() -> None:
    """Messages of an earlier calendar month do not count against this month's limit."""
    world = Messaging()
    limit_default_plan(world.services, messages_per_month=1)
    world.connect_qr("whatsapp")
    contact = world.contact()
    world.services.messages.send(world.account, SendInput(contact.id, "Hello"))
    world.clock.advance(days=32)

    assert world.services.messages.send(world.account, SendInput(contact.id, "Again")).message.content == "Again"


def test_a_suspended_workspace_cannot_sign_in(services: Services) -> None:
    """A member's right password is refused with `workspace_suspended` while the client is suspended."""
    partner = services.partners.create("Reseller", "ops@reseller.example").partner.id
    admin = AdminInput("Ada", "Admin", "ada@acme.example")
    client = services.partner_clients.create(
        partner, ClientInput(company_name="Acme", plan="pro", admin=admin, skip_invite=True)
    ).client
    services.team.create(client.id, member("grace@acme.example"))
    services.partner_clients.suspend(partner, client.id, "Unpaid")

    with pytest.raises(Forbidden) as refused:
        services.team.authenticate(client.id, "grace@acme.example", "correct horse")

    assert refused.value.code == "workspace_suspended"
