"""The web chat's visitor inputs and widget settings (SPEC 4 Web chat)."""

from __future__ import annotations

from hypothesis import strategies as st

from engage_core.webchat.sessions import MESSAGE_MAX, VISITOR_FIELD_MAX, VisitorDetails
from engage_core.webchat.widgets import GREETING_MAX, LANGUAGES, ORIGINS_MAX, WidgetPatch

from ._text import blanks, broken, field, optional_texts, texts, too_long
from .contacts import emails, phones

origins = st.builds(
    "{}://{}.example{}".format,
    st.sampled_from(["https", "http"]),
    st.from_regex(r"[a-z][a-z0-9-]{0,20}", fullmatch=True),
    st.sampled_from(["", ":8443", "/"]),
)
"""Web origins a widget may be allowed on (`https://shop.example`, a port or a trailing slash)."""
colors = st.from_regex(r"#[0-9a-fA-F]{6}", fullmatch=True)


def visitor_details(*, invalid: bool = False) -> st.SearchStrategy[VisitorDetails]:
    """What a widget tells of its visitor when a session starts or later (every field optional);
    `invalid=True` draws a long name or page address or an e-mail that is not one."""
    valid = st.builds(
        VisitorDetails,
        name=optional_texts(VISITOR_FIELD_MAX),
        email=st.none() | emails,
        phone=st.none() | phones,
        page_url=st.none() | origins.map(lambda origin: origin.rstrip("/") + "/pricing"),
        referrer=st.none() | origins,
    )
    if not invalid:
        return valid
    return broken(
        valid,
        field("name", too_long(VISITOR_FIELD_MAX)),
        field("email", st.sampled_from(["ada", "ada@", "@example.com"])),
        field("page_url", too_long(2048)),
    )


def visitor_messages(*, invalid: bool = False) -> st.SearchStrategy[str]:
    """What a visitor writes; `invalid=True` draws blank text or text over the limit."""
    if not invalid:
        return texts(MESSAGE_MAX, max_words=12)
    return blanks() | too_long(MESSAGE_MAX)


def widget_patches(*, invalid: bool = False) -> st.SearchStrategy[WidgetPatch]:
    """`PATCH /web-chat/widget` bodies: allowed origins, colour, greeting and language, any subset;
    `invalid=True` draws an origin with a path, too many origins, a colour that is not #rrggbb, a
    blank or long greeting, or an unknown language."""
    valid = st.builds(
        WidgetPatch,
        allowed_origins=st.none() | st.lists(origins, max_size=5),
        color=st.none() | colors,
        greeting=st.none() | texts(GREETING_MAX),
        language=st.none() | st.sampled_from(LANGUAGES),
    )
    if not invalid:
        return valid
    return broken(
        valid,
        field("allowed_origins", st.just(["https://shop.example/checkout"])),
        field("allowed_origins", st.just([f"https://s{n}.example" for n in range(ORIGINS_MAX + 1)])),
        field("allowed_origins", st.just(["shop.example"])),
        field("color", st.sampled_from(["blue", "#12345", "#1234567", "1f6feb"])),
        field("greeting", blanks() | too_long(GREETING_MAX)),
        field("language", st.sampled_from(["xx", "", "EN"])),
    )
