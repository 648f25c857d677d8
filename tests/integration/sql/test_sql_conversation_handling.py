"""`conversation_handling` on SQL: moves of one conversation racing each other apply one after the other
(an AI hand-over never undoes a take-over), and the listing by state reads through indexes only (the
repository's rules, on every adapter, are in tests/contract/test_contract_conversation_handling.py)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from engage_core.contacts.model import Contact
from engage_core.kernel.errors import ValidationFailed
from engage_core.messaging import handling as rules
from engage_core.messaging.handling import ConversationHandling
from engage_core.services import Services
from engage_core.testing import FakeClock
from engage_sql import Database
from engage_sql.messaging import messages as message_sql

from .concurrency import at_once
from .conftest import START

MOVES = ("take_over", "hand_over", "release", "resolve")


def _replay(events: list[tuple[str, int | None]], contact_id: int) -> ConversationHandling:
    """The state the committed events lead to, each checked to be a move the rules allow from the
    state before it (a lost update would show as, say, a hand-over of a human conversation)."""
    state = ConversationHandling(contact_id)
    for name, assignee in events:
        if name == rules.HANDED_OVER:
            state, _ = rules.hand_over(state, "Why", START)  # raises where the AI did not handle it
        elif name == rules.RESOLVED:
            state, _ = rules.resolve(state, START)
        elif name == rules.TAKEN_OVER:
            state, moved = rules.take_over(state, assignee, START)
            assert moved, "a take-over that changed nothing was evented"
        else:
            assert state.handled_by != rules.AI, "a release of an ai conversation was evented"
            state, _ = rules.release(state, START)
    return state


@pytest.mark.parametrize("round_", range(3))
def test_racing_moves_of_one_conversation_apply_one_after_the_other(
    database: Database, services: Services, account: int, make_contact: Callable[..., Contact], round_: int
) -> None:
    """Sixteen hand-overs, take-overs, releases and resolves at once: every committed event is a legal
    move from the one before, and replaying them gives the stored state."""
    contact = make_contact()
    handling = services.conversation_handling

    def move(n: int) -> object:
        kind = MOVES[(n + round_) % len(MOVES)]
        if kind == "take_over":
            return handling.take_over(account, contact.id)
        if kind == "hand_over":
            return handling.hand_over(account, contact.id, "Why")
        if kind == "release":
            return handling.release(account, contact.id)
        return handling.resolve(account, contact.id)

    outcomes = at_once(16, move)
    committed = [
        (e.name, e.payload["assignee_id"])
        for e in database.outbox_events(account)
        if e.name.startswith("conversation.") and e.payload["contact_id"] == contact.id
    ]
    unexpected = [o for o in outcomes if isinstance(o, BaseException) and not isinstance(o, ValidationFailed)]
    stored = handling.get(account, contact.id)
    assert unexpected == []
    replayed = _replay(committed, contact.id)
    assert (replayed.handled_by, replayed.reason, replayed.assignee_id) == (
        stored.handled_by,
        stored.reason,
        stored.assignee_id,
    )


def test_a_take_over_racing_a_hand_over_is_never_undone(
    database: Database, services: Services, account: int, make_contact: Callable[..., Contact], clock: FakeClock
) -> None:
    """For many conversations at once, a take-over and the AI's hand-over race: the conversation ends
    with a human whenever the take-over succeeded (it always does)."""
    contacts = [make_contact() for _ in range(6)]

    def move(n: int) -> object:
        contact = contacts[n // 2]
        if n % 2:
            return services.conversation_handling.take_over(account, contact.id)
        return services.conversation_handling.hand_over(account, contact.id, "Why")

    outcomes = at_once(12, move)
    assert [o for o in outcomes if isinstance(o, BaseException) and not isinstance(o, ValidationFailed)] == []
    assert {services.conversation_handling.get(account, c.id).handled_by for c in contacts} == {"human"}


def _plans(database: Database, names: list[tuple[str, bool, bool]]) -> dict[tuple[str, bool, bool], list[str]]:
    params = {"account": 1, "scope": "*", "limit": 15, "offset": 0, "contact": 1, "handled_by": "pending"}
    plans = {}
    with database.engine.connect() as connection:
        for key in names:
            compiled = message_sql._PAGES[key].compile(connection)
            values = {**compiled.params, **params}
            rows = connection.exec_driver_sql(
                "EXPLAIN QUERY PLAN " + str(compiled), tuple(values[name] for name in compiled.positiontup or ())
            )
            plans[key] = [row[3] for row in rows]
    return plans


def test_a_page_by_state_reads_only_through_indexes(database: Database, backend: str) -> None:
    """SQLite's plans of the `handled_by` pages: no table scanned; a page of `pending` (or `human`)
    starts from the states' index, not by walking every conversation newest first."""
    if backend != "sqlite":
        pytest.skip("on a nearly empty PostgreSQL database the planner rightly prefers sequential scans")
    keys = [
        (state, deep, one) for state in ("ai", "one") for deep, one in ((False, False), (True, False), (False, True))
    ]
    plans = _plans(database, keys)
    tables = ("conversations", "contacts", "messages", "conversation_totals", "conversation_handling")
    scans = [
        (key, step)
        for key, plan in plans.items()
        for step in plan
        if step.startswith(tuple(f"SCAN {t}" for t in tables))
    ]
    assert scans == []
    first = plans["one", False, False][1]
    assert first.startswith(
        "SEARCH conversation_handling USING COVERING INDEX ix_conversation_handling_account_id_handled_by"
    )
