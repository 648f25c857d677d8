"""The webhook part of the OpenAPI document, and the target-URL pattern it publishes."""

from __future__ import annotations

import re
from typing import Any, get_args

import jsonschema_rs
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engage_core.webhooks.model import DELIVERY_STATUSES, URL_MAX, check_target
from engage_core.webhooks.service import WebhookService
from engage_http.areas import OPERATIONS
from engage_http.openapi import build_document
from engage_http.routing import API_PREFIX
from engage_http.webhooks.schemas import EVENT_NAME_PATTERN, HTTPS_URL_PATTERN, DeliveryStatus

DOCUMENT = build_document(OPERATIONS, prefix=API_PREFIX)
SCHEMAS = DOCUMENT["components"]["schemas"]
URL_REGEX = re.compile(HTTPS_URL_PATTERN[:-1] + r"\Z")  # JSON Schema's `$` is the end of the string
URI_FORMAT = jsonschema_rs.validator_for({"type": "string", "format": "uri"}, validate_formats=True)


def operation(method: str, path: str) -> dict[str, Any]:
    result: dict[str, Any] = DOCUMENT["paths"][API_PREFIX + path][method]
    return result


def test_every_webhook_path_is_documented() -> None:
    """The nine SPEC operations and redelivery appear under `/webhooks`."""
    documented = {(m.upper(), p) for p, ops in DOCUMENT["paths"].items() for m in ops if "/webhooks" in p}

    assert documented == {
        ("GET", "/api/v1/webhooks/events"),
        ("GET", "/api/v1/webhooks"),
        ("POST", "/api/v1/webhooks"),
        ("GET", "/api/v1/webhooks/{id}"),
        ("PUT", "/api/v1/webhooks/{id}"),
        ("DELETE", "/api/v1/webhooks/{id}"),
        ("POST", "/api/v1/webhooks/{id}/test"),
        ("GET", "/api/v1/webhooks/{id}/deliveries"),
        ("POST", "/api/v1/webhooks/{id}/regenerate-secret"),
        ("POST", "/api/v1/webhooks/{id}/deliveries/{delivery_id}/redeliver"),
    }


def test_the_target_url_is_an_https_uri_of_bounded_length() -> None:
    """`url` is published as a `uri` matching `^https://`, at most as long as the core allows."""
    for name in ("WebhookCreate", "WebhookUpdate"):
        url = SCHEMAS[name]["properties"]["url"]
        assert url["format"] == "uri"
        assert url["pattern"].startswith("^https://")
        assert url["maxLength"] == URL_MAX


def test_event_names_are_published_as_an_enum() -> None:
    """`events` items list exactly the names of `GET /webhooks/events`."""
    for name in ("WebhookCreate", "WebhookUpdate"):
        items = SCHEMAS[name]["properties"]["events"]["items"]
        assert items["enum"] == WebhookService.event_names()
        assert all(re.fullmatch(EVENT_NAME_PATTERN, event) for event in items["enum"])


def test_only_create_and_regenerate_responses_carry_the_secret() -> None:
    """`secret` is a property of `WebhookWithSecret` alone, the response of create and regenerate-secret."""
    with_secret = {name for name, schema in SCHEMAS.items() if "secret" in schema.get("properties", {})}
    secret_ref = "#/components/schemas/WebhookWithSecret"
    responders = {
        (method, path)
        for path, ops in DOCUMENT["paths"].items()
        for method, op in ops.items()
        for status, response in op["responses"].items()
        if status.startswith("2") and secret_ref in str(response)
    }

    assert with_secret == {"WebhookWithSecret"}
    assert responders == {
        ("post", "/api/v1/webhooks"),
        ("post", "/api/v1/webhooks/{id}/regenerate-secret"),
    }


def test_the_delivery_id_path_parameter_is_a_uuid() -> None:
    """Redelivery names the delivery by its UUID, the webhook by its integer id."""
    declared = operation("post", "/webhooks/{id}/deliveries/{delivery_id}/redeliver")["parameters"]
    parameters = [p for p in declared if p["in"] == "path"]

    assert [(p["name"], p["schema"]["type"]) for p in parameters] == [("id", "integer"), ("delivery_id", "string")]
    assert parameters[1]["schema"]["format"] == "uuid"


def test_the_delivery_log_documents_its_filter_and_pages() -> None:
    """`status` is an enum of the delivery states; `per_page` defaults to 25."""
    parameters = {p["name"]: p for p in operation("get", "/webhooks/{id}/deliveries")["parameters"]}

    assert parameters["status"]["schema"]["enum"] == list(DELIVERY_STATUSES)
    assert parameters["per_page"]["schema"]["default"] == 25


def test_the_published_delivery_states_are_the_cores() -> None:
    """The response enum of `status` is the core's list of delivery states."""
    assert get_args(DeliveryStatus) == DELIVERY_STATUSES


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.from_regex(URL_REGEX))
def test_every_url_the_pattern_admits_passes_the_core_and_is_a_uri(url: str) -> None:
    """What the document calls a valid target, the core accepts and JSON Schema calls a `uri`."""
    assert check_target(url) is None
    assert URI_FORMAT.is_valid(url)


def test_the_pattern_refuses_what_the_core_refuses() -> None:
    """http, credentials, ports above 65535 and malformed IPv6 hosts do not match the pattern."""
    refused = [
        "http://example.com",
        "https://user@example.com",
        "https://example.com:65536",
        "https://[1:2]/",
        "https://",
    ]

    assert [u for u in refused if URL_REGEX.match(u)] == []
    assert all(check_target(u) is not None for u in refused)
