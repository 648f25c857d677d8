"""The website crawler of the knowledge base: `HttpCrawler` implements `engage_core.knowledge.crawling.Crawler`.

One module per concept: `urls` (normalisation, the crawl's site), `fetching` (guarded GET, redirects
followed hop by hop, byte and time limits), `robots` (robots.txt), `sitemap`, `links`, `content`
(title and main text), `products` (schema.org `Product`), and `crawler` (the breadth-first walk).
See docs/crawling.md.
"""

from engage_connectors.crawler.crawler import USER_AGENT, CrawlLimits, HttpCrawler

__all__ = ["USER_AGENT", "CrawlLimits", "HttpCrawler"]
