"""TeamService over the in-memory fakes: adding members (unique e-mail, password rules, hashing,
invitation), listing, changing, deleting (tickets unassigned) and signing in (SPEC 2, 4 Team, 8)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import attrs
import pytest

from engage_core.kernel.errors import Forbidden, NotFound, Unauthenticated, Unavailable, ValidationFailed
from engage_core.kernel.pagination import PageRequest
from engage_core.services import Services
from engage_core.support.ticket_service import TicketInput, TicketPatch
from engage_core.team.model import TeamMember
from engage_core.team.service import MemberInput, MemberPatch, NewMember
from engage_core.testing import (
    FakeClock,
    FakeMailer,
    FakePasswordHasher,
    FakeStorePlatform,
    InMemoryStore,
    InMemoryUnitOfWorkFactory,
)

APP_URL = "https://app.example.com"
PASSWORD = "correct horse"

NewMemberFn = Callable[..., NewMember]


@pytest.fixture
def mailer() -> FakeMailer:
    return FakeMailer()


@pytest.fixture
def services(
    uow: InMemoryUnitOfWorkFactory, clock: FakeClock, store_platform: FakeStorePlatform, mailer: FakeMailer
) -> Services:
    """The unit-test services with a password hasher, a recording mailer and an application URL."""
    return Services.build(uow, clock, store=store_platform, hasher=FakePasswordHasher(), mailer=mailer, app_url=APP_URL)


@pytest.fixture
def new_member(services: Services, account_id: int) -> NewMemberFn:
    """`new_member(email="ada@example.com", name="Ada", role="agent", password=PASSWORD, account=None, **fields)`."""

    def make(
        email: str = "ada@example.com",
        name: str = "Ada",
        role: str = "agent",
        password: str = PASSWORD,
        *,
        account: int | None = None,
        **fields: Any,
    ) -> NewMember:
        data = MemberInput(name=name, email=email, role=role, password=password, **fields)
        return services.team.create(account_id if account is None else account, data)

    return make


def errors_of(call: Callable[[], Any]) -> dict[str, list[str]]:
    with pytest.raises(ValidationFailed) as caught:
        call()
    return caught.value.errors


def stored_hash(uow: InMemoryUnitOfWorkFactory, account_id: int, member: TeamMember) -> str | None:
    with uow.workspace(account_id, readonly=True) as tx:
        return tx.team.password_hash(member.id)


# -- adding ----------------------------------------------------------------------------------------


def test_a_new_member_is_active_with_the_given_role(new_member: NewMemberFn) -> None:
    """POST /team stores name, address and role; status defaults to active."""
    member = new_member(role="admin").member
    assert (member.name, member.email, member.role, member.status) == ("Ada", "ada@example.com", "admin", "active")


def test_a_duplicate_email_is_refused(new_member: NewMemberFn) -> None:
    """A second member with the same address is a 422 on email."""
    new_member()
    assert "email" in errors_of(lambda: new_member(name="Other"))


def test_a_duplicate_email_in_another_case_is_refused(new_member: NewMemberFn) -> None:
    """Addresses are compared without regard to case or surrounding spaces."""
    new_member("ada@example.com")
    assert "email" in errors_of(lambda: new_member(" ADA@Example.COM "))


def test_the_same_email_may_join_another_workspace(new_member: NewMemberFn, new_account: Callable[..., int]) -> None:
    """Uniqueness is per workspace."""
    new_member()
    assert new_member(account=new_account("Other")).member.email == "ada@example.com"


def test_a_short_password_is_refused(new_member: NewMemberFn) -> None:
    """SPEC 8: at least 8 characters."""
    assert "password" in errors_of(lambda: new_member(password="1234567"))


def test_every_field_error_is_reported_at_once(new_member: NewMemberFn) -> None:
    """Blank name, bad address, unknown role and short password: four field errors."""
    errors = errors_of(lambda: new_member("not-an-address", name=" ", role="owner", password="short"))
    assert set(errors) == {"name", "email", "role", "password"}


def test_a_refused_member_is_not_stored(services: Services, account_id: int, new_member: NewMemberFn) -> None:
    """Nothing is written when a field is wrong."""
    with pytest.raises(ValidationFailed):
        new_member(password="short")
    assert services.team.find(account_id, None, PageRequest()).total == 0


def test_only_a_hash_of_the_password_is_stored(
    new_member: NewMemberFn, uow: InMemoryUnitOfWorkFactory, account_id: int
) -> None:
    """The stored value verifies the password and is not the password."""
    member = new_member().member
    stored = stored_hash(uow, account_id, member)
    assert stored is not None and PASSWORD not in stored
    assert FakePasswordHasher().verify(stored, PASSWORD)


def test_the_member_value_carries_no_password(new_member: NewMemberFn) -> None:
    """No field of a TeamMember holds the password or its hash."""
    member = new_member().member
    assert not any("password" in field.name for field in attrs.fields(TeamMember))
    assert PASSWORD not in repr(member)


def test_the_input_never_prints_the_password() -> None:
    """The request value hides the password from logs and tracebacks."""
    assert PASSWORD not in repr(MemberInput("Ada", "ada@example.com", "agent", PASSWORD))


def test_an_invitation_is_sent(new_member: NewMemberFn, mailer: FakeMailer) -> None:
    """Adding a member mails them an invitation naming the workspace and the sign-in link."""
    assert new_member().invitation_sent
    [message] = mailer.sent
    assert (message.to, "Acme" in message.text) == ("ada@example.com", True)
    assert f"{APP_URL}/login?email=ada%40example.com" in message.text


def test_the_invitation_never_contains_the_password(new_member: NewMemberFn, mailer: FakeMailer) -> None:
    """The password stays with whoever set it."""
    new_member()
    assert PASSWORD not in mailer.sent[0].text


def test_a_mail_failure_keeps_the_member(
    services: Services, account_id: int, new_member: NewMemberFn, mailer: FakeMailer
) -> None:
    """The member is stored and the failure is reported as invitation_sent false."""
    mailer.fail()
    created = new_member()
    assert not created.invitation_sent
    assert services.team.get(account_id, created.member.id) == created.member


def test_an_invitation_can_be_sent_again(
    services: Services, account_id: int, new_member: NewMemberFn, mailer: FakeMailer
) -> None:
    """send_invitation mails the member once more."""
    member = new_member().member
    services.team.send_invitation(account_id, member.id)
    assert [m.to for m in mailer.sent] == ["ada@example.com", "ada@example.com"]


def test_resending_through_a_failing_mailer_is_unavailable(
    services: Services, account_id: int, new_member: NewMemberFn, mailer: FakeMailer
) -> None:
    """An explicit resend reports the mail server's failure as Unavailable."""
    member = new_member().member
    mailer.fail("connection refused")
    with pytest.raises(Unavailable, match="connection refused"):
        services.team.send_invitation(account_id, member.id)


def test_without_a_hasher_adding_a_member_says_what_is_missing(uow: InMemoryUnitOfWorkFactory) -> None:
    """Services built without a hasher fail loudly, naming the hasher."""
    services = Services.build(uow, FakeClock())
    account = services.accounts.create("Acme").account.id
    with pytest.raises(RuntimeError, match="hasher"):
        services.team.create(account, MemberInput("Ada", "ada@example.com", "agent", PASSWORD))


# -- reading ---------------------------------------------------------------------------------------


def test_listing_filters_by_role(services: Services, account_id: int, new_member: NewMemberFn) -> None:
    """GET /team?role=admin lists admins only, oldest first."""
    first = new_member("a@example.com", role="admin").member
    new_member("b@example.com", role="agent")
    third = new_member("c@example.com", role="admin").member
    found = services.team.find(account_id, "admin", PageRequest())
    assert [m.id for m in found.items] == [first.id, third.id]


def test_an_unknown_role_filter_is_refused(services: Services, account_id: int) -> None:
    """role is admin or agent."""
    assert "role" in errors_of(lambda: services.team.find(account_id, "owner", PageRequest()))


def test_another_workspaces_member_is_not_found(
    services: Services, new_member: NewMemberFn, new_account: Callable[..., int]
) -> None:
    """GET /team/{id} of another account is a 404."""
    member = new_member().member
    with pytest.raises(NotFound):
        services.team.get(new_account("Other"), member.id)


# -- changing --------------------------------------------------------------------------------------


def test_a_subset_of_fields_changes(
    services: Services, account_id: int, new_member: NewMemberFn, clock: FakeClock
) -> None:
    """PUT /team/{id} with name and role leaves the rest alone and moves updated_at."""
    member = new_member().member
    moment = clock.advance(minutes=1)
    changed = services.team.update(account_id, member.id, MemberPatch(name="Ada L.", role="admin"))
    assert (changed.name, changed.role, changed.email, changed.updated_at) == (
        "Ada L.",
        "admin",
        "ada@example.com",
        moment,
    )


def test_an_email_taken_by_another_member_is_refused(
    services: Services, account_id: int, new_member: NewMemberFn
) -> None:
    """Changing to another member's address is a 422 on email."""
    new_member("ada@example.com")
    grace = new_member("grace@example.com").member
    assert "email" in errors_of(
        lambda: services.team.update(account_id, grace.id, MemberPatch(email="ADA@example.com"))
    )


def test_a_member_may_change_the_case_of_its_own_email(
    services: Services, account_id: int, new_member: NewMemberFn
) -> None:
    """Its own address is not taken."""
    member = new_member().member
    assert services.team.update(account_id, member.id, MemberPatch(email="Ada@Example.com")).email == "Ada@Example.com"


def test_a_new_password_replaces_the_old(services: Services, account_id: int, new_member: NewMemberFn) -> None:
    """After a password change only the new password signs in."""
    member = new_member().member
    services.team.update(account_id, member.id, MemberPatch(password="battery staple"))
    assert services.team.authenticate(account_id, "ada@example.com", "battery staple") == services.team.get(
        account_id, member.id
    )
    with pytest.raises(Unauthenticated):
        services.team.authenticate(account_id, "ada@example.com", PASSWORD)


def test_a_short_new_password_is_refused(services: Services, account_id: int, new_member: NewMemberFn) -> None:
    """The length rule holds on update too."""
    member = new_member().member
    assert "password" in errors_of(lambda: services.team.update(account_id, member.id, MemberPatch(password="short")))


def test_an_empty_patch_changes_nothing(
    services: Services, account_id: int, new_member: NewMemberFn, clock: FakeClock
) -> None:
    """No field, no change: updated_at stays."""
    member = new_member().member
    clock.advance(minutes=1)
    assert services.team.update(account_id, member.id, MemberPatch()) == member


# -- deleting --------------------------------------------------------------------------------------


def test_deleting_removes_the_member(services: Services, account_id: int, new_member: NewMemberFn) -> None:
    """DELETE /team/{id}: the member is gone."""
    member = new_member().member
    services.team.delete(account_id, member.id)
    with pytest.raises(NotFound):
        services.team.get(account_id, member.id)


def test_deleting_unassigns_but_keeps_the_tickets(
    services: Services, account_id: int, new_member: NewMemberFn, store: InMemoryStore
) -> None:
    """The member's tickets stay, unassigned, each with ticket.updated."""
    member = new_member().member
    ticket = services.tickets.create(account_id, TicketInput("Login fails", "Help"))
    services.tickets.update(account_id, ticket.id, TicketPatch(assignee_id=member.id))
    services.team.delete(account_id, member.id)
    assert services.tickets.get(account_id, ticket.id).ticket.assignee_id is None
    last = store.events()[-1]
    assert (last.name, last.payload["id"], last.payload["assignee_id"]) == ("ticket.updated", ticket.id, None)


def test_deleting_keeps_the_members_replies(services: Services, account_id: int, new_member: NewMemberFn) -> None:
    """Replies the member wrote stay, still naming their author."""
    member = new_member().member
    ticket = services.tickets.create(account_id, TicketInput("Login fails", "Help"))
    services.tickets.reply(account_id, ticket.id, "From Ada.", author_id=member.id)
    services.team.delete(account_id, member.id)
    assert [r.author_id for r in services.tickets.get(account_id, ticket.id).replies] == [member.id]


def test_deleting_leaves_other_members_tickets_alone(
    services: Services, account_id: int, new_member: NewMemberFn
) -> None:
    """Only the deleted member's assignments are cleared."""
    ada, grace = new_member("ada@example.com").member, new_member("grace@example.com").member
    ticket = services.tickets.create(account_id, TicketInput("Login fails", "Help"))
    services.tickets.update(account_id, ticket.id, TicketPatch(assignee_id=grace.id))
    services.team.delete(account_id, ada.id)
    assert services.tickets.get(account_id, ticket.id).ticket.assignee_id == grace.id


def test_the_address_is_free_again_after_deletion(services: Services, account_id: int, new_member: NewMemberFn) -> None:
    """A deleted member's address can be used for a new member."""
    services.team.delete(account_id, new_member().member.id)
    assert new_member().member.email == "ada@example.com"


# -- signing in ------------------------------------------------------------------------------------


def test_the_right_password_signs_in(services: Services, account_id: int, new_member: NewMemberFn) -> None:
    """authenticate returns the member for its address (any case) and password."""
    member = new_member().member
    assert services.team.authenticate(account_id, "ADA@example.com", PASSWORD) == member


@pytest.mark.parametrize(
    ("email", "password"), [("ada@example.com", "wrong password"), ("nobody@example.com", PASSWORD)]
)
def test_a_wrong_address_or_password_is_one_error(
    services: Services, account_id: int, new_member: NewMemberFn, email: str, password: str
) -> None:
    """Unknown address and wrong password give the same message."""
    new_member()
    with pytest.raises(Unauthenticated) as caught:
        services.team.authenticate(account_id, email, password)
    assert caught.value.message == "The e-mail address or password is incorrect."


def test_an_inactive_member_cannot_sign_in(services: Services, account_id: int, new_member: NewMemberFn) -> None:
    """The right password of an inactive member is Forbidden."""
    member = new_member(status="inactive").member
    with pytest.raises(Forbidden):
        services.team.authenticate(account_id, member.email, PASSWORD)


def test_a_member_cannot_sign_in_to_another_workspace(
    services: Services, new_member: NewMemberFn, new_account: Callable[..., int]
) -> None:
    """Members are per workspace."""
    new_member()
    with pytest.raises(Unauthenticated):
        services.team.authenticate(new_account("Other"), "ada@example.com", PASSWORD)
