"""Property: `contacts.find` on SQL returns what the in-memory reference (`engage_core.testing`) returns."""

from __future__ import annotations

import uuid
from datetime import timedelta

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engage_core.contacts.model import CONTACT_TYPES, Contact, ContactDraft, ContactFilter
from engage_core.kernel.pagination import Page, PageRequest
from engage_core.testing import InMemoryUnitOfWorkFactory
from engage_core.unit_of_work import WorkspaceUnitOfWork
from engage_sql import Database

from .strategies import NOW, TAG_VALUES, TAGS, ContactSpec, contact_specs, needles

# Each filter is off half the time, so that the others get to decide what is found.
filters = st.builds(
    ContactFilter,
    search=st.one_of(st.none(), st.just(""), needles, needles, needles, st.sampled_from(["+966", "50000000", "9"])),
    type=st.none() | st.sampled_from(CONTACT_TYPES),
    blacklisted=st.none() | st.booleans(),
    tag=st.none() | st.sampled_from(TAG_VALUES),
)
pages = st.builds(PageRequest, page=st.integers(1, 2), per_page=st.integers(2, 5))


def _find(
    uow: WorkspaceUnitOfWork, specs: list[ContactSpec], wanted: ContactFilter, page: PageRequest
) -> Page[Contact]:
    """Store the contacts through the port, then search them: the same steps on either adapter."""
    tag_ids = {title: uow.tags.add(title, NOW).id for title in TAGS}
    for index, spec in enumerate(specs):
        draft = ContactDraft(name=spec.name, type=spec.type, phone=spec.phone(index), email=spec.email)
        contact = uow.contacts.add(draft, NOW)
        uow.contacts.update(attrs.evolve(contact, blacklisted=spec.blacklisted, created_at=spec.created_at))
        for title in spec.tags:
            uow.tags.attach(contact.id, tag_ids[title])
    return uow.contacts.find(wanted, page)


def _comparable(page: Page[Contact]) -> tuple[int, list[tuple[object, ...]]]:
    """Everything but the ids, which each adapter numbers its own way."""
    return page.total, [(c.name, c.email, c.phone, c.type, c.blacklisted, c.tags, c.created_at) for c in page.items]


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(specs=st.lists(contact_specs, max_size=8), wanted=filters, page=pages)
def test_find_matches_the_in_memory_reference(
    database: Database, specs: list[ContactSpec], wanted: ContactFilter, page: PageRequest
) -> None:
    """Search, filters, order (newest first, then highest id), paging and totals agree with the fake."""
    with database.uow.admin() as admin:
        account = admin.accounts.add("Property", uuid.uuid4().hex * 2, "eng_prop…", NOW).id
        admin.commit()

    with InMemoryUnitOfWorkFactory().workspace(1) as reference:
        expected = _comparable(_find(reference, specs, wanted, page))
    with database.uow.workspace(account) as uow:  # rolled back: nothing is kept
        found = _comparable(_find(uow, specs, wanted, page))

    assert found == expected


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(specs=st.lists(contact_specs, min_size=1, max_size=8), search=needles)
def test_search_matches_the_in_memory_reference(database: Database, specs: list[ContactSpec], search: str) -> None:
    """Search alone (case folding, wildcards, e-mail versus name) agrees with the fake on a whole page."""
    with database.uow.admin() as admin:
        account = admin.accounts.add("Property", uuid.uuid4().hex * 2, "eng_prop…", NOW).id
        admin.commit()
    wanted, page = ContactFilter(search=search), PageRequest(per_page=100)

    with InMemoryUnitOfWorkFactory().workspace(1) as reference:
        expected = _comparable(_find(reference, specs, wanted, page))
    with database.uow.workspace(account) as uow:  # rolled back: nothing is kept
        found = _comparable(_find(uow, specs, wanted, page))

    assert found == expected


@pytest.mark.parametrize(
    ("wanted", "page"),
    [
        (ContactFilter(), PageRequest(page=9, per_page=13)),  # offset 104: the ids are chosen first
        (ContactFilter(), PageRequest(page=2, per_page=100)),
        (ContactFilter(), PageRequest(page=30, per_page=5)),  # past the end
        (ContactFilter(tag="vip"), PageRequest(page=5, per_page=25)),
        (ContactFilter(type="telegram", blacklisted=False), PageRequest(page=3, per_page=40)),
    ],
)
def test_deep_pages_match_the_in_memory_reference(database: Database, wanted: ContactFilter, page: PageRequest) -> None:
    """Pages far from the first (read by another plan: ids first, then rows) agree with the fake."""
    specs = [
        ContactSpec(
            name=f"Contact {n}",
            email=f"c{n}@example.com",
            has_phone=n % 3 != 2,
            type=CONTACT_TYPES[n % 3],
            status="active",
            blacklisted=n % 4 == 0,
            tags=frozenset(TAGS[: n % 4]),
            created_at=NOW - timedelta(minutes=n // 2),  # pairs created at the same instant
            last_message_at=None,
            override=None,
        )
        for n in range(150)
    ]
    with database.uow.admin() as admin:
        account = admin.accounts.add("Deep", uuid.uuid4().hex * 2, "eng_deep…", NOW).id
        admin.commit()

    with InMemoryUnitOfWorkFactory().workspace(1) as reference:
        expected = _comparable(_find(reference, specs, wanted, page))
    with database.uow.workspace(account) as uow:
        found = _comparable(_find(uow, specs, wanted, page))

    assert found == expected
