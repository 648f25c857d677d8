"""The OpenAPI document: valid 3.1, complete, and generated from the classes the API runs on."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import attrs
import pytest
from http_support import Api
from openapi_spec_validator import validate

from engage_core.contacts.tags import TITLE_MAX
from engage_http.areas import OPERATIONS, PARTNER_OPERATIONS
from engage_http.contacts.schemas import ContactCreate, ContactUpdate
from engage_http.contacts.segment_schemas import Condition
from engage_http.openapi import build_document
from engage_http.operations import Dialect
from engage_http.routing import API_PREFIX

SERVED = (*OPERATIONS, *PARTNER_OPERATIONS)
"""Every operation `create_app` serves (the workspace and partner tables)."""
DOCUMENT = build_document(SERVED, prefix=API_PREFIX)
SCHEMAS = DOCUMENT["components"]["schemas"]


def operation(method: str, path: str) -> dict[str, Any]:
    return DOCUMENT["paths"][API_PREFIX + path][method]


def condition_branches() -> list[dict[str, Any]]:
    """The branches of a segment condition, one per field and kind of value."""
    [rule] = SCHEMAS[Condition.__name__]["allOf"]
    return list(rule["oneOf"])


def object_schemas(node: Any, at: str = "#") -> Iterator[tuple[str, dict[str, Any]]]:
    """Every schema of the document with `properties`, and where it sits."""
    if isinstance(node, dict):
        if isinstance(node.get("properties"), dict):
            yield at, node
        for key, value in node.items():
            yield from object_schemas(value, f"{at}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from object_schemas(value, f"{at}/{index}")


def test_the_document_is_valid_openapi_3_1() -> None:
    """`openapi-spec-validator` accepts the document as OpenAPI 3.1."""
    validate(DOCUMENT)

    assert DOCUMENT["openapi"].startswith("3.1")


def test_the_served_document_is_the_generated_one(anonymous: Api) -> None:
    """`GET /api/v1/openapi.json` serves the document built from the route table."""
    assert anonymous.get("/openapi.json").json() == DOCUMENT


def test_every_operation_of_the_table_is_documented() -> None:
    """Each operation of the route table appears once, by method and path."""
    documented = {(m.upper(), p) for p, ops in DOCUMENT["paths"].items() for m in ops}

    assert documented == {(op.method, API_PREFIX + op.openapi_path) for op in SERVED}


def test_operation_ids_are_unique() -> None:
    """No two operations share an `operationId`."""
    ids = [op.operation_id for op in SERVED]

    assert len(ids) == len(set(ids))


def test_both_key_headers_are_security_schemes() -> None:
    """`X-Api-Key` and bearer auth are declared, either one satisfying every secured operation."""
    schemes = DOCUMENT["components"]["securitySchemes"]

    assert schemes["ApiKeyAuth"] == {**schemes["ApiKeyAuth"], "type": "apiKey", "in": "header", "name": "X-Api-Key"}
    assert schemes["BearerAuth"]["scheme"] == "bearer"
    assert DOCUMENT["security"] == [{"ApiKeyAuth": []}, {"BearerAuth": []}]


@pytest.mark.parametrize("op", SERVED, ids=lambda op: f"{op.method} {op.openapi_path}")
def test_secured_operations_document_401_403_and_500(op: Any) -> None:
    """Every operation documents the auth errors and the server error in the error envelope."""
    responses = operation(op.method.lower(), op.openapi_path)["responses"]

    assert {"401", "403", "500"} <= set(responses)


def test_operations_with_ids_document_404() -> None:
    """Every operation with a path id documents 404."""
    for op in SERVED:
        if op.path_params:
            assert "404" in operation(op.method.lower(), op.openapi_path)["responses"], op.path


def test_operations_with_bodies_document_422() -> None:
    """Every operation with a body or query documents 422 (400, OpenAI's, for the OpenAI-compatible ones)."""
    for op in SERVED:
        if op.body or op.query or op.page:
            status = "400" if op.dialect is Dialect.OPENAI else "422"
            assert status in operation(op.method.lower(), op.openapi_path)["responses"], op.path


def test_openai_operations_document_openai_errors() -> None:
    """The OpenAI-compatible operations' error responses are OpenAI's error body, and their success the bare object."""
    responses = operation("post", "/chat/completions")["responses"]

    errors = {status for status, response in responses.items() if status != "200"}
    assert {"400", "401", "403", "429", "500", "503"} <= errors
    assert "422" not in errors
    for status in errors:
        assert responses[status]["content"]["application/json"]["schema"] == {
            "$ref": "#/components/schemas/OpenAIError"
        }
    success = responses["200"]["content"]["application/json"]["schema"]
    assert success == {"$ref": "#/components/schemas/ChatCompletionObject"}


def test_deletes_document_204_without_content() -> None:
    """A delete's success response is a 204 with no content."""
    assert operation("delete", "/tags/{id}")["responses"]["204"] == {"description": "Done; no content."}


def test_validation_errors_document_the_errors_map() -> None:
    """The 422 body has `errors`: field path to an array of messages."""
    errors = SCHEMAS["ValidationError"]["properties"]["errors"]

    assert errors["type"] == "object"
    assert errors["additionalProperties"]["type"] == "array"
    assert errors["additionalProperties"]["items"]["type"] == "string"


def test_forbidden_documents_the_code() -> None:
    """The 403 body has a machine-readable `code`."""
    assert "code" in SCHEMAS["ForbiddenError"]["required"]


def test_tag_titles_are_at_most_100_characters() -> None:
    """The tag title constraint is published as the converter enforces it."""
    title = SCHEMAS["TagWrite"]["properties"]["title"]

    assert (title["maxLength"], title["minLength"]) == (100, 1)


def test_contact_type_and_status_are_enums() -> None:
    """`type` and `status` list their values."""
    properties = SCHEMAS["ContactCreate"]["properties"]

    assert properties["type"]["enum"] == ["whatsapp", "telegram", "instagram", "linkedin"]
    assert properties["status"]["enum"] == ["active", "inactive"]


def test_per_page_has_a_minimum_of_1_and_its_default() -> None:
    """`per_page` is an integer of at least 1 with the endpoint's default."""
    [per_page] = [p for p in operation("get", "/contacts")["parameters"] if p["name"] == "per_page"]

    assert per_page["schema"] == {"type": "integer", "minimum": 1, "default": 15}


def test_path_ids_are_bounded_integers() -> None:
    """Path ids are integers from 1 to the largest id the router resolves."""
    [parameter] = operation("get", "/contacts/{id}")["parameters"]

    assert parameter["schema"] == {"type": "integer", "minimum": 1, "maximum": 999_999_999_999_999_999}


@pytest.mark.parametrize("cls", [ContactCreate, ContactUpdate])
def test_body_schemas_list_the_class_fields(cls: type) -> None:
    """A request schema's properties are the attrs fields of the class that parses it."""
    assert list(SCHEMAS[cls.__name__]["properties"]) == [f.name for f in attrs.fields(cls)]


def test_required_fields_are_those_without_defaults() -> None:
    """Fields without defaults are required; `UNSET` fields never are."""
    assert SCHEMAS["ContactCreate"]["required"] == ["name", "type"]
    assert "required" not in SCHEMAS["ContactUpdate"]


def test_a_phone_is_required_for_whatsapp_and_telegram() -> None:
    """The create schema says a non-instagram contact needs a phone."""
    [rule] = SCHEMAS["ContactCreate"]["allOf"]
    branches = rule["anyOf"]

    assert {"required": ["phone"], "properties": {"phone": {"type": "string"}}} in branches


def test_conditions_have_one_branch_per_field_and_value_kind() -> None:
    """The condition schema is generated from the core's operator table."""
    fields = {b["properties"]["field"]["const"] for b in condition_branches()}

    assert fields == set(SCHEMAS[Condition.__name__]["properties"]["field"]["enum"])


def test_a_tag_conditions_value_is_published_as_long_as_a_tag_title() -> None:
    """A `tag` condition's value is a tag title: at most `TITLE_MAX` characters, as the core checks."""
    [tag] = [b for b in condition_branches() if b["properties"]["field"]["const"] == "tag"]

    assert tag["properties"]["value"]["maxLength"] == TITLE_MAX


def test_assigning_a_tag_takes_exactly_one_of_id_or_title() -> None:
    """`POST /contacts/{id}/tags` documents its one-of rule."""
    assert SCHEMAS["TagAssign"]["allOf"] == [{"oneOf": [{"required": ["tag_id"]}, {"required": ["title"]}]}]


def test_the_document_does_not_list_itself() -> None:
    """`/openapi.json` is served beside the API, not documented as an operation of it."""
    assert API_PREFIX + "/openapi.json" not in DOCUMENT["paths"]


def test_every_post_declares_the_optional_idempotency_key_header() -> None:
    """Each POST takes an optional `Idempotency-Key` of 1 to 255 characters (but OpenAI's and a streamed upload's)."""
    for op in (op for op in SERVED if op.method == "POST" and op.dialect is Dialect.ENGAGE and not op.streamed):
        [header] = [p for p in operation("post", op.openapi_path)["parameters"] if p["name"] == "Idempotency-Key"]
        assert (header["in"], header["required"], header["schema"]["maxLength"]) == ("header", False, 255)


def test_every_post_documents_the_idempotency_key_conflicts() -> None:
    """Each POST documents 409 (the key's request still running) and 422 (the key used for another),
    but OpenAI's and a streamed upload."""
    for op in (op for op in SERVED if op.method == "POST" and op.dialect is Dialect.ENGAGE and not op.streamed):
        assert {"409", "422"} <= set(operation("post", op.openapi_path)["responses"]), op.path


def test_other_methods_take_no_idempotency_key() -> None:
    """No GET, PUT, PATCH or DELETE declares `Idempotency-Key`, nor an OpenAI-compatible POST or a streamed upload."""
    for op in (op for op in SERVED if op.method != "POST" or op.dialect is Dialect.OPENAI or op.streamed):
        parameters = operation(op.method.lower(), op.openapi_path).get("parameters", [])
        assert all(p["name"] != "Idempotency-Key" for p in parameters), op.path


def test_no_object_schema_has_a_sibling_union() -> None:
    """No schema puts `anyOf`/`oneOf` beside `properties`: generators read that as a union of classes
    without the fields; cross-field rules sit in `allOf`."""
    mixed = [at for at, schema in object_schemas(DOCUMENT) if {"anyOf", "oneOf"} & set(schema)]

    assert mixed == []


def test_cross_field_rules_keep_every_property() -> None:
    """A request schema with a cross-field rule is still one object of all its class's fields."""
    schema = SCHEMAS["ContactCreate"]

    assert schema["type"] == "object"
    assert list(schema["properties"]) == [f.name for f in attrs.fields(ContactCreate)]


def test_the_server_is_the_one_serving_the_document() -> None:
    """`servers` is the relative `/`: a client resolves it against where it fetched the document,
    and the paths already start with `/api/v1`."""
    assert DOCUMENT["servers"] == [{"url": "/", "description": "The server that serves this document."}]
    assert all(path.startswith(API_PREFIX + "/") for path in DOCUMENT["paths"])


def test_every_tag_is_described() -> None:
    """Each tag of the operation table has a description (a new area cannot go undescribed)."""
    assert all(tag["description"] for tag in DOCUMENT["tags"])


def test_the_description_lists_every_area() -> None:
    """`info.description` names each tag of the document, with its description."""
    description = DOCUMENT["info"]["description"]

    assert [tag for tag in DOCUMENT["tags"] if f"**{tag['name']}**: {tag['description']}" not in description] == []


@pytest.mark.parametrize("topic", ["X-Api-Key", "X-Partner-Key", "`errors`", "per_page", "Retry-After"])
def test_the_description_points_at_how_every_call_works(topic: str) -> None:
    """`info.description` covers authentication, errors, pagination and rate limits."""
    assert topic in DOCUMENT["info"]["description"]
