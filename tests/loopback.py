"""The plumbing the local fake servers share: a threaded HTTP server on 127.0.0.1 and its handler.

    class _Server(LoopbackServer):
        fake: MyFake

    server = _Server(_Handler)
    server.fake = self
    server.start()
    ... f"http://127.0.0.1:{server.port}" ...
    server.close()

`closed` is set by `close()`: handlers that wait (a delay, a dripped answer) wait on it, so they
give up as soon as the server stops instead of holding the test up.
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Self


class Closing:
    """`with Fake() as fake:` closes the fake when the block ends, however it ends."""

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


class LoopbackServer(ThreadingHTTPServer):
    """A threaded HTTP server on a free port of 127.0.0.1; `start()` serves in a daemon thread."""

    daemon_threads = True
    block_on_close = False

    def __init__(self, handler: type[BaseHTTPRequestHandler]) -> None:
        super().__init__(("127.0.0.1", 0), handler)
        self.closed = threading.Event()
        self._thread = threading.Thread(target=self.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def port(self) -> int:
        return int(self.server_address[1])

    def start(self) -> None:
        self._thread.start()

    def close(self) -> None:
        """Stop listening (idempotent): later connections are refused; waiting handlers give up."""
        if self.closed.is_set():
            return
        self.closed.set()
        self.shutdown()
        self.server_close()
        self._thread.join(timeout=5)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Clients that time out or hang up mid-answer are expected here; keep the test output quiet."""


class LoopbackHandler(BaseHTTPRequestHandler):
    """HTTP/1.1 with keep-alive and no logging; GET and POST go to `handle_request`."""

    server: LoopbackServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet."""

    def do_GET(self) -> None:
        self.handle_request()

    def do_POST(self) -> None:
        self.handle_request()

    def handle_request(self) -> None:
        raise NotImplementedError

    def drip(self, data: bytes, seconds: float) -> bool:
        """Write `data` one byte at a time, `seconds` apart; False if the server closed meanwhile."""
        for index in range(len(data)):
            if self.server.closed.wait(seconds):
                return False
            self.wfile.write(data[index : index + 1])
            self.wfile.flush()
        return True
