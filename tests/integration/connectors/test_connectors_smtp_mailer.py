"""SmtpMailer against a real SMTP server on loopback: plain, STARTTLS and implicit TLS, logging in,
and every failure mapped to a clear MailUndelivered (refused connection, timeout, refusals, TLS)."""

from __future__ import annotations

import re
import socket
import ssl
import time
from collections.abc import Callable, Iterator
from email import message_from_bytes
from email.message import EmailMessage
from email.policy import default

import pytest
import trustme
from smtp_server import Options, Received, SmtpServer

from engage_connectors.smtp_mailer import SmtpMailer
from engage_core.kernel.mail import MailMessage, MailUndelivered

SENDER = "engage@example.com"
MESSAGE = MailMessage("ada@example.com", "You have been added to Acme", "Hello Ada,\nwelcome — café.\n.\nBye\n")

MakeServer = Callable[..., SmtpServer]
MakeMailer = Callable[..., SmtpMailer]


@pytest.fixture
def server_tls(certificate_authority: trustme.CA) -> ssl.SSLContext:
    """The server side of TLS: a certificate for 127.0.0.1 issued by the test CA."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    certificate_authority.issue_cert("127.0.0.1", "localhost").configure_cert(context)
    return context


@pytest.fixture
def client_tls(certificate_authority: trustme.CA) -> ssl.SSLContext:
    """A client context that trusts the test CA (and nothing else)."""
    return ssl.create_default_context(cadata=certificate_authority.cert_pem.bytes().decode())


@pytest.fixture
def make_server() -> Iterator[MakeServer]:
    """`make_server(**Options fields) -> SmtpServer`, started; every server is closed afterwards."""
    servers: list[SmtpServer] = []

    def make(**options: object) -> SmtpServer:
        server = SmtpServer(Options(**options)).start()  # type: ignore[arg-type]
        servers.append(server)
        return server

    yield make
    for server in servers:
        server.close()


@pytest.fixture
def make_mailer(client_tls: ssl.SSLContext) -> MakeMailer:
    """`make_mailer(port, security="none", **options) -> SmtpMailer` for 127.0.0.1, trusting the test CA."""

    def make(port: int, security: str = "none", **options: object) -> SmtpMailer:
        settings: dict[str, object] = {"sender": SENDER, "ssl_context": client_tls, "local_hostname": "engage.test"}
        settings.update(options)
        return SmtpMailer("127.0.0.1", port, security=security, **settings)  # type: ignore[arg-type]

    return make


def only(server: SmtpServer) -> Received:
    [received] = server.received
    return received


def parsed(received: Received) -> EmailMessage:
    message = message_from_bytes(received.data, policy=default)
    assert isinstance(message, EmailMessage)
    return message


def free_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


# -- delivering ------------------------------------------------------------------------------------


def test_a_message_reaches_the_server(make_server: MakeServer, make_mailer: MakeMailer) -> None:
    """The envelope names the sender and the one recipient."""
    server = make_server()
    make_mailer(server.port).send(MESSAGE)
    received = only(server)
    assert (received.mail_from, received.rcpt_to) == (SENDER, ("ada@example.com",))


def test_the_headers_and_body_arrive_intact(make_server: MakeServer, make_mailer: MakeMailer) -> None:
    """From, To, Subject and the UTF-8 body (a lone dot line included) survive the trip."""
    server = make_server()
    make_mailer(server.port).send(MESSAGE)
    message = parsed(only(server))
    assert (message["From"], message["To"], message["Subject"]) == (SENDER, MESSAGE.to, MESSAGE.subject)
    assert message.get_content().replace("\r\n", "\n") == MESSAGE.text  # SMTP lines end in CRLF


def test_a_message_has_a_date_and_an_id(make_server: MakeServer, make_mailer: MakeMailer) -> None:
    """Date and Message-ID are set, the id in the sender's domain."""
    server = make_server()
    make_mailer(server.port).send(MESSAGE)
    message = parsed(only(server))
    assert message["Date"] and message["Message-ID"].endswith("@example.com>")


def test_a_subject_cannot_inject_headers(make_server: MakeServer, make_mailer: MakeMailer) -> None:
    """Line breaks in a subject become spaces: no header can be smuggled in."""
    server = make_server()
    make_mailer(server.port).send(MailMessage("ada@example.com", "Hi\r\nBcc: eve@example.com", "x"))
    message = parsed(only(server))
    assert (message["Subject"], message["Bcc"]) == ("Hi Bcc: eve@example.com", None)


def test_starttls_upgrades_before_sending(
    make_server: MakeServer, make_mailer: MakeMailer, server_tls: ssl.SSLContext
) -> None:
    """With security starttls the message travels over TLS."""
    server = make_server(tls_context=server_tls)
    make_mailer(server.port, "starttls").send(MESSAGE)
    assert only(server).over_tls


def test_implicit_tls_is_spoken_from_the_first_byte(
    make_server: MakeServer, make_mailer: MakeMailer, server_tls: ssl.SSLContext
) -> None:
    """With security tls (SMTPS) the message travels over TLS."""
    server = make_server(tls_context=server_tls, implicit_tls=True)
    make_mailer(server.port, "tls").send(MESSAGE)
    assert only(server).over_tls


def test_the_mailer_logs_in_after_starttls(
    make_server: MakeServer, make_mailer: MakeMailer, server_tls: ssl.SSLContext
) -> None:
    """Credentials are sent, over TLS, and the server accepts the message from that user."""
    server = make_server(tls_context=server_tls, credentials=("mailer", "s3cret-pass"))
    make_mailer(server.port, "starttls", username="mailer", password="s3cret-pass").send(MESSAGE)
    assert (only(server).user, only(server).over_tls) == ("mailer", True)


# -- failing clearly -------------------------------------------------------------------------------


def test_a_refused_connection_is_reported(make_mailer: MakeMailer) -> None:
    """Nothing listening: MailUndelivered says the server refused the connection."""
    port = free_port()
    with pytest.raises(MailUndelivered) as caught:
        make_mailer(port).send(MESSAGE)
    assert caught.value.message == f"The mail server 127.0.0.1:{port} refused the connection."


def test_a_silent_server_times_out(make_server: MakeServer, make_mailer: MakeMailer) -> None:
    """A server that never greets is given up on after the timeout, with a clear message."""
    server = make_server(greet=False)
    started = time.monotonic()
    with pytest.raises(MailUndelivered) as caught:
        make_mailer(server.port, timeout=0.5).send(MESSAGE)
    assert time.monotonic() - started < 5
    assert caught.value.message == f"The mail server 127.0.0.1:{server.port} did not answer within 0.5 seconds."


def test_a_refused_recipient_is_named(make_server: MakeServer, make_mailer: MakeMailer) -> None:
    """A 550 on RCPT says which recipient was refused, and nothing is delivered."""
    server = make_server(refused_recipients=frozenset({"ada@example.com"}))
    with pytest.raises(MailUndelivered, match=re.escape("refused the recipient ada@example.com")):
        make_mailer(server.port).send(MESSAGE)
    assert server.received == []


def test_wrong_credentials_are_reported_without_them(
    make_server: MakeServer, make_mailer: MakeMailer, server_tls: ssl.SSLContext
) -> None:
    """A 535 says the credentials were rejected and never repeats the password."""
    server = make_server(tls_context=server_tls, credentials=("mailer", "s3cret-pass"))
    with pytest.raises(MailUndelivered) as caught:
        make_mailer(server.port, "starttls", username="mailer", password="wrong-pass").send(MESSAGE)
    assert "rejected the username or password" in caught.value.message
    assert "wrong-pass" not in caught.value.message


def test_a_server_without_starttls_is_not_used_in_clear_text(make_server: MakeServer, make_mailer: MakeMailer) -> None:
    """security starttls refuses to fall back to plain text."""
    server = make_server()
    with pytest.raises(MailUndelivered, match="does not offer STARTTLS"):
        make_mailer(server.port, "starttls").send(MESSAGE)
    assert server.received == []


def test_an_untrusted_certificate_is_refused(make_server: MakeServer, server_tls: ssl.SSLContext) -> None:
    """A certificate the mailer does not trust stops the send, naming TLS."""
    server = make_server(tls_context=server_tls)
    stranger = ssl.create_default_context(cadata=trustme.CA().cert_pem.bytes().decode())  # another CA only
    mailer = SmtpMailer("127.0.0.1", server.port, sender=SENDER, ssl_context=stranger, local_hostname="engage.test")
    with pytest.raises(MailUndelivered, match="over TLS"):
        mailer.send(MESSAGE)


def test_a_login_required_but_not_configured_is_reported(
    make_server: MakeServer, make_mailer: MakeMailer, server_tls: ssl.SSLContext
) -> None:
    """A 530 on MAIL names the sender refusal with the server's code."""
    server = make_server(tls_context=server_tls, credentials=("mailer", "s3cret-pass"))
    with pytest.raises(MailUndelivered, match=re.escape("refused the sender engage@example.com (530)")):
        make_mailer(server.port, "starttls").send(MESSAGE)


# -- configuration ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "problem"),
    [
        ({"security": "ssl"}, "security"),
        ({"timeout": 0}, "timeout"),
        ({"username": "mailer"}, "both"),
        ({"sender": "engage"}, "sender"),
    ],
)
def test_bad_settings_are_refused_at_start(options: dict[str, object], problem: str) -> None:
    """Misconfiguration fails when the mailer is built, not at the first invitation."""
    settings: dict[str, object] = {"sender": SENDER, **options}
    with pytest.raises(ValueError, match=problem):
        SmtpMailer("127.0.0.1", 25, **settings)  # type: ignore[arg-type]


def test_the_password_is_not_in_the_repr() -> None:
    """Printing the mailer shows where it sends, never the password."""
    mailer = SmtpMailer("smtp.example.com", sender=SENDER, username="mailer", password="s3cret-pass")
    assert "s3cret-pass" not in repr(mailer)
