"""Chat completions (SPEC 4): `GET /models` and `POST /chat/completions`, OpenAI-compatible.

Their bodies and errors are OpenAI's (`Dialect.OPENAI`: no envelope, errors as
`{"error": {...}}`, a validation failure a 400), so OpenAI's clients and SDKs work with the
base URL `{base_url}/api/v1` and the workspace key. Both belong to the `ai_agents` feature; listing
the models stays allowed without it, as every read does.
"""

from __future__ import annotations

from engage_core.answering.completion_service import CompletionInput
from engage_http.completions.schemas import (
    ChatCompletionCreate,
    ChatCompletionModel,
    ChatCompletionModelList,
    ChatCompletionObject,
)
from engage_http.operations import Call, Dialect, Operation, declare

TAG = "Chat completions"

RULES = frozenset({400, 503})
"""Declared in `errors`: a 400 may also answer a request the document calls valid, for rules it does not
state (`stream` true; on service-chat, a last message that is not the customer's text); a 503 says
the language model could not answer."""


def list_models(call: Call[None, None]) -> ChatCompletionModelList:
    models = call.services.chat_completions.models()
    return ChatCompletionModelList("list", [ChatCompletionModel.from_domain(m) for m in models])


def create_completion(call: Call[CompletionInput, None]) -> ChatCompletionObject:
    result = call.services.chat_completions.complete(call.account_id, call.body)
    return ChatCompletionObject.from_domain(result)


OPERATIONS: tuple[Operation, ...] = declare(
    Operation(
        "GET",
        "/models",
        list_models,
        "List the models",
        TAG,
        ChatCompletionModelList,
        dialect=Dialect.OPENAI,
        description="`service-chat` (the default) and `service-logic`, in OpenAI's list format.",
    ),
    Operation(
        "POST",
        "/chat/completions",
        create_completion,
        "Create a chat completion",
        TAG,
        ChatCompletionObject,
        body=ChatCompletionCreate,
        dialect=Dialect.OPENAI,
        errors=RULES,
        description="OpenAI-compatible. `service-chat` answers the last message, the customer's, as the "
        "workspace's default AI agent from its knowledge base (`engage` holds the turn: action, citations, "
        "confidence); `service-logic` is a raw completion and takes `response_format` `json_object`, whose "
        "content then always parses as one JSON object. `n` other than 1, `stream` true, JSON mode on "
        "`service-chat` and an invalid body are 400s in OpenAI's error format; unknown parameters are ignored. "
        "`usage` is always filled (estimated when the model gives no counts). A 503 means the language model "
        "could not answer (`service-logic` only: `service-chat` hands over instead).",
    ),
    feature="ai_agents",
)
