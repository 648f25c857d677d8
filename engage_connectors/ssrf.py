"""The SSRF guard: which network addresses a user-given URL may reach.

Only globally routable unicast addresses are allowed. Refused: loopback, private (RFC 1918, ULA),
link-local, multicast, reserved, unspecified, CGNAT (100.64.0.0/10), documentation and benchmark
ranges, and any IPv6 form that embeds a refused IPv4 address (IPv4-mapped, IPv4-compatible,
NAT64, 6to4, Teredo). Hosts are parsed the way the C resolver would read them, so `2130706433`,
`0177.0.0.1`, `0x7f.1` and `127.1` are all recognised as 127.0.0.1 without any DNS lookup.

`ENGAGE_WEBHOOK_ALLOWED_HOSTS` (hostnames or CIDRs, comma-separated) exempts named targets for
development and tests; it is an exception list, never a way to widen the defaults silently.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterable, Sequence

import attrs

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

_EXTRA_BLOCKED: tuple[IPNetwork, ...] = tuple(
    ipaddress.ip_network(net)
    for net in (
        "0.0.0.0/8",
        "100.64.0.0/10",  # CGNAT shared address space
        "192.0.0.0/24",
        "192.0.2.0/24",
        "198.18.0.0/15",
        "198.51.100.0/24",
        "203.0.113.0/24",
        "240.0.0.0/4",
        "255.255.255.255/32",
        "64:ff9b:1::/48",
        "100::/64",
        "2001:db8::/32",
        "fc00::/7",
        "fe80::/10",
        "fec0::/10",
    )
)
_NAT64 = ipaddress.ip_network("64:ff9b::/96")


class BlockedAddress(Exception):
    """The target resolves to an address the guard refuses."""


def parse_ip_literal(host: str) -> IPAddress | None:
    """The address `host` denotes without DNS, in any form the C resolver accepts, or None."""
    text = host.strip().strip("[]").rstrip(".")
    if "%" in text:  # IPv6 zone id: a link-local scope, never a public target
        text = text.split("%", 1)[0]
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        pass
    if text and all(c in "0123456789abcdefxABCDEFX." for c in text) and " " not in text:
        try:
            return ipaddress.IPv4Address(socket.inet_aton(text))
        except OSError:
            return None
    return None


def embedded_ipv4(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 address carries (mapped, compatible, NAT64, 6to4, Teredo)."""
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address.teredo is not None:
        return address.teredo[1]
    if address in _NAT64:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    packed = address.packed
    if packed[:12] == bytes(12) and int(address) > 1:  # IPv4-compatible ::a.b.c.d (deprecated)
        return ipaddress.IPv4Address(packed[12:])
    return None


def is_public(address: IPAddress) -> bool:
    """True only for globally routable unicast addresses."""
    if isinstance(address, ipaddress.IPv6Address):
        inner = embedded_ipv4(address)
        if inner is not None:
            return is_public(inner)
    if any(address in net for net in _EXTRA_BLOCKED if net.version == address.version):
        return False
    return address.is_global and not (
        address.is_multicast
        or address.is_private
        or address.is_loopback
        or address.is_link_local
        or address.is_reserved
        or address.is_unspecified
    )


@attrs.frozen
class AddressPolicy:
    """The guard with its exemptions. `allowed_hosts` holds lower-case hostnames; `allowed_networks` CIDRs."""

    allowed_hosts: frozenset[str] = frozenset()
    allowed_networks: tuple[IPNetwork, ...] = ()

    @classmethod
    def from_setting(cls, value: str | None) -> AddressPolicy:
        """Parse `ENGAGE_WEBHOOK_ALLOWED_HOSTS`: `localhost, 127.0.0.1, 10.0.0.0/8`."""
        hosts: set[str] = set()
        networks: list[IPNetwork] = []
        for item in (value or "").split(","):
            item = item.strip().lower()
            if not item:
                continue
            try:
                networks.append(ipaddress.ip_network(item.strip("[]"), strict=False))
            except ValueError:
                hosts.add(item.rstrip("."))
        return cls(frozenset(hosts), tuple(networks))

    def host_exempt(self, host: str) -> bool:
        return host.lower().rstrip(".").strip("[]") in self.allowed_hosts

    def address_allowed(self, host: str, address: IPAddress) -> bool:
        if self.host_exempt(host):
            return True
        if any(address in net for net in self.allowed_networks if net.version == address.version):
            return True
        return is_public(address)

    def check_literal(self, host: str) -> IPAddress | None:
        """For an IP-literal host: the address, or BlockedAddress. For a hostname: None (resolve it)."""
        address = parse_ip_literal(host)
        if address is not None and not self.address_allowed(host, address):
            raise BlockedAddress(f"The address {address} is not allowed as a target.")
        return address

    def resolve(self, host: str, port: int) -> list[IPAddress]:
        """Every address `host` resolves to, all of them allowed, or BlockedAddress.

        Refusing when ANY address is internal stops a name that mixes public and private records."""
        literal = self.check_literal(host)
        if literal is not None:
            return [literal]
        try:
            infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except (OSError, ValueError) as exc:  # gaierror; UnicodeError for a label IDNA cannot encode
            raise BlockedAddress(f"The host {host} could not be resolved.") from exc
        addresses = _unique(ipaddress.ip_address(str(info[4][0]).split("%", 1)[0]) for info in infos)
        blocked = [a for a in addresses if not self.address_allowed(host, a)]
        if blocked or not addresses:
            raise BlockedAddress(f"The host {host} resolves to an address that is not allowed.")
        return addresses


def _unique(addresses: Iterable[IPAddress]) -> list[IPAddress]:
    seen: list[IPAddress] = []
    for address in addresses:
        if address not in seen:
            seen.append(address)
    return seen


__all__: Sequence[str] = ["AddressPolicy", "BlockedAddress", "embedded_ipv4", "is_public", "parse_ip_literal"]
