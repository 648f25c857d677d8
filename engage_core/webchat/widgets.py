"""The workspace's web chat widget: its public key, allowed origins and look.

The widget key is public (it sits in the `<script>` tag of every page that embeds the widget) and is
never the API key: it only opens visitor sessions, from the workspace's allowed origins. It is
revocable by rotation (`rotate`): the old key stops working at once. Stored as it is (a public
value), unique across workspaces, looked up by the visitor routes.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Sequence
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

import attrs

from engage_core.kernel.errors import ValidationFailed

KEY_PREFIX = "wk_"
DEFAULT_COLOR = "#1f6feb"
DEFAULT_GREETING = "Hi! How can we help you today?"
LANGUAGES: tuple[str, ...] = ("en", "ar", "fr", "es", "de")
RTL_LANGUAGES = frozenset({"ar"})
ORIGINS_MAX = 50
GREETING_MAX = 500
_COLOR = re.compile(r"^#[0-9a-fA-F]{6}$")


@attrs.frozen
class Widget:
    widget_key: str
    allowed_origins: tuple[str, ...]
    """Exact origins (`https://shop.example`); none: the widget answers no page."""
    color: str
    greeting: str
    language: str
    created_at: datetime
    updated_at: datetime

    @property
    def direction(self) -> str:
        return "rtl" if self.language in RTL_LANGUAGES else "ltr"

    def allows(self, origin: str | None) -> bool:
        """Whether a page of `origin` may use the widget (an exact match of scheme, host and port)."""
        return origin is not None and origin.lower().rstrip("/") in self.allowed_origins


@attrs.frozen
class WidgetPatch:
    allowed_origins: Sequence[str] | None = None
    color: str | None = None
    greeting: str | None = None
    language: str | None = None


def new_key() -> str:
    """A fresh widget key: 32 random URL-safe characters after the prefix."""
    return KEY_PREFIX + secrets.token_urlsafe(24)


def new_widget(now: datetime) -> Widget:
    return Widget(new_key(), (), DEFAULT_COLOR, DEFAULT_GREETING, "en", now, now)


def normal_origin(value: str) -> str:
    """`https://Shop.example/` -> `https://shop.example`; ValidationFailed on anything but an origin."""
    parts = urlsplit(value.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.path not in ("", "/") or parts.query:
        raise ValidationFailed.on("allowed_origins", f"{value!r} is not an origin such as https://shop.example.")
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{parts.hostname.lower()}{port}"


def patched(widget: Widget, patch: WidgetPatch, now: datetime) -> Widget:
    """The widget with `patch` applied, validated."""
    fields: dict[str, Any] = {}
    if patch.allowed_origins is not None:
        if len(patch.allowed_origins) > ORIGINS_MAX:
            raise ValidationFailed.on("allowed_origins", f"At most {ORIGINS_MAX} origins.")
        fields["allowed_origins"] = tuple(dict.fromkeys(normal_origin(o) for o in patch.allowed_origins))
    if patch.color is not None:
        if not _COLOR.match(patch.color):
            raise ValidationFailed.on("color", "A colour is #rrggbb.")
        fields["color"] = patch.color.lower()
    if patch.greeting is not None:
        greeting = patch.greeting.strip()
        if not greeting or len(greeting) > GREETING_MAX:
            raise ValidationFailed.on("greeting", f"A greeting is 1 to {GREETING_MAX} characters.")
        fields["greeting"] = greeting
    if patch.language is not None:
        if patch.language not in LANGUAGES:
            raise ValidationFailed.on("language", f"One of {', '.join(LANGUAGES)}.")
        fields["language"] = patch.language
    return attrs.evolve(widget, **fields, updated_at=now) if fields else widget


def contrast_ratio(foreground: str, background: str) -> float:
    """WCAG 2 contrast ratio of two `#rrggbb` colours (the widget picks white or black text by it)."""

    def luminance(color: str) -> float:
        channels = [int(color[i : i + 2], 16) / 255 for i in (1, 3, 5)]
        lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]

    light, dark = sorted((luminance(foreground), luminance(background)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def text_color(background: str) -> str:
    """White or black, whichever reads better on `background`."""
    return "#ffffff" if contrast_ratio("#ffffff", background) >= contrast_ratio("#000000", background) else "#000000"
