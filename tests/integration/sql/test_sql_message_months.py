"""`message_months`: each account's outbound messages per month, kept equal to counting them by every
message write and contact delete, so that the `messages_per_month` limit needs no COUNT."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta

import attrs
import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule, run_state_machine_as_test
from sqlalchemy import select

from engage_core.contacts.model import Contact, ContactDraft
from engage_core.kernel.errors import PlanLimitReached
from engage_core.messaging.messages import MessageDraft
from engage_core.plans.entitlements import reserve
from engage_core.plans.model import MESSAGES_PER_MONTH, SEED_PLANS, Plan
from engage_core.services import Services
from engage_core.testing import AllowAllTargets, FakeCipher
from engage_sql import Database
from engage_sql.messaging.tables import message_months, messages
from engage_sql.migrate import downgrade, upgrade

from .concurrency import at_once, outcome

MARCH, APRIL, MAY = (datetime(2026, month, 1, tzinfo=UTC) for month in (3, 4, 5))
MONTHS = (MARCH, APRIL, MAY)


def _account(database: Database) -> int:
    services = Services.build(database.uow, cipher=FakeCipher(), guard=AllowAllTargets())
    return services.accounts.create("Acme").account.id


def _contact(database: Database, account: int, name: str = "Ann") -> Contact:
    with database.uow.workspace(account) as uow:
        contact = uow.contacts.add(ContactDraft(name=name, type="instagram"), MARCH)
        uow.commit()
    return contact


def _drafts(contact: Contact, directions: Sequence[str]) -> list[MessageDraft]:
    return [MessageDraft(contact.id, direction, "instagram", "Hi", "sent") for direction in directions]


def _store(database: Database, account: int, contact: Contact, when: datetime, *directions: str) -> None:
    with database.uow.workspace(account) as uow:
        for draft in _drafts(contact, directions):
            uow.messages.add(draft, when)
        uow.commit()


def _tallies(database: Database, account: int) -> dict[datetime, int]:
    with database.engine.connect() as connection:
        rows = connection.execute(
            select(message_months.c.month, message_months.c.outbound).where(message_months.c.account_id == account)
        )
        return {month: int(n) for month, n in rows if n}


def _counted(database: Database, account: int) -> dict[datetime, int]:
    """The outbound messages of each month, counted from the messages themselves."""
    with database.engine.connect() as connection:
        moments = connection.execute(
            select(messages.c.created_at).where(messages.c.account_id == account, messages.c.direction == "outbound")
        ).scalars()
        counted: dict[datetime, int] = {}
        for moment in moments:
            month = moment.replace(day=1, hour=0, minute=0, second=0, microsecond=0)
            counted[month] = counted.get(month, 0) + 1
    return counted


def _limit_count(database: Database, account: int, since: datetime) -> int:
    with database.uow.workspace(account, readonly=True) as uow:
        return uow.usage.count(MESSAGES_PER_MONTH, since)


def test_outbound_messages_count_in_the_month_they_are_stored(database: Database, account: int) -> None:
    """Each stored outbound message adds one to its calendar month's row; inbound ones add nothing."""
    ann = _contact(database, account)
    _store(database, account, ann, MARCH + timedelta(days=30, hours=23), "outbound", "inbound", "outbound")
    _store(database, account, ann, APRIL, "outbound")

    assert _tallies(database, account) == {MARCH: 2, APRIL: 1}


def test_the_limit_counts_the_months_from_since_on(database: Database, account: int) -> None:
    """`messages_per_month` from a month's first instant counts that month's and later months' messages."""
    ann = _contact(database, account)
    _store(database, account, ann, MARCH, "outbound")
    _store(database, account, ann, APRIL + timedelta(days=3), "outbound", "outbound")

    assert [_limit_count(database, account, month) for month in MONTHS] == [3, 2, 0]


def test_a_since_inside_a_month_counts_the_messages_themselves(database: Database, account: int) -> None:
    """A `since` that is not a month's first instant is answered by counting, to the microsecond."""
    ann = _contact(database, account)
    _store(database, account, ann, APRIL + timedelta(days=2), "outbound")
    _store(database, account, ann, APRIL + timedelta(days=9), "outbound")

    assert _limit_count(database, account, APRIL + timedelta(days=5)) == 1


def test_deleting_a_contact_takes_its_messages_off_their_months(database: Database, account: int) -> None:
    """A contact's delete lowers each month by the outbound messages deleted with it, and no other."""
    ann, bob = _contact(database, account, "Ann"), _contact(database, account, "Bob")
    _store(database, account, ann, MARCH, "outbound", "outbound")
    _store(database, account, ann, APRIL, "outbound", "inbound")
    _store(database, account, bob, APRIL, "outbound")

    with database.uow.workspace(account) as uow:
        uow.contacts.delete(ann.id)
        uow.commit()

    assert _tallies(database, account) == {APRIL: 1}


def test_a_transaction_rolled_back_tallies_nothing(database: Database, account: int) -> None:
    """Messages of a unit of work left without commit leave every month as it was."""
    ann = _contact(database, account)
    _store(database, account, ann, MARCH, "outbound")

    with database.uow.workspace(account) as uow:
        uow.messages.add(_drafts(ann, ["outbound"])[0], MARCH)

    assert _tallies(database, account) == {MARCH: 1}


def test_the_limit_counts_the_transactions_own_messages(database: Database, account: int) -> None:
    """Inside the unit of work that stores them, its messages count before it commits."""
    ann = _contact(database, account)
    _store(database, account, ann, MARCH, "outbound")

    with database.uow.workspace(account) as uow:
        uow.messages.add_many(_drafts(ann, ["outbound", "inbound", "outbound"]), APRIL)
        seen = uow.usage.count(MESSAGES_PER_MONTH, MARCH), uow.usage.count(MESSAGES_PER_MONTH, APRIL)

    assert seen == (3, 2)


def test_a_batch_counts_its_outbound_messages_once_each(database: Database, account: int) -> None:
    """`add_many` adds one per outbound message of the batch to their month."""
    ann = _contact(database, account)
    with database.uow.workspace(account) as uow:
        uow.messages.add_many(_drafts(ann, ["outbound", "inbound", "outbound", "outbound"]), MAY)
        uow.commit()

    assert _tallies(database, account) == {MAY: 3}


def test_an_account_counts_only_its_own_messages(
    database: Database, account: int, make_account: Callable[..., int]
) -> None:
    """Another account's messages move only that account's months."""
    other = make_account("Other")
    _store(database, other, _contact(database, other), MARCH, "outbound", "outbound")
    _store(database, account, _contact(database, account), MARCH, "outbound")

    assert (_limit_count(database, account, MARCH), _limit_count(database, other, MARCH)) == (1, 2)


def test_concurrent_writes_add_up(database: Database, account: int) -> None:
    """Sixteen unit of works storing messages at once, and a contact deleted among them, leave each
    month at the count of its messages."""
    contacts = [_contact(database, account, f"Contact {n}") for n in range(9)]
    _store(database, account, contacts[8], APRIL, "outbound", "outbound")

    def work(n: int) -> None:
        if n == 15:
            with database.uow.workspace(account) as uow:
                uow.contacts.delete(contacts[8].id)
                uow.commit()
            return
        _store(database, account, contacts[n % 8], MONTHS[n % 3], "outbound", "inbound", "outbound")

    outcomes = [outcome(result) for result in at_once(16, work)]

    assert outcomes == ["ok"] * 16
    assert _tallies(database, account) == _counted(database, account)


def test_the_migration_fills_the_months_from_the_stored_messages(make_database: Callable[..., Database]) -> None:
    """Migrating a database whose messages predate the table fills each month with their count."""
    database = make_database()
    account = _account(database)
    ann = _contact(database, account)
    _store(database, account, ann, MARCH, "outbound", "outbound", "inbound")
    _store(database, account, ann, MAY + timedelta(days=30), "outbound")
    kept = _tallies(database, account)

    downgrade(database.engine, "0028")
    upgrade(database.engine)

    assert kept == {MARCH: 2, MAY: 1}
    assert _tallies(database, account) == kept


class MessageMonthsMachine(RuleBasedStateMachine):
    """Messages stored, batched, rolled back and deleted with their contacts in any order: every
    month's row is the count of its outbound messages, and the limit's count agrees."""

    database: Database
    account: int

    def __init__(self) -> None:
        super().__init__()
        self.contacts: list[Contact] = []

    @initialize()
    def contacts_exist(self) -> None:
        from databases import wipe

        wipe(self.database)
        self.account = _account(self.database)
        self.contacts = [_contact(self.database, self.account, f"Contact {n}") for n in range(3)]

    @rule(
        contact=st.integers(0, 2),
        month=st.sampled_from(MONTHS),
        day=st.integers(0, 27),
        directions=st.lists(st.sampled_from(["outbound", "inbound"]), min_size=1, max_size=3),
        batched=st.booleans(),
        committed=st.booleans(),
    )
    def store(
        self, contact: int, month: datetime, day: int, directions: list[str], batched: bool, committed: bool
    ) -> None:
        person = self.contacts[contact]
        with self.database.uow.workspace(self.account) as uow:
            drafts = _drafts(person, directions)
            if batched:
                uow.messages.add_many(drafts, month + timedelta(days=day))
            else:
                for draft in drafts:
                    uow.messages.add(draft, month + timedelta(days=day))
            if committed:
                uow.commit()

    @rule(contact=st.integers(0, 2))
    def contact_replaced(self, contact: int) -> None:
        with self.database.uow.workspace(self.account) as uow:
            uow.contacts.delete(self.contacts[contact].id)
            uow.commit()
        self.contacts[contact] = _contact(self.database, self.account, f"New {contact}")

    @invariant()
    def months_match_the_messages(self) -> None:
        if not self.contacts:
            return
        counted = _counted(self.database, self.account)
        assert _tallies(self.database, self.account) == counted
        for month in MONTHS:
            expected = sum(n for start, n in counted.items() if start >= month)
            assert _limit_count(self.database, self.account, month) == expected


def test_the_months_hold_under_any_sequence_of_writes(database: Database) -> None:
    """The state machine above, on this engine."""
    machine = type("Machine", (MessageMonthsMachine,), {"database": database})
    run_state_machine_as_test(machine, settings=settings(max_examples=12, stateful_step_count=12, deadline=None))


def _send(database: Database, account: int, contact: Contact, maximum: int, when: datetime = APRIL) -> None:
    """One outbound message stored under a `messages_per_month` limit of `maximum`, as a send does."""
    with database.uow.workspace(account) as uow:
        reserve(uow, _plan_with(maximum), MESSAGES_PER_MONTH, when)
        uow.messages.add(_drafts(contact, ["outbound"])[0], when)
        uow.commit()


def _plan_with(maximum: int) -> Plan:
    business = next(plan for plan in SEED_PLANS if plan.slug == "business")
    return attrs.evolve(business, limits={**business.limits, MESSAGES_PER_MONTH: maximum})


def test_a_send_past_the_monthly_limit_is_refused_naming_it(database: Database, account: int) -> None:
    """The send that would pass the limit raises PlanLimitReached for `messages_per_month` and its maximum."""
    ann = _contact(database, account)
    _send(database, account, ann, 2)
    _send(database, account, ann, 2)

    with pytest.raises(PlanLimitReached) as refused:
        _send(database, account, ann, 2)

    assert (refused.value.limit, refused.value.maximum) == (MESSAGES_PER_MONTH, 2)


def test_a_refused_send_stores_nothing(database: Database, account: int) -> None:
    """A send refused at the limit leaves no message and the month's tally as it was."""
    ann = _contact(database, account)
    _send(database, account, ann, 1)

    with pytest.raises(PlanLimitReached):
        _send(database, account, ann, 1)

    assert (_counted(database, account), _tallies(database, account)) == ({APRIL: 1}, {APRIL: 1})


def test_last_months_messages_leave_this_months_room(database: Database, account: int) -> None:
    """Messages of earlier months do not count against this month's limit."""
    ann = _contact(database, account)
    _store(database, account, ann, MARCH, "outbound", "outbound")

    _send(database, account, ann, 1)

    assert _tallies(database, account) == {MARCH: 2, APRIL: 1}


def test_deleting_a_contact_is_allowed_over_a_lowered_limit(database: Database, account: int) -> None:
    """A unit of work that reserved room but only deletes commits, even with the month over its limit."""
    ann, bob = _contact(database, account, "Ann"), _contact(database, account, "Bob")
    _store(database, account, ann, APRIL, "outbound", "outbound")
    _store(database, account, bob, APRIL, "outbound", "outbound")

    with database.uow.workspace(account) as uow:
        with contextlib.suppress(PlanLimitReached):  # SQLite counts at once; PostgreSQL checks what the commit adds
            reserve(uow, _plan_with(1), MESSAGES_PER_MONTH, APRIL)
        uow.contacts.delete(ann.id)
        uow.commit()

    assert _tallies(database, account) == {APRIL: 2}
