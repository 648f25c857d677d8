"""A `LanguageModel` over an OpenAI-compatible chat completions API (OpenAI, Azure OpenAI, or a
local server such as Ollama, vLLM, llama.cpp or LM Studio):

    POST {base_url}/chat/completions
    Authorization: Bearer {api_key}          (when a key is given)
    {"model": "...", "messages": [...], "temperature"?, "max_tokens"?, "response_format"?}

    200 {"choices": [{"message": {"content": "..."}, "finish_reason": "stop"}],
         "usage": {"prompt_tokens": 1, "completion_tokens": 2}}

Each alias (`service-chat`, `service-logic`) is mapped to an upstream model of the operator's choice.

Failures. Each request has `timeout` seconds in all (connection, upload and answer,
`guarded_http.deadline`). A timeout, a refused connection, a 429, a 5xx or a 2xx that is not a chat
completion is tried again, at most `retries` more times, after `backoff`, then twice that, ...
seconds (or the `Retry-After` of a 429 or 503, up to `RETRY_AFTER_MAX`); another status (a wrong
key's 401, a 400) is not. When every try failed, `complete` raises `Unavailable`.

JSON. A structured turn, and a completion in JSON mode, are asked with `response_format:
{"type": "json_object"}`. An answer cut at the token limit (`finish_reason: length`) or that is not
the JSON asked for (a JSON object; for a turn, with a string `reply` and `action`; a Markdown code
fence around it is tolerated) is asked for once more, with a message saying what was wrong. If the
second answer is no better: `compose_turn` returns a `handoff` with the hand-over message,
`complete` the JSON object `NO_JSON_OBJECT`, and `extract_memories` no fact. `compose_turn` never
raises: an unreachable model is a hand-over too (and a memory step that finds nothing).
Token counts add up over the tries.

Memories. The memory step asks `service-logic`, in JSON mode, with the agent's
`memory_agent_instructions` and `engage_core.answering.memory.MEMORY_PROMPT` (and the facts known)
as the system message and the customer's message as the user message, for `{"facts": [...]}`;
the strings of that list are the facts.

The service is the operator's own choice, possibly on loopback or a private network, so no address
is refused; redirects are not followed and proxy variables are ignored. The key is never logged, nor
put in a message or a repr.
"""

from __future__ import annotations

import json
import logging
import re
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit

import httpx

from engage_connectors.guarded_http import deadline, guarded_client
from engage_connectors.openai_embeddings import ANY_ADDRESS
from engage_connectors.ssrf import BlockedAddress
from engage_core.answering.chat import (
    MODELS,
    NO_JSON_OBJECT,
    SERVICE_CHAT,
    SERVICE_LOGIC,
    ChatCompletion,
    ChatMessage,
    ChatRequest,
    Usage,
)
from engage_core.answering.memory import MEMORY_PROMPT, MemoryRequest
from engage_core.answering.turns import HANDOFF_REPLY, TurnDraft, TurnRequest
from engage_core.kernel.errors import Unavailable

logger = logging.getLogger("engage.llm")

DEFAULT_TIMEOUT_SECONDS = 60.0
DEFAULT_RETRIES = 2
DEFAULT_BACKOFF_SECONDS = 0.5
RETRY_AFTER_MAX = 10.0
"""Seconds at most waited for a `Retry-After` before trying again."""
TURN_MAX_TOKENS = 1024
"""Tokens a structured turn may use when the caller sets no limit (a reply and its JSON around it)."""
MEMORY_MAX_TOKENS = 512
"""Tokens the memory step's answer may use."""
ANSWER_LIMIT = 4 * 1024 * 1024
"""Bytes of an answer read at most."""

AGAIN_TURN = (
    "Your last answer was not one complete JSON object of the shape asked for. Answer again with only "
    "that JSON object, and keep the reply short."
)
AGAIN_JSON = "Your last answer was not one complete JSON object. Answer again with only one JSON object, shorter."
_FENCE = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.DOTALL)


class OpenAICompatibleModel:
    """The model aliases answered by `models[alias]` at `base_url` (e.g. `https://api.openai.com/v1`)."""

    def __init__(
        self,
        base_url: str,
        models: Mapping[str, str],
        *,
        api_key: str | None = None,
        timeout: float = DEFAULT_TIMEOUT_SECONDS,
        retries: int = DEFAULT_RETRIES,
        backoff: float = DEFAULT_BACKOFF_SECONDS,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"The language model URL must be an http:// or https:// URL, not {base_url!r}.")
        missing = [alias for alias in MODELS if not (models.get(alias) or "").strip()]
        if missing:
            raise ValueError(f"No upstream model is given for {', '.join(missing)}.")
        if timeout <= 0 or retries < 0 or backoff < 0:
            raise ValueError("The timeout must be greater than 0, and the retries and backoff at least 0.")
        self._url = base_url.rstrip("/") + "/chat/completions"
        self._models = {alias: models[alias].strip() for alias in MODELS}
        self._headers = {"Accept": "application/json"} | ({"Authorization": f"Bearer {api_key}"} if api_key else {})
        self._timeout = timeout
        self._retries = retries
        self._backoff = backoff
        self._sleep = sleep
        self._client = guarded_client(ANY_ADDRESS, timeout=timeout)

    def __repr__(self) -> str:
        return f"OpenAICompatibleModel({self._url!r}, {self._models!r})"  # never the key

    def close(self) -> None:
        """Close the pooled connections."""
        self._client.close()

    def compose_turn(self, request: TurnRequest) -> TurnDraft:
        messages = request.messages()
        max_tokens = request.max_tokens or TURN_MAX_TOKENS
        used: Usage | None = None
        for attempt in range(2):
            try:
                answer = self._chat(messages, SERVICE_CHAT, request.temperature, max_tokens, json_object=True)
            except Unavailable as exc:
                logger.warning("The language model failed; handing over. %s", exc.message)
                return TurnDraft(HANDOFF_REPLY, "handoff", confidence=0.0, usage=used)
            used = _add(used, answer.usage)
            draft = None if answer.finish_reason == "length" else _draft(answer.content)
            if draft is not None:
                return TurnDraft(draft.reply, draft.action, draft.citations, draft.confidence, used)
            logger.warning(
                "The language model's turn was %s (try %d of 2).",
                "cut at the token limit" if answer.finish_reason == "length" else "not the JSON asked for",
                attempt + 1,
            )
            messages = (*request.messages(), ChatMessage("user", AGAIN_TURN))
        return TurnDraft(HANDOFF_REPLY, "handoff", confidence=0.0, usage=used)

    def complete(self, request: ChatRequest) -> ChatCompletion:
        answer = self._chat(
            request.messages, request.model, request.temperature, request.max_tokens, request.json_object
        )
        if not request.json_object or (answer.finish_reason != "length" and _object(answer.content) is not None):
            return answer
        logger.warning("The language model's JSON answer was cut or invalid; asking again.")
        again = self._chat(
            (*request.messages, ChatMessage("user", AGAIN_JSON)),
            request.model,
            request.temperature,
            request.max_tokens,
            json_object=True,
        )
        usage = _add(answer.usage, again.usage)
        found = _object(again.content) if again.finish_reason != "length" else None
        content = NO_JSON_OBJECT if found is None else json.dumps(found, ensure_ascii=False)
        return ChatCompletion(content, again.finish_reason, usage)

    def extract_memories(self, request: MemoryRequest) -> tuple[str, ...]:
        known = "\n".join(f"- {fact}" for fact in request.known) or "- (none)"
        system = f"{request.instructions.strip()}\n\n{MEMORY_PROMPT}\n\nKnown facts:\n{known}"
        asked = ChatRequest(
            (ChatMessage("system", system), ChatMessage("user", request.message)),
            SERVICE_LOGIC,
            temperature=0.0,
            max_tokens=MEMORY_MAX_TOKENS,
            json_object=True,
        )
        try:
            answer = _object(self.complete(asked).content)
        except Unavailable as exc:
            logger.warning("The language model failed; no memory kept. %s", exc.message)
            return ()
        facts = answer.get("facts") if answer is not None else None
        if not isinstance(facts, list):
            return ()
        return tuple(f.strip() for f in facts if isinstance(f, str) and f.strip())

    def _chat(
        self,
        messages: Sequence[ChatMessage],
        alias: str,
        temperature: float | None,
        max_tokens: int | None,
        json_object: bool,
    ) -> ChatCompletion:
        """One chat completion, tried again as the module notes say."""
        model = self._models.get(alias)
        if model is None:
            raise Unavailable(f"No upstream model is mapped to {alias!r}.")
        body: dict[str, Any] = {"model": model, "messages": [{"role": m.role, "content": m.content} for m in messages]}
        if temperature is not None:
            body["temperature"] = temperature
        if max_tokens is not None:
            body["max_tokens"] = max_tokens
        if json_object:
            body["response_format"] = {"type": "json_object"}
        tries = self._retries + 1
        for attempt in range(tries):
            outcome, retry_after = self._try(body)
            if isinstance(outcome, ChatCompletion):
                return outcome
            if retry_after is None:
                raise Unavailable(outcome)
            if attempt + 1 < tries:
                delay = min(retry_after, RETRY_AFTER_MAX) if retry_after > 0 else self._backoff * 2**attempt
                logger.warning("%s Trying again in %.1f s (try %d of %d).", outcome, delay, attempt + 2, tries)
                self._sleep(delay)
        raise Unavailable(f"{outcome} Gave up after {tries} tries.")

    def _try(self, body: dict[str, Any]) -> tuple[ChatCompletion | str, float | None]:
        """One request: the completion, or what went wrong and whether to try again (the
        `Retry-After` seconds, 0 without one) or not (None)."""
        try:
            with (
                deadline(self._timeout),
                self._client.stream("POST", self._url, json=body, headers=self._headers) as response,
            ):
                answer = bytearray()
                for chunk in response.iter_bytes():
                    answer.extend(chunk)
                    if len(answer) > ANSWER_LIMIT:
                        return "The language model answered with too much data.", None
                status = response.status_code
                retry_after = _retry_after(response.headers.get("retry-after"))
        except (httpx.HTTPError, BlockedAddress) as exc:
            return f"The language model could not be reached ({type(exc).__name__}).", 0.0
        if status == 429 or status >= 500:
            return f"The language model answered HTTP {status}.", retry_after
        if not 200 <= status < 300:
            return f"The language model answered HTTP {status}.", None
        completion = _completion(bytes(answer))
        if completion is None:
            return "The language model gave an answer that is not a chat completion.", 0.0
        return completion, None


def _retry_after(value: str | None) -> float:
    try:
        return max(0.0, float(value)) if value else 0.0
    except ValueError:
        return 0.0


def _completion(answer: bytes) -> ChatCompletion | None:
    """The completion an answer holds, or None when it is not the OpenAI shape."""
    try:
        payload = json.loads(answer)
        choice = payload["choices"][0]
        content = choice["message"].get("content") or ""
        finish = choice.get("finish_reason") or "stop"
    except (ValueError, KeyError, IndexError, TypeError, AttributeError):
        return None
    if not isinstance(content, str) or not isinstance(finish, str):
        return None
    return ChatCompletion(content, finish, _usage(payload.get("usage")))


def _usage(raw: Any) -> Usage | None:
    if not isinstance(raw, dict):
        return None
    prompt, completion = raw.get("prompt_tokens"), raw.get("completion_tokens")
    if type(prompt) is not int or type(completion) is not int:
        return None
    return Usage(prompt, completion)


def _add(first: Usage | None, second: Usage | None) -> Usage | None:
    if first is None or second is None:
        return first or second
    return Usage(first.prompt_tokens + second.prompt_tokens, first.completion_tokens + second.completion_tokens)


def _object(content: str) -> dict[str, Any] | None:
    """The JSON object `content` is (inside a Markdown code fence or not), or None."""
    fenced = _FENCE.match(content)
    try:
        parsed = json.loads(fenced.group(1) if fenced else content)
    except ValueError:
        return None
    return parsed if isinstance(parsed, dict) else None


def _draft(content: str) -> TurnDraft | None:
    """The turn a JSON answer proposes, or None when it is not the shape asked for."""
    found = _object(content)
    if found is None:
        return None
    reply, action = found.get("reply"), found.get("action")
    if not isinstance(reply, str) or not isinstance(action, str):
        return None
    citations = found.get("citations")
    ids = tuple(_chunk_id(c) for c in citations) if isinstance(citations, list) else ()
    confidence = found.get("confidence")
    number = float(confidence) if isinstance(confidence, int | float) and not isinstance(confidence, bool) else None
    return TurnDraft(reply, action.strip().lower(), tuple(i for i in ids if i is not None), number)


def _chunk_id(value: Any) -> int | None:
    """A cited chunk id: an integer, or a string holding one (`"12"`, `"chunk 12"`)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str):
        digits = re.search(r"\d+", value)
        return int(digits.group()) if digits else None
    return None
