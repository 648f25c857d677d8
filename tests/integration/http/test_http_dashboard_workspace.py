"""The dashboard's workspace pages over the in-memory fakes: the overview, the team, the API key and
the webhooks (`engage_http.dashboard.workspace`, `engage_http.dashboard.webhooks`)."""

from __future__ import annotations

import re
from collections.abc import Callable

import httpx
from dashboard_support import csrf_of, sign_in
from http_support import Tenant
from starlette.testclient import TestClient

from engage_core.kernel.pagination import PageRequest
from engage_core.services import Services
from engage_core.webhooks.service import WebhookInput


def admin_page(browser: TestClient, tenant: Tenant, add_member: Callable[..., int], path: str) -> httpx.Response:
    """Sign in as an admin and open `path`."""
    add_member(tenant)
    sign_in(browser)
    return browser.get(path)


def test_rotating_the_api_key_shows_the_new_key_once_and_refuses_the_old(
    browser: TestClient, tenant: Tenant, add_member: Callable[..., int], client: TestClient
) -> None:
    """The rotate form shows a key that works; the old key is refused with 401."""
    add_member(tenant)
    sign_in(browser)
    page = browser.get("/app/settings/api-key")
    rotated = browser.post("/app/settings/api-key", data={"csrf": csrf_of(page)})
    new_key = re.search(r'id="new-key" class="key" readonly value="([^"]+)"', rotated.text)
    assert new_key is not None
    assert browser.get("/api/v1/contacts", headers={"X-Api-Key": tenant.key}).status_code == 401
    assert browser.get("/api/v1/contacts", headers={"X-Api-Key": new_key.group(1)}).status_code == 200
    assert new_key.group(1) not in browser.get("/app/settings/api-key").text


def test_an_agent_is_refused_the_api_key_page(
    browser: TestClient, tenant: Tenant, add_member: Callable[..., int]
) -> None:
    """An agent gets 403 on the API key page, and no link to it."""
    add_member(tenant, role="agent")
    sign_in(browser)
    assert browser.get("/app/settings/api-key").status_code == 403
    assert "/app/settings/api-key" not in browser.get("/app/inbox").text


def test_the_overview_shows_the_plan_its_use_and_the_channels(
    browser: TestClient, tenant: Tenant, add_member: Callable[..., int], conversation: int
) -> None:
    """The overview names the plan, counts the contacts against its limit and lists WhatsApp as connected."""
    add_member(tenant)
    sign_in(browser)
    page = browser.get("/app/overview")
    assert page.status_code == 200
    assert "Plan: " in page.text
    assert re.search(r"<th scope=\"row\">Contacts</th>\s*<td>1</td>", page.text)
    assert "WhatsApp" in page.text and "connected" in page.text


def test_an_admin_adds_a_team_member(
    browser: TestClient, tenant: Tenant, add_member: Callable[..., int], services: Services
) -> None:
    """The team form adds a member who can then sign in."""
    add_member(tenant)
    sign_in(browser)
    page = browser.get("/app/settings/team")
    fields = {"name": "Grace", "email": "grace@example.com", "role": "agent", "password": "another password"}
    answer = browser.post("/app/settings/team", data={**fields, "csrf": csrf_of(page)})
    assert answer.status_code == 201
    assert "Grace was added" in answer.text
    assert services.team.sign_in("grace@example.com", "another password")[0].member.role == "agent"


def test_an_agent_is_refused_the_team_page(browser: TestClient, tenant: Tenant, add_member: Callable[..., int]) -> None:
    """The team page is for admins: 403 to an agent."""
    add_member(tenant, role="agent")
    sign_in(browser)
    assert browser.get("/app/settings/team").status_code == 403


def test_adding_a_webhook_shows_its_secret_once(
    browser: TestClient, tenant: Tenant, add_member: Callable[..., int], services: Services
) -> None:
    """The add form creates the subscription (201) and shows its secret; the page shows it no more."""
    page = admin_page(browser, tenant, add_member, "/app/settings/webhooks")
    fields = {"name": "CRM", "url": "https://crm.example/hooks", "events": ["contact.created"], "csrf": csrf_of(page)}
    answer = browser.post("/app/settings/webhooks", data=fields)
    assert answer.status_code == 201
    secret = re.search(r'id="secret" class="key" readonly value="([^"]+)"', answer.text)
    assert secret is not None
    [hook] = services.webhooks.list(tenant.account_id)
    assert (hook.name, hook.events) == ("CRM", ("contact.created",))
    assert secret.group(1) not in browser.get(f"/app/settings/webhooks/{hook.id}").text


def test_a_webhook_with_a_bad_target_shows_the_error_beside_it(
    browser: TestClient, tenant: Tenant, add_member: Callable[..., int], services: Services
) -> None:
    """A target that is not HTTP(S) answers 422 with the message beside the URL field; nothing is created."""
    page = admin_page(browser, tenant, add_member, "/app/settings/webhooks")
    answer = browser.post(
        "/app/settings/webhooks", data={"name": "CRM", "url": "ftp://crm.example", "csrf": csrf_of(page)}
    )
    assert answer.status_code == 422
    assert 'id="url-error"' in answer.text
    assert services.webhooks.list(tenant.account_id) == []


def test_a_test_delivery_is_queued_from_the_webhook_page(
    browser: TestClient, tenant: Tenant, add_member: Callable[..., int], services: Services
) -> None:
    """Send a test: the log holds a pending webhook.test attempt."""
    hook = services.webhooks.create(tenant.account_id, WebhookInput("CRM", "https://crm.example/hooks")).subscription
    page = admin_page(browser, tenant, add_member, f"/app/settings/webhooks/{hook.id}")
    answer = browser.post(f"/app/settings/webhooks/{hook.id}/test", data={"csrf": csrf_of(page)})
    assert answer.status_code == 303
    log = services.webhooks.deliveries(tenant.account_id, hook.id, None, PageRequest())
    assert [(a.event_type, a.status) for a in log.items] == [("webhook.test", "pending")]
    assert "webhook.test" in browser.get(answer.headers["location"]).text


def test_rotating_a_webhooks_secret_shows_the_new_one(
    browser: TestClient, tenant: Tenant, add_member: Callable[..., int], services: Services
) -> None:
    """Rotate: a new secret, different from the first, is shown once."""
    created = services.webhooks.create(tenant.account_id, WebhookInput("CRM", "https://crm.example/hooks"))
    path = f"/app/settings/webhooks/{created.subscription.id}"
    page = admin_page(browser, tenant, add_member, path)
    answer = browser.post(f"{path}/secret", data={"csrf": csrf_of(page)})
    secret = re.search(r'id="secret" class="key" readonly value="([^"]+)"', answer.text)
    assert secret is not None and secret.group(1) != created.secret


def test_a_disabled_webhook_refuses_a_test_with_the_reason(
    browser: TestClient, tenant: Tenant, add_member: Callable[..., int], services: Services
) -> None:
    """Disable, then test: 422 saying the webhook is disabled."""
    hook = services.webhooks.create(tenant.account_id, WebhookInput("CRM", "https://crm.example/hooks")).subscription
    path = f"/app/settings/webhooks/{hook.id}"
    page = admin_page(browser, tenant, add_member, path)
    browser.post(f"{path}/active", data={"is_active": "0", "csrf": csrf_of(page)})
    assert services.webhooks.get(tenant.account_id, hook.id).is_active is False
    answer = browser.post(f"{path}/test", data={"csrf": csrf_of(page)})
    assert answer.status_code == 422
    assert "The webhook is disabled" in answer.text


def test_only_a_failed_delivery_is_redelivered(
    browser: TestClient, tenant: Tenant, add_member: Callable[..., int], services: Services
) -> None:
    """Redelivering a pending delivery answers 422 with the API's reason."""
    hook = services.webhooks.create(tenant.account_id, WebhookInput("CRM", "https://crm.example/hooks")).subscription
    attempt = services.webhooks.send_test(tenant.account_id, hook.id)
    path = f"/app/settings/webhooks/{hook.id}"
    page = admin_page(browser, tenant, add_member, path)
    answer = browser.post(f"{path}/deliveries/{attempt.delivery_id}/redeliver", data={"csrf": csrf_of(page)})
    assert answer.status_code == 422
    assert "Only a failed delivery can be redelivered" in answer.text


def test_deleting_a_webhook_from_its_page(
    browser: TestClient, tenant: Tenant, add_member: Callable[..., int], services: Services
) -> None:
    """Delete: the subscription is gone and the browser is back on the list."""
    hook = services.webhooks.create(tenant.account_id, WebhookInput("CRM", "https://crm.example/hooks")).subscription
    page = admin_page(browser, tenant, add_member, f"/app/settings/webhooks/{hook.id}")
    answer = browser.post(f"/app/settings/webhooks/{hook.id}/delete", data={"csrf": csrf_of(page)})
    assert answer.headers["location"] == "/app/settings/webhooks"
    assert services.webhooks.list(tenant.account_id) == []


def test_an_agent_is_refused_the_webhooks_page(
    browser: TestClient, tenant: Tenant, add_member: Callable[..., int]
) -> None:
    """Webhooks are for admins: 403 to an agent."""
    add_member(tenant, role="agent")
    sign_in(browser)
    assert browser.get("/app/settings/webhooks").status_code == 403


def test_a_short_password_is_refused_beside_its_field_and_not_sent_back(
    browser: TestClient, tenant: Tenant, add_member: Callable[..., int]
) -> None:
    """422 with the password rule beside the field; the typed password is not in the page."""
    add_member(tenant)
    sign_in(browser)
    page = browser.get("/app/settings/team")
    fields = {"name": "Grace", "email": "grace@example.com", "role": "agent", "password": "short1"}
    answer = browser.post("/app/settings/team", data={**fields, "csrf": csrf_of(page)})
    assert answer.status_code == 422
    assert 'id="password-error"' in answer.text
    assert "short1" not in answer.text and 'value="grace@example.com"' in answer.text


def test_an_admin_sets_the_allowed_origins(
    browser: TestClient, tenant: Tenant, add_member: Callable[..., int], services: Services
) -> None:
    """The origins form replaces the whitelist with one origin per line."""
    page = admin_page(browser, tenant, add_member, "/app/settings/api-key")
    form = {"origins": "https://shop.example\n\nhttps://blog.example/", "csrf": csrf_of(page)}
    answer = browser.post("/app/settings/origins", data=form)
    assert answer.status_code == 200 and "Allowed origins saved." in answer.text
    assert services.accounts.get(tenant.account_id).allowed_origins == ("https://shop.example", "https://blog.example")


def test_a_bad_origin_is_refused_beside_the_field_and_kept_in_it(
    browser: TestClient, tenant: Tenant, add_member: Callable[..., int], services: Services
) -> None:
    """422 naming the bad origin; what was typed stays in the field; nothing is saved."""
    page = admin_page(browser, tenant, add_member, "/app/settings/api-key")
    answer = browser.post("/app/settings/origins", data={"origins": "not an origin", "csrf": csrf_of(page)})
    assert answer.status_code == 422
    assert 'id="origins-error"' in answer.text and ">not an origin</textarea>" in answer.text
    assert services.accounts.get(tenant.account_id).allowed_origins == ()


def test_an_agents_overview_shows_the_channels_but_not_the_plan(
    browser: TestClient, tenant: Tenant, add_member: Callable[..., int], conversation: int
) -> None:
    """The plan and its use are billing: an agent's overview has the channels only."""
    add_member(tenant, role="agent")
    sign_in(browser)
    page = browser.get("/app/overview").text
    assert "WhatsApp" in page and "Plan: " not in page
