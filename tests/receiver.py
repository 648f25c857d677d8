"""A local webhook receiver for tests: a small threaded HTTPS (or plain HTTP) server on 127.0.0.1.

It records every request it reads whole (method, path, headers, exact body bytes; not one whose
client hung up before the end of its body) and answers as it is told: a status and body, after a
delay, with the answer's head dripped out byte by byte, or with a body far larger than anyone
should read. `answer_with(...)` sets the answers of the next requests
in turn (the last repeats); `respond_with(function)` decides from each request.

    with Receiver(tls=server_context) as receiver:
        receiver.answer_with(Answer(500), Answer(200))
        ... send to receiver.url("/hook") ...
        [first, second] = receiver.wait_for(2)

`exchanges` pairs each answered request with the moments (`time.monotonic()`) it was read and its
answer written, to tell which requests were in flight at the same time.

TLS is done per connection in the handler thread, so a client that fails its handshake does not
stall the server. Handlers that wait (delay, drip) give up as soon as the receiver is closed.
"""

from __future__ import annotations

import socket
import ssl
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import trustme
from loopback import Closing, LoopbackHandler, LoopbackServer


def server_context(authority: trustme.CA) -> ssl.SSLContext:
    """A server-side TLS context with a certificate for 127.0.0.1 and localhost issued by `authority`."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    authority.issue_cert("127.0.0.1", "localhost").configure_cert(context)
    return context


@dataclass(frozen=True)
class Received:
    """One request as the receiver read it."""

    method: str
    path: str
    headers: dict[str, str]  # header names lower-cased
    raw_headers: list[tuple[str, str]]  # as sent, in order
    body: bytes

    def header(self, name: str) -> str | None:
        return self.headers.get(name.lower())


@dataclass(frozen=True)
class Exchange:
    """A request and when it was in flight: from the moment it was read to the end of its answer."""

    request: Received
    arrived_at: float
    answered_at: float


@dataclass(frozen=True)
class Answer:
    """How to answer one request."""

    status: int = 200
    body: bytes = b"ok"
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0  # seconds to wait before answering
    drip: float = 0.0  # seconds between the bytes of the status line and headers
    huge_body: int = 0  # announce a body of this many bytes and stream it until the client hangs up


@dataclass
class _Stats:
    connections: int = 0
    tls_failures: int = 0
    body_bytes_written: int = 0
    body_aborted: bool = False


class Receiver(Closing):
    """A threaded server on 127.0.0.1 that records requests and answers as told."""

    def __init__(self, *, tls: ssl.SSLContext | None = None) -> None:
        self.requests: list[Received] = []
        self.exchanges: list[Exchange] = []
        self.stats = _Stats()
        self._answers: list[Answer] = [Answer()]
        self._respond: Callable[[Received], Answer] | None = None
        self._lock = threading.Condition()
        self._tls = tls
        self._server = _Server(_Handler)
        self._server.receiver = self
        self._server.start()

    @property
    def port(self) -> int:
        return self._server.port

    def url(self, path: str = "/hook", *, host: str = "127.0.0.1") -> str:
        scheme = "https" if self._tls is not None else "http"
        return f"{scheme}://{host}:{self.port}{path}"

    def answer_with(self, *answers: Answer) -> None:
        """The next requests get these answers in turn; the last one is repeated."""
        with self._lock:
            self._answers = list(answers) or [Answer()]
            self._respond = None

    def respond_with(self, respond: Callable[[Received], Answer]) -> None:
        """Each request is answered with `respond(request)`."""
        with self._lock:
            self._respond = respond

    def wait_for(self, count: int, timeout: float = 5.0) -> list[Received]:
        """The first `count` requests, waiting up to `timeout` seconds for them to arrive."""
        with self._lock:
            if not self._lock.wait_for(lambda: len(self.requests) >= count, timeout):
                raise AssertionError(f"expected {count} requests, received {len(self.requests)}")
            return list(self.requests[:count])

    def close(self) -> None:
        """Stop listening (idempotent); handlers still waiting give up."""
        self._server.close()

    # -- used by the handler ---------------------------------------------------------------------

    def _record(self, request: Received) -> Answer:
        with self._lock:
            self.requests.append(request)
            self._lock.notify_all()
            if self._respond is not None:
                return self._respond(request)
            return self._answers.pop(0) if len(self._answers) > 1 else self._answers[0]

    def _answered(self, request: Received, arrived_at: float) -> None:
        with self._lock:
            self.exchanges.append(Exchange(request, arrived_at, time.monotonic()))

    def _wrap(self, connection: socket.socket) -> socket.socket | None:
        with self._lock:
            self.stats.connections += 1
        if self._tls is None:
            return connection
        try:
            connection.settimeout(5)
            wrapped = self._tls.wrap_socket(connection, server_side=True)
            wrapped.settimeout(None)
            return wrapped
        except (ssl.SSLError, OSError):
            with self._lock:
                self.stats.tls_failures += 1
            connection.close()
            return None


class _Server(LoopbackServer):
    receiver: Receiver

    def finish_request(self, request: Any, client_address: Any) -> None:
        wrapped = self.receiver._wrap(request)
        if wrapped is None:
            return
        try:
            super().finish_request(wrapped, client_address)
        finally:
            if wrapped is not request:
                wrapped.close()


class _Handler(LoopbackHandler):
    server: _Server

    def do_PUT(self) -> None:
        self.handle_request()

    def handle_request(self) -> None:
        receiver = self.server.receiver
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        if len(body) < length:  # the client died mid-upload: no server hands that to an application
            self.close_connection = True
            return
        raw = [(name, value) for name, value in self.headers.items()]
        request = Received(self.command, self.path, {k.lower(): v for k, v in raw}, raw, body)
        arrived_at = time.monotonic()
        answer = receiver._record(request)
        if answer.delay and self.server.closed.wait(answer.delay):
            return
        if answer.drip:
            self._drip(answer)
        elif answer.huge_body:
            self._huge(answer)
        else:
            self.send_response(answer.status)
            for name, value in answer.headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(answer.body)))
            self.end_headers()
            self.wfile.write(answer.body)
            self.wfile.flush()
            receiver._answered(request, arrived_at)

    def _drip(self, answer: Answer) -> None:
        head = f"HTTP/1.1 {answer.status} OK\r\nContent-Length: {len(answer.body)}\r\nX-Drip: " + "." * 200 + "\r\n\r\n"
        if self.drip(head.encode(), answer.drip):
            self.wfile.write(answer.body)

    def _huge(self, answer: Answer) -> None:
        stats = self.server.receiver.stats
        self.send_response(answer.status)
        self.send_header("Content-Length", str(answer.huge_body))
        self.end_headers()
        chunk = b"x" * 65536
        try:
            while stats.body_bytes_written < answer.huge_body and not self.server.closed.is_set():
                self.wfile.write(chunk)
                stats.body_bytes_written += len(chunk)
        except OSError:
            stats.body_aborted = True
        self.close_connection = True


MakeReceiver = Callable[..., Receiver]
"""The type of the `make_receiver` fixture."""
