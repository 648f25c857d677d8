"""A page's text: decoding its bytes, and its title and main content by trafilatura.

Decoding: the `charset` of the Content-Type header when Python knows it, else a `<meta charset>` (or
`http-equiv` Content-Type) in the first 4 KB, else UTF-8; undecodable bytes become U+FFFD, never an
error. Main content: trafilatura's extraction without comments, keeping tables, dropping navigation,
headers and footers. When it finds no main content (a page of links, a tiny page) the page's visible
text is used, so a page is never stored empty just because it is short.
"""

from __future__ import annotations

import codecs
import re
from html.parser import HTMLParser

import attrs
import trafilatura
from trafilatura.settings import Document

MAX_TEXT_CHARS = 1_000_000
"""A page's stored text is cut here: main content is never this long, a dump of data might be."""

_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.IGNORECASE)
_SKIPPED_TEXT = frozenset({"script", "style", "noscript", "template", "head"})


@attrs.frozen
class PageContent:
    title: str | None
    text: str


def decode_html(body: bytes, content_type: str | None) -> str:
    """`body` as text, by the header's charset, the page's own declaration, or UTF-8."""
    for candidate in (_header_charset(content_type), _meta_charset(body)):
        if candidate is not None:
            return body.decode(candidate, errors="replace")
    return body.decode("utf-8", errors="replace")


def _known(name: str) -> str | None:
    try:
        return codecs.lookup(name).name
    except LookupError:
        return None


def _header_charset(content_type: str | None) -> str | None:
    for param in (content_type or "").split(";")[1:]:
        key, _, value = param.partition("=")
        if key.strip().lower() == "charset" and value.strip():
            return _known(value.strip().strip("\"'"))
    return None


def _meta_charset(body: bytes) -> str | None:
    match = _META_CHARSET.search(body[:4096])
    return _known(match.group(1).decode("ascii")) if match else None


def read_content(html: str, url: str) -> PageContent:
    """The title and main text of a page."""
    try:
        document = trafilatura.bare_extraction(
            html, url=url, with_metadata=True, include_comments=False, include_tables=True, fast=True
        )
    except Exception:  # trafilatura on hostile markup: fall back to the visible text below
        document = None
    title: str | None = None
    text = ""
    if isinstance(document, Document):
        title = _clean(document.title)
        text = (document.text or "").strip()
    if title is None or not text:
        fallback = _VisibleText.read(html)
        title = title or fallback.title
        text = text or fallback.text
    return PageContent(title, text[:MAX_TEXT_CHARS])


def _clean(value: str | None) -> str | None:
    value = " ".join((value or "").split())
    return value or None


class _VisibleText(HTMLParser):
    """The `<title>` and the text outside scripts and styles: the fallback when trafilatura finds nothing."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self._skipping = 0
        self._in_title = False
        self._title: list[str] = []
        self._text: list[str] = []

    @classmethod
    def read(cls, html: str) -> PageContent:
        parser = cls()
        parser.feed(html)
        parser.close()
        text = "\n".join(line for line in (" ".join(t.split()) for t in parser._text) if line)
        return PageContent(_clean("".join(parser._title)), text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "title":
            self._in_title = True
        elif tag in _SKIPPED_TEXT:
            self._skipping += 1

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False
        elif tag in _SKIPPED_TEXT and self._skipping:
            self._skipping -= 1

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self._title.append(data)
        elif not self._skipping:
            self._text.append(data)
