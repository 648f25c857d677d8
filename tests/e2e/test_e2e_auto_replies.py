"""Automatic replies through a real `engage serve` (the sandbox WhatsApp, the offline engine, the
in-process worker): an inbound message is answered through the sandbox gateway; taken over, the
next message is not; released, the AI answers again."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from sqlalchemy import create_engine, select

from engage_core.agents.replies import REPLY_JOB
from engage_sql.jobs.tables import jobs

pytestmark = pytest.mark.e2e

WAIT_SECONDS = 60.0
SHIPPING = "We ship to Canada and Mexico. Parcels to Canada take 7 to 14 days."
CUSTOMER = "+966501234567"


def wait_for(condition: Callable[[], Any], what: str) -> Any:
    """`condition()`'s first truthy value, polled until `WAIT_SECONDS` have passed."""
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        value = condition()
        if value:
            return value
        assert time.monotonic() < deadline, f"Timed out waiting for {what}"
        time.sleep(0.05)


class Workspace:
    """A new workspace of the server, with a default agent, a passage and a connected WhatsApp."""

    def __init__(self, server: Any) -> None:
        self.server = server
        self.http = httpx.Client(
            base_url=f"{server.base_url}/api/v1", headers={"X-Api-Key": server.create_account()}, timeout=10.0
        )
        self.call("POST", "/knowledge-base", {"title": "Shipping", "content": SHIPPING})
        self.call("POST", "/ai-agents", {"name": "Concierge", "system_prompt": "Be kind.", "is_default": True})
        self.call("POST", "/channels/whatsapp/connect")
        self.call("POST", "/sandbox/channels/whatsapp/scan")

    def call(self, method: str, path: str, body: Any = None) -> Any:
        response = self.http.request(method, path, json=body)
        assert response.status_code < 300, response.text
        return response.json()["data"]

    def customer_writes(self, text: str) -> dict[str, Any]:
        """The customer's message, as stored."""
        message: dict[str, Any] = self.call(
            "POST", "/sandbox/channels/whatsapp/messages", {"sender": CUSTOMER, "text": text}
        )
        return message

    def replies(self, contact_id: int) -> list[dict[str, Any]]:
        """The contact's outbound messages, oldest first."""
        found: list[dict[str, Any]] = self.call("GET", f"/contacts/{contact_id}/messages?direction=outbound")
        return found[::-1]

    def reply_job_status(self, message_id: int) -> str | None:
        """The status of the reply job of an inbound message (read from the server's database)."""
        engine = create_engine(self.server.database_url)
        try:
            with engine.connect() as connection:
                status: str | None = connection.execute(
                    select(jobs.c.status).where(jobs.c.kind == REPLY_JOB, jobs.c.key == str(message_id))
                ).scalar_one_or_none()
        finally:
            engine.dispose()
        return status


def test_the_ai_replies_stays_silent_when_taken_over_and_replies_again_once_released(
    start_server: Callable[..., Any],
) -> None:
    """Inbound → reply through the sandbox; take-over → no reply; release → reply again."""
    space = Workspace(start_server())

    first = space.customer_writes("How long do parcels to Canada take?")
    contact = first["contact_id"]
    # The reply is stored `pending` before it goes to the gateway: wait until the send has settled.
    [reply] = wait_for(lambda: [r for r in space.replies(contact) if r["status"] != "pending"], "the automatic reply")
    assert (reply["status"], reply["content"]) == ("sent", "Parcels to Canada take 7 to 14 days.")

    space.call("POST", f"/conversations/{contact}/take-over")
    second = space.customer_writes("Do you ship to Mexico?")
    wait_for(lambda: space.reply_job_status(second["id"]) == "succeeded", "the reply job of the taken-over message")
    assert len(space.replies(contact)) == 1

    space.call("POST", f"/conversations/{contact}/release")
    space.customer_writes("How long do parcels to Canada take?")
    replies = wait_for(lambda: space.replies(contact)[1:], "the reply after the release")
    assert [r["content"] for r in replies] == ["Parcels to Canada take 7 to 14 days."]
