"""Values from users or remote services as URL path segments.

`urllib.parse.quote(value, safe="")` keeps `.` as it is, and clients (httpx among them) remove dot
segments when they normalise a URL, so a value `..` would climb out of the route it was put in
(`{base}/orders/../status` is `{base}/status`). Every URL built from such a value takes its segments
from `path_segment`, which never yields `.`, `..` or a `/`.
"""

from __future__ import annotations

from urllib.parse import quote


def path_segment(value: str) -> str:
    """`value` percent-encoded as exactly one path segment that is not a dot segment: every
    character but the unreserved ones is encoded, and a value made of dots only has its dots
    encoded (`..` is sent as `%2E%2E`). A server decoding it gets `value` back."""
    if not value:
        raise ValueError("A path segment must not be empty.")
    encoded = quote(value, safe="")
    if encoded.strip(".") == "":
        return "%2E" * len(encoded)
    return encoded
