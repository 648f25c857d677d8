"""A small SMTP server on loopback for the mailer tests, standard library only.

It speaks enough of RFC 5321 for `smtplib`: EHLO/HELO, STARTTLS (RFC 3207), AUTH PLAIN (RFC 4954),
MAIL, RCPT, DATA (with dot-unstuffing), RSET, NOOP, QUIT. Each accepted message is recorded in
`received` with whether it came over TLS and who logged in. Options make it misbehave the ways a
real server does: refuse a recipient, demand a login, offer no STARTTLS, speak TLS from the first
byte (SMTPS), or accept connections and never greet (to exercise timeouts).
"""

from __future__ import annotations

import base64
import socket
import socketserver
import ssl
import threading

import attrs


@attrs.frozen
class Received:
    mail_from: str
    rcpt_to: tuple[str, ...]
    data: bytes
    over_tls: bool
    user: str | None


@attrs.define
class Options:
    tls_context: ssl.SSLContext | None = None
    """The server side of TLS; None offers no STARTTLS."""
    implicit_tls: bool = False
    credentials: tuple[str, str] | None = None
    """When set, MAIL is refused until AUTH PLAIN with these succeeds (offered only over TLS)."""
    refused_recipients: frozenset[str] = frozenset()
    greet: bool = True


class _Session(socketserver.BaseRequestHandler):
    server: SmtpServer

    def setup(self) -> None:
        self.sock: socket.socket = self.request
        self.over_tls = False
        self.user: str | None = None
        self.mail_from: str | None = None
        self.rcpt_to: list[str] = []

    def handle(self) -> None:
        options = self.server.options
        try:
            if options.implicit_tls:
                self._upgrade()
            self.reader = self.sock.makefile("rb")
            if not options.greet:
                self.reader.read()  # wait, silent, until the client gives up
                return
            self._send("220 smtp.test ESMTP ready")
            while (line := self.reader.readline()) and self._command(line.decode("utf-8", "replace").rstrip("\r\n")):
                pass
        except (OSError, ssl.SSLError):
            return  # a client that hung up or failed its handshake

    def _command(self, line: str) -> bool:
        verb, _, argument = line.partition(" ")
        verb = verb.upper()
        options = self.server.options
        if verb == "EHLO":
            features = ["smtp.test", "8BITMIME"]
            if options.tls_context is not None and not self.over_tls:
                features.append("STARTTLS")
            if options.credentials is not None and self.over_tls:
                features.append("AUTH PLAIN")
            for feature in features[:-1]:
                self._send(f"250-{feature}")
            self._send(f"250 {features[-1]}")
        elif verb == "HELO":
            self._send("250 smtp.test")
        elif verb == "STARTTLS" and options.tls_context is not None and not self.over_tls:
            self._send("220 go ahead")
            self._upgrade()
            self.reader = self.sock.makefile("rb")
            self.mail_from, self.rcpt_to = None, []
        elif verb == "AUTH" and options.credentials is not None and self.over_tls:
            self._auth(argument)
        elif verb == "MAIL":
            if options.credentials is not None and self.user is None:
                self._send("530 5.7.0 Authentication required")
            else:
                self.mail_from, self.rcpt_to = _address(argument), []
                self._send("250 OK")
        elif verb == "RCPT":
            recipient = _address(argument)
            if recipient in options.refused_recipients:
                self._send("550 5.1.1 No such user")
            else:
                self.rcpt_to.append(recipient)
                self._send("250 OK")
        elif verb == "DATA":
            self._data()
        elif verb in ("RSET", "NOOP"):
            if verb == "RSET":
                self.mail_from, self.rcpt_to = None, []
            self._send("250 OK")
        elif verb == "QUIT":
            self._send("221 bye")
            return False
        else:
            self._send("502 5.5.2 Command not recognised")
        return True

    def _auth(self, argument: str) -> None:
        mechanism, _, initial = argument.partition(" ")
        if mechanism.upper() != "PLAIN":
            self._send("504 5.5.4 Unrecognised authentication type")
            return
        if not initial:
            self._send("334 ")
            initial = self.reader.readline().decode().strip()
        try:
            _, user, password = base64.b64decode(initial).decode().split("\0")
        except ValueError:
            self._send("501 5.5.2 Malformed")
            return
        if (user, password) == self.server.options.credentials:
            self.user = user
            self._send("235 2.7.0 Authentication successful")
        else:
            self._send("535 5.7.8 Authentication credentials invalid")

    def _data(self) -> None:
        if self.mail_from is None or not self.rcpt_to:
            self._send("503 5.5.1 Bad sequence of commands")
            return
        self._send("354 End data with <CR><LF>.<CR><LF>")
        lines: list[bytes] = []
        while (line := self.reader.readline()) not in (b".\r\n", b""):
            lines.append(line[1:] if line.startswith(b"..") else line)
        received = Received(self.mail_from, tuple(self.rcpt_to), b"".join(lines), self.over_tls, self.user)
        with self.server.lock:
            self.server.received.append(received)
        self.mail_from, self.rcpt_to = None, []
        self._send("250 OK queued")

    def _upgrade(self) -> None:
        context = self.server.options.tls_context
        assert context is not None
        self.sock = context.wrap_socket(self.sock, server_side=True)
        self.over_tls = True

    def _send(self, line: str) -> None:
        self.sock.sendall(line.encode() + b"\r\n")


def _address(argument: str) -> str:
    """`FROM:<a@b.c> BODY=8BITMIME` -> `a@b.c`."""
    return argument.partition(":")[2].strip().split(" ")[0].strip("<>")


class SmtpServer(socketserver.ThreadingTCPServer):
    """Listens on 127.0.0.1 on a free port; `start()` serves in a thread, `close()` stops it."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, options: Options | None = None) -> None:
        super().__init__(("127.0.0.1", 0), _Session)
        self.options = options or Options()
        self.received: list[Received] = []
        self.lock = threading.Lock()
        self._thread = threading.Thread(target=self.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def port(self) -> int:
        return int(self.server_address[1])

    def start(self) -> SmtpServer:
        self._thread.start()
        return self

    def close(self) -> None:
        self.shutdown()
        self.server_close()
        self._thread.join(timeout=5)
