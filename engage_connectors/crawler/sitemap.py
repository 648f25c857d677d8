"""Sitemaps: the page URLs a site lists, read with ultimate-sitemap-parser from bytes we fetched.

The parser is only ever given text (`usp.tree.sitemap_from_str`): left to itself it would fetch, and
probe guessed sitemap paths, with its own HTTP client, bypassing the SSRF guard. A sitemap index
comes back from it with its children unfetched (as `InvalidSitemap`s carrying their URLs); we fetch
those ourselves, through the guarded fetcher, breadth-first, at most `max_files` sitemap files in all
and stopping once `max_urls` page URLs are listed. A gzip-compressed file (`.xml.gz`) is inflated
here, bounded by the same byte limit. XML, plain-text, RSS and Atom sitemaps are understood (by usp).
A sitemap that cannot be fetched or parsed adds nothing; it never fails the crawl.
"""

from __future__ import annotations

import logging
import zlib
from collections import deque
from collections.abc import Callable, Iterable

from usp.objects.sitemap import AbstractIndexSitemap, AbstractSitemap, InvalidSitemap
from usp.tree import sitemap_from_str

_GZIP_MAGIC = b"\x1f\x8b"

# usp logs every odd entry as a warning; a crawl of a messy site would flood the log.
logging.getLogger("usp").setLevel(logging.ERROR)


def inflate(body: bytes, max_bytes: int) -> bytes:
    """`body`, gunzipped if it is gzip data, at most `max_bytes` of it (b"" if corrupt)."""
    if not body.startswith(_GZIP_MAGIC):
        return body
    try:
        return zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(body, max_bytes)
    except zlib.error:
        return b""


def _unfetched_children(sitemap: AbstractSitemap) -> Iterable[str]:
    if isinstance(sitemap, AbstractIndexSitemap):
        for child in sitemap.sub_sitemaps:
            if isinstance(child, InvalidSitemap):
                yield child.url
            else:
                yield from _unfetched_children(child)


def sitemap_page_urls(
    roots: Iterable[str],
    fetch: Callable[[str], bytes | None],
    *,
    max_bytes: int,
    max_files: int = 10,
    max_urls: int = 10_000,
) -> list[str]:
    """Page URLs listed by the sitemaps at `roots` and the indexes' children, in the order listed.
    `fetch(url)` returns a sitemap's bytes, or None when it could not be fetched."""
    queue = deque(dict.fromkeys(roots))
    visited: set[str] = set()
    urls: list[str] = []
    while queue and len(visited) < max_files and len(urls) < max_urls:
        url = queue.popleft()
        if url in visited:
            continue
        visited.add(url)
        body = fetch(url)
        if not body:
            continue
        text = inflate(body, max_bytes).decode("utf-8", errors="replace")
        try:
            sitemap = sitemap_from_str(text)
        except Exception:  # usp raises its own errors, and others on broken input: the file adds nothing
            logging.getLogger(__name__).info("Unreadable sitemap %s", url, exc_info=True)
            continue
        for page in sitemap.all_pages():
            urls.append(page.url)
            if len(urls) >= max_urls:
                break
        queue.extend(child for child in _unfetched_children(sitemap) if child not in visited)
    return urls
