"""How HostedMessagingClient fails: each provider outage maps to its exception within the timeout,
odd answers are protocol errors, and neither the API key nor a password ever reaches the logs."""

from __future__ import annotations

import logging
import socket
import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from fake_provider import FakeProvider

from engage_connectors.hosted_messaging import (
    HostedMessagingClient,
    HostedMessagingError,
    NotFound,
    Provider,
    ProviderAuthFailed,
    ProviderProtocolError,
    ProviderRejected,
    ProviderServerError,
    ProviderTimeout,
    ProviderUnavailable,
    ProviderUnreachable,
)

TIMEOUT = 0.5
SLACK = 1.5  # scheduling leeway on a loaded machine; far below how long the fake would stall


@pytest.fixture
def provider() -> Iterator[FakeProvider]:
    with FakeProvider() as fake:
        yield fake


@pytest.fixture
def client(provider: FakeProvider) -> Iterator[HostedMessagingClient]:
    client = HostedMessagingClient(provider.url, provider.api_key, timeout=TIMEOUT)
    yield client
    client.close()


def answering(status: int, body: Any = None, *, content: bytes | None = None) -> HostedMessagingClient:
    """A client whose every request gets this answer (no network)."""

    def handle(request: httpx.Request) -> httpx.Response:
        if content is not None:
            return httpx.Response(status, content=content)
        return httpx.Response(status, json=body)

    return HostedMessagingClient("https://api1.provider.test:13000", "key-xyz", transport=httpx.MockTransport(handle))


def timed(call: Callable[[], object]) -> tuple[BaseException, float]:
    started = time.monotonic()
    with pytest.raises(HostedMessagingError) as caught:
        call()
    return caught.value, time.monotonic() - started


# -- outages over the network ------------------------------------------------------------------------


def test_a_500_is_a_server_error_with_the_providers_detail(
    provider: FakeProvider, client: HostedMessagingClient
) -> None:
    """A 500 answer raises ProviderServerError carrying the status and the provider's detail."""
    provider.outage("error")
    with pytest.raises(ProviderServerError) as caught:
        client.connect_qr(Provider.WHATSAPP)
    assert caught.value.status == 500
    assert "An unexpected error occurred." in str(caught.value)


def test_a_connection_reset_is_unreachable(provider: FakeProvider, client: HostedMessagingClient) -> None:
    """A provider that hangs up without answering raises ProviderUnreachable."""
    provider.outage("reset")
    with pytest.raises(ProviderUnreachable):
        client.connect_qr(Provider.WHATSAPP)


def test_a_refused_connection_is_unreachable(provider: FakeProvider, client: HostedMessagingClient) -> None:
    """A provider that is not listening raises ProviderUnreachable, quickly."""
    provider.close()
    error, elapsed = timed(lambda: client.connect_qr(Provider.WHATSAPP))
    assert isinstance(error, ProviderUnreachable)
    assert elapsed < TIMEOUT + SLACK


def test_a_provider_that_does_not_answer_times_out(provider: FakeProvider, client: HostedMessagingClient) -> None:
    """A provider that stays silent raises ProviderTimeout once the timeout has passed, not later."""
    provider.outage("hang", seconds=30)
    error, elapsed = timed(lambda: client.connect_qr(Provider.WHATSAPP))
    assert isinstance(error, ProviderTimeout)
    assert TIMEOUT * 0.9 <= elapsed < TIMEOUT + SLACK


def test_a_dripping_answer_is_cut_at_the_timeout(provider: FakeProvider, client: HostedMessagingClient) -> None:
    """An answer dripped a byte at a time (each read within the timeout) still ends at the timeout."""
    provider.outage("drip", seconds=0.05)  # about 80 header bytes: 4 seconds in all
    error, elapsed = timed(lambda: client.connect_qr(Provider.WHATSAPP))
    assert isinstance(error, ProviderTimeout)
    assert elapsed < TIMEOUT + SLACK


def test_an_unresolvable_host_is_unreachable(monkeypatch: pytest.MonkeyPatch) -> None:
    """A provider host name that does not resolve raises ProviderUnreachable."""

    def no_dns(*args: Any, **kwargs: Any) -> Any:
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(socket, "getaddrinfo", no_dns)
    client = HostedMessagingClient("https://api1.provider.test:13000", "key-xyz", timeout=TIMEOUT)
    with pytest.raises(ProviderUnreachable, match="could not be resolved"):
        client.account("acc_1")
    client.close()


def test_every_outage_is_a_provider_unavailable(provider: FakeProvider, client: HostedMessagingClient) -> None:
    """Errors, resets and silences all share ProviderUnavailable, the 'try again later' family."""
    failures = []
    for mode in ("error", "reset", "hang"):
        provider.outage(mode, seconds=30)
        with pytest.raises(HostedMessagingError) as caught:
            client.account("acc_1")
        failures.append(caught.value)
    assert all(isinstance(failure, ProviderUnavailable) for failure in failures)


def test_the_client_works_again_once_the_outage_ends(provider: FakeProvider, client: HostedMessagingClient) -> None:
    """After an outage the same client sends normally: nothing is left stuck."""
    challenge = client.connect_qr(Provider.WHATSAPP)
    provider.scan(challenge.account_id)
    provider.outage("hang", seconds=30)
    with pytest.raises(ProviderTimeout):
        client.send_message(Provider.WHATSAPP, challenge.account_id, "+966512345678", "during")
    provider.outage(None)
    client.send_message(Provider.WHATSAPP, challenge.account_id, "+966512345678", "after")
    assert [sent.text for sent in provider.sent] == ["after"]


# -- answers that are not what they should be ----------------------------------------------------------


@pytest.mark.parametrize("status", [408, 429, 502, 503])
def test_throttling_and_gateway_errors_are_server_errors(status: int) -> None:
    """408, 429 and 5xx answers are ProviderServerError: worth retrying later."""
    with pytest.raises(ProviderServerError) as caught:
        answering(status, {"status": status, "detail": "slow down"}).account("acc_1")
    assert caught.value.status == status


def test_a_403_is_a_rejection_with_the_providers_words() -> None:
    """A 403 problem document raises ProviderRejected with its type and detail."""
    body = {"status": 403, "type": "errors/account_restricted", "detail": "The account has been restricted."}
    with pytest.raises(ProviderRejected) as caught:
        answering(403, body).account("acc_1")
    assert (caught.value.error_type, caught.value.detail) == ("errors/account_restricted", body["detail"])


def test_a_404_without_a_problem_document_is_not_found() -> None:
    """A bare 404 still raises NotFound, with the reason phrase as detail."""
    with pytest.raises(NotFound, match="Not Found"):
        answering(404, content=b"").account("acc_1")


def test_a_401_without_an_account_problem_type_is_an_auth_failure() -> None:
    """A 401 that is not about the network's login points at our API key."""
    with pytest.raises(ProviderAuthFailed):
        answering(401, content=b"Unauthorized").account("acc_1")


def test_a_body_that_is_not_json_is_a_protocol_error() -> None:
    """A 200 answer with an HTML body raises ProviderProtocolError."""
    with pytest.raises(ProviderProtocolError, match="not JSON"):
        answering(200, content=b"<html>maintenance</html>").account("acc_1")


def test_an_answer_missing_a_field_is_a_protocol_error() -> None:
    """A checkpoint answer without its checkpoint type raises ProviderProtocolError naming it."""
    body = {"object": "Checkpoint", "account_id": "acc_1", "checkpoint": {}}
    with pytest.raises(ProviderProtocolError, match="'type'"):
        answering(202, body).connect_credentials(Provider.LINKEDIN, "ada@example.com", "pw")


def test_an_unknown_account_status_is_a_protocol_error() -> None:
    """An account status the client does not know raises ProviderProtocolError, not a crash."""
    body = {"object": "Account", "id": "acc_1", "type": "WHATSAPP", "sources": [{"status": "HIBERNATING"}]}
    with pytest.raises(ProviderProtocolError, match="HIBERNATING"):
        answering(200, body).account("acc_1")


def test_a_failing_source_decides_the_account_status() -> None:
    """An account with one healthy and one failing source reports the failing status."""
    body = {
        "object": "Account",
        "id": "acc_1",
        "type": "LINKEDIN",
        "sources": [{"status": "OK"}, {"status": "CREDENTIALS"}],
    }
    assert answering(200, body).account("acc_1").status == "CREDENTIALS"


# -- secrets stay out of logs and errors ---------------------------------------------------------------


def test_the_api_key_and_passwords_never_reach_the_logs(
    provider: FakeProvider, client: HostedMessagingClient, caplog: pytest.LogCaptureFixture
) -> None:
    """Successful and failed calls are logged by method and path, never with the key or a password."""
    caplog.set_level(logging.DEBUG)
    provider.add_login(Provider.INSTAGRAM, "ada", "hunter2-password", rounds=("2FA",))
    stranger = HostedMessagingClient(provider.url, "other-key-4567", timeout=TIMEOUT)
    errors: list[BaseException] = []
    checkpoint = client.connect_credentials(Provider.INSTAGRAM, "ada", "hunter2-password")
    for call in (
        lambda: client.connect_credentials(Provider.INSTAGRAM, "ada", "wrong-password-77"),
        lambda: client.solve_checkpoint(Provider.INSTAGRAM, checkpoint.account_id, "000000-bad"),
        lambda: stranger.account("acc_1"),
    ):
        with pytest.raises(HostedMessagingError) as caught:
            call()
        errors.append(caught.value)
    provider.outage("hang", seconds=30)
    with pytest.raises(ProviderTimeout) as timeout:
        client.account(checkpoint.account_id)
    errors.append(timeout.value)
    stranger.close()
    assert "POST /api/v1/accounts" in caplog.text
    secrets = (provider.api_key, "other-key-4567", "hunter2-password", "wrong-password-77", "000000-bad")
    for secret in secrets:
        assert secret not in caplog.text
        assert all(secret not in str(error) for error in errors)
    assert provider.api_key not in repr(client)
