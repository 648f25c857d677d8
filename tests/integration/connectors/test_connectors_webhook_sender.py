"""HttpWebhookSender against a real local HTTPS receiver: only 2xx in time is success (SPEC 6)."""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import pytest
import trustme
from receiver import Answer, MakeReceiver

from engage_connectors.webhook_sender import HttpWebhookSender
from engage_core.webhooks.model import RESPONSE_EXCERPT_LIMIT

MakeSender = Callable[..., HttpWebhookSender]

HEADERS = {"Content-Type": "application/json", "X-Service-Event": "contact.created"}
BODY = '{"event":"contact.created","data":{"name":"Zoë"}}'.encode()


@pytest.mark.parametrize("status", [200, 201, 202, 204, 299])
def test_a_2xx_answer_is_a_success(make_receiver: MakeReceiver, make_sender: MakeSender, status: int) -> None:
    """Any 2xx status is a successful delivery."""
    receiver = make_receiver()
    receiver.answer_with(Answer(status, b"" if status == 204 else b"thanks"))
    outcome = make_sender().send(receiver.url(), HEADERS, BODY)
    assert outcome.succeeded
    assert (outcome.status_code, outcome.error) == (status, None)


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308, 400, 401, 404, 405, 410, 429, 500, 502, 503])
def test_any_other_status_is_a_failure(make_receiver: MakeReceiver, make_sender: MakeSender, status: int) -> None:
    """3xx, 4xx (404 and 405 included) and 5xx answers are failed attempts, with the status kept."""
    receiver = make_receiver()
    receiver.answer_with(Answer(status, b"nope", {"Location": receiver.url("/moved")}))
    outcome = make_sender().send(receiver.url(), HEADERS, BODY)
    assert not outcome.succeeded
    assert outcome.status_code == status


@pytest.mark.parametrize("status", [301, 302, 307, 308])
def test_a_redirect_is_not_followed(make_receiver: MakeReceiver, make_sender: MakeSender, status: int) -> None:
    """A redirect answer ends the attempt: the Location is never requested."""
    receiver = make_receiver()
    receiver.answer_with(Answer(status, b"", {"Location": receiver.url("/moved")}), Answer(200))
    make_sender().send(receiver.url("/hook"), HEADERS, BODY)
    time.sleep(0.1)
    assert [r.path for r in receiver.requests] == ["/hook"]


def test_the_exact_body_and_headers_are_posted(make_receiver: MakeReceiver, make_sender: MakeSender) -> None:
    """The receiver gets a POST with the body bytes unchanged and every given header."""
    receiver = make_receiver()
    make_sender().send(receiver.url("/in?x=1"), HEADERS, BODY)
    [request] = receiver.wait_for(1)
    assert (request.method, request.path, request.body) == ("POST", "/in?x=1", BODY)
    assert {k.lower(): v for k, v in HEADERS.items()}.items() <= request.headers.items()


def test_the_answer_is_asked_for_without_compression(make_receiver: MakeReceiver, make_sender: MakeSender) -> None:
    """The sender asks for an identity-coded answer (no decompression bomb to unpack)."""
    receiver = make_receiver()
    make_sender().send(receiver.url(), HEADERS, BODY)
    assert receiver.wait_for(1)[0].header("accept-encoding") == "identity"


def test_the_answer_body_is_kept_as_an_excerpt(make_receiver: MakeReceiver, make_sender: MakeSender) -> None:
    """The receiver's answer body is recorded (for the delivery log)."""
    receiver = make_receiver()
    receiver.answer_with(Answer(500, "database down ☹".encode()))
    assert make_sender().send(receiver.url(), HEADERS, BODY).body_excerpt == "database down ☹"


def test_a_huge_answer_is_read_only_up_to_the_excerpt_limit(
    make_receiver: MakeReceiver, make_sender: MakeSender
) -> None:
    """A 1 GiB answer is cut at the excerpt limit and the connection dropped, not read to the end."""
    receiver = make_receiver()
    receiver.answer_with(Answer(200, huge_body=1 << 30))
    started = time.monotonic()
    outcome = make_sender().send(receiver.url(), HEADERS, BODY)
    assert outcome.succeeded
    assert outcome.body_excerpt == "x" * RESPONSE_EXCERPT_LIMIT
    assert time.monotonic() - started < 3
    for _ in range(50):
        if receiver.stats.body_aborted:
            break
        time.sleep(0.05)
    assert receiver.stats.body_aborted
    assert receiver.stats.body_bytes_written < 64 << 20


def test_an_answer_later_than_the_timeout_is_a_failure(make_receiver: MakeReceiver, make_sender: MakeSender) -> None:
    """A receiver that answers after the timeout has failed, even with a 200."""
    receiver = make_receiver()
    receiver.answer_with(Answer(200, delay=3.0))
    started = time.monotonic()
    outcome = make_sender(timeout=0.5).send(receiver.url(), HEADERS, BODY)
    assert (outcome.succeeded, outcome.status_code) == (False, None)
    assert outcome.error == "The receiver did not answer in time."
    assert time.monotonic() - started < 2


def test_the_timeout_bounds_the_whole_answer_not_each_read(
    make_receiver: MakeReceiver, make_sender: MakeSender
) -> None:
    """An answer dripped a byte at a time, each within the timeout, still fails once the timeout has passed."""
    receiver = make_receiver()
    receiver.answer_with(Answer(200, drip=0.05))  # ~260 bytes of head: 13 s in all
    started = time.monotonic()
    outcome = make_sender(timeout=1.0).send(receiver.url(), HEADERS, BODY)
    assert (outcome.succeeded, outcome.error) == (False, "The receiver did not answer in time.")
    assert time.monotonic() - started < 3


def test_a_closed_port_is_a_connection_failure(make_receiver: MakeReceiver, make_sender: MakeSender) -> None:
    """Nothing listening is a failed attempt with the connection error recorded."""
    receiver = make_receiver()
    url = receiver.url()
    receiver.close()
    outcome = make_sender().send(url, HEADERS, BODY)
    assert (outcome.succeeded, outcome.status_code) == (False, None)
    assert outcome.error is not None and outcome.error.startswith("ConnectError")


def test_an_untrusted_certificate_is_a_failure(make_receiver: MakeReceiver, make_sender: MakeSender) -> None:
    """A certificate from a CA nobody trusts fails the TLS handshake; no request is sent."""
    receiver = make_receiver(authority=trustme.CA())
    outcome = make_sender().send(receiver.url(), HEADERS, BODY)
    assert (outcome.succeeded, outcome.status_code) == (False, None)
    assert outcome.error is not None and "CERTIFICATE_VERIFY_FAILED" in outcome.error
    assert receiver.requests == []


def test_a_certificate_for_another_name_is_a_failure(make_receiver: MakeReceiver, make_sender: MakeSender) -> None:
    """The certificate must name the host in the URL: one for 127.0.0.1 does not serve `127.0.0.2`."""
    receiver = make_receiver()
    outcome = make_sender(allowed_hosts="127.0.0.0/8").send(receiver.url(host="127.0.0.2"), HEADERS, BODY)
    assert not outcome.succeeded
    assert receiver.requests == []


def test_trust_comes_from_ssl_cert_file(make_receiver: MakeReceiver, make_sender: MakeSender) -> None:
    """Without SSL_CERT_FILE naming the test CA, the same receiver is not trusted."""
    receiver = make_receiver()
    outcome = make_sender(trust_test_ca=False).send(receiver.url(), HEADERS, BODY)
    assert outcome.error is not None and "CERTIFICATE_VERIFY_FAILED" in outcome.error


def test_loopback_is_refused_unless_allowed(make_receiver: MakeReceiver, make_sender: MakeSender) -> None:
    """Without ENGAGE_WEBHOOK_ALLOWED_HOSTS the local receiver is refused before any connection."""
    receiver = make_receiver()
    outcome = make_sender(allowed_hosts="").send(receiver.url(), HEADERS, BODY)
    assert (outcome.succeeded, outcome.status_code) == (False, None)
    assert outcome.error == "The address 127.0.0.1 is not allowed as a target."
    assert receiver.stats.connections == 0


def test_a_hostname_can_be_allowed_by_name(make_receiver: MakeReceiver, make_sender: MakeSender) -> None:
    """ENGAGE_WEBHOOK_ALLOWED_HOSTS=localhost lets `https://localhost:port` through."""
    receiver = make_receiver()
    outcome = make_sender(allowed_hosts="localhost").send(receiver.url(host="localhost"), HEADERS, BODY)
    assert outcome.succeeded


def test_an_invalid_url_is_a_failure_not_an_exception(make_sender: MakeSender) -> None:
    """A URL httpx cannot parse is reported as a failed attempt (the sender never raises)."""
    outcome = make_sender().send("https://0177.0.0.1:99999/", HEADERS, BODY)
    assert (outcome.succeeded, outcome.status_code) == (False, None)
    assert outcome.error is not None and outcome.error.startswith("InvalidURL")


def test_one_sender_serves_concurrent_deliveries(make_receiver: MakeReceiver, make_sender: MakeSender) -> None:
    """The sender is shared by the worker's threads: concurrent sends all arrive."""
    receiver = make_receiver()
    sender = make_sender()
    with ThreadPoolExecutor(8) as pool:
        outcomes = list(pool.map(lambda i: sender.send(receiver.url(f"/{i}"), HEADERS, BODY), range(16)))
    assert all(o.succeeded for o in outcomes)
    assert sorted(r.path for r in receiver.wait_for(16)) == sorted(f"/{i}" for i in range(16))


def test_consecutive_deliveries_to_one_host_share_one_connection(
    make_receiver: MakeReceiver, make_sender: MakeSender
) -> None:
    """The TLS connection is kept alive and reused: five deliveries, one handshake."""
    receiver = make_receiver()
    sender = make_sender()
    outcomes = [sender.send(receiver.url(f"/{i}"), HEADERS, BODY) for i in range(5)]
    assert all(o.succeeded for o in outcomes)
    assert receiver.stats.connections == 1


def test_the_host_header_names_the_target_and_its_port(make_receiver: MakeReceiver, make_sender: MakeSender) -> None:
    """The request carries `Host: host:port` of the URL, and the length of the body."""
    receiver = make_receiver()
    make_sender().send(receiver.url(), HEADERS, BODY)
    [request] = receiver.wait_for(1)
    assert (request.header("host"), request.header("content-length")) == (f"127.0.0.1:{receiver.port}", str(len(BODY)))


def test_a_cookie_set_by_a_receiver_is_never_sent_back(make_receiver: MakeReceiver, make_sender: MakeSender) -> None:
    """The sender keeps no cookies: what one answer sets, no later delivery carries."""
    receiver = make_receiver()
    receiver.answer_with(Answer(200, headers={"Set-Cookie": "session=abc; Path=/"}))
    sender = make_sender()
    sender.send(receiver.url(), HEADERS, BODY)
    sender.send(receiver.url(), HEADERS, BODY)
    assert [request.header("cookie") for request in receiver.wait_for(2)] == [None, None]


def test_a_url_that_is_not_http_is_a_failure_not_an_exception(make_sender: MakeSender) -> None:
    """Only http(s) URLs are sent to; any other scheme is a failed attempt."""
    outcome = make_sender().send("ftp://127.0.0.1/hook", HEADERS, BODY)
    assert (outcome.succeeded, outcome.status_code) == (False, None)
    assert outcome.error is not None and outcome.error.startswith("UnsupportedProtocol")
