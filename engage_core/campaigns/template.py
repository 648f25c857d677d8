"""Message templates: a campaign's text with contact placeholders, checked when saved and filled
per recipient when sent.

A placeholder is `{{field}}` or `{{field|fallback}}` (spaces around the field are allowed):

- `name`: the contact's name; `first_name`: its first word;
- `company`, `email`, `phone`, `address`: the contact's field of that name.

A field the contact lacks (or holds blank) is replaced by the fallback, or by nothing without one:
`Hi {{first_name|there}}` reads "Hi there" for a contact without a name. An unknown field, or a
`{{` that does not open a well-formed placeholder, is refused when the campaign is saved (422 on
`message`), so a typo never reaches a recipient as `{{nmae}}`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from engage_core.contacts.model import Contact
from engage_core.kernel.errors import ValidationFailed

PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:\|([^{}]*))?\}\}")
FALLBACK_MAX = 255


def _first_name(contact: Contact) -> str | None:
    words = contact.name.split()
    return words[0] if words else None


FIELDS: Mapping[str, Callable[[Contact], str | None]] = {
    "name": lambda c: c.name,
    "first_name": _first_name,
    "company": lambda c: c.company,
    "email": lambda c: c.email,
    "phone": lambda c: c.phone,
    "address": lambda c: c.address,
}
"""Every field a placeholder may name, and how it is read from a contact."""


def check_template(field: str, text: str) -> str:
    """`text` when every `{{` opens a placeholder of a known field; ValidationFailed on `field` otherwise."""
    problems: list[str] = []
    position = 0
    while (start := text.find("{{", position)) != -1:
        match = PLACEHOLDER.match(text, start)
        if match is None:
            problems.append(f"The placeholder at character {start + 1} is not closed or not well formed.")
            position = start + 2
            continue
        name, fallback = match.group(1), match.group(2)
        if name not in FIELDS:
            problems.append(f"Unknown placeholder {{{{{name}}}}}. Use one of: {', '.join(FIELDS)}.")
        if fallback is not None and len(fallback) > FALLBACK_MAX:
            problems.append(f"The fallback of {{{{{name}}}}} is longer than {FALLBACK_MAX} characters.")
        position = match.end()
    if problems:
        raise ValidationFailed({field: problems}, problems[0])
    return text


def render(text: str, contact: Contact) -> str:
    """The template filled in for `contact` (the template was checked when saved)."""

    def fill(match: re.Match[str]) -> str:
        read = FIELDS.get(match.group(1))
        value = None if read is None else read(contact)
        if value is not None and value.strip():
            return value
        return (match.group(2) or "").strip()

    return PLACEHOLDER.sub(fill, text)
