"""The SSRF guard: every internal address is refused, in every textual form, without a socket.

Hypothesis draws an address from each refused range and writes it the ways the C resolver reads
it (dotted, one number, octal, hex, short forms, trailing dot, brackets, IPv6-mapped and other
IPv6 embeddings). The guard must refuse it at creation (`DnsTargetGuard`) and at connection time
(`HttpWebhookSender`), while `socket.socket`, `socket.create_connection` and `socket.getaddrinfo`
fail the test if anything calls them.
"""

from __future__ import annotations

import contextlib
import ipaddress
import socket
from collections.abc import Iterator
from typing import Any, NoReturn

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engage_connectors.ssrf import AddressPolicy, BlockedAddress, is_public, parse_ip_literal
from engage_connectors.target_guard import DnsTargetGuard
from engage_connectors.webhook_sender import HttpWebhookSender
from engage_core.settings import Settings

IPv4 = ipaddress.IPv4Address
IPv6 = ipaddress.IPv6Address

BLOCKED_V4 = {
    "this network": "0.0.0.0/8",
    "private 10/8": "10.0.0.0/8",
    "CGNAT": "100.64.0.0/10",
    "loopback": "127.0.0.0/8",
    "link-local": "169.254.0.0/16",
    "private 172.16/12": "172.16.0.0/12",
    "IETF protocol assignments": "192.0.0.0/24",
    "TEST-NET-1": "192.0.2.0/24",
    "private 192.168/16": "192.168.0.0/16",
    "benchmarking": "198.18.0.0/15",
    "TEST-NET-2": "198.51.100.0/24",
    "TEST-NET-3": "203.0.113.0/24",
    "multicast": "224.0.0.0/4",
    "reserved": "240.0.0.0/4",
    "broadcast": "255.255.255.255/32",
}
BLOCKED_V6 = {
    "unspecified": "::/128",
    "loopback": "::1/128",
    "IPv4-translated": "::ffff:0:0:0/96",
    "discard-only": "100::/64",
    "documentation": "2001:db8::/32",
    "unique local": "fc00::/7",
    "link-local": "fe80::/10",
    "site-local": "fec0::/10",
    "multicast": "ff00::/8",
    "local-use NAT64": "64:ff9b:1::/48",
    "reserved": "8000::/3",
}

PUBLIC = ["8.8.8.8", "1.1.1.1", "93.184.216.34", "2606:4700:4700::1111", "::ffff:8.8.8.8", "2a00:1450:4001::200e"]


def addresses_in(cidr: str) -> st.SearchStrategy[IPv4 | IPv6]:
    network = ipaddress.ip_network(cidr)
    first = int(network.network_address)
    return st.integers(first, first + network.num_addresses - 1).map(
        lambda n: IPv4(n) if network.version == 4 else IPv6(n)
    )


blocked_v4 = st.sampled_from(sorted(BLOCKED_V4.values())).flatmap(addresses_in)
blocked_v6 = st.sampled_from(sorted(BLOCKED_V6.values())).flatmap(addresses_in)


def _number(value: int, radix: str) -> str:
    return {
        "dec": str(value),
        "oct": "0" + format(value, "o"),
        "hex": "0x" + format(value, "x"),
        "HEX": f"0X{value:X}",
    }[radix]


@st.composite
def ipv4_spellings(draw: st.DrawFn, address: IPv4) -> str:
    """`address` written in one of the forms inet_aton accepts: 1 to 4 parts, each in any radix."""
    value = int(address)
    octets = list(address.packed)
    parts = draw(st.sampled_from([4, 3, 2, 1]))
    if parts == 4:
        numbers = octets
    elif parts == 3:
        numbers = [octets[0], octets[1], value & 0xFFFF]
    elif parts == 2:
        numbers = [octets[0], value & 0xFFFFFF]
    else:
        numbers = [value]
    radix = st.sampled_from(["dec", "oct", "hex", "HEX"])
    text = ".".join(_number(n, draw(radix)) for n in numbers)
    return text + draw(st.sampled_from(["", "."]))


@st.composite
def ipv4_in_ipv6_spellings(draw: st.DrawFn, address: IPv4) -> str:
    """`address` embedded in IPv6: mapped, compatible, NAT64 or 6to4, in several notations, bracketed."""
    high, low = int(address) >> 16, int(address) & 0xFFFF
    text = draw(
        st.sampled_from(
            [
                f"::ffff:{address}",
                f"::FFFF:{high:x}:{low:x}",
                f"0:0:0:0:0:ffff:{address}",
                f"0000:0000:0000:0000:0000:ffff:{high:04x}:{low:04x}",
                f"64:ff9b::{address}",
                f"2002:{high:x}:{low:x}::1",
            ]
            + ([f"::{address}"] if int(address) > 1 else [])
        )
    )
    return f"[{text}]"


@st.composite
def ipv6_spellings(draw: st.DrawFn, address: IPv6) -> str:
    """`address` compressed, exploded or upper-case, bracketed, with a zone id on link-local ones."""
    text = draw(st.sampled_from([address.compressed, address.exploded, address.compressed.upper()]))
    if address.is_link_local and draw(st.booleans()):
        text += "%25eth0"
    return f"[{text}]"


def refused_hosts() -> st.SearchStrategy[str]:
    return st.one_of(
        blocked_v4.flatmap(lambda a: ipv4_spellings(a)),  # type: ignore[arg-type]
        blocked_v4.flatmap(lambda a: ipv4_in_ipv6_spellings(a)),  # type: ignore[arg-type]
        blocked_v6.flatmap(lambda a: ipv6_spellings(a)),  # type: ignore[arg-type]
    )


def _no_network(*args: Any, **kwargs: Any) -> NoReturn:
    raise AssertionError(f"the guard touched the network: {args!r}")


@contextlib.contextmanager
def no_network() -> Iterator[None]:
    """Any socket, connection or DNS look-up inside this block fails the test."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(socket, "socket", _no_network)
        patch.setattr(socket, "create_connection", _no_network)
        patch.setattr(socket, "getaddrinfo", _no_network)
        yield


@pytest.fixture(scope="module")
def sender() -> Iterator[HttpWebhookSender]:
    """One sender with no exemptions for the whole module (Hypothesis runs many examples per test)."""
    made = HttpWebhookSender(AddressPolicy(), timeout=2.0)
    yield made
    made.close()


def test_every_range_of_the_issue_is_drawn() -> None:
    """The drawn ranges include loopback, private, link-local, multicast, reserved and CGNAT, in v4 and v6."""
    # IPv4-mapped and the other IPv6 embeddings are drawn by `ipv4_in_ipv6_spellings` from every v4 range.
    for needed in ["loopback", "link-local", "multicast", "reserved"]:
        assert needed in BLOCKED_V4 and needed in BLOCKED_V6
    assert {"CGNAT", "private 10/8", "private 172.16/12", "private 192.168/16"} <= set(BLOCKED_V4)
    assert "unique local" in BLOCKED_V6


@given(host=refused_hosts())
def test_literal_forms_are_recognised_without_dns(host: str) -> None:
    """Every spelling of a refused address is read as that address, with no look-up, and is not public."""
    with no_network():
        address = parse_ip_literal(host.replace("%25", "%"))
    assert address is not None
    assert not is_public(address)


@given(host=refused_hosts())
def test_literal_forms_are_refused_at_creation(host: str) -> None:
    """The target guard refuses `https://<form>/` without opening a socket or asking DNS."""
    with no_network():
        refusal = DnsTargetGuard(AddressPolicy()).refusal(f"https://{host}/hook")
    assert refusal is not None


@given(host=refused_hosts())
def test_literal_forms_are_refused_at_connection(sender: HttpWebhookSender, host: str) -> None:
    """The sender refuses `https://<form>/` as a failed attempt without opening a socket or asking DNS."""
    with no_network():
        outcome = sender.send(f"https://{host}/hook", {}, b"{}")
    assert (outcome.succeeded, outcome.status_code) == (False, None)
    assert outcome.error


@pytest.mark.parametrize("text", PUBLIC)
def test_public_addresses_are_allowed(text: str) -> None:
    """Globally routable unicast addresses, IPv4-mapped ones included, pass the guard."""
    with no_network():
        assert AddressPolicy().resolve(text, 443) == [ipaddress.ip_address(text)]


@pytest.mark.parametrize(
    ("host", "expected"),
    [
        ("2130706433", "127.0.0.1"),
        ("0177.0.0.1", "127.0.0.1"),
        ("0x7f.1", "127.0.0.1"),
        ("127.1", "127.0.0.1"),
        ("0x7f.0.1", "127.0.0.1"),
        ("10.0xff.0377.1", "10.255.255.1"),
        ("[::ffff:127.0.0.1]", "::ffff:127.0.0.1"),
        ("fe80::1%eth0", "fe80::1"),
        ("example.com", None),
        ("cafe.be", None),
        ("1.2.3.4.5", None),
    ],
)
def test_parse_ip_literal_reads_the_c_resolver_forms(host: str, expected: str | None) -> None:
    """Numeric hosts are read as the C resolver reads them; names are left to DNS."""
    address = parse_ip_literal(host)
    assert address == (None if expected is None else ipaddress.ip_address(expected))


def test_allowed_hosts_setting_exempts_exactly_what_it_names(monkeypatch: pytest.MonkeyPatch) -> None:
    """ENGAGE_WEBHOOK_ALLOWED_HOSTS exempts the named address, CIDR and hostname, and nothing else."""
    monkeypatch.setenv("ENGAGE_WEBHOOK_ALLOWED_HOSTS", " 127.0.0.1, 10.1.0.0/16 ,Dev.Local.")
    policy = AddressPolicy.from_setting(Settings.from_env().webhook_allowed_hosts)
    assert policy.address_allowed("127.0.0.1", IPv4("127.0.0.1"))
    assert policy.address_allowed("10.1.2.3", IPv4("10.1.2.3"))
    assert policy.address_allowed("dev.local", IPv4("192.168.1.5"))
    assert not policy.address_allowed("127.0.0.2", IPv4("127.0.0.2"))
    assert not policy.address_allowed("10.2.0.1", IPv4("10.2.0.1"))
    assert not policy.address_allowed("other.local", IPv4("192.168.1.5"))


def test_an_empty_allowed_hosts_setting_exempts_nothing() -> None:
    """With the setting unset, loopback is refused."""
    with pytest.raises(BlockedAddress):
        AddressPolicy.from_setting("").resolve("127.0.0.1", 443)


def test_a_name_with_any_internal_record_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """A hostname whose records mix public and private addresses is refused at creation."""
    records = [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (ip, 443)) for ip in ("93.184.216.34", "10.0.0.7")]
    monkeypatch.setattr(socket, "getaddrinfo", lambda *a, **k: records)
    assert DnsTargetGuard(AddressPolicy()).refusal("https://mixed.example/hook") is not None


def test_a_name_that_does_not_resolve_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """A hostname with no address cannot be checked, so it is refused."""

    def fail(*args: Any, **kwargs: Any) -> NoReturn:
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(socket, "getaddrinfo", fail)
    assert DnsTargetGuard(AddressPolicy()).refusal("https://nowhere.example/hook") is not None


@pytest.mark.parametrize("host", ["a" * 64 + ".example.com", "a..example.com"])
def test_a_name_dns_cannot_encode_is_refused_not_raised(host: str) -> None:
    """A label over 63 characters or an empty label is a refusal, not an exception (no 500 on create)."""
    assert DnsTargetGuard(AddressPolicy()).refusal(f"https://{host}/hook") == f"The host {host} could not be resolved."


def test_a_public_name_is_accepted(monkeypatch: pytest.MonkeyPatch) -> None:
    """A hostname whose every record is public passes the creation check."""
    records = [(socket.AF_INET6, socket.SOCK_STREAM, 6, "", ("2606:4700:4700::1111", 443, 0, 0))]
    monkeypatch.setattr(socket, "getaddrinfo", lambda *a, **k: records)
    assert DnsTargetGuard(AddressPolicy()).refusal("https://public.example/hook") is None
