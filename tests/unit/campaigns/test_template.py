"""Message templates: placeholders checked when saved, filled per contact when sent."""

from __future__ import annotations

import pytest

from engage_core.campaigns.template import check_template, render
from engage_core.kernel.errors import ValidationFailed

from ..factories import contact_entity


def test_placeholders_are_filled_from_the_contact() -> None:
    """Name, first name, company and phone come from the contact."""
    contact = contact_entity(name="Ada Lovelace", company="Analytical", phone="+966501234567")

    text = render("{{first_name}} ({{ name }}) of {{company}} at {{phone}}", contact)

    assert text == "Ada (Ada Lovelace) of Analytical at +966501234567"


def test_a_missing_field_reads_its_fallback_or_nothing() -> None:
    """`{{company|your team}}` without a company reads the fallback; without a fallback, nothing."""
    contact = contact_entity(company=None, email=None)

    assert render("Hi {{company|your team}}.{{email}}", contact) == "Hi your team."


def test_an_unknown_placeholder_is_refused_on_the_field() -> None:
    """A typo is a 422 on `message`, naming the placeholder."""
    with pytest.raises(ValidationFailed) as refused:
        check_template("message", "Hi {{nmae}}")

    assert "nmae" in refused.value.errors["message"][0]


def test_an_unclosed_placeholder_is_refused() -> None:
    """`{{name` never reaches a contact as it is."""
    with pytest.raises(ValidationFailed):
        check_template("message", "Hi {{name")


def test_text_without_placeholders_is_kept_as_it_is() -> None:
    """Single braces are text."""
    assert check_template("message", "Prices {from} 5") == "Prices {from} 5"
