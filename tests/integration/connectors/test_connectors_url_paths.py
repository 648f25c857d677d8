"""Every URL the connectors build from a value they were given (a store's order reference, a
provider's account or chat id) stays below the configured base path, with that value as exactly one
segment: as httpx sends it, after its normalisation of dot segments."""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import unquote

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engage_connectors.hosted_messaging import HostedMessagingClient, HostedMessagingError, Provider
from engage_connectors.store_platform import HttpStorePlatform

BASE = "https://connector.example.com/base/v1"
DOTTY = st.sampled_from([".", "..", "...", "./..", "../..", "%2e%2e", "..%2F", "a/../b", "/", "?x", "#", " "])
VALUES = st.one_of(DOTTY, st.text(min_size=1, max_size=40), st.text(alphabet="./%2eE", min_size=1, max_size=8))
"""Any identifier: dot segments and their encodings above all, then any text."""


def store_status(value: str) -> httpx.URL:
    """The URL a status push for an order with this reference is sent to."""
    platform = HttpStorePlatform(BASE, "token")
    try:
        return httpx.URL(platform.status_url(value))
    finally:
        platform.close()


def provider_call(call: Callable[[HostedMessagingClient, str], object]) -> Callable[[str], httpx.URL]:
    """The URL the hosted messaging client requests when `call` is made with an id."""

    def sent(value: str) -> httpx.URL:
        seen: list[httpx.URL] = []

        def answer(request: httpx.Request) -> httpx.Response:
            seen.append(request.url)
            return httpx.Response(404, json={"detail": "no"})

        client = HostedMessagingClient(BASE, "key", transport=httpx.MockTransport(answer))
        try:
            call(client, value)
        except HostedMessagingError:
            pass  # only the URL matters here
        finally:
            client.close()
        [url] = seen
        return url

    return sent


BUILDERS: dict[str, tuple[Callable[[str], httpx.URL], list[str], list[str]]] = {
    "store status": (store_status, ["base", "v1", "orders"], ["status"]),
    "provider account": (provider_call(lambda c, v: c.account(v)), ["base", "v1", "api", "v1", "accounts"], []),
    "provider reconnect": (
        provider_call(lambda c, v: c.reconnect(Provider.WHATSAPP, v)),
        ["base", "v1", "api", "v1", "accounts"],
        [],
    ),
    "provider restart": (
        provider_call(lambda c, v: c.restart(v)),
        ["base", "v1", "api", "v1", "accounts"],
        ["restart"],
    ),
    "provider delete": (provider_call(lambda c, v: c.delete(v)), ["base", "v1", "api", "v1", "accounts"], []),
    "provider chat send": (
        provider_call(lambda c, v: c.send_in_chat(v, "hi")),
        ["base", "v1", "api", "v1", "chats"],
        ["messages"],
    ),
    "provider chat messages": (
        provider_call(lambda c, v: c.messages(v)),
        ["base", "v1", "api", "v1", "chats"],
        ["messages"],
    ),
}


@pytest.mark.parametrize("name", list(BUILDERS))
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=VALUES)
def test_a_value_is_exactly_one_segment_below_the_base(name: str, value: str) -> None:
    """The path is the base's segments, the route's, the value (decoded back intact), and the rest."""
    build, before, after = BUILDERS[name]
    url = build(value)
    segments = url.raw_path.decode("ascii").split("?")[0].split("/")[1:]
    assert (url.host, segments[: len(before)], segments[len(before) + 1 :]) == ("connector.example.com", before, after)
    assert unquote(segments[len(before)]) == value
    assert segments[len(before)] not in (".", "..")
