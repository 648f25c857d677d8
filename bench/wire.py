"""A TCP relay between engage and PostgreSQL that counts what crosses it, read from the wire protocol.

    relay = WireCounter("127.0.0.1", 5432)
    port = relay.start()              # connect engage to 127.0.0.1:port instead (sslmode=disable)
    relay.reset(); ...; counts = relay.snapshot()

Counted, not estimated: every frontend message is parsed (`Parse`, `Bind`, `Execute`, the simple
protocol's `Query`, `Sync`), and a round trip is a burst of bytes from the client that follows bytes
from the server on the same connection: the client had to wait for an answer before it could go on.
A pipelined batch of statements is one round trip however many `Sync`s it carries. Each statement
executed is recorded under its SQL text (a prepared statement's text is taken from its `Parse`), so
`BEGIN`, `COMMIT` and the pool's ping show up by name. Connection start-up (the startup message and
authentication) crosses the relay too; a warmed-up pool does not repeat it.

The relay adds a hop and Python's cost to every message: use it to count, never to time.
"""

from __future__ import annotations

import asyncio
import threading
from collections import Counter
from typing import Self

import attrs

STARTUP_CODE = 196608
"""Protocol 3.0 in the startup message; SSL, GSS and cancel requests carry other codes."""

MESSAGE_NAMES = {ord("P"): "parse", ord("B"): "bind", ord("E"): "execute", ord("Q"): "query", ord("S"): "sync"}


@attrs.frozen
class Counts:
    """What crossed the relay since the last reset."""

    messages: Counter[str]
    round_trips: int
    statements: Counter[str]

    @property
    def executed(self) -> int:
        """Statements run: extended-protocol `Execute`s and simple-protocol `Query`s."""
        return self.messages["execute"] + self.messages["query"]

    def per(self, requests: int) -> Self:
        """The same counts divided by `requests` (rounded to two decimals)."""
        return type(self)(
            Counter({k: round(v / requests, 2) for k, v in self.messages.items()}),  # type: ignore[misc]
            round(self.round_trips / requests, 2),  # type: ignore[arg-type]
            Counter({k: round(v / requests, 2) for k, v in self.statements.items()}),  # type: ignore[misc]
        )


class _ClientStream:
    """The frontend messages of one connection, parsed as their bytes arrive in any pieces."""

    def __init__(self, counter: WireCounter) -> None:
        self._counter = counter
        self._buffer = bytearray()
        self._started = False
        self._prepared: dict[bytes, str] = {}
        self._bound = ""

    def feed(self, data: bytes) -> None:
        buffer = self._buffer
        buffer += data
        while True:
            if not self._started:  # untyped: length, code (SSL/GSS requests, then the startup message)
                if len(buffer) < 8:
                    return
                length = int.from_bytes(buffer[0:4], "big")
                if len(buffer) < length:
                    return
                self._started = int.from_bytes(buffer[4:8], "big") == STARTUP_CODE
                del buffer[:length]
                continue
            if len(buffer) < 5:
                return
            length = int.from_bytes(buffer[1:5], "big")
            if len(buffer) < 1 + length:
                return
            kind, body = buffer[0], bytes(buffer[5 : 1 + length])
            del buffer[: 1 + length]
            self._message(kind, body)

    def _message(self, kind: int, body: bytes) -> None:
        name = MESSAGE_NAMES.get(kind)
        if name is None:
            return
        counter = self._counter
        with counter.lock:
            counter.messages[name] += 1
            if name == "parse":
                statement, rest = body.split(b"\0", 1)
                self._prepared[statement] = _text(rest.split(b"\0", 1)[0])
            elif name == "bind":
                _portal, statement, _rest = body.split(b"\0", 2)
                self._bound = self._prepared.get(statement, "?")
            elif name == "execute":
                counter.statements[self._bound] += 1
            elif name == "query":
                counter.statements[_text(body.rstrip(b"\0"))] += 1


def _text(sql: bytes) -> str:
    return " ".join(sql.decode(errors="replace").split())


class WireCounter:
    """The relay, run on its own event loop in a daemon thread; counts shared by its connections."""

    def __init__(self, upstream_host: str, upstream_port: int) -> None:
        self._upstream = (upstream_host, upstream_port)
        self.lock = threading.Lock()
        self.messages: Counter[str] = Counter()
        self.statements: Counter[str] = Counter()
        self.round_trips = 0

    def start(self) -> int:
        """Start relaying; the local port to connect to."""
        ready: list[int] = []
        started = threading.Event()

        async def serve() -> None:
            server = await asyncio.start_server(self._connection, "127.0.0.1", 0)
            ready.append(server.sockets[0].getsockname()[1])
            started.set()
            async with server:
                await server.serve_forever()

        threading.Thread(target=asyncio.run, args=(serve(),), daemon=True, name="wire-counter").start()
        started.wait(10)
        return ready[0]

    def reset(self) -> None:
        with self.lock:
            self.messages.clear()
            self.statements.clear()
            self.round_trips = 0

    def snapshot(self) -> Counts:
        with self.lock:
            return Counts(Counter(self.messages), self.round_trips, Counter(self.statements))

    async def _connection(self, client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter) -> None:
        server_reader, server_writer = await asyncio.open_connection(*self._upstream)
        stream = _ClientStream(self)
        server_spoke = [True]  # the client's first bytes open a round trip

        async def upstream() -> None:
            while data := await client_reader.read(65536):
                if server_spoke[0]:
                    server_spoke[0] = False
                    with self.lock:
                        self.round_trips += 1
                stream.feed(data)
                server_writer.write(data)
                await server_writer.drain()
            server_writer.close()

        async def downstream() -> None:
            while data := await server_reader.read(65536):
                server_spoke[0] = True
                client_writer.write(data)
                await client_writer.drain()
            client_writer.close()

        try:
            await asyncio.gather(upstream(), downstream())
        except (ConnectionError, OSError):
            client_writer.close()
            server_writer.close()
