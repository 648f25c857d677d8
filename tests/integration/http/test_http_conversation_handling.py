"""Who answers a conversation over HTTP: `GET /conversations/{contact_id}/handling`, `POST .../take-over`,
`POST .../release`, and `handled_by` in `GET /conversations`, over the fakes and the sandbox gateway."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from http_support import Api, Tenant

from engage_core.contacts.model import Contact
from engage_core.messaging.channels import ChannelAccount
from engage_core.messaging.sandbox import SandboxGateway
from engage_core.services import Services
from engage_core.team.model import TeamMember
from engage_core.testing import FakeClock, InMemoryUnitOfWorkFactory

MakeContact = Callable[..., Contact]


@pytest.fixture
def contact(tenant: Tenant, make_contact: MakeContact) -> Contact:
    return make_contact(tenant, name="Ada")


def conversation_events(uow: InMemoryUnitOfWorkFactory, tenant: Tenant) -> list[tuple[str, dict[str, Any]]]:
    return [
        (e.name, dict(e.payload)) for e in uow.store.events(tenant.account_id) if e.name.startswith("conversation.")
    ]


def test_a_contact_never_moved_is_handled_by_the_ai(api: Api, contact: Contact) -> None:
    """`GET .../handling` of a new contact: `ai`, and nulls."""
    body = api.get(f"/conversations/{contact.id}/handling").json()

    assert body["data"] == {
        "contact_id": contact.id,
        "handled_by": "ai",
        "reason": None,
        "assignee_id": None,
        "context_since": None,
        "updated_at": None,
    }


def test_a_take_over_without_a_body_hands_the_conversation_to_a_human(
    api: Api, contact: Contact, uow: InMemoryUnitOfWorkFactory, tenant: Tenant
) -> None:
    """No body: `human` with no assignee, 200, and `conversation.taken_over`."""
    response = api.post(f"/conversations/{contact.id}/take-over")

    assert response.status_code == 200, response.text
    assert (response.json()["data"]["handled_by"], response.json()["message"]) == ("human", "Conversation taken over.")
    assert [name for name, _ in conversation_events(uow, tenant)] == ["conversation.taken_over"]


def test_a_take_over_names_the_team_member(
    api: Api, contact: Contact, tenant: Tenant, make_member: Callable[..., TeamMember]
) -> None:
    """`team_member_id` becomes the `assignee_id`."""
    member = make_member(tenant)

    data = api.post(f"/conversations/{contact.id}/take-over", json={"team_member_id": member.id}).json()["data"]

    assert (data["handled_by"], data["assignee_id"]) == ("human", member.id)


def test_another_accounts_team_member_cannot_take_over(
    api: Api, contact: Contact, make_tenant: Callable[..., Tenant], make_member: Callable[..., TeamMember]
) -> None:
    """A member of another workspace is a 422 on `team_member_id` (as for ticket assignees); nothing moves."""
    theirs = make_member(make_tenant("Other"))

    body = api.post(f"/conversations/{contact.id}/take-over", json={"team_member_id": theirs.id}).json()

    assert list(body["errors"]) == ["team_member_id"]
    assert api.get(f"/conversations/{contact.id}/handling").json()["data"]["handled_by"] == "ai"


def test_a_take_over_body_must_be_an_id(api: Api, contact: Contact) -> None:
    """A `team_member_id` that is not a positive integer is a 422 on the field."""
    body = api.post(f"/conversations/{contact.id}/take-over", json={"team_member_id": "Ada"}).json()

    assert list(body["errors"]) == ["team_member_id"]


def test_taking_over_twice_answers_200_and_emits_once(
    api: Api, contact: Contact, uow: InMemoryUnitOfWorkFactory, tenant: Tenant
) -> None:
    """A retried take-over is harmless: the same state, no second event."""
    first = api.post(f"/conversations/{contact.id}/take-over").json()["data"]
    again = api.post(f"/conversations/{contact.id}/take-over")

    assert (again.status_code, again.json()["data"]) == (200, first)
    assert len(conversation_events(uow, tenant)) == 1


def test_a_release_gives_the_conversation_back_to_the_ai(
    api: Api, contact: Contact, uow: InMemoryUnitOfWorkFactory, tenant: Tenant
) -> None:
    """human -> ai, 200, `conversation.released`."""
    api.post(f"/conversations/{contact.id}/take-over")

    body = api.post(f"/conversations/{contact.id}/release").json()

    assert (body["data"]["handled_by"], body["message"]) == ("ai", "Conversation released.")
    assert [name for name, _ in conversation_events(uow, tenant)][-1] == "conversation.released"


def test_releasing_an_ai_conversation_answers_200_unchanged(
    api: Api, contact: Contact, uow: InMemoryUnitOfWorkFactory, tenant: Tenant
) -> None:
    """A release where the AI answers already changes nothing and emits nothing."""
    response = api.post(f"/conversations/{contact.id}/release")

    assert (response.status_code, response.json()["data"]["updated_at"]) == (200, None)
    assert conversation_events(uow, tenant) == []


@pytest.mark.parametrize("action", ["take-over", "release"])
def test_an_unknown_contact_is_404(api: Api, action: str) -> None:
    """A contact the account does not have answers 404."""
    assert api.post(f"/conversations/999/{action}").status_code == 404


def test_waiting_for_a_human_is_visible_in_the_conversation_list(
    api: Api,
    tenant: Tenant,
    services: Services,
    connect_channel: Callable[..., ChannelAccount],
    sandbox: SandboxGateway,
    clock: FakeClock,
) -> None:
    """After the AI hands a conversation over, `GET /conversations` shows it `pending` and
    `handled_by=pending` lists it alone."""
    provider = connect_channel(tenant, "whatsapp").provider_account_id or ""
    for sender in ("+14155550101", "+14155550102"):
        clock.advance(seconds=1)
        sandbox.inject_message(provider, sender, "Hello", sender_name=sender)
    waiting = api.get("/conversations").json()["data"][0]["contact_id"]
    services.conversation_handling.hand_over(tenant.account_id, waiting, "Asks for a refund")

    everything = api.get("/conversations").json()["data"]
    pending = api.get("/conversations", params={"handled_by": "pending"}).json()

    assert (everything[0]["contact_id"], everything[0]["handled_by"]) == (waiting, "pending")
    assert {c["handled_by"] for c in everything[1:]} == {"ai"}
    assert ([c["contact_id"] for c in pending["data"]], pending["meta"]["total"]) == ([waiting], 1)
    handling = api.get(f"/conversations/{waiting}/handling").json()["data"]
    assert (handling["handled_by"], handling["reason"]) == ("pending", "Asks for a refund")


def test_an_unknown_handled_by_filter_is_422(api: Api) -> None:
    """`handled_by` outside ai, pending, human answers 422 on the field."""
    body = api.get("/conversations", params={"handled_by": "bot"}).json()

    assert list(body["errors"]) == ["handled_by"]


def test_the_event_payload_carries_the_state(
    api: Api, contact: Contact, uow: InMemoryUnitOfWorkFactory, tenant: Tenant, clock: FakeClock
) -> None:
    """`conversation.taken_over` data: contact_id, handled_by, reason, assignee_id, context_since, occurred_at."""
    api.post(f"/conversations/{contact.id}/take-over")

    [(_, data)] = conversation_events(uow, tenant)

    assert data == {
        "contact_id": contact.id,
        "handled_by": "human",
        "reason": None,
        "assignee_id": None,
        "context_since": None,
        "occurred_at": clock.now().strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
    }
