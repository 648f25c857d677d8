"""The dashboard for team members (`engage_http.dashboard`): signing in, the inbox, a conversation's
forms, the API key page and roles, over the in-memory fakes."""

from __future__ import annotations

import re
from collections.abc import Callable

import httpx
import pytest
from http_support import Tenant
from starlette.testclient import TestClient

from engage_core.commerce.order_service import OrderInput
from engage_core.commerce.orders import ItemRequest
from engage_core.commerce.products import Product
from engage_core.kernel.pagination import PageRequest
from engage_core.messaging.channels import ChannelAccount
from engage_core.messaging.conversations import ConversationFilter
from engage_core.messaging.sandbox import SandboxGateway
from engage_core.services import Services
from engage_core.team.service import MemberInput, MemberPatch
from engage_core.team.sign_in import FAILURES_BEFORE_LOCKOUT
from engage_core.testing import FakeCipher, FakeClock
from engage_http import create_app
from engage_http.dashboard import SESSION_COOKIE, SessionCookies

PASSWORD = "correct horse battery"
PHONE = "+14155550123"


@pytest.fixture
def browser(services: Services, clock: FakeClock) -> TestClient:
    """A client of the app with the dashboard served; it keeps cookies like a browser."""
    return TestClient(create_app(services, sessions=SessionCookies(FakeCipher(), clock)), follow_redirects=False)


@pytest.fixture
def make_member(services: Services) -> Callable[..., int]:
    """`make_member(tenant, email, role="admin")`: an active member with `PASSWORD`; its id."""

    def make(tenant: Tenant, email: str = "ada@example.com", role: str = "admin") -> int:
        created = services.team.create(tenant.account_id, MemberInput("Ada", email, role, PASSWORD))
        return created.member.id

    return make


def csrf_of(page: httpx.Response) -> str:
    """The CSRF token of the first form of a page."""
    found = re.search(r'name="csrf" value="([^"]+)"', page.text)
    assert found is not None, page.text
    return found.group(1)


def sign_in(browser: TestClient, email: str = "ada@example.com", password: str = PASSWORD) -> httpx.Response:
    form = browser.get("/login")
    return browser.post("/login", data={"email": email, "password": password, "csrf": csrf_of(form), "next": ""})


@pytest.fixture
def conversation(
    tenant: Tenant, connect_channel: Callable[..., ChannelAccount], sandbox: SandboxGateway, services: Services
) -> int:
    """A WhatsApp conversation of the tenant with one inbound message; the contact's id."""
    channel = connect_channel(tenant, "whatsapp")
    assert channel.provider_account_id is not None
    sandbox.inject_message(channel.provider_account_id, PHONE, "Is the blue kettle in stock?", sender_name="Grace")
    found = services.messages.conversations(tenant.account_id, ConversationFilter(), PageRequest())
    return found.items[0].contact_id


def test_the_sign_in_page_fills_in_the_invitations_address(browser: TestClient) -> None:
    """`/login?email=` (the invitation's link) shows the form with the address filled in."""
    page = browser.get("/login", params={"email": "ada@example.com"})
    assert page.status_code == 200
    assert 'value="ada@example.com"' in page.text


def test_signing_in_opens_the_inbox(browser: TestClient, tenant: Tenant, make_member: Callable[..., int]) -> None:
    """The right address and password set the session cookie and lead to the inbox."""
    make_member(tenant)
    answer = sign_in(browser)
    assert answer.status_code == 303
    assert answer.headers["location"] == "/app/inbox"
    assert browser.get("/app/inbox").status_code == 200


def test_a_wrong_password_is_refused_with_the_same_message_as_an_unknown_address(
    browser: TestClient, tenant: Tenant, make_member: Callable[..., int]
) -> None:
    """A wrong password and an unknown address both answer 401 with one message and no session."""
    make_member(tenant)
    wrong = sign_in(browser, password="not the password")
    unknown = sign_in(browser, email="nobody@example.com")
    assert (wrong.status_code, unknown.status_code) == (401, 401)
    assert "The e-mail address or password is incorrect." in wrong.text
    assert "The e-mail address or password is incorrect." in unknown.text
    assert SESSION_COOKIE not in browser.cookies


def test_repeated_failures_lock_the_address_even_for_the_right_password(
    browser: TestClient, tenant: Tenant, make_member: Callable[..., int]
) -> None:
    """After the lockout's number of failures the right password is refused too, with 429."""
    make_member(tenant)
    for _ in range(FAILURES_BEFORE_LOCKOUT):
        assert sign_in(browser, password="guess guess").status_code == 401
    locked = sign_in(browser)
    assert locked.status_code == 429
    assert "Too many failed sign-ins" in locked.text
    assert int(locked.headers["retry-after"]) > 0


def test_the_lock_ends_with_its_window(
    browser: TestClient, tenant: Tenant, make_member: Callable[..., int], clock: FakeClock
) -> None:
    """Once the lockout window has passed, the right password signs in again."""
    make_member(tenant)
    for _ in range(FAILURES_BEFORE_LOCKOUT):
        sign_in(browser, password="guess guess")
    clock.advance(minutes=16)
    assert sign_in(browser).status_code == 303


def test_a_sign_in_without_the_forms_token_is_refused(
    browser: TestClient, tenant: Tenant, make_member: Callable[..., int]
) -> None:
    """A sign-in posted from elsewhere (no token cookie and field) is 403 and opens nothing."""
    make_member(tenant)
    answer = browser.post("/login", data={"email": "ada@example.com", "password": PASSWORD})
    assert answer.status_code == 403
    assert SESSION_COOKIE not in browser.cookies


def test_an_address_of_two_workspaces_chooses_one(
    browser: TestClient, make_tenant: Callable[..., Tenant], make_member: Callable[..., int]
) -> None:
    """An address and password right in two workspaces asks which, then opens the one chosen."""
    first, second = make_tenant("First"), make_tenant("Second")
    make_member(first)
    make_member(second)
    choice = sign_in(browser)
    assert choice.status_code == 200
    assert "First" in choice.text and "Second" in choice.text
    answer = browser.post("/login/workspace", data={"workspace": str(second.account_id), "csrf": csrf_of(choice)})
    assert answer.status_code == 303
    assert "Second" in browser.get("/app/inbox").text


def test_a_page_without_a_session_sends_the_browser_to_sign_in(browser: TestClient) -> None:
    """Without a session, a dashboard page redirects to `/login` with the page to come back to."""
    answer = browser.get("/app/inbox")
    assert answer.status_code == 303
    assert answer.headers["location"] == "/login?next=%2Fapp%2Finbox"


def test_changing_the_password_ends_every_session(
    browser: TestClient, tenant: Tenant, make_member: Callable[..., int], services: Services
) -> None:
    """A session signed in with the old password is over once the password changes."""
    member_id = make_member(tenant)
    sign_in(browser)
    services.team.update(tenant.account_id, member_id, MemberPatch(password="a brand new password"))
    assert browser.get("/app/inbox").status_code == 303


def test_deactivating_the_member_ends_the_session(
    browser: TestClient, tenant: Tenant, make_member: Callable[..., int], services: Services
) -> None:
    """An inactive member's session no longer opens pages."""
    member_id = make_member(tenant)
    sign_in(browser)
    services.team.update(tenant.account_id, member_id, MemberPatch(status="inactive"))
    assert browser.get("/app/inbox").status_code == 303


def test_signing_out_ends_the_session(browser: TestClient, tenant: Tenant, make_member: Callable[..., int]) -> None:
    """`POST /logout` with the page's token drops the cookie."""
    make_member(tenant)
    sign_in(browser)
    inbox = browser.get("/app/inbox")
    browser.post("/logout", data={"csrf": csrf_of(inbox)})
    assert browser.get("/app/inbox").status_code == 303


def test_the_inbox_lists_the_conversation(
    browser: TestClient, tenant: Tenant, make_member: Callable[..., int], conversation: int
) -> None:
    """The inbox shows the contact, the last message and a link to the conversation."""
    make_member(tenant)
    sign_in(browser)
    page = browser.get("/app/inbox")
    assert "Grace" in page.text
    assert "Is the blue kettle in stock?" in page.text
    assert f"/app/conversations/{conversation}" in page.text


def test_the_waiting_view_leaves_out_conversations_the_ai_answers(
    browser: TestClient, tenant: Tenant, make_member: Callable[..., int], conversation: int
) -> None:
    """`view=waiting` lists only conversations waiting for a human."""
    make_member(tenant)
    sign_in(browser)
    assert "Grace" not in browser.get("/app/inbox", params={"view": "waiting"}).text


def test_a_reply_goes_through_the_contacts_channel(
    browser: TestClient, tenant: Tenant, make_member: Callable[..., int], conversation: int, sandbox: SandboxGateway
) -> None:
    """The reply form sends the text to the contact through the sandbox's WhatsApp."""
    make_member(tenant)
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
    browser: TestClient, tenant: Tenant, make_member: Callable[..., int], conversation: int
) -> None:
    """A blank reply answers 422 with the API's message beside the field."""
    make_member(tenant)
    sign_in(browser)
    page = browser.get(f"/app/conversations/{conversation}")
    answer = browser.post(f"/app/conversations/{conversation}/reply", data={"message": "  ", "csrf": csrf_of(page)})
    assert answer.status_code == 422
    assert 'id="message-error"' in answer.text


def test_a_form_without_the_sessions_token_changes_nothing(
    browser: TestClient, tenant: Tenant, make_member: Callable[..., int], conversation: int, services: Services
) -> None:
    """A take-over posted without the CSRF token is 403 and the AI still answers."""
    make_member(tenant)
    sign_in(browser)
    answer = browser.post(f"/app/conversations/{conversation}/take-over", data={"csrf": "forged"})
    assert answer.status_code == 403
    assert services.conversation_handling.get(tenant.account_id, conversation).handled_by == "ai"


def test_taking_over_makes_the_member_the_assignee(
    browser: TestClient, tenant: Tenant, make_member: Callable[..., int], conversation: int, services: Services
) -> None:
    """Take over: a human answers, and it is the signed-in member."""
    member_id = make_member(tenant)
    sign_in(browser)
    page = browser.get(f"/app/conversations/{conversation}")
    browser.post(f"/app/conversations/{conversation}/take-over", data={"csrf": csrf_of(page)})
    handling = services.conversation_handling.get(tenant.account_id, conversation)
    assert (handling.handled_by, handling.assignee_id) == ("human", member_id)


def test_releasing_hands_the_conversation_back_to_the_ai(
    browser: TestClient, tenant: Tenant, make_member: Callable[..., int], conversation: int, services: Services
) -> None:
    """Release after a take-over: the AI answers again."""
    member_id = make_member(tenant)
    services.conversation_handling.take_over(tenant.account_id, conversation, member_id)
    sign_in(browser)
    page = browser.get(f"/app/conversations/{conversation}")
    browser.post(f"/app/conversations/{conversation}/release", data={"csrf": csrf_of(page)})
    assert services.conversation_handling.get(tenant.account_id, conversation).handled_by == "ai"


def test_an_admin_assigns_a_conversation_to_an_agent(
    browser: TestClient, tenant: Tenant, make_member: Callable[..., int], conversation: int, services: Services
) -> None:
    """The assign form makes the chosen member the assignee."""
    make_member(tenant)
    agent_id = make_member(tenant, "grace@example.com", "agent")
    sign_in(browser)
    page = browser.get(f"/app/conversations/{conversation}")
    browser.post(
        f"/app/conversations/{conversation}/assign", data={"team_member_id": str(agent_id), "csrf": csrf_of(page)}
    )
    assert services.conversation_handling.get(tenant.account_id, conversation).assignee_id == agent_id


def test_another_workspaces_conversation_is_not_found(
    browser: TestClient,
    make_tenant: Callable[..., Tenant],
    make_member: Callable[..., int],
    conversation: int,
) -> None:
    """A member of another workspace gets 404 for this conversation."""
    other = make_tenant("Other")
    make_member(other, "eve@example.com")
    sign_in(browser, "eve@example.com")
    assert browser.get(f"/app/conversations/{conversation}").status_code == 404


def test_opening_a_conversation_marks_it_read(
    browser: TestClient, tenant: Tenant, make_member: Callable[..., int], conversation: int, services: Services
) -> None:
    """After the conversation page, its unread count is 0."""
    make_member(tenant)
    sign_in(browser)
    browser.get(f"/app/conversations/{conversation}")
    found = services.messages.conversations(
        tenant.account_id, ConversationFilter(contact_id=conversation), PageRequest()
    )
    assert found.items[0].unread_count == 0


def test_rotating_the_api_key_shows_the_new_key_once_and_refuses_the_old(
    browser: TestClient, tenant: Tenant, make_member: Callable[..., int], client: TestClient
) -> None:
    """The rotate form shows a key that works; the old key is refused with 401."""
    make_member(tenant)
    sign_in(browser)
    page = browser.get("/app/settings/api-key")
    rotated = browser.post("/app/settings/api-key", data={"csrf": csrf_of(page)})
    new_key = re.search(r'id="new-key" class="key" readonly value="([^"]+)"', rotated.text)
    assert new_key is not None
    assert browser.get("/api/v1/contacts", headers={"X-Api-Key": tenant.key}).status_code == 401
    assert browser.get("/api/v1/contacts", headers={"X-Api-Key": new_key.group(1)}).status_code == 200
    assert new_key.group(1) not in browser.get("/app/settings/api-key").text


def test_an_agent_is_refused_the_api_key_page(
    browser: TestClient, tenant: Tenant, make_member: Callable[..., int]
) -> None:
    """An agent gets 403 on the API key page, and no link to it."""
    make_member(tenant, role="agent")
    sign_in(browser)
    assert browser.get("/app/settings/api-key").status_code == 403
    assert "/app/settings/api-key" not in browser.get("/app/inbox").text


def test_dashboard_pages_forbid_framing_and_inline_code(
    browser: TestClient, tenant: Tenant, make_member: Callable[..., int]
) -> None:
    """Every page has a policy that loads only this site's files and can't be framed."""
    make_member(tenant)
    sign_in(browser)
    page = browser.get("/app/inbox")
    policy = {part.strip() for part in page.headers["content-security-policy"].split(";")}
    assert {"default-src 'none'", "frame-ancestors 'none'", "form-action 'self'", "style-src 'self'"} <= policy
    assert page.headers["x-frame-options"] == "DENY"


def test_the_stylesheet_is_served_from_the_package(browser: TestClient) -> None:
    """`/app/static/dashboard.css` is served as CSS without a session."""
    answer = browser.get("/app/static/dashboard.css")
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/css")


def test_the_inbox_answers_its_live_region_alone_when_asked(
    browser: TestClient, tenant: Tenant, make_member: Callable[..., int], conversation: int
) -> None:
    """With `X-Engage-Fragment: 1` the inbox sends only its list, which dashboard.js swaps in."""
    make_member(tenant)
    sign_in(browser)
    fragment = browser.get("/app/inbox", headers={"X-Engage-Fragment": "1"})
    assert "Grace" in fragment.text
    assert "<html" not in fragment.text and "Sign out" not in fragment.text


def test_the_script_of_the_live_regions_is_served_from_the_package(browser: TestClient) -> None:
    """`/app/static/dashboard.js` is served as JavaScript without a session."""
    answer = browser.get("/app/static/dashboard.js")
    assert answer.status_code == 200
    assert "javascript" in answer.headers["content-type"]


def test_an_agent_does_not_see_another_members_conversation(
    browser: TestClient, tenant: Tenant, make_member: Callable[..., int], conversation: int, services: Services
) -> None:
    """A conversation assigned to someone else is left out of an agent's inbox and refused (403)."""
    admin_id = make_member(tenant, "admin@example.com", "admin")
    make_member(tenant, role="agent")
    services.conversation_handling.take_over(tenant.account_id, conversation, admin_id)
    sign_in(browser)
    assert "Grace" not in browser.get("/app/inbox").text
    assert browser.get(f"/app/conversations/{conversation}").status_code == 403


def test_an_agent_cannot_reply_in_another_members_conversation(
    browser: TestClient, tenant: Tenant, make_member: Callable[..., int], conversation: int, services: Services
) -> None:
    """The reply form of another member's conversation is refused and nothing is sent."""
    admin_id = make_member(tenant, "admin@example.com", "admin")
    make_member(tenant, role="agent")
    sign_in(browser)
    page = browser.get(f"/app/conversations/{conversation}")
    services.conversation_handling.take_over(tenant.account_id, conversation, admin_id)
    answer = browser.post(f"/app/conversations/{conversation}/reply", data={"message": "Hi", "csrf": csrf_of(page)})
    assert answer.status_code == 403
    outbound = services.messages.for_contact(tenant.account_id, conversation, "outbound", PageRequest())
    assert outbound.total == 0


def test_an_agent_sees_an_unassigned_conversation(
    browser: TestClient, tenant: Tenant, make_member: Callable[..., int], conversation: int
) -> None:
    """An unassigned conversation is in the agent's inbox and opens."""
    make_member(tenant, role="agent")
    sign_in(browser)
    assert "Grace" in browser.get("/app/inbox").text
    assert browser.get(f"/app/conversations/{conversation}").status_code == 200


def test_a_note_added_beside_the_conversation_is_kept_on_the_contact(
    browser: TestClient, tenant: Tenant, make_member: Callable[..., int], conversation: int, services: Services
) -> None:
    """The note form adds a note to the contact, shown on the page."""
    make_member(tenant)
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
    make_member: Callable[..., int],
    conversation: int,
    services: Services,
    make_product: Callable[..., Product],
) -> None:
    """An order of the contact is listed beside the conversation with its total and status."""
    product = make_product(tenant, price="12.50")
    placed = services.orders.create(
        tenant.account_id, OrderInput(items=[ItemRequest(product.id, 2)], contact_id=conversation)
    )
    make_member(tenant)
    sign_in(browser)
    page = browser.get(f"/app/conversations/{conversation}").text
    assert f"#{placed.order.id} · 25.00 USD · pending" in page


def test_the_overview_shows_the_plan_its_use_and_the_channels(
    browser: TestClient, tenant: Tenant, make_member: Callable[..., int], conversation: int
) -> None:
    """The overview names the plan, counts the contacts against its limit and lists WhatsApp as connected."""
    make_member(tenant)
    sign_in(browser)
    page = browser.get("/app/overview")
    assert page.status_code == 200
    assert "Plan: " in page.text
    assert re.search(r"<th scope=\"row\">Contacts</th>\s*<td>1</td>", page.text)
    assert "WhatsApp" in page.text and "connected" in page.text


def test_an_admin_adds_a_team_member(
    browser: TestClient, tenant: Tenant, make_member: Callable[..., int], services: Services
) -> None:
    """The team form adds a member who can then sign in."""
    make_member(tenant)
    sign_in(browser)
    page = browser.get("/app/settings/team")
    fields = {"name": "Grace", "email": "grace@example.com", "role": "agent", "password": "another password"}
    answer = browser.post("/app/settings/team", data={**fields, "csrf": csrf_of(page)})
    assert answer.status_code == 201
    assert "Grace was added" in answer.text
    assert services.team.sign_in("grace@example.com", "another password")[0].member.role == "agent"


def test_a_short_password_is_refused_beside_its_field_and_not_sent_back(
    browser: TestClient, tenant: Tenant, make_member: Callable[..., int]
) -> None:
    """422 with the password rule beside the field; the typed password is not in the page."""
    make_member(tenant)
    sign_in(browser)
    page = browser.get("/app/settings/team")
    fields = {"name": "Grace", "email": "grace@example.com", "role": "agent", "password": "short1"}
    answer = browser.post("/app/settings/team", data={**fields, "csrf": csrf_of(page)})
    assert answer.status_code == 422
    assert 'id="password-error"' in answer.text
    assert "short1" not in answer.text and 'value="grace@example.com"' in answer.text


def test_an_agent_is_refused_the_team_page(
    browser: TestClient, tenant: Tenant, make_member: Callable[..., int]
) -> None:
    """The team page is for admins: 403 to an agent."""
    make_member(tenant, role="agent")
    sign_in(browser)
    assert browser.get("/app/settings/team").status_code == 403
