"""The OpenAPI 3.1 document, generated from the route table and the attrs classes of `schemas/`.

Nothing here is written by hand twice: paths and methods come from the operations, parameter and
body schemas from the same classes (and `Annotated` constraints) the converter enforces, response
schemas from the classes the routes render, and the error responses from the statuses each operation
can produce. The document is built once per app and served as bytes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from importlib import metadata
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from engage_core import DISTRIBUTION_NAME
from engage_core.kernel.idempotency import KEY_MAX_LENGTH
from engage_core.messaging.channels import CHANNEL_TYPES
from engage_http import multipart, pagination
from engage_http.envelope import JSON, dumps
from engage_http.envelope_schemas import Error, ForbiddenError, PageMeta, ValidationError
from engage_http.errors import WWW_AUTHENTICATE
from engage_http.fields import MAX_ID
from engage_http.jsonschema import SchemaRegistry
from engage_http.openai_format import OpenAIError
from engage_http.operations import PATH_PARAM, AuthScheme, Dialect, Operation, Shape
from engage_http.query import QueryParser

OPENAPI_VERSION = "3.1.0"

SECURITY_SCHEMES: Mapping[str, Any] = {
    "ApiKeyAuth": {
        "type": "apiKey",
        "in": "header",
        "name": "X-Api-Key",
        "description": "The account API key (44 characters). Recommended: some proxies strip `Authorization`.",
    },
    "BearerAuth": {
        "type": "http",
        "scheme": "bearer",
        "description": "The same API key as a bearer token: `Authorization: Bearer <API_KEY>`.",
    },
}
SECURITY: list[dict[str, list[str]]] = [{"ApiKeyAuth": []}, {"BearerAuth": []}]
PARTNER_SECURITY_SCHEME: Mapping[str, Any] = {
    "PartnerKeyAuth": {
        "type": "apiKey",
        "in": "header",
        "name": "X-Partner-Key",
        "description": "The partner key (`/partner/...` operations only; workspace keys are refused there).",
    }
}
PARTNER_SECURITY: list[dict[str, list[str]]] = [{"PartnerKeyAuth": []}]

IDEMPOTENCY_KEY_PARAMETER: Mapping[str, Any] = {
    "name": "Idempotency-Key",
    "in": "header",
    "required": False,
    "schema": {"type": "string", "minLength": 1, "maxLength": KEY_MAX_LENGTH},
    "description": "Run this request once: a retry with the same key and the same request within 24 hours gets "
    "the first response again, with `Idempotent-Replayed: true`; the key with another request is a 422. "
    "Keys are the caller's own (a UUID is a good key).",
}
"""Declared on every POST (`engage_http.idempotency`)."""

RATE_LIMIT_HEADERS: Mapping[str, Any] = {
    "X-RateLimit-Limit": {"schema": {"type": "integer"}, "description": "Requests allowed per window."},
    "X-RateLimit-Remaining": {"schema": {"type": "integer"}, "description": "Requests left in this window."},
    "X-RateLimit-Reset": {"schema": {"type": "integer"}, "description": "When the window ends (Unix seconds)."},
}
"""Sent with every answer to an authenticated request (`engage_http.rate_limit`)."""

_ERRORS: Mapping[int, tuple[str, type, str]] = {
    401: ("Unauthenticated", Error, "Missing, malformed or unknown API key (one body for all three)."),
    403: (
        "Forbidden",
        ForbiddenError,
        "Inactive account (`account_inactive`), origin not whitelisted (`origin_not_allowed`), workspace "
        "suspended (`workspace_suspended`), a plan feature missing (`feature_not_in_plan`: the operation's "
        "`x-plan-feature` where `x-plan-feature-required`, or `api_access`; `linkedin_upgrade_required`), or a "
        "plan limit reached (`plan_limit_reached`, the message names the limit).",
    ),
    404: ("NotFound", Error, "The resource does not exist in this account."),
    405: ("MethodNotAllowed", Error, "The path does not serve this method; `Allow` lists those it does."),
    409: (
        "Conflict",
        Error,
        "The request collides with the current state, or another request with its `Idempotency-Key` is still "
        "running (retry after `Retry-After` seconds).",
    ),
    413: ("PayloadTooLarge", Error, "The request body is larger than 1 MiB."),
    422: ("ValidationFailed", ValidationError, "The request is invalid; `errors` names each field."),
    429: ("TooManyRequests", Error, "Too many requests; retry after `Retry-After` seconds."),
    500: ("ServerError", Error, "Unexpected server error (logged; no details are returned)."),
    503: (
        "Unavailable",
        Error,
        "Nothing changed; retry later (after `Retry-After` seconds when sent): an outside service (a channel "
        "provider) failed, the server is busy (password hashing), or the database cannot serve now (full, "
        "read-only, too many connections).",
    ),
}

_TAGS: Mapping[str, str] = {
    "Contacts": "Contacts, their notes, tags and list and segment memberships.",
    "Tags": "Labels on contacts.",
    "Lists": "Named, explicit sets of contacts.",
    "Segments": "Saved rules over contacts, plus manual additions and removals.",
    "Account": "The account's profile, its plan, its limits and their use, and its channels.",
    "Webhooks": "Signed HTTPS deliveries of account events: subscriptions, secrets, the delivery log.",
    "Knowledge base": "What AI agents are grounded in; product catalogues hold the orderable products.",
    "Media": "The library of images and videos: uploads checked by content, served at public URLs.",
    "Voice": "The workspace's speaking voice, built-in or cloned, and text to speech stored as m4a.",
    "Products": "The orderable products of every product catalogue.",
    "Orders": "Orders of products: placing them, moving them through their statuses, cancelling, replacing items.",
    "Channels": "Messaging accounts: WhatsApp and Telegram by QR code, Instagram and LinkedIn with credentials.",
    "LinkedIn": "LinkedIn sourcing: the overview, people search, and invitation or message-sequence campaigns.",
    "Messages": "Sending messages, and the messages exchanged with a contact.",
    "Conversations": "One summary per contact of the messages exchanged with it.",
    "Support tickets": "Support tickets: opening, replying, closing, and the departments they go to.",
    "Web chat": "The embeddable web chat: visitor sessions and their messages, hand-over between the AI and "
    "people, and the widget's settings and public key.",
    "Team": "The workspace's team members.",
    "AI agents": "The personas that answer contacts: prompts, the default agent, and assigning agents to contacts.",
    "Booking setup": "What can be booked: booking types, resources, the working hours and the timezone.",
    "Bookings": "Bookings: the free slots of a day, booking, rescheduling, confirming, cancelling, completing.",
    "Campaigns": "Outreach campaigns: one message to contacts, lists and segments on one channel, sent by the "
    "worker at a rate and within quotas; pause, resume, cancel, and every recipient's delivery status.",
    "Partner": "Partner API (`X-Partner-Key`): the partner's profile and the plans clients run on.",
    "Partner clients": "Partner API: provision and manage client workspaces, their usage, and impersonation.",
    "Partner webhooks": "Partner API: the partner's own signed deliveries of `partner.client.*` events.",
    "Chat completions": "OpenAI-compatible: the models, and chat completions answered as the workspace's AI agent. "
    "Bodies and errors are OpenAI's (no envelope).",
    "Sandbox": "Sandbox gateway only: play the network's side (scan a code, write in, report receipts).",
}


SERVERS: list[dict[str, str]] = [{"url": "/", "description": "The server that serves this document."}]
"""Relative, so resolved against wherever the document was fetched from; the paths carry `/api/v1`."""

_GUIDE = """\
Every workspace path is scoped to the account that owns the API key; another account's resources \
answer 404.

- **Authentication**: the account's API key in `X-Api-Key` (or `Authorization: Bearer <key>`); the \
partner API (`/api/v1/partner/...`) takes a partner key in `X-Partner-Key`.
- **Envelope and errors**: a success is `{success: true, data, message?, meta?}`; an error is \
`{success: false, message}`, with `errors` (field path to messages) on 422 and a `code` on 403. \
The OpenAI-compatible operations (`/models`, `/chat/completions`) use OpenAI's bodies and errors instead.
- **Pagination**: list endpoints take `page` and `per_page` and answer `meta` \
(`current_page`, `per_page`, `total`, `last_page`).
- **Rate limits**: every authenticated answer carries `X-RateLimit-*` headers; 429 carries `Retry-After`.
- **Cross-field rules** (a phone for WhatsApp contacts, one of two fields) are stated under `allOf` \
and checked by the server, whose 422 names the field that breaks one.

The areas (tags):
"""


def info_description(tags: Iterable[str]) -> str:
    """The document's `info.description`: how every call works, then one line per area, in table order."""
    return _GUIDE + "".join(f"\n- **{tag}**: {_TAGS[tag]}" for tag in tags)


def build_document(operations: Iterable[Operation], *, prefix: str) -> dict[str, Any]:
    """The whole document for these operations, mounted under `prefix`."""
    registry = SchemaRegistry()
    paths: dict[str, dict[str, Any]] = {}
    tags: list[str] = []
    for operation in operations:
        paths.setdefault(prefix + operation.openapi_path, {})[operation.method.lower()] = _operation(
            operation, registry
        )
        if operation.tag not in tags:
            tags.append(operation.tag)
    responses = {
        name: _error_response(cls, description, registry, status)
        for status, (name, cls, description) in _ERRORS.items()
    }
    return {
        "openapi": OPENAPI_VERSION,
        "info": {"title": "engage workspace API", "version": _version(), "description": info_description(tags)},
        "servers": SERVERS,
        "tags": [{"name": name, "description": _TAGS[name]} for name in tags],
        "security": SECURITY,
        "paths": paths,
        "components": {
            "schemas": dict(sorted(registry.components.items())),
            "responses": responses,
            "securitySchemes": {**SECURITY_SCHEMES, **PARTNER_SECURITY_SCHEME},
        },
    }


def _operation(op: Operation, registry: SchemaRegistry) -> dict[str, Any]:
    spec: dict[str, Any] = {"operationId": op.operation_id, "summary": op.summary, "tags": [op.tag]}
    if op.description:
        spec["description"] = op.description
    parameters = [_path_parameter(name, convertor) for name, convertor in PATH_PARAM.findall(op.path)]
    if op.query is not None:
        parameters += [p.openapi() for p in QueryParser(op.query).parameters]
    if op.page is not None:
        parameters += [p.openapi() for p in pagination.parameters(op.page)]
    if op.idempotent:
        parameters.append(dict(IDEMPOTENCY_KEY_PARAMETER))
    if parameters:
        spec["parameters"] = parameters
    if op.body is not None:
        body = registry.schema(op.body)
        content: dict[str, Any] = {} if op.form_only else {JSON: {"schema": body}}
        if op.multipart or op.form_only:
            content[multipart.FORM] = {"schema": body, "encoding": multipart.encoding(op.body)}
        spec["requestBody"] = {"required": not op.body_optional, "content": content}
    responses: dict[str, Any] = {}
    for status in op.statuses:
        if op.dialect is Dialect.OPENAI:
            responses[str(status)] = _openai_response(op, status, registry)
        elif status == op.status or status in op.alternate_statuses:
            responses[str(status)] = _success_response(op, registry)
        elif status == 413 and op.body_limit is not None:
            responses[str(status)] = {
                "description": f"The request body is larger than {_size(op.body_limit)}.",
                "content": {JSON: {"schema": registry.schema(Error)}},
            }
        else:
            responses[str(status)] = {"$ref": f"#/components/responses/{_ERRORS[status][0]}"}
    spec["responses"] = responses
    if not op.secured:
        spec["security"] = []
    elif op.auth is AuthScheme.PARTNER:
        spec["security"] = PARTNER_SECURITY
    if op.feature is not None:
        spec["x-plan-feature"] = op.feature
        # false: still served once the plan lacks the feature (reading and deleting what was made)
        spec["x-plan-feature-required"] = not op.allowed_without_feature
    return spec


def _size(limit: int) -> str:
    """`5242880` -> `5 MiB`."""
    mib, rest = divmod(limit, 1024 * 1024)
    return f"{mib} MiB" if not rest else f"{limit} bytes"


_PATH_SCHEMAS: Mapping[str, Mapping[str, Any]] = {
    "id": {"type": "integer", "minimum": 1, "maximum": MAX_ID},
    "uuid": {"type": "string", "format": "uuid"},
    "channel": {"type": "string", "enum": list(CHANNEL_TYPES)},
    "web_chat_session": {"type": "string", "pattern": "^wcs_[A-Za-z0-9_-]{1,60}$"},
}


def _path_parameter(name: str, convertor: str) -> dict[str, Any]:
    """A path parameter, its schema chosen by the route convertor (`{id:id}`, `{delivery_id:uuid}`)."""
    return {"name": name, "in": "path", "required": True, "schema": dict(_PATH_SCHEMAS[convertor or "id"])}


def _success_response(op: Operation, registry: SchemaRegistry) -> dict[str, Any]:
    if op.shape is Shape.NOTHING:
        return {"description": "Done; no content."}
    assert op.response is not None
    item = registry.schema(op.response)
    data = item if op.shape in (Shape.ONE, Shape.ONE_WITH_PAGE) else {"type": "array", "items": item}
    succeeded: dict[str, Any] = {"type": "boolean"} if op.reports_failure else {"type": "boolean", "const": True}
    properties: dict[str, Any] = {"success": succeeded, "data": data}
    required = ["success", "data"]
    if op.message is not None:
        properties["message"] = {"type": "string"}
        required.append("message")
    if op.shape in (Shape.PAGE, Shape.ONE_WITH_PAGE):
        properties["meta"] = registry.schema(PageMeta)
        required.append("meta")
    envelope = {"type": "object", "properties": properties, "required": required}
    return {"description": op.summary + ".", "content": {JSON: {"schema": envelope}}}


_OPENAI_VALIDATION = (
    "The request is invalid (OpenAI's 400): `error.param` names the first field at fault, `error.message` "
    "says every problem."
)


def _openai_response(op: Operation, status: int, registry: SchemaRegistry) -> dict[str, Any]:
    """An OpenAI-compatible operation's response of `status`: its bare body, or an error in OpenAI's
    format (the description and headers of the API's own error of that status)."""
    if status == op.status:
        assert op.response is not None
        return {"description": op.summary + ".", "content": {JSON: {"schema": registry.schema(op.response)}}}
    description = _OPENAI_VALIDATION if status == 400 else _ERRORS[status][2]
    return _error_response(OpenAIError, description, registry, status)


def _error_response(cls: type, description: str, registry: SchemaRegistry, status: int) -> dict[str, Any]:
    response: dict[str, Any] = {"description": description, "content": {JSON: {"schema": registry.schema(cls)}}}
    if status == 401:
        response["headers"] = {
            name: {"required": True, "schema": {"type": "string", "const": value}}
            for name, value in WWW_AUTHENTICATE.items()
        }
    if status == 405:
        response["headers"] = {"Allow": {"required": True, "schema": {"type": "string"}}}
    if status == 503:
        response["headers"] = {"Retry-After": {"required": False, "schema": {"type": "integer", "minimum": 0}}}
    if status == 429:
        response["headers"] = {
            "Retry-After": {"required": True, "schema": {"type": "integer", "minimum": 0}},
            **RATE_LIMIT_HEADERS,
        }
    return response


def _version() -> str:
    try:
        return metadata.version(DISTRIBUTION_NAME)
    except metadata.PackageNotFoundError:  # pragma: no cover - running from a source tree
        return "0.0.0"


def document_endpoint(document: Mapping[str, Any]) -> Any:
    """A route endpoint serving `document`, serialised once."""
    body = dumps(document)

    async def openapi_json(request: Request) -> Response:
        return Response(body, media_type=JSON)

    return openapi_json
