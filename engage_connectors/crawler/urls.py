"""URL normalisation and the site a crawl may visit.

`normalise_url` gives the form a page is queued, fetched and reported under: absolute http(s),
lower-case scheme and host, no default port, no user info, no fragment, dot segments resolved, an
empty path made `/`. The query is kept exactly as written (never sorted: order can matter to a site).

`page_key` is the identity used to detect a page already seen: the normalised URL with one trailing
slash dropped from a non-root path, so `/about` and `/about/` are one page (sites nearly always
serve one and redirect the other to it), while `/` stays `/` and `/a//` keeps its inner slash; and
`http://` and `https://` of the same address are one page (sites redirect one to the other).

Scope: without `entire_site` a crawl stays on the start URL's host, with or without a leading
`www.`, on any port and scheme (http and https). With it, any host under the start URL's registrable
domain (Public Suffix List, via `tld`): `shop.example.co.uk` is in `example.co.uk`'s site. An IP
address or a single-label host (`localhost`) is its own site in both cases.
"""

from __future__ import annotations

import posixpath
from urllib.parse import urljoin, urlsplit, urlunsplit

from tld import get_fld

from engage_connectors.ssrf import parse_ip_literal

_DEFAULT_PORTS = {"http": 80, "https": 443}


def normalise_url(url: str, base: str | None = None) -> str | None:
    """`url` (resolved against `base`) in normal form, or None if it is not an http(s) URL with a host."""
    text = url.strip()
    if not text:
        return None
    try:
        absolute = urljoin(base, text) if base else text
        parts = urlsplit(absolute)
        port = parts.port
    except ValueError:  # a malformed port or IPv6 literal
        return None
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").rstrip(".")
    if scheme not in _DEFAULT_PORTS or not host:
        return None
    if ":" in host:
        host = f"[{host}]"
    netloc = host if port is None or port == _DEFAULT_PORTS[scheme] else f"{host}:{port}"
    return urlunsplit((scheme, netloc, _clean_path(parts.path), parts.query, ""))


def _clean_path(path: str) -> str:
    """Dot segments resolved (`/a/./b/../c` -> `/a/c`), a trailing slash kept, `/` for empty."""
    if not path:
        return "/"
    if "." not in path:
        return path
    cleaned = posixpath.normpath(path)
    if cleaned.startswith("//"):  # normpath keeps exactly two leading slashes (POSIX): not a host here
        cleaned = "/" + cleaned.lstrip("/")
    if path.endswith(("/", "/.", "/..")) and not cleaned.endswith("/"):
        cleaned += "/"
    return cleaned


def page_key(url: str) -> str:
    """The identity of a normalised URL for deduplication: one trailing slash dropped unless root."""
    parts = urlsplit(url)
    path = parts.path
    if len(path) > 1 and path.endswith("/"):
        path = path[:-1]
    return urlunsplit((parts.scheme if parts.scheme != "http" else "https", parts.netloc, path, parts.query, ""))


def site_of(host: str, *, entire_site: bool) -> str:
    """The site a host belongs to: the host without `www.`, or its registrable domain for `entire_site`."""
    host = host.lower().rstrip(".")
    if parse_ip_literal(host) is not None or "." not in host:
        return host
    if entire_site:
        domain = get_fld(host, fix_protocol=True, fail_silently=True)
        if isinstance(domain, str) and domain:
            return domain
    return host.removeprefix("www.")


def host_in_site(host: str, site: str, *, entire_site: bool) -> bool:
    """Whether `host` belongs to `site` (as made by `site_of` for the start URL)."""
    host = host.lower().rstrip(".")
    if entire_site and parse_ip_literal(host) is None:
        return host == site or host.endswith("." + site)
    return site_of(host, entire_site=False) == site


def host_of(url: str) -> str:
    return (urlsplit(url).hostname or "").rstrip(".")


def path_of(url: str) -> str:
    return urlsplit(url).path or "/"


def origin_of(url: str) -> str:
    """`scheme://host[:port]` of a normalised URL: robots.txt and politeness are per origin."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"
