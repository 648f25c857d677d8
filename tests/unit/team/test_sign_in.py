"""Signing in to the dashboard over the in-memory fakes: `TeamService.sign_in` and `resume`, and the
lockout of `SignInGuard` (engage_core.team.sign_in)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from engage_core.kernel.errors import Forbidden, RateLimited, Unauthenticated
from engage_core.kernel.rate_limits import InMemoryRateLimiter, LimiterUnavailable
from engage_core.services import Services
from engage_core.team.service import MemberInput, MemberPatch
from engage_core.team.sign_in import (
    ATTEMPTS_PER_CLIENT,
    FAILURES_BEFORE_LOCKOUT,
    LOCKOUT_SECONDS,
    SignInGuard,
    TooManySignIns,
    password_stamp,
)
from engage_core.testing import FakeClock, FakeMailer, FakePasswordHasher, InMemoryUnitOfWorkFactory

PASSWORD = "correct horse"


@pytest.fixture
def services(uow: InMemoryUnitOfWorkFactory, clock: FakeClock) -> Services:
    """The unit-test services with a password hasher."""
    return Services.build(uow, clock, hasher=FakePasswordHasher(), mailer=FakeMailer())


@pytest.fixture
def member(services: Services) -> Callable[..., int]:
    """`member(account, email="ada@example.com", password=PASSWORD, status="active")`: its id."""

    def make(account: int, email: str = "ada@example.com", password: str = PASSWORD, status: str = "active") -> int:
        return services.team.create(account, MemberInput("Ada", email, "agent", password, status)).member.id

    return make


def test_sign_in_opens_the_members_workspace(
    services: Services, new_account: Callable[..., int], member: Callable[..., int]
) -> None:
    """The right address and password open the one workspace, named."""
    account = new_account("Acme")
    member_id = member(account)
    [opened] = services.team.sign_in("ADA@example.com", PASSWORD)
    assert (opened.account_id, opened.workspace, opened.member.id) == (account, "Acme", member_id)


def test_sign_in_offers_every_workspace_the_password_opens(
    services: Services, new_account: Callable[..., int], member: Callable[..., int]
) -> None:
    """An address in three workspaces, the password right in two: those two, ascending."""
    first, second, third = new_account("One"), new_account("Two"), new_account("Three")
    member(first)
    member(second, password="another password")
    member(third)
    assert [o.account_id for o in services.team.sign_in("ada@example.com", PASSWORD)] == [first, third]


def test_sign_in_refuses_an_unknown_address_like_a_wrong_password(
    services: Services, new_account: Callable[..., int], member: Callable[..., int]
) -> None:
    """Both are Unauthenticated with one message."""
    member(new_account())
    with pytest.raises(Unauthenticated) as unknown:
        services.team.sign_in("nobody@example.com", PASSWORD)
    with pytest.raises(Unauthenticated) as wrong:
        services.team.sign_in("ada@example.com", "wrong password")
    assert unknown.value.message == wrong.value.message


def test_sign_in_refuses_an_inactive_member(
    services: Services, new_account: Callable[..., int], member: Callable[..., int]
) -> None:
    """The right password of an inactive member is Forbidden."""
    member(new_account(), status="inactive")
    with pytest.raises(Forbidden):
        services.team.sign_in("ada@example.com", PASSWORD)


def test_resume_holds_while_the_password_is_unchanged(
    services: Services, new_account: Callable[..., int], member: Callable[..., int]
) -> None:
    """The stamp of the sign-in resumes the session."""
    account = new_account()
    member(account)
    [opened] = services.team.sign_in("ada@example.com", PASSWORD)
    assert services.team.resume(account, opened.member.id, opened.stamp) == opened


def test_resume_ends_after_a_password_change(
    services: Services, new_account: Callable[..., int], member: Callable[..., int]
) -> None:
    """A new password makes the old stamp Unauthenticated."""
    account = new_account()
    member_id = member(account)
    [opened] = services.team.sign_in("ada@example.com", PASSWORD)
    services.team.update(account, member_id, MemberPatch(password="a new password"))
    with pytest.raises(Unauthenticated):
        services.team.resume(account, member_id, opened.stamp)


def test_resume_ends_when_the_account_is_deactivated(
    services: Services, new_account: Callable[..., int], member: Callable[..., int]
) -> None:
    """An inactive workspace ends its members' sessions."""
    account = new_account()
    member_id = member(account)
    [opened] = services.team.sign_in("ada@example.com", PASSWORD)
    services.accounts.set_active(account, False)
    with pytest.raises(Unauthenticated):
        services.team.resume(account, member_id, opened.stamp)


def test_the_stamp_reveals_nothing_of_the_hash() -> None:
    """A stamp is a short digest, not a prefix of the hash."""
    stamp = password_stamp("argon2id$v=19$m=65536$salt$hash")
    assert len(stamp) == 24 and "argon2" not in stamp


class _DownLimiter:
    def hit(self, *args: object) -> object:
        raise LimiterUnavailable("down")

    def count(self, *args: object) -> int:
        raise LimiterUnavailable("down")


def test_the_guard_lets_sign_ins_through_while_its_store_is_down(clock: FakeClock) -> None:
    """A limiter outage neither locks anybody out nor fails the sign-in."""
    guard = SignInGuard(_DownLimiter(), clock)  # type: ignore[arg-type]
    for _ in range(FAILURES_BEFORE_LOCKOUT + 1):
        guard.failed("ada@example.com")
    guard.check("ada@example.com")


class LockoutMachine(RuleBasedStateMachine):
    """Failures and time against a model: an address is locked exactly when its window holds
    `FAILURES_BEFORE_LOCKOUT` failures; other addresses and later windows are untouched."""

    def __init__(self) -> None:
        super().__init__()
        self.clock = FakeClock()
        self.guard = SignInGuard(InMemoryRateLimiter(), self.clock)
        self.failures: dict[tuple[str, int], int] = {}

    def _window(self) -> int:
        return int(self.clock.now().timestamp()) // LOCKOUT_SECONDS

    @rule(email=st.sampled_from(["ada@example.com", "ADA@example.com", "grace@example.com"]))
    def fail(self, email: str) -> None:
        key = (email.casefold(), self._window())
        if self.failures.get(key, 0) >= FAILURES_BEFORE_LOCKOUT:
            return  # a locked address is refused before its password is checked: no failure is counted
        self.guard.failed(email)
        self.failures[key] = self.failures.get(key, 0) + 1

    @rule(seconds=st.integers(min_value=1, max_value=LOCKOUT_SECONDS))
    def wait(self, seconds: int) -> None:
        self.clock.advance(seconds=seconds)

    @invariant()
    def locked_exactly_at_the_threshold(self) -> None:
        for email in ("ada@example.com", "grace@example.com"):
            expected = self.failures.get((email, self._window()), 0) >= FAILURES_BEFORE_LOCKOUT
            retry_after = 0
            try:
                self.guard.check(email)
            except RateLimited as exc:
                retry_after = exc.retry_after
            assert (retry_after > 0) == expected
            assert retry_after <= LOCKOUT_SECONDS


TestLockout = LockoutMachine.TestCase
TestLockout.settings = settings(max_examples=60, stateful_step_count=30, deadline=None)


def test_one_client_is_limited_across_addresses(clock: FakeClock) -> None:
    """The client's attempt past `ATTEMPTS_PER_CLIENT` in a window is refused, whatever the address;
    another client is not."""
    guard = SignInGuard(InMemoryRateLimiter(), clock)
    for n in range(ATTEMPTS_PER_CLIENT):
        guard.check(f"person{n}@example.com", "203.0.113.7")
    with pytest.raises(TooManySignIns, match="from this network"):
        guard.check("someone@example.com", "203.0.113.7")
    guard.check("someone@example.com", "198.51.100.2")
