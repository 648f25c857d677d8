"""A small website on 127.0.0.1 for the crawler tests, and a recorder of what a crawl reports.

    with CrawlSite() as site:
        site.page("/", links=["/a"])
        site.route("/feed", answer(200, b"...", "application/rss+xml"))
        ... site.url("/") ... site.requested("/a") ...

Routes are functions of the request handler; the helpers below write the usual answers. Every
request's path is recorded (`requests`), so a test can tell what the crawler never fetched.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from urllib.parse import urlsplit

import attrs
from loopback import Closing, LoopbackHandler, LoopbackServer

from engage_core.knowledge.crawling import CrawledPage, CrawlProgress, PageFailure

Route = Callable[["SiteHandler"], None]


class _Server(LoopbackServer):
    site: CrawlSite


class SiteHandler(LoopbackHandler):
    def handle_request(self) -> None:
        site = self.server.site
        with site.lock:
            site.requests.append(self.path)
        route = site.routes.get(self.path)
        if route is None:
            answer(404, b"<html><body>Not found</body></html>")(self)
        else:
            route(self)

    def send(self, status: int, body: bytes, content_type: str | None, headers: Sequence[tuple[str, str]] = ()) -> None:
        self.send_response(status)
        if content_type is not None:
            self.send_header("Content-Type", content_type)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def answer(
    status: int,
    body: bytes,
    content_type: str | None = "text/html; charset=utf-8",
    headers: Sequence[tuple[str, str]] = (),
) -> Route:
    def route(handler: SiteHandler) -> None:
        handler.send(status, body, content_type, headers)

    return route


def redirect(location: str, status: int = 302) -> Route:
    return answer(status, b"", None, [("Location", location)])


def html_page(title: str, text: str, links: Sequence[str] = (), head: str = "") -> bytes:
    anchors = "".join(f'<li><a href="{link}">{link}</a></li>' for link in links)
    return (
        f"<!doctype html><html><head><title>{title}</title>{head}</head><body>"
        f"<nav><ul>{anchors}</ul></nav><main><h1>{title}</h1><p>{text}</p></main></body></html>"
    ).encode()


class CrawlSite(Closing):
    def __init__(self) -> None:
        self.routes: dict[str, Route] = {}
        self.requests: list[str] = []
        self.lock = threading.Lock()
        self._server = _Server(SiteHandler)
        self._server.site = self
        self._server.start()

    @property
    def closed(self) -> threading.Event:
        return self._server.closed

    def url(self, path: str = "/") -> str:
        return f"http://127.0.0.1:{self._server.port}{path}"

    def route(self, path: str, route: Route) -> None:
        self.routes[path] = route

    def page(self, path: str, links: Sequence[str] = (), *, text: str | None = None, head: str = "") -> None:
        """An HTML page titled after its path, with a paragraph and links to `links`."""
        body = text or f"This is the page at {path}, with enough words in it to be read as content."
        self.routes[path] = answer(200, html_page(f"Page {path}", body, links, head))

    def robots(self, text: str) -> None:
        self.routes["/robots.txt"] = answer(200, text.encode(), "text/plain")

    def requested(self, path: str) -> bool:
        with self.lock:
            return path in self.requests

    def close(self) -> None:
        self._server.close()


@attrs.define
class Reports:
    """What a crawl reported, in order: pages, failures, and the progress passed with each."""

    pages: list[CrawledPage] = attrs.Factory(list)
    failures: list[PageFailure] = attrs.Factory(list)
    progress: list[CrawlProgress] = attrs.Factory(list)

    def on_page(self, page: CrawledPage, progress: CrawlProgress) -> None:
        self.pages.append(page)
        self.progress.append(progress)

    def on_failure(self, failure: PageFailure, progress: CrawlProgress) -> None:
        self.failures.append(failure)
        self.progress.append(progress)

    @property
    def paths(self) -> list[str]:
        return [urlsplit(page.url).path for page in self.pages]
