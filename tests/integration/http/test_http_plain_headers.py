"""`plain_headers`: a request's headers as one dict, answering as Starlette's `Headers.get` does."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from starlette.requests import Request

from engage_http.routing import plain_headers

_NAMES = st.sampled_from([b"x-api-key", b"authorization", b"origin", b"referer", b"content-type"])
_VALUES = st.binary(max_size=8)


def _request(headers: list[tuple[bytes, bytes]]) -> Request:
    return Request({"type": "http", "method": "POST", "path": "/", "headers": headers, "query_string": b""})


@given(st.lists(st.tuples(_NAMES, _VALUES), max_size=8))
def test_every_lookup_answers_as_starlette_does(headers: list[tuple[bytes, bytes]]) -> None:
    """For any headers, repeated names included, each name looks up what `Headers.get` gives."""
    request = _request(headers)
    plain = plain_headers(request)

    for name in ("x-api-key", "authorization", "origin", "referer", "content-type"):
        assert plain.get(name) == request.headers.get(name)


def test_the_first_of_a_repeated_header_wins() -> None:
    """Two `X-Api-Key` headers: the first is the one used."""
    assert plain_headers(_request([(b"x-api-key", b"first"), (b"x-api-key", b"second")]))["x-api-key"] == "first"
