"""Property: the SQL compilation of segment rules selects exactly what `engage_core.contacts.segments` selects."""

from __future__ import annotations

import uuid
from typing import Any

import attrs
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from engage_core.contacts.model import Contact, ContactDraft
from engage_core.contacts.segments import MATCH_MODES, condition_holds, is_member, parse_rules
from engage_core.kernel.pagination import PageRequest
from engage_sql import Database
from engage_sql.contacts.segment_sql import condition_clause
from engage_sql.contacts.tables import contacts
from engage_sql.unit_of_work import SqlWorkspaceUnitOfWork

from .strategies import NOW, TAGS, ContactSpec, contact_specs, raw_conditions


def _store(uow: SqlWorkspaceUnitOfWork, specs: list[ContactSpec], tag_ids: dict[str, int]) -> list[Contact]:
    """Store the contacts; return them as the reference sees them."""
    stored = []
    for index, spec in enumerate(specs):
        draft = ContactDraft(
            name=spec.name, type=spec.type, phone=spec.phone(index), email=spec.email, status=spec.status
        )
        contact = attrs.evolve(
            uow.contacts.add(draft, NOW),
            blacklisted=spec.blacklisted,
            created_at=spec.created_at,
            last_message_at=spec.last_message_at,
            tags=tuple(sorted(spec.tags)),
        )
        uow.contacts.update(contact)
        for title in spec.tags:
            uow.tags.attach(contact.id, tag_ids[title])
        stored.append(contact)
    return stored


def _new_account(database: Database) -> int:
    with database.uow.admin() as admin:
        account = admin.accounts.add("Property", uuid.uuid4().hex * 2, "eng_prop…", NOW).id
        admin.commit()
    return account


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    specs=st.lists(contact_specs, min_size=1, max_size=10),
    match=st.sampled_from(MATCH_MODES),
    conditions=st.lists(raw_conditions, max_size=4),
)
def test_sql_membership_matches_the_reference(
    database: Database, specs: list[ContactSpec], match: str, conditions: list[dict[str, Any]]
) -> None:
    """Each condition, and the whole rule set with manual overrides, select what the Python reference selects."""
    rules = parse_rules(match, conditions)
    account = _new_account(database)

    # Never committed: each example rolls back, leaving only its empty account behind.
    with database.uow.workspace(account) as uow:
        tag_ids = {title: uow.tags.add(title, NOW).id for title in TAGS}
        stored = _store(uow, specs, tag_ids)
        segment = uow.segments.add("Property", None, rules, NOW)
        for contact, spec in zip(stored, specs, strict=True):
            if spec.override is not None:
                (uow.segments.include if spec.override else uow.segments.exclude)(segment.id, contact.id)

        for condition in rules.conditions:
            selected = uow.connection.execute(
                select(contacts.c.id)
                .where(contacts.c.account_id == account, condition_clause(condition, NOW))
                .order_by(contacts.c.id)
            ).scalars()
            assert list(selected) == [c.id for c in stored if condition_holds(condition, c, NOW)], condition

        expected = [
            c.id
            for c, spec in zip(stored, specs, strict=True)
            if is_member(rules, c, NOW, included=spec.override is True, excluded=spec.override is False)
        ]
        members = [m.id for m in uow.segments.members(segment.id, PageRequest(per_page=100), NOW).items]
        found = uow.segments.get(segment.id, NOW)
        flags = [uow.segments.is_member(segment.id, c.id, NOW) for c in stored]

    assert members == expected
    assert found is not None and found.contacts_count == len(expected)
    assert flags == [c.id in expected for c in stored]
