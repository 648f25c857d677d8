"""Query parameters read through the converter: `GET /contacts` filters."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated

import attrs
import pytest
from http_support import Api, Tenant

from engage_core.contacts.model import Contact
from engage_core.kernel.errors import ValidationFailed
from engage_http.constraints import Integer, Text
from engage_http.contacts.schemas import ContactFilters
from engage_http.query import QueryParser

PARSER = QueryParser(ContactFilters)


@attrs.frozen
class RequiredQuery:
    """Required parameters declared without `| None`, one renamed."""

    code: Annotated[str, Text(pattern="^[A-Z]{3}$")]
    start: Annotated[int, Integer(minimum=1)] = attrs.field(metadata={"query_name": "from"})


@pytest.mark.parametrize(("raw", "expected"), [("true", True), ("1", True), ("false", False), ("0", False)])
def test_blacklisted_reads_four_spellings(raw: str, expected: bool) -> None:
    """`blacklisted` accepts true, false, 1 and 0."""
    assert PARSER.parse({"blacklisted": raw}).blacklisted is expected


@pytest.mark.parametrize("raw", ["yes", "TRUE", "", "2"])
def test_blacklisted_refuses_anything_else(raw: str) -> None:
    """Any other `blacklisted` value is a 422."""
    with pytest.raises(ValidationFailed) as caught:
        PARSER.parse({"blacklisted": raw})

    assert list(caught.value.errors) == ["blacklisted"]


def test_an_unknown_type_is_refused() -> None:
    """`type` must be a contact type."""
    with pytest.raises(ValidationFailed):
        PARSER.parse({"type": "fax"})


def test_absent_filters_are_none() -> None:
    """No query string means no filter."""
    assert PARSER.parse({}) == ContactFilters()


def test_a_required_parameter_publishes_its_constraints() -> None:
    """The OpenAPI schema of a required parameter carries its `Annotated` constraints."""
    code, start = (p.openapi() for p in QueryParser(RequiredQuery).parameters)

    assert code["schema"] == {"type": "string", "pattern": "^[A-Z]{3}$"}
    assert (start["name"], start["required"], start["schema"]) == ("from", True, {"type": "integer", "minimum": 1})


def test_a_required_parameter_breaking_its_constraint_is_a_422_on_its_name() -> None:
    """A required parameter out of bounds is a 422 keyed and worded by its query name."""
    with pytest.raises(ValidationFailed) as caught:
        QueryParser(RequiredQuery).parse({"code": "ABC", "from": "0"})

    assert caught.value.errors == {"from": ["The from must be at least 1."]}


def test_the_search_filter_matches_name_email_or_phone(
    api: Api, tenant: Tenant, make_contact: Callable[..., Contact]
) -> None:
    """`search` finds contacts by any of name, e-mail or phone."""
    ada = make_contact(tenant, name="Ada", email="ada@example.com")
    make_contact(tenant, name="Grace")

    found = api.get("/contacts", params={"search": "EXAMPLE"}).json()["data"]

    assert [c["id"] for c in found] == [ada.id]


def test_the_type_filter(api: Api, tenant: Tenant, make_contact: Callable[..., Contact]) -> None:
    """`type` keeps contacts of that channel type."""
    wa = make_contact(tenant, type="whatsapp", phone="+14155552671")
    make_contact(tenant, type="instagram")

    assert [c["id"] for c in api.get("/contacts", params={"type": "whatsapp"}).json()["data"]] == [wa.id]


def test_the_blacklisted_filter(
    api: Api, tenant: Tenant, make_contact: Callable[..., Contact], services_blacklist: Callable[..., None]
) -> None:
    """`blacklisted=1` keeps blacklisted contacts only."""
    bad = make_contact(tenant)
    make_contact(tenant)
    services_blacklist(tenant, bad)

    assert [c["id"] for c in api.get("/contacts", params={"blacklisted": "1"}).json()["data"]] == [bad.id]


def test_the_tag_filter_ignores_case(api: Api, tenant: Tenant, make_contact: Callable[..., Contact]) -> None:
    """`tag` keeps contacts carrying the tag, in any case."""
    vip = make_contact(tenant, tags=["VIP"])
    make_contact(tenant)

    assert [c["id"] for c in api.get("/contacts", params={"tag": "vip"}).json()["data"]] == [vip.id]
