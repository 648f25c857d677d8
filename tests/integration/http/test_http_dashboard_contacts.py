"""Contacts and segments in the dashboard (`engage_http.dashboard.contacts`) over the in-memory fakes:
search and filters, pages, segments' members, and another workspace's segment."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from dashboard_support import sign_in
from http_support import Tenant
from starlette.testclient import TestClient

from engage_core.contacts.model import Contact
from engage_core.contacts.segments import Segment


@pytest.fixture(autouse=True)
def signed_in(browser: TestClient, tenant: Tenant, add_member: Callable[..., int]) -> None:
    """The browser is signed in as an agent of the tenant (contacts are for everyone)."""
    add_member(tenant, role="agent")
    sign_in(browser)


def test_the_list_links_each_contact_to_its_conversation(
    browser: TestClient, tenant: Tenant, make_contact: Callable[..., Contact]
) -> None:
    """Every contact is listed with a link to its conversation."""
    ada = make_contact(tenant, name="Ada Lovelace", type="whatsapp", phone="+442079460018")
    page = browser.get("/app/contacts")
    assert page.status_code == 200
    assert f'href="/app/conversations/{ada.id}">Ada Lovelace</a>' in page.text


def test_a_search_keeps_only_matching_contacts(
    browser: TestClient, tenant: Tenant, make_contact: Callable[..., Contact]
) -> None:
    """`search` matches the name; the others are left out and the box keeps the words."""
    make_contact(tenant, name="Ada Lovelace")
    make_contact(tenant, name="Grace Hopper")
    page = browser.get("/app/contacts", params={"search": "grace"})
    assert "Grace Hopper" in page.text and "Ada Lovelace" not in page.text
    assert 'value="grace"' in page.text


def test_the_next_page_keeps_the_filters(
    browser: TestClient, tenant: Tenant, make_contact: Callable[..., Contact]
) -> None:
    """With more than a page of matches, the link to the next page carries the search."""
    for n in range(30):
        make_contact(tenant, name=f"Grace {n}")
    page = browser.get("/app/contacts", params={"search": "grace"})
    assert "Page 1 of 2 · 30 contacts" in page.text
    assert 'href="?search=grace&amp;page=2"' in page.text


def test_a_segment_lists_its_members_as_its_rules_select_them(
    browser: TestClient,
    tenant: Tenant,
    make_contact: Callable[..., Contact],
    make_segment: Callable[..., Segment],
) -> None:
    """A segment of WhatsApp contacts shows the WhatsApp contact, not the Instagram one."""
    make_contact(tenant, name="On WhatsApp", type="whatsapp", phone="+442079460018")
    make_contact(tenant, name="On Instagram", type="instagram")
    segment = make_segment(tenant, conditions=[{"field": "type", "operator": "eq", "value": "whatsapp"}])
    assert segment.name in browser.get("/app/segments").text
    page = browser.get(f"/app/segments/{segment.id}").text
    assert "On WhatsApp" in page and "On Instagram" not in page


def test_another_workspaces_segment_is_not_found(
    browser: TestClient, make_tenant: Callable[..., Tenant], make_segment: Callable[..., Segment]
) -> None:
    """A segment of another workspace is 404."""
    foreign = make_segment(make_tenant("Other"))
    assert browser.get(f"/app/segments/{foreign.id}").status_code == 404
