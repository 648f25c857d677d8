"""`normalise_origin`: the canonical form origins are stored and compared in."""

from __future__ import annotations

import pytest

from engage_core.accounts.model import normalise_origin


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("https://example.com", "https://example.com"),
        ("HTTPS://Example.COM", "https://example.com"),
        ("https://example.com:443", "https://example.com"),
        ("http://example.com:80", "http://example.com"),
        ("http://example.com:443", "http://example.com:443"),
        ("https://example.com:8443", "https://example.com:8443"),
        ("https://example.com/some/path?q=1#x", "https://example.com"),
        ("  https://example.com  ", "https://example.com"),
        ("example.com", "https://example.com"),
        ("app.example.com:3000", "https://app.example.com:3000"),
        ("http://localhost:5173", "http://localhost:5173"),
    ],
)
def test_normalise_origin_canonical_forms(raw: str, expected: str) -> None:
    """Scheme and host are lower-cased, default ports and paths dropped, a bare host means https."""
    assert normalise_origin(raw) == expected


def test_normalise_origin_keeps_the_wildcard() -> None:
    """`*` stays `*`."""
    assert normalise_origin(" * ") == "*"


@pytest.mark.parametrize(
    "raw",
    ["", "   ", "ftp://example.com", "https://", "https://example.com:99999", "https://example.com:abc"],
)
def test_normalise_origin_rejects_non_origins(raw: str) -> None:
    """Values that do not name an http(s) host and valid port raise ValueError."""
    with pytest.raises(ValueError, match="not an origin"):
        normalise_origin(raw)


def test_normalise_origin_keeps_ipv6_brackets() -> None:
    """An IPv6 origin keeps its brackets, so the port cannot be confused with the address."""
    assert normalise_origin("https://[::1]:8443") == "https://[::1]:8443"


def test_normalise_origin_rejects_user_info() -> None:
    """A value carrying user info (`mailto:a@b.c`, `https://u:p@host`) is not an origin."""
    with pytest.raises(ValueError, match="not an origin"):
        normalise_origin("mailto:a@b.c")


@pytest.mark.parametrize("raw", ["not an origin", "https://shop example.com", "https://*.example.com", "https://a..b"])
def test_normalise_origin_rejects_hosts_no_browser_sends(raw: str) -> None:
    """Spaces, wildcards and empty labels in the host are refused rather than stored as an origin."""
    with pytest.raises(ValueError, match="not an origin"):
        normalise_origin(raw)


def test_normalise_origin_writes_an_international_host_as_browsers_send_it() -> None:
    """A host in Unicode is kept in its ASCII (punycode) form, the one an `Origin` header carries."""
    assert normalise_origin("https://Bücher.example") == "https://xn--bcher-kva.example"
