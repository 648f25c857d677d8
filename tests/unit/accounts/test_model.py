"""`origin_allowed`: the domain whitelist of SPEC 5.4."""

from __future__ import annotations

import pytest

from engage_core.accounts.model import origin_allowed

LISTED = ("https://app.example.com", "http://localhost:3000")


def test_empty_whitelist_allows_everything() -> None:
    """No configured origins allows any origin."""
    assert origin_allowed((), "https://evil.example", "https://evil.example/page")


def test_wildcard_allows_everything() -> None:
    """A whitelist containing `*` allows any origin."""
    assert origin_allowed(("https://app.example.com", "*"), "https://evil.example", None)


def test_listed_origin_is_allowed() -> None:
    """An Origin on the list is allowed."""
    assert origin_allowed(LISTED, "https://app.example.com", None)


def test_unlisted_origin_is_refused() -> None:
    """An Origin not on the list is refused."""
    assert not origin_allowed(LISTED, "https://evil.example", None)


def test_listed_referer_is_allowed() -> None:
    """A Referer whose origin is listed is allowed, whatever its path."""
    assert origin_allowed(LISTED, None, "https://app.example.com/dashboard?tab=1")


def test_unlisted_referer_is_refused() -> None:
    """A Referer whose origin is not listed is refused even without an Origin header."""
    assert not origin_allowed(LISTED, None, "https://evil.example/page")


def test_unlisted_referer_is_refused_even_with_a_listed_origin() -> None:
    """Every origin the request names must be listed: a good Origin does not excuse a bad Referer."""
    assert not origin_allowed(LISTED, "https://app.example.com", "https://evil.example/")


def test_request_without_origin_or_referer_is_allowed() -> None:
    """A server-to-server call names no origin and is allowed."""
    assert origin_allowed(LISTED, None, None)


def test_empty_headers_count_as_absent() -> None:
    """Empty Origin and Referer values are treated as missing."""
    assert origin_allowed(LISTED, "", "")


@pytest.mark.parametrize(
    "origin",
    ["HTTPS://APP.EXAMPLE.COM", "https://app.example.com:443", "https://App.Example.com/", "http://localhost:3000"],
)
def test_request_origin_is_normalised_before_comparing(origin: str) -> None:
    """Case, default ports and trailing paths in the request do not matter."""
    assert origin_allowed(LISTED, origin, None)


@pytest.mark.parametrize(
    "origin",
    [
        "http://app.example.com",  # scheme differs
        "https://app.example.com:8443",  # port differs
        "https://example.com",  # parent domain
        "https://evil.app.example.com",  # sub-domain
        "https://app.example.com.evil.example",  # suffix trick
        "http://localhost:3001",
    ],
)
def test_near_misses_are_refused(origin: str) -> None:
    """Another scheme, port, parent or sub-domain is a different origin."""
    assert not origin_allowed(LISTED, origin, None)


def test_malformed_origin_is_refused() -> None:
    """An Origin that cannot be parsed is refused rather than ignored."""
    assert not origin_allowed(LISTED, "https://app.example.com:notaport", None)
