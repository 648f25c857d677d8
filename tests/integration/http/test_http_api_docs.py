"""The docs page, `GET /api/v1/docs`: Swagger UI over the OpenAPI document, every file from this server."""

from __future__ import annotations

from html.parser import HTMLParser
from urllib.parse import urljoin, urlsplit

import pytest
from http_support import API
from starlette.testclient import TestClient

from engage_core.services import Services
from engage_http import api_docs, create_app

DOCS = API + "/docs"


class References(HTMLParser):
    """The URLs a page loads (`src` and `href` attributes)."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.urls += [value for name, value in attrs if name in ("src", "href") and value is not None]


def references(html: str) -> list[str]:
    parser = References()
    parser.feed(html)
    return parser.urls


def directives(policy: str) -> dict[str, list[str]]:
    """A Content-Security-Policy by directive."""
    parts = [part.split() for part in policy.split(";") if part.strip()]
    return {part[0]: part[1:] for part in parts}


def test_the_page_renders_swagger_ui(client: TestClient) -> None:
    """The page is HTML holding Swagger UI's mount point, its bundle and the start script."""
    response = client.get(DOCS)

    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    assert '<div id="swagger-ui"></div>' in response.text
    assert {urlsplit(url).path for url in references(response.text)} == {
        "docs/swagger-ui.css",
        "docs/swagger-ui-bundle.js",
        "docs/init.js",
    }


def test_the_page_loads_only_files_of_this_server(client: TestClient) -> None:
    """Every file the page references resolves to this origin and is served (no CDN)."""
    page = client.get(DOCS)
    urls = [urljoin(str(page.url), url) for url in references(page.text)]

    assert urls
    for url in urls:
        assert urlsplit(url).netloc == urlsplit(str(page.url)).netloc, url
        assert client.get(url).status_code == 200, url


@pytest.mark.parametrize(
    ("file", "media_type"),
    [("swagger-ui.css", "text/css"), ("swagger-ui-bundle.js", "text/javascript"), ("init.js", "text/javascript")],
)
def test_the_files_are_served_with_their_type(client: TestClient, file: str, media_type: str) -> None:
    """Each file has its media type and `nosniff`, so a browser runs it under the page's policy."""
    response = client.get(f"{DOCS}/{file}")

    assert response.headers["content-type"].startswith(media_type)
    assert response.headers["x-content-type-options"] == "nosniff"


def test_the_start_script_loads_the_document_beside_the_page(client: TestClient) -> None:
    """Swagger UI is pointed at `openapi.json`, which resolves from the page to the served document."""
    script = client.get(f"{DOCS}/init.js").text

    assert 'url: "openapi.json"' in script
    assert client.get(urljoin(DOCS, "openapi.json")).status_code == 200


def test_the_policy_allows_only_this_origin(client: TestClient) -> None:
    """The Content-Security-Policy loads scripts, styles, images and calls from this origin only,
    runs no inline script and forbids framing."""
    policy = directives(client.get(DOCS).headers["content-security-policy"])

    assert policy["default-src"] == ["'none'"]
    assert policy["script-src"] == ["'self'"]
    assert policy["connect-src"] == ["'self'"]
    assert policy["frame-ancestors"] == ["'none'"]
    sources = [source for values in policy.values() for source in values]
    assert [s for s in sources if s not in ("'none'", "'self'", "'unsafe-inline'", "data:", "blob:")] == []


def test_no_other_file_of_the_package_is_served(client: TestClient) -> None:
    """Only the files the page loads are served: the package's demo page is not."""
    assert client.get(f"{DOCS}/index.html").status_code == 404


def test_the_page_answers_options(client: TestClient) -> None:
    """`OPTIONS` on the page is 204 with `Allow`, granting no other origin anything."""
    response = client.options(DOCS, headers={"Origin": "https://elsewhere.example"})

    assert response.status_code == 204
    assert response.headers["allow"] == "GET, HEAD, OPTIONS"
    assert not [name for name in response.headers if name.startswith("access-control-")]


def test_without_the_package_the_page_says_what_to_install(services: Services, monkeypatch: pytest.MonkeyPatch) -> None:
    """With Swagger UI's package missing the page is a 404 naming the extra to install."""
    monkeypatch.setattr(api_docs, "ASSETS_PACKAGE", "engage_no_such_package")
    client = TestClient(create_app(services))

    response = client.get(DOCS)

    assert response.status_code == 404
    assert api_docs.INSTALL_HINT in response.text
    assert client.get(API + "/openapi.json").status_code == 200
