"""The access log filter (`engage_http.access_log.redact`): which parts of a request line are credentials."""

from __future__ import annotations

import pytest

from engage_core.accounts.keys import PARTNER_PREFIX, WORKSPACE_PREFIX, generate_key
from engage_http.access_log import REDACTED, SENSITIVE_NAMES, redact

VALUE = "s3cret-value"


@pytest.mark.parametrize("name", [*sorted(SENSITIVE_NAMES), "API_KEY", "x-api-key", "partner_key", "api%5Fkey"])
def test_the_value_of_a_sensitive_parameter_is_redacted(name: str) -> None:
    """Every documented name, in any case, with dashes or percent-encoded, loses its value."""
    assert redact(f"/api/v1/contacts?page=2&{name}={VALUE}") == f"/api/v1/contacts?page=2&{name}={REDACTED}"


@pytest.mark.parametrize("prefix", [WORKSPACE_PREFIX, PARTNER_PREFIX])
def test_a_key_is_redacted_wherever_it_appears(prefix: str) -> None:
    """A key in a path segment or under an innocent parameter name is replaced."""
    key = generate_key(prefix).plaintext

    assert redact(f"/api/v1/contacts/{key}?q={key}") == f"/api/v1/contacts/{REDACTED}?q={REDACTED}"


def test_other_parameters_are_kept() -> None:
    """Names that carry no credential keep their values, so the line still tells requests apart."""
    line = "/api/v1/contacts?page=2&per_page=50&search=monkey&sort=keyword"

    assert redact(line) == line
