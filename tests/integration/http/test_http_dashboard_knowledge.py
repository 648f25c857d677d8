"""The knowledge base in the dashboard (`engage_http.dashboard.knowledge`) over the in-memory fakes:
the entries, the search preview (matched words marked, the text escaped, a note when nothing
answers), adding a text and a website crawl, deleting, and what agents may do."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

import httpx
from dashboard_support import csrf_of, sign_in
from http_support import Tenant
from starlette.testclient import TestClient

from engage_core.knowledge.entries import TextInput
from engage_core.services import Services

SHIPPING = "We ship to Canada and Mexico. Parcels to <b>Canada</b> take 7 to 14 days."


def signed_in(
    browser: TestClient, tenant: Tenant, add_member: Callable[..., int], role: str = "admin"
) -> httpx.Response:
    """Sign in; the knowledge page."""
    add_member(tenant, role=role)
    sign_in(browser)
    return browser.get("/app/knowledge")


def test_the_page_lists_the_entries(
    browser: TestClient, tenant: Tenant, add_member: Callable[..., int], services: Services
) -> None:
    """An entry is listed with a link to its page."""
    entry = services.knowledge_entries.create_text(tenant.account_id, TextInput("Shipping", SHIPPING))
    page = signed_in(browser, tenant, add_member)
    assert f'href="/app/knowledge/{entry.id}">Shipping</a>' in page.text


def test_the_search_preview_marks_the_words_and_escapes_the_text(
    browser: TestClient, tenant: Tenant, add_member: Callable[..., int], services: Services
) -> None:
    """A question finds the passage; its matched words are in <mark>; the passage's own HTML is text."""
    services.knowledge_entries.create_text(tenant.account_id, TextInput("Shipping", SHIPPING))
    signed_in(browser, tenant, add_member)
    page = browser.get("/app/knowledge", params={"q": "Do you ship to Canada?"}).text
    assert "<mark>Canada</mark>" in page
    assert "<b>" not in page and "&lt;b&gt;" in page
    assert "Nothing in the knowledge base answers this well" not in page


def test_the_search_preview_says_when_nothing_answers(
    browser: TestClient, tenant: Tenant, add_member: Callable[..., int], services: Services
) -> None:
    """A question about something absent gets the note that the AI will not know."""
    services.knowledge_entries.create_text(tenant.account_id, TextInput("Shipping", SHIPPING))
    signed_in(browser, tenant, add_member)
    page = browser.get("/app/knowledge", params={"q": "Do you sell bicycles?"}).text
    assert "Nothing in the knowledge base answers this well" in page


def test_an_admin_adds_a_text(
    browser: TestClient, tenant: Tenant, add_member: Callable[..., int], services: Services
) -> None:
    """The text form creates an active entry and opens its page."""
    page = signed_in(browser, tenant, add_member)
    answer = browser.post(
        "/app/knowledge/text", data={"title": "Returns", "content": "30 days.", "csrf": csrf_of(page)}
    )
    assert answer.status_code == 303
    entry_page = browser.get(answer.headers["location"])
    assert "Entry added." in entry_page.text and "30 days." in entry_page.text


def test_a_text_without_a_title_shows_the_error_beside_it(
    browser: TestClient, tenant: Tenant, add_member: Callable[..., int]
) -> None:
    """A blank title answers 422 with the message beside the title; the text typed stays."""
    page = signed_in(browser, tenant, add_member)
    answer = browser.post("/app/knowledge/text", data={"title": " ", "content": "30 days.", "csrf": csrf_of(page)})
    assert answer.status_code == 422
    assert 'id="text-title-error"' in answer.text and ">30 days.</textarea>" in answer.text


def test_a_website_entry_shows_its_pending_crawl(
    browser: TestClient, tenant: Tenant, add_member: Callable[..., int]
) -> None:
    """Adding a website queues its crawl; its page shows the crawl and its progress."""
    page = signed_in(browser, tenant, add_member)
    form = {"title": "Shop", "website_url": "https://shop.example.com/", "max_pages": "5", "max_depth": "1"}
    answer = browser.post("/app/knowledge/website", data={**form, "csrf": csrf_of(page)})
    assert answer.status_code == 303
    entry_page = browser.get(answer.headers["location"]).text
    assert "Crawl of https://shop.example.com/" in entry_page and "pending" in entry_page
    assert re.search(r'<progress max="100" value="0"', entry_page)


def test_a_website_with_a_bad_limit_is_refused_beside_the_field(
    browser: TestClient, tenant: Tenant, add_member: Callable[..., int]
) -> None:
    """More than 100 pages answers 422 with the API's message beside the field."""
    page = signed_in(browser, tenant, add_member)
    form = {"title": "Shop", "website_url": "https://shop.example.com/", "max_pages": "500", "max_depth": "1"}
    answer = browser.post("/app/knowledge/website", data={**form, "csrf": csrf_of(page)})
    assert answer.status_code == 422
    assert 'id="website-max_pages-error"' in answer.text


def test_deleting_an_entry(
    browser: TestClient, tenant: Tenant, add_member: Callable[..., int], services: Services
) -> None:
    """Delete removes the entry and returns to the list."""
    entry = services.knowledge_entries.create_text(tenant.account_id, TextInput("Shipping", SHIPPING))
    signed_in(browser, tenant, add_member)
    page = browser.get(f"/app/knowledge/{entry.id}")
    answer = browser.post(f"/app/knowledge/{entry.id}/delete", data={"csrf": csrf_of(page)})
    assert answer.headers["location"] == "/app/knowledge?done=deleted"
    assert browser.get(f"/app/knowledge/{entry.id}").status_code == 404


def test_an_agent_reads_but_cannot_add(browser: TestClient, tenant: Tenant, add_member: Callable[..., int]) -> None:
    """An agent sees the page and the preview, has no forms to add, and a post is 403."""
    page = signed_in(browser, tenant, add_member, role="agent")
    assert page.status_code == 200 and "Add a text" not in page.text
    answer = browser.post("/app/knowledge/text", data={"title": "X", "content": "Y", "csrf": csrf_of(page)})
    assert answer.status_code == 403


def test_uploaded_documents_are_read_into_an_entry(
    browser: TestClient, tenant: Tenant, add_member: Callable[..., int], services: Services
) -> None:
    """Two files uploaded through the form make one document entry whose page lists both, read."""
    page = signed_in(browser, tenant, add_member)
    files = [
        ("files", ("faq.txt", b"Returns are free within 30 days.", "text/plain")),
        ("files", ("prices.csv", b"item,price\nkettle,40\n", "text/csv")),
    ]
    answer = browser.post("/app/knowledge/documents", data={"title": "Policies", "csrf": csrf_of(page)}, files=files)
    assert answer.status_code == 303
    entry_page = browser.get(answer.headers["location"]).text
    assert "faq.txt · completed" in entry_page and "prices.csv · completed" in entry_page


def test_a_document_of_an_unaccepted_format_is_refused_beside_the_field(
    browser: TestClient, tenant: Tenant, add_member: Callable[..., int], services: Services
) -> None:
    """A file named .exe answers 422 beside the files field; the title typed stays; no entry is made."""
    page = signed_in(browser, tenant, add_member)
    files = [("files", ("tool.exe", b"MZ\x90\x00", "application/octet-stream"))]
    answer = browser.post("/app/knowledge/documents", data={"title": "Tools", "csrf": csrf_of(page)}, files=files)
    assert answer.status_code == 422
    assert 'id="documents-files-error"' in answer.text and 'value="Tools"' in answer.text


def test_a_form_that_declares_no_length_is_refused_unread(
    browser: TestClient, tenant: Tenant, add_member: Callable[..., int]
) -> None:
    """A streamed body without Content-Length is 413: the dashboard never reads an unbounded form."""
    signed_in(browser, tenant, add_member)

    def body() -> Iterator[bytes]:
        yield b"title=x"

    answer = browser.post(
        "/app/knowledge/text", content=body(), headers={"Content-Type": "application/x-www-form-urlencoded"}
    )
    assert answer.status_code == 413
