"""NUL characters are refused at the edge with a 422 naming the field, on SQLite and PostgreSQL.

PostgreSQL cannot store a NUL in text (psycopg raises DataError: a 500), and SQLite stores it; the
edge refuses it in every string of every body (nested too, in free-form values too), every query
parameter and every form part. The cases are generated from the OpenAPI document.
"""

from __future__ import annotations

import pytest
from http_support import Api, validation_errors
from offline_services import offline_services
from request_schemas import Location, RequestSchemas, is_text
from starlette.testclient import TestClient

from engage_core.services import Services
from engage_core.testing import FakeClock
from engage_http import create_app
from engage_http.areas import OPERATIONS, PARTNER_OPERATIONS
from engage_http.openapi import build_document
from engage_http.routing import API_PREFIX
from engage_sql import Database

SCHEMAS = RequestSchemas(build_document((*OPERATIONS, *PARTNER_OPERATIONS), prefix=API_PREFIX))
TEXTS = [location for location in SCHEMAS.locations() if is_text(location.schema)]
NUL = "a\x00b"


def excludes_nul(pattern: str) -> bool:
    """Whether no string holding NUL can match `pattern`: anchored, no `.`, every negated class names NUL."""
    if not (pattern.startswith("^") and pattern.endswith("$")):
        return False
    index, in_class = 0, False
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            index += 2
            continue
        if not in_class and char == ".":
            return False
        if not in_class and char == "[":
            in_class = True
            end = pattern.index("]", index + 2)
            if pattern.startswith("[^", index) and not any(nul in pattern[index:end] for nul in ("\\u0000", "\\x00")):
                return False
        elif in_class and char == "]":
            in_class = False
        index += 1
    return True


def test_every_request_string_schema_excludes_nul() -> None:
    """The document says what the edge enforces: each string a request holds has a pattern excluding NUL."""
    free = [
        location.label
        for location in TEXTS
        if "enum" not in location.schema
        and "const" not in location.schema
        and not excludes_nul(location.schema.get("pattern", ""))
    ]

    assert free == []


@pytest.fixture
def callers(database: Database) -> tuple[Api, Api, Services]:
    """A workspace caller and a partner caller of an app over the test's database, and its services."""
    clock = FakeClock()
    services = offline_services(database.uow, clock)
    client = TestClient(create_app(services))
    workspace = services.accounts.create("Acme").api_key
    partner = services.partners.create("Agency", "agency@example.com").partner_key
    return Api(client, {"X-Api-Key": workspace}), Api(client, {"X-Partner-Key": partner}), services


def _send(callers: tuple[Api, Api, Services], location: Location, **kwargs: object) -> tuple[int, dict[str, object]]:
    workspace, partner, _ = callers
    caller = partner if location.partner else workspace
    path = location.path.removeprefix(API_PREFIX)
    for name in ("id", "list_id", "segment_id", "tag_id", "product_id", "contact_id", "chunk_id"):
        path = path.replace("{" + name + "}", "1")
    path = path.replace("{delivery_id}", "00000000-0000-4000-8000-000000000000")
    path = path.replace("{session_id}", "wcs_unknown")
    return validation_errors(caller.request(location.method, path, **kwargs))  # type: ignore[arg-type]


def test_every_string_of_every_body_and_query_refuses_a_nul(callers: tuple[Api, Api, Services]) -> None:
    """For each string field of each operation, a value holding NUL answers 422 naming that field."""
    missed = []
    for location in TEXTS:
        if location.where == "query":
            status, errors = _send(callers, location, params={location.field: NUL})
        else:
            status, errors = _send(callers, location, json=SCHEMAS.body_with(location, NUL))
        if status != 422 or location.field not in errors:
            missed.append(f"{location.label}: {status} {errors}")

    assert TEXTS
    assert missed == []


def test_every_text_part_of_a_form_refuses_a_nul(callers: tuple[Api, Api, Services]) -> None:
    """For each top-level string field of an operation that takes forms, a part holding NUL is a 422 naming it."""
    parts = [location for location in TEXTS if location.multipart and len(location.steps) == 1]
    missed = []
    for location in parts:
        status, errors = _send(callers, location, files={location.field: ("field.txt", NUL.encode(), "text/plain")})
        if status != 422 or location.field not in errors:
            missed.append(f"{location.label}: {status} {errors}")

    assert parts
    assert missed == []


def test_the_audited_contact_is_refused_and_nothing_is_stored(callers: tuple[Api, Api, Services]) -> None:
    """`{"name": "a\\u0000b", "type": "instagram"}` is a 422 on `name`, and no contact exists after it."""
    workspace, _, _ = callers

    response = workspace.post("/contacts", json={"name": NUL, "type": "instagram"})

    assert response.status_code == 422
    assert response.json()["errors"] == {"name": ["The name may not contain NUL characters."]}
    assert workspace.get("/contacts").json()["meta"]["total"] == 0


def test_the_audited_search_is_a_422(callers: tuple[Api, Api, Services]) -> None:
    """`GET /contacts?search=%00` is a 422 on `search`, not a database error."""
    workspace, _, _ = callers

    response = workspace.get("/contacts?search=%00")

    assert response.status_code == 422
    assert response.json()["errors"] == {"search": ["The search may not contain NUL characters."]}


def test_a_catalogue_csv_holding_a_nul_is_refused(callers: tuple[Api, Api, Services]) -> None:
    """A CSV upload with a NUL in a row is a 422 on `csv_file`, and no product is created."""
    workspace, _, _ = callers
    csv = b"product_name,price\nKettle\x00,30\n"

    response = workspace.post(
        "/knowledge-base/product-catalog", data={"title": "Shop"}, files={"csv_file": ("p.csv", csv, "text/csv")}
    )

    assert response.status_code == 422
    assert list(response.json()["errors"]) == ["csv_file"]
    assert workspace.get("/products").json()["meta"]["total"] == 0


def test_a_nul_deep_in_a_free_form_value_names_its_path(callers: tuple[Api, Api, Services]) -> None:
    """A NUL inside `product_attributes` is a 422 naming the key that holds it."""
    workspace, _, _ = callers
    product = {"product_name": "Kettle", "product_attributes": {"colours": ["red", NUL]}}

    response = workspace.post("/knowledge-base/product-catalog", json={"title": "Shop", "products": [product]})

    assert response.status_code == 422
    assert list(response.json()["errors"]) == ["products.0.product_attributes.colours.1"]


def test_a_nul_in_a_key_is_named_by_the_object_holding_it(callers: tuple[Api, Api, Services]) -> None:
    """A key holding NUL is reported on its object, so no error path holds a NUL."""
    workspace, _, _ = callers
    product = {"product_name": "Kettle", "product_attributes": {"a\x00": "red"}}

    response = workspace.post("/knowledge-base/product-catalog", json={"title": "Shop", "products": [product]})

    assert response.status_code == 422
    assert list(response.json()["errors"]) == ["products.0.product_attributes"]
