"""What the crawler reads from a page or a site's files, without a network: URL normalisation and
the crawl's site, links and robots meta tags, prices and products, text decoding, robots.txt
answers and sitemaps."""

from __future__ import annotations

import gzip
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engage_connectors.crawler.content import decode_html, read_content
from engage_connectors.crawler.fetching import Fetched
from engage_connectors.crawler.links import read_links
from engage_connectors.crawler.products import find_products, price_of
from engage_connectors.crawler.robots import rules_from
from engage_connectors.crawler.sitemap import sitemap_page_urls
from engage_connectors.crawler.urls import host_in_site, normalise_url, page_key, site_of

PAGE = "https://example.com/shop/item"


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("HTTPS://Example.COM/a#section", "https://example.com/a"),
        ("http://example.com:80/a", "http://example.com/a"),
        ("https://example.com:8443/a", "https://example.com:8443/a"),
        ("https://user:secret@example.com/a", "https://example.com/a"),
        ("https://example.com", "https://example.com/"),
        ("https://example.com/a/./b/../c", "https://example.com/a/c"),
        ("https://example.com/a/b/..", "https://example.com/a/"),
        ("https://example.com/p?b=2&a=1", "https://example.com/p?b=2&a=1"),
        ("https://example.com/docs/", "https://example.com/docs/"),
    ],
)
def test_urls_are_normalised(raw: str, expected: str) -> None:
    """Scheme and host lower-cased, default port, user info and fragment dropped, query untouched."""
    assert normalise_url(raw) == expected


@pytest.mark.parametrize("raw", ["mailto:a@example.com", "javascript:void(0)", "ftp://example.com/", "", "https://"])
def test_urls_that_are_not_http_pages_are_refused(raw: str) -> None:
    """Only http(s) URLs with a host are pages."""
    assert normalise_url(raw) is None


def test_relative_links_resolve_against_the_page() -> None:
    """`../other?x=1#top` from /shop/item is /other?x=1."""
    assert normalise_url("../other?x=1#top", PAGE) == "https://example.com/other?x=1"


@given(st.text(alphabet="/abc.?=&#%:", max_size=30))
def test_normalising_twice_changes_nothing(path: str) -> None:
    """The normal form is a fixed point."""
    once = normalise_url(path, PAGE)
    assert once is None or normalise_url(once) == once


def test_a_trailing_slash_does_not_make_another_page() -> None:
    """`/about` and `/about/` share a key; `/` keeps its own."""
    assert page_key("https://example.com/about/") == page_key("https://example.com/about")
    assert page_key("https://example.com/") == "https://example.com/"


def test_http_and_https_of_one_address_are_one_page() -> None:
    """A site that redirects http to https is not crawled twice."""
    assert page_key("http://example.com/a") == page_key("https://example.com/a")


def test_www_and_the_bare_host_are_one_site() -> None:
    """Without entire_site, `www.` is ignored and other subdomains are other sites."""
    site = site_of("www.example.com", entire_site=False)
    assert host_in_site("example.com", site, entire_site=False)
    assert not host_in_site("shop.example.com", site, entire_site=False)


def test_the_entire_site_covers_the_registrable_domain() -> None:
    """With entire_site, every subdomain of example.co.uk is in, another domain is not."""
    site = site_of("www.example.co.uk", entire_site=True)
    assert (site, host_in_site("shop.example.co.uk", site, entire_site=True)) == ("example.co.uk", True)
    assert not host_in_site("other.co.uk", site, entire_site=True)


def test_links_are_normalised_deduplicated_and_resolved_against_base() -> None:
    """`<base href>` is the base, nofollow links are dropped, duplicates kept once, order kept."""
    html = (
        '<base href="https://example.com/docs/"><a href="b">B</a><a href="a#x">A</a>'
        '<a href="a">A again</a><a rel="nofollow" href="/login">Log in</a><a href="mailto:x@example.com">Mail</a>'
    )
    assert read_links(html, PAGE).links == ("https://example.com/docs/b", "https://example.com/docs/a")


def test_the_robots_meta_tag_is_read() -> None:
    """`noindex, nofollow` in a robots meta tag is reported."""
    links = read_links('<meta name="ROBOTS" content="noindex, nofollow">', PAGE)
    assert (links.noindex, links.nofollow) == (True, True)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("19.99", "19.99"),
        (19.99, "19.99"),
        (20, "20.00"),
        ("1,299.00", "1299.00"),
        ("1.299,00", "1299.00"),
        ("19,99", "19.99"),
        ("1,299", "1299.00"),
        ("$ 1,299,000", "1299000.00"),
        ("€9.5", "9.50"),
    ],
)
def test_prices_are_read_as_pages_write_them(raw: object, expected: str) -> None:
    """Thousands and decimal separators either way round; currency signs ignored."""
    assert price_of(raw) == Decimal(expected)


@pytest.mark.parametrize("raw", ["free", "-5", None, True, "1e999", "99999999999"])
def test_prices_that_are_not_prices_are_dropped(raw: object) -> None:
    """Text, negative, boolean and too-large prices give None."""
    assert price_of(raw) is None


def test_an_aggregate_offer_gives_its_low_price() -> None:
    """An AggregateOffer's lowPrice is the product's price."""
    data = (
        '{"@type": "Product", "name": "Set",'
        ' "offers": {"@type": "AggregateOffer", "lowPrice": 5, "highPrice": 9, "priceCurrency": "USD"}}'
    )
    product = find_products(f'<script type="application/ld+json">{data}</script>', PAGE)[0]
    assert (product.price, product.currency) == (Decimal("5.00"), "USD")


def test_products_in_a_json_ld_list_and_an_item_list_are_all_found() -> None:
    """Products at the top of a list and nested in an ItemList are found, in order."""
    data = (
        '[{"@type": "Product", "name": "One"}, {"@type": "ItemList", "itemListElement": '
        '[{"@type": "ListItem", "item": {"@type": "Product", "name": "Two"}}]}]'
    )
    products = find_products(f'<script type="application/ld+json">{data}</script>', PAGE)
    assert [p.name for p in products] == ["One", "Two"]


def test_broken_json_ld_is_skipped() -> None:
    """A script that is not JSON adds nothing; the next one is still read."""
    html = (
        '<script type="application/ld+json">{not json</script>'
        '<script type="application/ld+json">{"@type": "Product", "name": "Ok"}</script>'
    )
    assert [p.name for p in find_products(html, PAGE)] == ["Ok"]


def test_a_product_without_a_name_is_dropped() -> None:
    """A nameless Product is not a catalog product."""
    assert find_products('<script type="application/ld+json">{"@type": "Product", "sku": "x"}</script>', PAGE) == ()


def test_microdata_text_values_are_read_from_the_element() -> None:
    """An itemprop without content attribute takes its element's text; a link's href is the url."""
    html = (
        '<div itemscope itemtype="http://schema.org/Product"><a itemprop="url" href="/p/7"><b itemprop="name">'
        ' Tea  Pot </b></a><span itemprop="price">12.00</span><span itemprop="priceCurrency">gbp</span></div>'
    )
    product = find_products(html, PAGE)[0]
    assert (product.name, product.url, product.price, product.currency) == (
        "Tea Pot",
        "https://example.com/p/7",
        Decimal("12.00"),
        "GBP",
    )


def test_the_charset_of_the_header_decodes_the_page() -> None:
    """Latin-1 bytes declared in Content-Type decode correctly."""
    assert decode_html("café".encode("latin-1"), "text/html; charset=ISO-8859-1") == "café"


def test_a_meta_charset_decodes_the_page_without_a_header_charset() -> None:
    """`<meta charset>` is used when the header names none."""
    body = '<meta charset="windows-1252"><p>naïve</p>'.encode("cp1252")
    assert "naïve" in decode_html(body, "text/html")


def test_a_page_without_main_content_falls_back_to_its_visible_text() -> None:
    """A tiny page still yields its title and text, never its scripts."""
    content = read_content("<title>Tiny</title><script>var x;</script><body>Hi</body>", PAGE)
    assert (content.title, content.text) == ("Tiny", "Hi")


def _robots(status: int, body: bytes = b"") -> Fetched:
    return Fetched("https://example.com/robots.txt", status, "text/plain", body, wanted=True)


def test_a_missing_robots_file_allows_everything() -> None:
    """A 404 robots.txt means no rules (RFC 9309)."""
    assert rules_from(_robots(404), "engage").allowed("https://example.com/any")


def test_an_unavailable_robots_file_disallows_everything() -> None:
    """A 5xx robots.txt or none at all means the site is closed to crawlers (RFC 9309)."""
    assert not rules_from(_robots(503), "engage").allowed("https://example.com/")
    assert not rules_from(None, "engage").allowed("https://example.com/")


def test_crawl_delay_and_sitemaps_are_read_from_robots() -> None:
    """Crawl-delay and Sitemap lines are available to the crawler."""
    rules = rules_from(_robots(200, b"User-agent: *\nCrawl-delay: 3\nSitemap: https://example.com/s.xml\n"), "engage")
    assert (rules.crawl_delay, rules.sitemaps) == (3.0, ("https://example.com/s.xml",))


def test_a_gzipped_sitemap_is_inflated_and_read() -> None:
    """A .xml.gz sitemap's pages are listed."""
    xml = b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://example.com/a</loc></url></urlset>'
    urls = sitemap_page_urls(
        ["https://example.com/s.xml.gz"], {"https://example.com/s.xml.gz": gzip.compress(xml)}.get, max_bytes=1 << 20
    )
    assert urls == ["https://example.com/a"]


def test_the_sitemap_parser_fetches_nothing_by_itself() -> None:
    """Only the URLs our fetch function is asked for are fetched: a sitemap index's children, once."""
    index = (
        b'<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        b"<sitemap><loc>https://example.com/child.xml</loc></sitemap>"
        b"<sitemap><loc>https://example.com/index.xml</loc></sitemap></sitemapindex>"
    )
    asked: list[str] = []

    def fetch(url: str) -> bytes | None:
        asked.append(url)
        return index if url.endswith("index.xml") else None

    assert sitemap_page_urls(["https://example.com/index.xml"], fetch, max_bytes=1 << 20) == []
    assert asked == ["https://example.com/index.xml", "https://example.com/child.xml"]


def test_a_sitemap_stops_at_the_url_limit() -> None:
    """No more than max_urls page URLs are taken from a huge sitemap."""
    entries = "".join(f"<url><loc>https://example.com/{n}</loc></url>" for n in range(50))
    xml = f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{entries}</urlset>'.encode()
    assert len(sitemap_page_urls(["https://example.com/s.xml"], lambda _url: xml, max_bytes=1 << 20, max_urls=10)) == 10
