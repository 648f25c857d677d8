"""Local fakes of the voice services on 127.0.0.1: an OpenAI-compatible `/audio/speech` and the
cloning provider API of `engage_connectors.voice.cloning_http`. Both answer espeak-ng WAV audio, so
what comes back is real speech."""

from __future__ import annotations

import json
from typing import Any

import attrs
from loopback import Closing, LoopbackHandler, LoopbackServer
from voice_notes import speak


@attrs.define
class Seen:
    """One request as a fake saw it."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


class FakeVoiceService(Closing):
    """Serves both APIs; `status` and `audio` (None: speech of the input) shape the answers."""

    def __init__(self) -> None:
        self.status = 200
        self.audio: bytes | None = None
        self.voice_id = "provider-voice-1"
        self.seen: list[Seen] = []
        server = _Server(_Handler)
        server.fake = self
        server.start()
        self._server = server
        self.base_url = f"http://127.0.0.1:{server.port}/v1"

    def close(self) -> None:
        self._server.close()

    def answer(self, seen: Seen) -> tuple[int, str, bytes]:
        if self.status != 200:
            return self.status, "application/json", json.dumps({"error": {"message": "refused by fake"}}).encode()
        path = seen.path.removeprefix("/v1")
        if seen.method == "POST" and path.endswith("/speech"):
            text = seen.json()["input"]
            return 200, "audio/wav", self.audio if self.audio is not None else speak(text)
        if seen.method == "POST" and path == "/voices":
            return 200, "application/json", json.dumps({"voice_id": self.voice_id}).encode()
        return 200, "application/json", b"{}"


class _Server(LoopbackServer):
    fake: FakeVoiceService


class _Handler(LoopbackHandler):
    server: _Server

    def do_DELETE(self) -> None:
        self.handle_request()

    def handle_request(self) -> None:
        fake = self.server.fake
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        seen = Seen(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body)
        fake.seen.append(seen)
        status, content_type, answer = fake.answer(seen)
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)
