"""Every array a request can carry is bounded, published with `maxItems`, and refused beyond it.

Generated from the OpenAPI document (itself generated from the classes the converter enforces), so
an array field added later is covered, or fails the first test until it declares its bound. The
arrays inside free-form values (`JsonValue`) are bounded in words only (the schema would recurse),
so their test names the one free-form field a request takes.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from http_support import Api, PartnerCaller, Tenant, validation_errors
from request_schemas import Location, RequestSchemas, is_array

from engage_core.contacts.segments import Segment
from engage_core.contacts.tags import TAGS_MAX
from engage_http.areas import OPERATIONS, PARTNER_OPERATIONS
from engage_http.converter import FREE_ARRAY_MAX
from engage_http.openapi import build_document
from engage_http.routing import API_PREFIX

SCHEMAS = RequestSchemas(build_document((*OPERATIONS, *PARTNER_OPERATIONS), prefix=API_PREFIX))
ARRAYS = [location for location in SCHEMAS.locations() if is_array(location.schema)]
BOUNDED = [location for location in ARRAYS if "maxItems" in location.schema]


def test_every_request_array_declares_max_items() -> None:
    """No request body or query parameter holds an array without a `maxItems`."""
    unbounded = [location.label for location in ARRAYS if "maxItems" not in location.schema]

    assert ARRAYS
    assert unbounded == []


@pytest.fixture
def send(
    api: Api, tenant: Tenant, make_segment: Callable[..., Segment], make_partner: Callable[..., PartnerCaller]
) -> Callable[[Location, dict[str, object]], tuple[int, dict[str, list[str]]]]:
    """Sends a body to a location's operation (path ids naming a segment of the tenant, which the
    one rule checked past the edge needs); returns the status and the errors."""
    segment = make_segment(tenant)
    partner = make_partner()

    def call(location: Location, body: dict[str, object]) -> tuple[int, dict[str, list[str]]]:
        caller = partner.api if location.partner else api
        path = location.path.removeprefix(API_PREFIX)
        for name in ("{id}", "{list_id}", "{segment_id}", "{tag_id}", "{product_id}", "{contact_id}", "{chunk_id}"):
            path = path.replace(name, str(segment.id))
        return validation_errors(caller.request(location.method, path, json=body))

    return call


@pytest.mark.parametrize("location", BOUNDED, ids=[location.label for location in BOUNDED])
def test_an_array_over_its_limit_is_a_422_naming_it(
    send: Callable[[Location, dict[str, object]], tuple[int, dict[str, list[str]]]], location: Location
) -> None:
    """One item more than `maxItems` answers 422, and the error names the array and its limit."""
    limit = location.schema["maxItems"]
    item = SCHEMAS.minimal(location.schema["items"])
    body = SCHEMAS.body_with(location, [item] * (limit + 1))

    status, errors = send(location, body)

    assert status == 422
    assert f"more than {limit} items" in " ".join(errors.get(location.field, [])), errors


def test_a_contact_with_20000_tags_is_refused_before_any_is_read(api: Api) -> None:
    """The audit's request (20,000 tags) is a 422 on `tags` alone: the items are not even checked."""
    response = api.post("/contacts", json={"name": "Ada", "type": "instagram", "tags": [None] * 20_000})

    assert response.status_code == 422
    assert response.json()["errors"] == {"tags": [f"The tags may not have more than {TAGS_MAX} items."]}


def test_a_contact_may_have_exactly_the_limit_of_tags(api: Api) -> None:
    """`TAGS_MAX` tags are accepted and all stored."""
    tags = [f"tag {n}" for n in range(TAGS_MAX)]

    response = api.post("/contacts", json={"name": "Ada", "type": "instagram", "tags": tags})

    assert response.status_code == 201
    assert len(response.json()["data"]["tags"]) == TAGS_MAX


def test_an_array_in_a_free_form_value_over_its_limit_is_a_422(api: Api) -> None:
    """An array of more than `FREE_ARRAY_MAX` items inside `product_attributes` is a 422 naming it."""
    product = {"product_name": "Kettle", "product_attributes": {"sizes": [1] * (FREE_ARRAY_MAX + 1)}}

    response = api.post("/knowledge-base/product-catalog", json={"title": "Shop", "products": [product]})

    assert response.status_code == 422
    field = "products.0.product_attributes.sizes"
    assert f"more than {FREE_ARRAY_MAX} items" in " ".join(response.json()["errors"][field])
