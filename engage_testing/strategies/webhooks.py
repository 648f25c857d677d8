"""Webhook subscriptions (SPEC 4 Webhooks, SPEC 6)."""

from __future__ import annotations

from hypothesis import strategies as st

from engage_core.kernel.events import CATALOGUE, EVENTS_MAX, EXTENSIONS, TEST_EVENT
from engage_core.webhooks.service import WebhookInput

from ._text import blanks, broken, field, texts, too_long

target_urls = st.builds(
    "https://{}.example.com/{}".format,
    st.text("abcdefghijklmnopqrstuvwxyz0123456789", min_size=1, max_size=12),
    st.text("abcdefghijklmnopqrstuvwxyz0123456789-/", max_size=20),
)
"""HTTPS URLs on public names. The service also resolves a target to refuse internal addresses:
give it `AllowAllTargets()` (offline tests) or a resolver that knows `example.com`."""

event_names = st.sampled_from((*CATALOGUE, *EXTENSIONS, TEST_EVENT))
"""Every event a subscription may name."""


def webhook_inputs(*, invalid: bool = False) -> st.SearchStrategy[WebhookInput]:
    """`POST /webhooks` bodies: a name, an HTTPS URL and the events (none: every event of the
    catalogue). `invalid=True` draws a blank or long name, a URL that is not HTTPS, has credentials or
    no host, an unknown event, or too many events."""
    valid = st.builds(
        WebhookInput,
        name=texts(255),
        url=target_urls,
        events=st.lists(event_names, max_size=6, unique=True),
        is_active=st.booleans(),
    )
    if not invalid:
        return valid
    return broken(
        valid,
        field("name", blanks() | too_long(255)),
        field(
            "url",
            st.sampled_from(
                [
                    "http://hooks.example.com/in",
                    "ftp://hooks.example.com",
                    "https://user:pw@hooks.example.com/",
                    "hooks",
                ]
            ),
        ),
        field("events", st.sampled_from([["order.shipped"], ["contact.*"], ["ORDER.CREATED"]])),
        field("events", st.just([f"custom.{n}" for n in range(EVENTS_MAX + 1)])),
    )
