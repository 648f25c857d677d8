"""LinkedIn endpoints (SPEC 4 LinkedIn) over the in-memory fakes and the sandbox gateway."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from http_support import Api

from engage_core.jobs.runner import JobRunner
from engage_core.kernel.fakes import FakeClock
from engage_core.messaging.sandbox import SandboxGateway
from engage_core.plans.plan_service import PlanPatch
from engage_core.services import Services
from engage_core.testing import InMemoryJobQueue, InMemoryUnitOfWorkFactory


@pytest.fixture
def connected(api: Api) -> str:
    """The tenant's LinkedIn account, connected through the sandbox."""
    response = api.post("/channels/linkedin/connect", json={"username": "ada@example.com", "password": "pw"})
    assert response.status_code == 200, response.text
    return str(response.json()["data"]["account_id"])


@pytest.fixture
def drain(uow: InMemoryUnitOfWorkFactory, clock: FakeClock, services: Services) -> Callable[[], None]:
    runner = JobRunner(InMemoryJobQueue(uow.store), services.job_handlers(), clock)

    def run() -> None:
        while runner.run_once():
            pass

    return run


def _search(api: Api, **body: Any) -> dict[str, Any]:
    response = api.post("/linkedin/sourcing/search", json=body)
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()["data"]
    return data


def test_search_answers_items_with_the_spec_fields_and_a_next_cursor(api: Api, connected: str) -> None:
    """Each item has provider_id, name, headline, location, company and profile_url."""
    data = _search(api, keywords="engineer", limit=2)

    assert len(data["items"]) == 2 and data["next_cursor"]
    assert set(data["items"][0]) == {"provider_id", "name", "headline", "location", "company", "profile_url"}


def test_the_next_cursor_continues_the_search(api: Api, connected: str) -> None:
    """The second page starts after the first."""
    first = _search(api, company="acme", limit=3)
    second = _search(api, company="acme", limit=3, cursor=first["next_cursor"])

    assert not {i["provider_id"] for i in first["items"]} & {i["provider_id"] for i in second["items"]}


def test_a_search_without_criteria_is_a_422(api: Api, connected: str) -> None:
    """`limit` alone is not a search."""
    response = api.post("/linkedin/sourcing/search", json={"limit": 5})

    assert response.status_code == 422


def test_launching_an_invite_campaign_answers_201_with_the_campaign_and_quota(
    api: Api, connected: str, drain: Callable[[], None], sandbox: SandboxGateway
) -> None:
    """The campaign runs on linkedin; the worker sends one invitation per member with the note."""
    ids = [i["provider_id"] for i in _search(api, title="founder", limit=3)["items"]]
    response = api.post(
        "/linkedin/sourcing/launch-campaign",
        json={"name": "Founders", "campaign_type": "invite", "provider_ids": ids, "invite_note": "Hello!"},
    )
    assert response.status_code == 201, response.text
    data = response.json()["data"]
    drain()

    campaign = api.get(f"/campaigns/{data['campaign']['id']}").json()["data"]
    assert (data["campaign"]["channel"], data["campaign_type"], data["contacts_created"]) == ("linkedin", "invite", 3)
    assert data["invitations"] == {"used": 0, "weekly_cap": 100, "left": 100, "warning": False}
    assert (campaign["status"], campaign["success_count"]) == ("completed", 3)
    assert sandbox.account(connected).invited == dict.fromkeys(ids, "Hello!")


def test_a_note_of_201_characters_is_a_422(api: Api, connected: str) -> None:
    """SPEC 8: an invite note is at most 200 characters."""
    response = api.post(
        "/linkedin/sourcing/launch-campaign",
        json={"name": "A", "campaign_type": "invite", "provider_ids": ["sbx-li-00001"], "invite_note": "x" * 201},
    )

    assert response.status_code == 422
    assert "invite_note" in response.json()["errors"]


def test_a_sequence_launch_answers_its_messages(api: Api, connected: str) -> None:
    """The steps come back with their waits."""
    steps = [{"text": "Hi {{first_name|there}}"}, {"text": "Any news?", "wait_days": 3}]
    response = api.post(
        "/linkedin/sourcing/launch-campaign",
        json={"name": "Seq", "campaign_type": "sequence", "provider_ids": ["sbx-li-00002"], "sequence_messages": steps},
    )

    assert response.status_code == 201, response.text
    assert response.json()["data"]["sequence_messages"] == [
        {"text": "Hi {{first_name|there}}", "wait_days": 0},
        {"text": "Any news?", "wait_days": 3},
    ]


def test_the_overview_answers_connection_inbox_campaigns_and_standing(api: Api, connected: str) -> None:
    """Connected, an empty inbox, no campaign, the sandbox's InMail credits, no Recruiter contract."""
    response = api.get("/linkedin/overview")

    assert response.status_code == 200, response.text
    data = response.json()["data"]
    assert data["connection"]["connected"] is True
    assert data["inbox"] == {"conversations": 0, "unread_messages": 0}
    assert (data["active_campaigns"], data["inmail_balance"], data["recruiter_contract"]) == ([], 40, False)


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("GET", "/linkedin/overview", None),
        ("POST", "/linkedin/sourcing/search", {"keywords": "x"}),
        ("POST", "/linkedin/sourcing/launch-campaign", {"name": "A", "campaign_type": "invite", "provider_ids": ["a"]}),
    ],
)
def test_without_linkedin_access_each_route_is_403_linkedin_upgrade_required(
    api: Api, services: Services, method: str, path: str, body: dict[str, Any] | None
) -> None:
    """The plan without `linkedin_access`: 403 with code `linkedin_upgrade_required`, reads included."""
    services.plans.update("business", PlanPatch(features={"linkedin_access": False}))

    response = api.request(method, path, json=body)

    assert (response.status_code, response.json()["code"]) == (403, "linkedin_upgrade_required")
