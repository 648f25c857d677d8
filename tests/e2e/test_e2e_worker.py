"""A real `engage worker` process delivering to a local HTTPS receiver, and stopping on signals."""

from __future__ import annotations

import json
import signal
import time
from collections.abc import Callable

import pytest
from worker_processes import MakeOutbox, StartWorker

from engage_core.webhooks.signatures import sign_body

pytestmark = pytest.mark.e2e


def _wait_until(condition: Callable[[], bool], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"not reached within {timeout} s")
        time.sleep(0.05)


def test_the_worker_delivers_a_queued_event_signed(make_outbox: MakeOutbox, start_worker: StartWorker) -> None:
    """A queued contact.created reaches the receiver, signed with the subscription's secret."""
    outbox = make_outbox()
    start_worker(outbox.database_url)
    [request] = outbox.receiver.wait_for(1, timeout=30)
    assert request.header("X-Service-Signature-256") == sign_body(outbox.secret, request.body)
    assert json.loads(request.body)["data"]["name"] == outbox.contact_names[0]


def test_sigterm_finishes_the_send_in_progress_and_exits_0(make_outbox: MakeOutbox, start_worker: StartWorker) -> None:
    """SIGTERM during a slow send: the answer is awaited and recorded, then the worker exits 0."""
    outbox = make_outbox(delay=1.5)
    worker = start_worker(outbox.database_url)
    outbox.receiver.wait_for(1, timeout=30)
    worker.signal(signal.SIGTERM)
    assert worker.wait() == 0, worker.output()
    assert [(a.status, a.response_status_code) for a in outbox.log()] == [("delivered", 200)]
    assert len(outbox.receiver.requests) == 1


def test_sigint_stops_the_worker_like_sigterm(make_database_url: Callable[..., str], start_worker: StartWorker) -> None:
    """Ctrl+C (SIGINT) stops an idle worker cleanly, with status 0."""
    worker = start_worker(make_database_url())
    _wait_until(lambda: "Delivering webhooks" in worker.output())
    worker.signal(signal.SIGINT)
    assert worker.wait() == 0, worker.output()


def test_a_second_signal_exits_at_once_with_status_1(make_outbox: MakeOutbox, start_worker: StartWorker) -> None:
    """A second SIGTERM does not wait for a send in progress: the attempt stays pending for its lease."""
    outbox = make_outbox(delay=20)
    worker = start_worker(outbox.database_url)
    outbox.receiver.wait_for(1, timeout=30)
    worker.signal(signal.SIGTERM)
    _wait_until(lambda: "Stopping" in worker.output())
    worker.signal(signal.SIGTERM)
    assert worker.wait(timeout=15) == 1, worker.output()  # well before the send's 20 s
    assert [a.status for a in outbox.log()] == ["pending"]


def test_each_attempt_is_logged_by_delivery_id_without_secrets_or_body(
    make_outbox: MakeOutbox, start_worker: StartWorker
) -> None:
    """One log line names the event, delivery_id, attempt and status; no secret, signature, URL or body."""
    outbox = make_outbox()
    worker = start_worker(outbox.database_url)
    [request] = outbox.receiver.wait_for(1, timeout=30)
    _wait_until(lambda: "outcome=delivered" in worker.output())
    worker.signal(signal.SIGTERM)
    worker.wait()
    output = worker.output()
    [line] = [line for line in output.splitlines() if "webhook attempt" in line]
    delivery_id = request.header("X-Service-Delivery")
    assert f"event=contact.created delivery_id={delivery_id} attempt=1" in line
    assert "outcome=delivered status=200" in line
    for secret in (outbox.secret, request.header("X-Service-Signature-256"), "/hook", outbox.contact_names[0]):
        assert secret is not None
        assert secret not in output


def test_with_json_logs_every_line_of_the_worker_is_a_json_object(
    make_outbox: MakeOutbox, start_worker: StartWorker
) -> None:
    """ENGAGE_LOG_FORMAT=json: the start-up and each delivery attempt are JSON lines (request id `-`)."""
    outbox = make_outbox()
    worker = start_worker(outbox.database_url, env={"ENGAGE_LOG_FORMAT": "json"})
    _wait_until(lambda: "webhook attempt" in worker.output())

    lines = [json.loads(line) for line in worker.output().splitlines() if line.strip()]

    attempts = [line for line in lines if line["logger"] == "engage.delivery"]
    assert attempts and attempts[0]["message"].startswith("webhook attempt")
    assert {line["request_id"] for line in lines} == {"-"}
