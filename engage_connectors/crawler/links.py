"""The links of an HTML page, and what its robots meta tag allows.

Read with the standard library's tolerant `HTMLParser`: `<a href>` and `<area href>` (not
`rel="nofollow"`), resolved against `<base href>` when the page sets one, normalised, duplicates
dropped, document order kept. `<meta name="robots">` (or `name="engage"`, our agent token) with
`noindex` means the page is not stored; with `nofollow` (or `none`) its links are not followed.
"""

from __future__ import annotations

from html.parser import HTMLParser

import attrs

from engage_connectors.crawler.urls import normalise_url

ROBOTS_META_NAMES = frozenset({"robots", "engage"})


@attrs.frozen
class PageLinks:
    links: tuple[str, ...]
    noindex: bool = False
    nofollow: bool = False


class _LinkParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.base: str | None = None
        self.hrefs: list[str] = []
        self.directives: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: value or "" for name, value in attrs}
        if tag in ("a", "area"):
            rel = values.get("rel", "").lower().split()
            if "href" in values and "nofollow" not in rel:
                self.hrefs.append(values["href"])
        elif tag == "base" and self.base is None and values.get("href"):
            self.base = values["href"]
        elif tag == "meta" and values.get("name", "").strip().lower() in ROBOTS_META_NAMES:
            self.directives.update(d.strip().lower() for d in values.get("content", "").split(","))


def read_links(html: str, page_url: str) -> PageLinks:
    """The normalised http(s) links of `html`, a page at `page_url`, and its robots meta directives."""
    parser = _LinkParser()
    parser.feed(html)
    parser.close()
    base = normalise_url(parser.base, page_url) if parser.base else None
    links: list[str] = []
    seen: set[str] = set()
    for href in parser.hrefs:
        url = normalise_url(href, base or page_url)
        if url is not None and url not in seen:
            seen.add(url)
            links.append(url)
    directives = parser.directives
    return PageLinks(
        tuple(links),
        noindex=bool(directives & {"noindex", "none"}),
        nofollow=bool(directives & {"nofollow", "none"}),
    )
