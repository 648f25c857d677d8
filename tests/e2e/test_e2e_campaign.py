"""A campaign through a real `engage serve` on loopback and its sandbox gateway: to a list plus a
segment (overlapping), paused midway, resumed, receipts arriving, completed; every recipient gets
the message exactly once."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

pytestmark = pytest.mark.e2e

STALL_LIMIT = 60.0


@pytest.fixture(scope="module")
def server(start_server: Callable[..., Any]) -> Any:
    return start_server(env={"ENGAGE_RATE_LIMIT": "100000"})  # the test polls


@pytest.fixture
def client(server: Any) -> Iterator[httpx.Client]:
    headers = {"X-Api-Key": server.create_account("Campaigns")}
    with httpx.Client(base_url=f"{server.base_url}/api/v1", headers=headers, timeout=10.0) as http:
        yield http


def ok(response: httpx.Response) -> Any:
    assert response.status_code < 300, response.text
    return response.json()["data"] if response.content else None


def wait_until(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + STALL_LIMIT
    while not condition():
        assert time.monotonic() < deadline, f"{what}: not in {STALL_LIMIT:.0f} s"
        time.sleep(0.1)


def test_a_campaign_is_paused_resumed_and_completed_with_every_recipient_once(client: httpx.Client) -> None:
    """Six contacts (four in the list, three in the segment, one in both): six messages, once each."""
    ok(client.post("/channels/whatsapp/connect"))
    ok(client.post("/sandbox/channels/whatsapp/scan", json={}))
    contacts = [
        ok(client.post("/contacts", json={"name": f"Guest {n}", "type": "whatsapp", "phone": f"+1415555{n:04d}"}))
        for n in range(6)
    ]
    newsletter = ok(client.post("/contacts/lists", json={"name": "Newsletter"}))
    segment = ok(client.post("/contacts/segments", json={"name": "Hand picked"}))
    for contact in contacts[:4]:
        ok(client.post(f"/contacts/{contact['id']}/lists", json={"list_id": newsletter["id"]}))
    for contact in contacts[3:]:
        ok(client.post(f"/contacts/{contact['id']}/segments", json={"segment_id": segment["id"]}))
    campaign = ok(
        client.post(
            "/campaigns",
            json={
                "name": "Launch",
                "channel": "whatsapp",
                "message": "Hello {{first_name|there}}",
                "list_ids": [newsletter["id"]],
                "segment_ids": [segment["id"]],
                "send_rate": 60,
            },
        )
    )
    path = f"/campaigns/{campaign['id']}"

    started = ok(client.post(f"{path}/start"))
    assert (started["status"], started["total_contacts"]) == ("running", 6)

    wait_until(lambda: ok(client.get(path))["stats"]["sent"] >= 2, "two messages sent")
    paused = ok(client.post(f"{path}/pause"))
    assert paused["status"] == "paused"
    wait_until(lambda: ok(client.get(f"{path}/contacts", params={"status": "sending"})) == [], "the send in flight")
    held = ok(client.get(path))["stats"]
    assert 2 <= held["sent"] < 6 and held["pending"] == 6 - held["sent"]

    ok(client.post(f"{path}/resume"))
    wait_until(lambda: ok(client.get(path))["status"] == "completed", "the campaign completed")

    recipients = ok(client.get(f"{path}/contacts"))
    assert sorted(r["contact_id"] for r in recipients) == sorted(c["id"] for c in contacts)
    assert {r["status"] for r in recipients} == {"sent"}
    for contact in contacts:
        outbound = ok(client.get(f"/contacts/{contact['id']}/messages", params={"direction": "outbound"}))
        assert [m["content"] for m in outbound] == [f"Hello {contact['name'].split()[0]}"]

    first, second = recipients[0]["message_id"], recipients[1]["message_id"]
    ok(client.post(f"/sandbox/messages/{first}/receipts", json={"status": "delivered"}))
    ok(client.post(f"/sandbox/messages/{first}/receipts", json={"status": "read"}))
    ok(client.post(f"/sandbox/messages/{second}/receipts", json={"status": "delivered"}))

    done = ok(client.get(path))
    assert (done["success_count"], done["stats"]["delivered"], done["stats"]["read"]) == (6, 2, 1)
    read = ok(client.get(f"{path}/contacts", params={"status": "read"}))
    assert [r["message_id"] for r in read] == [first]
