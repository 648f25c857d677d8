"""A local stand-in for an OpenAI-compatible language model service: `POST /v1/chat/completions`
on 127.0.0.1, in a thread, with a deterministic fake model, and misbehaviour on demand.

The fake model answers from its prompt alone:

- a request in JSON mode whose system message lists knowledge-base passages (`<passage id="12"
  title="...">`, as `engage_core.answering.prompt` labels them) is a turn: it cites the passage sharing most words with
  the last user message and replies with that passage's sentence sharing most words with it
  (`continue`), or hands over when no passage shares a word;
- a request in JSON mode whose system message asks for `{"facts": ...}` (the memory step) gets the
  sentences of the last user message that start with "my" or "I", as facts (`{"facts": [...]}`);
- another request in JSON mode gets `{"echo": <the last user message>}`;
- any other request gets `You said: <the last user message>`.

Asked again (the adapter's reminder, a user message starting with `REMINDER`), it answers the user
message before the reminder.

Misbehaviour: `misbehave(*modes)` sets how the next requests are answered, one mode each (then the
model again): `error` (500), `busy` (429 with `Retry-After: 0`), `hang` (no answer until the client
gives up or the server closes), `truncated` (JSON cut in the middle, `finish_reason: length`),
`invalid` (content that is not JSON, `finish_reason: stop`), `garbage` (a 200 whose body is not a
chat completion) and `denied` (401).

    with FakeLanguageModel(api_key="sk-test") as upstream:
        model = OpenAICompatibleModel(upstream.url, {...}, api_key="sk-test")
        upstream.misbehave("error", "truncated")
        ... upstream.requests ...               # every request body, in order
"""

from __future__ import annotations

import json
import re
import threading
from collections import deque
from typing import Any, Literal

from loopback import Closing, LoopbackHandler, LoopbackServer

Mode = Literal["error", "busy", "hang", "truncated", "invalid", "garbage", "denied"]

PASSAGE = re.compile(r'<passage id="(\d+)" title="[^"]*">\n(.*?)\n</passage>', re.DOTALL)
REMINDER = "Your last answer was not"
"""How the adapter's request to answer again starts: the fake model answers the message before it."""
_WORD = re.compile(r"\w+")
_STOP_TEXT = "a an and are at be can do does for how i in is it my of on or the to what when which you your"
_STOP = frozenset(_STOP_TEXT.split())


def words(text: str) -> set[str]:
    """The fake model's idea of meaning: lower-case words, a few stop words left out, plural `s` dropped."""
    found = {w.lower() for w in _WORD.findall(text)} - _STOP
    return {w[:-1] if len(w) > 3 and w.endswith("s") else w for w in found}


def fake_turn(system: str, question: str) -> dict[str, Any]:
    """The turn the fake model proposes (see the module notes)."""
    asked = words(question)
    best: tuple[int, int, str] | None = None
    for chunk_id, content in PASSAGE.findall(system):
        overlap = len(asked & words(content))
        if overlap and (best is None or overlap > best[0]):
            best = (overlap, int(chunk_id), content)
    if best is None:
        return {"reply": "A colleague will follow up on this.", "action": "handoff", "citations": [], "confidence": 0.2}
    _, chunk_id, content = best
    sentences = [s for s in re.split(r"(?<=[.!?])\s+", content) if s]
    reply = max(sentences, key=lambda s: len(asked & words(s)))
    return {"reply": reply, "action": "continue", "citations": [chunk_id], "confidence": 0.9}


def fake_facts(message: str) -> list[str]:
    """The facts the fake model finds: the message's sentences starting with "my" or "I"."""
    found = [s.strip(" .!") for s in re.split(r"(?<=[.!?])\s+", message)]
    return [s for s in found if s.lower().startswith(("my ", "i "))]


class FakeLanguageModel(Closing):
    """The fake service (see the module notes). `url` is its base URL, ending in `/v1`."""

    def __init__(self, *, api_key: str | None = None) -> None:
        self.api_key = api_key
        self.requests: list[dict[str, Any]] = []
        self._modes: deque[Mode] = deque()
        self._lock = threading.Lock()
        self._server = _Server(_Handler)
        self._server.fake = self
        self._server.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.port}/v1"

    def close(self) -> None:
        self._server.close()

    def misbehave(self, *modes: Mode) -> None:
        """Answer the next requests in these modes, one each, in order."""
        with self._lock:
            self._modes.extend(modes)

    def _next_mode(self) -> Mode | None:
        with self._lock:
            return self._modes.popleft() if self._modes else None

    def answer(self, body: dict[str, Any]) -> dict[str, Any]:
        """The completion the fake model gives for a request body."""
        messages = body.get("messages", [])
        system = next((m["content"] for m in messages if m["role"] == "system"), "")
        asked = [m["content"] for m in messages if m["role"] == "user" and not m["content"].startswith(REMINDER)]
        question = asked[-1] if asked else ""
        json_mode = (body.get("response_format") or {}).get("type") == "json_object"
        if json_mode and "Knowledge base passages" in system:
            content = json.dumps(fake_turn(system, question))
        elif json_mode and '{"facts":' in system:
            content = json.dumps({"facts": fake_facts(question)})
        elif json_mode:
            content = json.dumps({"echo": question})
        else:
            content = f"You said: {question}"
        return completion(body, content, "stop")


def completion(body: dict[str, Any], content: str, finish_reason: str) -> dict[str, Any]:
    """An OpenAI chat completion holding `content`, with token counts of about four characters each."""
    prompt = sum(len(str(m.get("content", ""))) for m in body.get("messages", [])) // 4
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 0,
        "model": body.get("model"),
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": finish_reason}],
        "usage": {"prompt_tokens": prompt, "completion_tokens": len(content) // 4, "total_tokens": 0},
    }


class _Server(LoopbackServer):
    fake: FakeLanguageModel


class _Handler(LoopbackHandler):
    server: _Server

    def handle_request(self) -> None:
        fake = self.server.fake
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        body = json.loads(raw) if raw else {}
        with fake._lock:
            fake.requests.append(body)
        mode = fake._next_mode()
        if mode == "hang":
            self.server.closed.wait(60)
            return
        if mode == "denied" or (fake.api_key and self.headers.get("Authorization") != f"Bearer {fake.api_key}"):
            self._send(401, {"error": {"message": "Incorrect API key provided.", "type": "invalid_request_error"}})
        elif self.path != "/v1/chat/completions":
            self._send(404, {"error": {"message": "Unknown path.", "type": "invalid_request_error"}})
        elif mode == "error":
            self._send(500, {"error": {"message": "The server had an error.", "type": "server_error"}})
        elif mode == "busy":
            self._send(429, {"error": {"message": "Rate limit reached.", "type": "requests"}}, {"Retry-After": "0"})
        elif mode == "garbage":
            self._send(200, {"unexpected": True})
        elif mode == "truncated":
            cut = fake.answer(body)["choices"][0]["message"]["content"][:20]
            self._send(200, completion(body, cut, "length"))
        elif mode == "invalid":
            self._send(200, completion(body, "Sure! Here is my answer, in words.", "stop"))
        else:
            self._send(200, fake.answer(body))

    def _send(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        payload = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(payload)
        self.wfile.flush()
