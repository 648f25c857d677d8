"""robots.txt (RFC 9309) per origin, read with protego.

`/robots.txt` of each origin the crawl visits is fetched once, through the same guarded fetcher
(redirects followed, each hop checked). As RFC 9309 says: a 2xx answer is parsed (its first 500 KiB);
a 4xx means no rules (crawl everything); a 5xx or no answer at all means everything is disallowed,
because the site may be down or may be hiding rules. `Disallow`/`Allow` are matched for our agent
token (`engage`), falling back to the `*` group; `Crawl-delay` is honoured up to the crawler's cap;
`Sitemap` lines are offered to the sitemap reader.
"""

from __future__ import annotations

from collections.abc import Callable

import attrs
from protego import Protego

from engage_connectors.crawler.fetching import Fetched, FetchFailed
from engage_connectors.crawler.urls import origin_of

ROBOTS_MAX_BYTES = 500 * 1024


@attrs.frozen
class RobotsRules:
    """The rules of one origin. `parser` None with `allow_all` True: no rules; False: all disallowed,
    `unavailable` saying why robots.txt could not be read."""

    parser: Protego | None
    allow_all: bool
    agent: str
    unavailable: str | None = None

    def allowed(self, url: str) -> bool:
        if self.parser is None:
            return self.allow_all
        return bool(self.parser.can_fetch(url, self.agent))

    @property
    def crawl_delay(self) -> float | None:
        if self.parser is None:
            return None
        delay = self.parser.crawl_delay(self.agent)
        return float(delay) if delay is not None else None

    @property
    def sitemaps(self) -> tuple[str, ...]:
        return tuple(self.parser.sitemaps) if self.parser is not None else ()


def rules_from(fetched: Fetched | None, agent: str, failure: str | None = None) -> RobotsRules:
    """The rules an answer to `/robots.txt` gives (None: it could not be fetched, `failure` saying why)."""
    if fetched is None or fetched.status >= 500:
        why = (failure or "no answer") if fetched is None else f"HTTP {fetched.status}"
        return RobotsRules(None, allow_all=False, agent=agent, unavailable=f"robots.txt could not be read ({why})")
    if fetched.status >= 300:  # 4xx (and a redirect we could not follow to its end): no rules
        return RobotsRules(None, allow_all=True, agent=agent)
    text = fetched.body.decode("utf-8", errors="replace")
    return RobotsRules(Protego.parse(text), allow_all=True, agent=agent)


class RobotsCache:
    """Rules per origin, fetched on first use by `fetch(robots_url)` (which raises `FetchFailed`)."""

    def __init__(self, fetch: Callable[[str], Fetched], agent: str) -> None:
        self._fetch = fetch
        self._agent = agent
        self._rules: dict[str, RobotsRules] = {}

    def rules_for(self, url: str) -> RobotsRules:
        origin = origin_of(url)
        rules = self._rules.get(origin)
        if rules is None:
            failure: str | None = None
            try:
                fetched: Fetched | None = self._fetch(origin + "/robots.txt")
            except FetchFailed as exc:
                fetched, failure = None, str(exc)
            rules = rules_from(fetched, self._agent, failure)
            self._rules[origin] = rules
        return rules

    def allowed(self, url: str) -> bool:
        return self.rules_for(url).allowed(url)
