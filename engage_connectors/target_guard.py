"""The real `TargetGuard`: refuses webhook targets whose host is, or resolves to, an internal address."""

from __future__ import annotations

from urllib.parse import urlsplit

from engage_connectors.ssrf import AddressPolicy, BlockedAddress


class DnsTargetGuard:
    def __init__(self, policy: AddressPolicy) -> None:
        self._policy = policy

    def refusal(self, url: str) -> str | None:
        parts = urlsplit(url)
        host = parts.hostname or ""
        try:
            self._policy.resolve(host, parts.port or 443)
        except BlockedAddress as exc:
            return str(exc)
        return None
