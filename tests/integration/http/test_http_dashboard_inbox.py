"""The dashboard's inbox (`engage_http.dashboard.inbox`) over the in-memory fakes: the list and its
views, a conversation's forms (reply, notes, take-over, release, assign), agents' visibility, and the
live region."""

from __future__ import annotations

import re
from collections.abc import Callable

from dashboard_support import PHONE, csrf_of, sign_in
from http_support import Tenant
from starlette.testclient import TestClient

from engage_core.agents.replies import AiReplyDraft
from engage_core.commerce.order_service import OrderInput
from engage_core.commerce.orders import ItemRequest
from engage_core.commerce.products import Product
from engage_core.kernel.pagination import PageRequest
from engage_core.knowledge.entries import TextInput
from engage_core.messaging.conversations import ConversationFilter
from engage_core.messaging.messages import MessageDraft
from engage_core.messaging.sandbox import SandboxGateway
from engage_core.services import Services
from engage_core.testing import FakeClock, InMemoryUnitOfWorkFactory
from engage_core.webchat.sessions import VisitorDetails


def test_the_inbox_lists_the_conversation(
    browser: TestClient, tenant: Tenant, add_member: Callable[..., int], conversation: int
) -> None:
    """The inbox shows the contact, the last message and a link to the conversation."""
    add_member(tenant)
    sign_in(browser)
    page = browser.get("/app/inbox")
    assert "Grace" in page.text
    assert "Is the blue kettle in stock?" in page.text
    assert f"/app/conversations/{conversation}" in page.text


def test_the_waiting_view_leaves_out_conversations_the_ai_answers(
    browser: TestClient, tenant: Tenant, add_member: Callable[..., int], conversation: int
) -> None:
    """`view=waiting` lists only conversations waiting for a human."""
    add_member(tenant)
    sign_in(browser)
    assert "Grace" not in browser.get("/app/inbox", params={"view": "waiting"}).text


def test_a_reply_goes_through_the_contacts_channel(
    browser: TestClient, tenant: Tenant, add_member: Callable[..., int], conversation: int, sandbox: SandboxGateway
) -> None:
    """The reply form sends the text to the contact through the sandbox's WhatsApp."""
    add_member(tenant)
    sign_in(browser)
    page = browser.get(f"/app/conversations/{conversation}")
    answer = browser.post(
        f"/app/conversations/{conversation}/reply", data={"message": "Yes, 4 left.", "csrf": csrf_of(page)}
    )
    assert answer.status_code == 303
    sent = [(s.recipient, s.text) for account in sandbox.accounts() for s in account.sent]
    assert (PHONE, "Yes, 4 left.") in sent
    assert "Reply sent." in browser.get(answer.headers["location"]).text


def test_a_blank_reply_shows_the_fields_error(
    browser: TestClient, tenant: Tenant, add_member: Callable[..., int], conversation: int
) -> None:
    """A blank reply answers 422 with the API's message beside the field."""
    add_member(tenant)
    sign_in(browser)
    page = browser.get(f"/app/conversations/{conversation}")
    answer = browser.post(f"/app/conversations/{conversation}/reply", data={"message": "  ", "csrf": csrf_of(page)})
    assert answer.status_code == 422
    assert 'id="message-error"' in answer.text


def test_a_form_without_the_sessions_token_changes_nothing(
    browser: TestClient, tenant: Tenant, add_member: Callable[..., int], conversation: int, services: Services
) -> None:
    """A take-over posted without the CSRF token is 403 and the AI still answers."""
    add_member(tenant)
    sign_in(browser)
    answer = browser.post(f"/app/conversations/{conversation}/take-over", data={"csrf": "forged"})
    assert answer.status_code == 403
    assert services.conversation_handling.get(tenant.account_id, conversation).handled_by == "ai"


def test_releasing_hands_the_conversation_back_to_the_ai(
    browser: TestClient, tenant: Tenant, add_member: Callable[..., int], conversation: int, services: Services
) -> None:
    """Release after a take-over: the AI answers again."""
    member_id = add_member(tenant)
    services.conversation_handling.take_over(tenant.account_id, conversation, member_id)
    sign_in(browser)
    page = browser.get(f"/app/conversations/{conversation}")
    browser.post(f"/app/conversations/{conversation}/release", data={"csrf": csrf_of(page)})
    assert services.conversation_handling.get(tenant.account_id, conversation).handled_by == "ai"


def test_another_workspaces_conversation_is_not_found(
    browser: TestClient,
    make_tenant: Callable[..., Tenant],
    add_member: Callable[..., int],
    conversation: int,
) -> None:
    """A member of another workspace gets 404 for this conversation."""
    other = make_tenant("Other")
    add_member(other, "eve@example.com")
    sign_in(browser, "eve@example.com")
    assert browser.get(f"/app/conversations/{conversation}").status_code == 404


def test_opening_a_conversation_marks_it_read(
    browser: TestClient, tenant: Tenant, add_member: Callable[..., int], conversation: int, services: Services
) -> None:
    """After the conversation page, its unread count is 0."""
    add_member(tenant)
    sign_in(browser)
    browser.get(f"/app/conversations/{conversation}")
    found = services.messages.conversations(
        tenant.account_id, ConversationFilter(contact_id=conversation), PageRequest()
    )
    assert found.items[0].unread_count == 0


def test_the_inbox_answers_its_live_region_alone_when_asked(
    browser: TestClient, tenant: Tenant, add_member: Callable[..., int], conversation: int
) -> None:
    """With `X-Engage-Fragment: 1` the inbox sends only its list, which dashboard.js swaps in."""
    add_member(tenant)
    sign_in(browser)
    fragment = browser.get("/app/inbox", headers={"X-Engage-Fragment": "1"})
    assert "Grace" in fragment.text
    assert "<html" not in fragment.text and "Sign out" not in fragment.text


def test_an_agent_does_not_see_another_members_conversation(
    browser: TestClient, tenant: Tenant, add_member: Callable[..., int], conversation: int, services: Services
) -> None:
    """A conversation assigned to someone else is left out of an agent's inbox and refused (403)."""
    admin_id = add_member(tenant, "admin@example.com", "admin")
    add_member(tenant, role="agent")
    services.conversation_handling.take_over(tenant.account_id, conversation, admin_id)
    sign_in(browser)
    assert "Grace" not in browser.get("/app/inbox").text
    assert browser.get(f"/app/conversations/{conversation}").status_code == 403


def test_an_agent_cannot_reply_in_another_members_conversation(
    browser: TestClient, tenant: Tenant, add_member: Callable[..., int], conversation: int, services: Services
) -> None:
    """The reply form of another member's conversation is refused and nothing is sent."""
    admin_id = add_member(tenant, "admin@example.com", "admin")
    add_member(tenant, role="agent")
    sign_in(browser)
    page = browser.get(f"/app/conversations/{conversation}")
    services.conversation_handling.take_over(tenant.account_id, conversation, admin_id)
    answer = browser.post(f"/app/conversations/{conversation}/reply", data={"message": "Hi", "csrf": csrf_of(page)})
    assert answer.status_code == 403
    outbound = services.messages.for_contact(tenant.account_id, conversation, "outbound", PageRequest())
    assert outbound.total == 0


def test_a_note_added_beside_the_conversation_is_kept_on_the_contact(
    browser: TestClient, tenant: Tenant, add_member: Callable[..., int], conversation: int, services: Services
) -> None:
    """The note form adds a note to the contact, shown on the page."""
    add_member(tenant)
    sign_in(browser)
    page = browser.get(f"/app/conversations/{conversation}")
    answer = browser.post(
        f"/app/conversations/{conversation}/notes", data={"content": "Prefers e-mail.", "csrf": csrf_of(page)}
    )
    assert answer.status_code == 303
    assert [n.content for n in services.contacts.notes(tenant.account_id, conversation)] == ["Prefers e-mail."]
    assert "Prefers e-mail." in browser.get(f"/app/conversations/{conversation}").text


def test_the_contacts_orders_are_shown_beside_the_conversation(
    browser: TestClient,
    tenant: Tenant,
    add_member: Callable[..., int],
    conversation: int,
    services: Services,
    make_product: Callable[..., Product],
) -> None:
    """An order of the contact is listed beside the conversation with its total and status."""
    product = make_product(tenant, price="12.50")
    placed = services.orders.create(
        tenant.account_id, OrderInput(items=[ItemRequest(product.id, 2)], contact_id=conversation)
    )
    add_member(tenant)
    sign_in(browser)
    page = browser.get(f"/app/conversations/{conversation}").text
    assert f"#{placed.order.id} · 25.00 USD · pending" in page


def test_taking_over_makes_the_member_the_assignee(
    browser: TestClient, tenant: Tenant, add_member: Callable[..., int], conversation: int, services: Services
) -> None:
    """Take over: a human answers, and it is the signed-in member."""
    member_id = add_member(tenant)
    sign_in(browser)
    page = browser.get(f"/app/conversations/{conversation}")
    browser.post(f"/app/conversations/{conversation}/take-over", data={"csrf": csrf_of(page)})
    handling = services.conversation_handling.get(tenant.account_id, conversation)
    assert (handling.handled_by, handling.assignee_id) == ("human", member_id)


def test_an_admin_assigns_a_conversation_to_an_agent(
    browser: TestClient, tenant: Tenant, add_member: Callable[..., int], conversation: int, services: Services
) -> None:
    """The assign form makes the chosen member the assignee."""
    add_member(tenant)
    agent_id = add_member(tenant, "grace@example.com", "agent")
    sign_in(browser)
    page = browser.get(f"/app/conversations/{conversation}")
    browser.post(
        f"/app/conversations/{conversation}/assign", data={"team_member_id": str(agent_id), "csrf": csrf_of(page)}
    )
    assert services.conversation_handling.get(tenant.account_id, conversation).assignee_id == agent_id


def test_an_agent_sees_an_unassigned_conversation(
    browser: TestClient, tenant: Tenant, add_member: Callable[..., int], conversation: int
) -> None:
    """An unassigned conversation is in the agent's inbox and opens."""
    add_member(tenant, role="agent")
    sign_in(browser)
    assert "Grace" in browser.get("/app/inbox").text
    assert browser.get(f"/app/conversations/{conversation}").status_code == 200


def test_an_ai_reply_shows_the_passages_it_cited(
    browser: TestClient,
    tenant: Tenant,
    add_member: Callable[..., int],
    conversation: int,
    services: Services,
    uow: InMemoryUnitOfWorkFactory,
    clock: FakeClock,
) -> None:
    """Under the AI's reply, the page lists the knowledge entry and passage the reply cited."""
    entry = services.knowledge_entries.create_text(
        tenant.account_id, TextInput("Kettles", "The blue kettle holds 1.7 l.")
    )
    with uow.workspace(tenant.account_id) as unit:
        [chunk] = unit.knowledge_chunks.for_entry(entry.id)
        [inbound] = unit.messages.for_contact(conversation, "inbound", PageRequest()).items
        outbound = unit.messages.add(
            MessageDraft(conversation, "outbound", "whatsapp", "It holds 1.7 l.", "sent"), clock.now()
        )
        unit.ai_replies.add(
            AiReplyDraft(conversation, inbound.id, outbound.id, "continue", (chunk.id,), 0.9), clock.now()
        )
        unit.commit()
    add_member(tenant)
    sign_in(browser)
    page = browser.get(f"/app/conversations/{conversation}").text
    assert "Drawn from 1 passage" in page
    assert '<strong dir="auto">Kettles</strong>' in page and "The blue kettle holds 1.7 l." in page


def test_the_inbox_lists_web_chats_beside_the_conversations_newest_first(
    browser: TestClient,
    tenant: Tenant,
    add_member: Callable[..., int],
    conversation: int,
    services: Services,
    clock: FakeClock,
) -> None:
    """An active web chat that moved after the WhatsApp conversation comes first, linked to its page."""
    clock.advance(minutes=5)
    chat = services.web_chat.start(tenant.account_id, VisitorDetails(name="Mia"))
    add_member(tenant)
    sign_in(browser)
    page = browser.get("/app/inbox").text
    assert page.index("Mia") < page.index("Grace")
    assert f'href="/app/web-chat/{chat.session.session_id}"' in page
    assert "2 conversations" in page


def test_the_web_chat_channel_filter_keeps_only_web_chats(
    browser: TestClient, tenant: Tenant, add_member: Callable[..., int], conversation: int, services: Services
) -> None:
    """`channel=web_chat` lists the chats and none of the WhatsApp conversations."""
    services.web_chat.start(tenant.account_id, VisitorDetails(name="Mia"))
    add_member(tenant)
    sign_in(browser)
    page = browser.get("/app/inbox", params={"channel": "web_chat"}).text
    assert "Mia" in page and "Grace" not in page


def test_the_waiting_view_holds_a_chat_that_asked_for_a_person(
    browser: TestClient, tenant: Tenant, add_member: Callable[..., int], services: Services
) -> None:
    """A web chat whose visitor asked for a person is in "Waiting for a human"; one the AI answers is not."""
    waiting = services.web_chat.start(tenant.account_id, VisitorDetails(name="Mia"))
    services.web_chat.request_human(tenant.account_id, waiting.token)
    services.web_chat.start(tenant.account_id, VisitorDetails(name="Noor"))
    add_member(tenant)
    sign_in(browser)
    page = browser.get("/app/inbox", params={"view": "waiting"}).text
    assert "Mia" in page and "Noor" not in page


def test_the_second_page_continues_the_merged_list(
    browser: TestClient, tenant: Tenant, add_member: Callable[..., int], services: Services, clock: FakeClock
) -> None:
    """Twenty chats: page 1 has the 15 newest, page 2 the 5 oldest, none twice."""
    for n in range(20):
        clock.advance(seconds=1)
        services.web_chat.start(tenant.account_id, VisitorDetails(name=f"Visitor {n:02d}"))
    add_member(tenant)
    sign_in(browser)
    first = re.findall(r"Visitor (\d\d)", browser.get("/app/inbox").text)
    second = re.findall(r"Visitor (\d\d)", browser.get("/app/inbox", params={"page": 2}).text)
    assert first == [f"{n:02d}" for n in range(19, 4, -1)]
    assert second == [f"{n:02d}" for n in range(4, -1, -1)]


def test_the_unread_view_leaves_out_read_conversations_and_web_chats(
    browser: TestClient, tenant: Tenant, add_member: Callable[..., int], conversation: int, services: Services
) -> None:
    """`view=unread` keeps the unread WhatsApp conversation, not once it is read, and no web chat."""
    services.web_chat.start(tenant.account_id, VisitorDetails(name="Mia"))
    add_member(tenant)
    sign_in(browser)
    page = browser.get("/app/inbox", params={"view": "unread"}).text
    assert "Grace" in page and "Mia" not in page
    services.messages.mark_read(tenant.account_id, conversation)
    assert "Grace" not in browser.get("/app/inbox", params={"view": "unread"}).text


def test_the_assigned_to_me_view_keeps_the_members_conversations(
    browser: TestClient, tenant: Tenant, add_member: Callable[..., int], conversation: int, services: Services
) -> None:
    """`view=mine` is empty until the conversation is assigned to the signed-in member."""
    member_id = add_member(tenant)
    sign_in(browser)
    assert "Grace" not in browser.get("/app/inbox", params={"view": "mine"}).text
    services.conversation_handling.take_over(tenant.account_id, conversation, member_id)
    assert "Grace" in browser.get("/app/inbox", params={"view": "mine"}).text
