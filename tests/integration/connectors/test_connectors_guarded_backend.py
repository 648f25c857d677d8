"""GuardedBackend: the SSRF check runs inside each new connection, against the address connected to.

DNS is replaced by a stub resolver that can change its answer between calls (a rebinding attack),
and, where a test must see what is connected to, the plain socket backend underneath is replaced
by one that records or redirects the connection.
"""

from __future__ import annotations

import socket
from collections.abc import Callable
from typing import Any, NoReturn

import httpcore
import httpx
import pytest
from receiver import Answer, MakeReceiver

from engage_connectors.guarded_http import GuardedBackend, guarded_client
from engage_connectors.ssrf import AddressPolicy, BlockedAddress, parse_ip_literal
from engage_connectors.target_guard import DnsTargetGuard
from engage_connectors.webhook_sender import HttpWebhookSender

PUBLIC = "93.184.216.34"
Resolver = Callable[..., list[Any]]


def records(*addresses: str) -> list[Any]:
    return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, 443)) for address in addresses]


@pytest.fixture
def resolve_as(monkeypatch: pytest.MonkeyPatch) -> Callable[..., list[str]]:
    """`resolve_as(*answers)`: each DNS look-up of a name returns the next answer (a list of IPv4
    strings), the last one repeating; numeric hosts resolve as usual. Returns the names looked up."""
    asked: list[str] = []

    def install(*answers: list[str]) -> list[str]:
        queue = list(answers)
        real = socket.getaddrinfo

        def getaddrinfo(host: str, *args: Any, **kwargs: Any) -> list[Any]:
            if parse_ip_literal(host) is not None:  # socket.create_connection's own call: no DNS involved
                return real(host, *args, **kwargs)
            asked.append(host)
            return records(*(queue.pop(0) if len(queue) > 1 else queue[0]))

        monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
        return asked

    return install


@pytest.fixture
def forbid_connections(monkeypatch: pytest.MonkeyPatch) -> None:
    """Opening any socket fails the test."""

    def refuse(*args: Any, **kwargs: Any) -> NoReturn:
        raise AssertionError(f"a socket was opened: {args!r}")

    monkeypatch.setattr(socket, "socket", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


def test_rebinding_after_creation_is_refused_at_connection(
    resolve_as: Callable[..., list[str]], forbid_connections: None
) -> None:
    """A name that resolved to a public address at creation and to loopback at send is refused, unconnected."""
    asked = resolve_as([PUBLIC], ["127.0.0.1"])
    policy = AddressPolicy()
    assert DnsTargetGuard(policy).refusal("https://rebind.example/hook") is None
    sender = HttpWebhookSender(policy, timeout=2.0)
    outcome = sender.send("https://rebind.example/hook", {}, b"{}")
    sender.close()
    assert outcome.error == "The host rebind.example resolves to an address that is not allowed."
    assert asked == ["rebind.example", "rebind.example"]


def test_the_backend_refuses_a_private_answer(resolve_as: Callable[..., list[str]], forbid_connections: None) -> None:
    """GuardedBackend.connect_tcp raises BlockedAddress for a name that resolves to a private address."""
    resolve_as(["10.0.0.8"])
    with pytest.raises(BlockedAddress):
        GuardedBackend(AddressPolicy()).connect_tcp("internal.example", 443, timeout=1.0)


def test_the_socket_is_opened_to_the_checked_address(
    resolve_as: Callable[..., list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The connection goes to the numeric address just checked, never to the name (no second look-up)."""
    resolve_as([PUBLIC])
    dialled: list[str] = []

    def dial(self: Any, host: str, port: int, *args: Any, **kwargs: Any) -> NoReturn:
        dialled.append(host)
        raise httpcore.ConnectError("unreachable in tests")

    monkeypatch.setattr(httpcore.SyncBackend, "connect_tcp", dial)
    with pytest.raises(httpcore.ConnectError):
        GuardedBackend(AddressPolicy()).connect_tcp("public.example", 443, timeout=1.0)
    assert dialled == [PUBLIC]


def test_the_peer_address_is_checked_after_connecting(
    resolve_as: Callable[..., list[str]], monkeypatch: pytest.MonkeyPatch, make_receiver: MakeReceiver
) -> None:
    """If the network delivers a connection for a public address to loopback, the peer check refuses it."""
    resolve_as([PUBLIC])
    receiver = make_receiver(tls=False)
    original = httpcore.SyncBackend.connect_tcp

    def misrouted(self: Any, host: str, port: int, *args: Any, **kwargs: Any) -> httpcore.NetworkStream:
        return original(self, "127.0.0.1", receiver.port, *args, **kwargs)

    monkeypatch.setattr(httpcore.SyncBackend, "connect_tcp", misrouted)
    with pytest.raises(BlockedAddress, match="reached a refused address"):
        GuardedBackend(AddressPolicy()).connect_tcp("public.example", 443, timeout=1.0)


def test_every_new_connection_is_checked_again(
    resolve_as: Callable[..., list[str]], make_receiver: MakeReceiver
) -> None:
    """A name allowed for one connection is resolved and checked again for the next; a rebind then fails."""
    asked = resolve_as(["127.0.0.1"], ["10.0.0.1"])
    receiver = make_receiver(tls=False)
    receiver.answer_with(Answer(200, headers={"Connection": "close"}))
    policy = AddressPolicy.from_setting("127.0.0.1")
    with guarded_client(policy, timeout=2.0) as client:
        url = f"http://rebind.test:{receiver.port}/hook"
        assert client.post(url, content=b"{}").status_code == 200
        with pytest.raises(BlockedAddress):
            client.post(url, content=b"{}")
    assert asked == ["rebind.test", "rebind.test"]
    assert len(receiver.requests) == 1


def test_the_sender_checks_every_new_connection_again(
    resolve_as: Callable[..., list[str]], make_receiver: MakeReceiver
) -> None:
    """The webhook sender resolves and checks a name again for each new connection; a rebind then fails."""
    asked = resolve_as(["127.0.0.1"], ["10.0.0.1"])
    receiver = make_receiver(tls=False)
    receiver.answer_with(Answer(200, headers={"Connection": "close"}))
    sender = HttpWebhookSender(AddressPolicy.from_setting("127.0.0.1"), timeout=2.0)
    url = f"http://rebind.test:{receiver.port}/hook"
    first, second = sender.send(url, {}, b"{}"), sender.send(url, {}, b"{}")
    sender.close()
    assert first.status_code == 200
    assert second.error == "The host rebind.test resolves to an address that is not allowed."
    assert asked == ["rebind.test", "rebind.test"]
    assert len(receiver.requests) == 1


def test_the_guarded_client_does_not_follow_redirects_or_use_proxies(monkeypatch: pytest.MonkeyPatch) -> None:
    """guarded_client never follows redirects and ignores proxy variables of the environment."""
    monkeypatch.setenv("HTTPS_PROXY", "http://127.0.0.1:1")
    with guarded_client(AddressPolicy(), timeout=1.0) as client:
        assert client.follow_redirects is False
        assert client.trust_env is False
        assert isinstance(client._transport, httpx.HTTPTransport)
