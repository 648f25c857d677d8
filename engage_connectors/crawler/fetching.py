"""Fetching for the crawler: GET through the SSRF-guarded pool, redirects followed by us, one hop at a time.

Every request goes through `guarded_pool` (the guard runs inside the connection: no DNS-rebinding
gap). Redirects are never followed by the pool; `PageFetcher.follow` follows up to `max_redirects`
itself and, before each hop, checks the new target against the address policy again (an IP literal
or a name resolving to an internal address is refused with the guard's message) and against the
caller's own rule (the crawl's site, robots.txt). A hop back to a URL already in the chain is a
redirect loop.

Limits: `timeout` bounds the whole fetch, every hop included (`deadline`), so a server that drips
bytes cannot hold the crawl. At most `max_bytes` of the body are read (after decompression, which is
bounded the same way, so a gzip bomb inflates no further); past it the connection is dropped and the
body is marked truncated. A body whose Content-Type the caller does not want is not read at all.
We ask for gzip or deflate (or nothing); another content coding is a failure.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Iterable
from typing import cast

import attrs
import httpcore
import httpx

from engage_connectors.crawler.urls import normalise_url, page_key
from engage_connectors.guarded_http import deadline, guarded_pool
from engage_connectors.ssrf import AddressPolicy, BlockedAddress

REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})


class FetchFailed(Exception):
    """The URL could not be fetched; the message says why, for `crawl_error` and page failures."""


@attrs.frozen
class Fetched:
    """One answer. `body` is empty when the caller did not want the content type."""

    url: str
    status: int
    content_type: str | None
    body: bytes
    wanted: bool
    truncated: bool = False


def _always(_content_type: str | None) -> bool:
    return True


def _no_objection(_url: str) -> str | None:
    return None


class PageFetcher:
    def __init__(
        self,
        policy: AddressPolicy,
        *,
        user_agent: str,
        timeout: float,
        max_redirects: int = 5,
    ) -> None:
        self._policy = policy
        self._user_agent = user_agent.encode()
        self._timeout = timeout
        self._max_redirects = max_redirects
        # A crawl is sequential: a few connections cover the site, its robots.txt and a sitemap host.
        self._pool = guarded_pool(policy, max_connections=4)
        limits = {"connect": timeout, "read": timeout, "write": timeout, "pool": timeout}
        self._extensions = {"timeout": limits}

    def close(self) -> None:
        self._pool.close()

    def follow(
        self,
        url: str,
        *,
        max_bytes: int,
        want: Callable[[str | None], bool] = _always,
        objection: Callable[[str], str | None] = _no_objection,
    ) -> Fetched:
        """GET `url`, following redirects (each hop checked by the guard and by `objection`, which
        returns a reason to refuse the hop or None). The answer's `url` is where it ended.
        Raises `FetchFailed` for a refused hop, a loop, too many redirects, a timeout or a network error."""
        chain = {page_key(url)}
        try:
            with deadline(self._timeout):
                for _ in range(self._max_redirects + 1):
                    fetched, location = self._get(url, max_bytes=max_bytes, want=want)
                    if location is None:
                        return fetched
                    target = normalise_url(location, url)
                    if target is None:
                        raise FetchFailed(f"{url} redirects to {location!r}, which is not an http(s) URL.")
                    if page_key(target) in chain:
                        raise FetchFailed(f"{url} redirects in a loop (back to {target}).")
                    self._check_address(target)
                    reason = objection(target)
                    if reason is not None:
                        raise FetchFailed(reason)
                    chain.add(page_key(target))
                    url = target
                raise FetchFailed(f"Too many redirects (more than {self._max_redirects}).")
        except BlockedAddress as exc:
            raise FetchFailed(str(exc)) from exc
        except httpcore.TimeoutException as exc:
            raise FetchFailed(f"No complete answer within {self._timeout:g} seconds.") from exc
        except FetchFailed:
            raise
        except Exception as exc:  # network, protocol, TLS, a URL httpx refuses: the fetch failed, not the crawl
            raise FetchFailed(_describe(exc)) from exc

    def _check_address(self, url: str) -> None:
        """The guard's verdict on a redirect target before we connect (the connection checks again)."""
        parsed = httpx.URL(url)
        self._policy.resolve(parsed.host, parsed.port or (443 if parsed.scheme == "https" else 80))

    def _get(self, url: str, *, max_bytes: int, want: Callable[[str | None], bool]) -> tuple[Fetched, str | None]:
        """One GET: the answer, and the Location to follow (None unless a redirect status)."""
        parsed = httpx.URL(url)
        target = httpcore.URL(scheme=parsed.raw_scheme, host=parsed.raw_host, port=parsed.port, target=parsed.raw_path)
        headers = [
            (b"Host", parsed.netloc),
            (b"User-Agent", self._user_agent),
            (b"Accept", b"text/html,application/xhtml+xml;q=0.9,*/*;q=0.1"),
            (b"Accept-Encoding", b"gzip, deflate"),
        ]
        request = httpcore.Request(b"GET", target, headers=headers, extensions=self._extensions)
        response = self._pool.handle_request(request)
        try:
            content_type = _header(response, b"content-type")
            if response.status in REDIRECT_STATUSES:
                location = _header(response, b"location")
                if location:
                    return Fetched(url, response.status, content_type, b"", wanted=False), location
            if response.status >= 300 or not want(content_type):
                return Fetched(url, response.status, content_type, b"", wanted=False), None
            body, truncated = _read_body(response, max_bytes, _header(response, b"content-encoding"))
            return Fetched(url, response.status, content_type, body, wanted=True, truncated=truncated), None
        finally:
            response.close()  # an answer not read to its end closes its connection


def _header(response: httpcore.Response, name: bytes) -> str | None:
    for key, value in response.headers:
        if key.lower() == name:
            return value.decode("latin-1").strip()
    return None


def _decoder(encoding: str | None) -> zlib._Decompress | None:
    coding = (encoding or "identity").strip().lower()
    if coding in ("", "identity"):
        return None
    if coding in ("gzip", "x-gzip"):
        return zlib.decompressobj(16 + zlib.MAX_WBITS)
    if coding == "deflate":
        return zlib.decompressobj()
    raise FetchFailed(f"The answer uses a content coding we did not ask for ({coding}).")


def _read_body(response: httpcore.Response, max_bytes: int, encoding: str | None) -> tuple[bytes, bool]:
    """At most `max_bytes` of the (decoded) body, and whether there was more."""
    decoder = _decoder(encoding)
    collected = bytearray()
    for chunk in cast(Iterable[bytes], response.stream):
        if decoder is None:
            collected.extend(chunk)
        else:
            try:
                collected.extend(decoder.decompress(chunk, max_bytes + 1 - len(collected)))
            except zlib.error as exc:
                raise FetchFailed("The compressed answer is corrupt.") from exc
        if len(collected) > max_bytes:
            return bytes(collected[:max_bytes]), True
    return bytes(collected), False


def _describe(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    return f"{type(exc).__name__}: {text}"[:500]
