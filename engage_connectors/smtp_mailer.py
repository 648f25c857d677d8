"""The real `Mailer`: SMTP through the standard library's `smtplib`.

One connection per message (invitations are rare; a pooled connection would only go stale).
Transport security, `security`:

- `starttls` (the default; submission port 587): connect in plain text, upgrade with STARTTLS
  before anything else is said, and refuse to go on if the server does not offer it;
- `tls` (port 465): TLS from the first byte;
- `none` (a relay on the same host or private network, port 25): no TLS at all.

Certificates are checked against the system's trust store, or the `ssl_context` given. With a
`username`, the mailer logs in after the upgrade, so credentials never cross the network in clear
text unless `security` is `none`.

`timeout` bounds each network operation (connecting, and waiting for each answer of the server).
Every failure is mapped here, once, into `MailUndelivered` with a message that names the server
and what went wrong, and never the credentials: a refused connection, a timeout, a name that does
not resolve, a TLS failure, rejected credentials, a refused sender or recipient, any other refusal.
"""

from __future__ import annotations

import smtplib
import ssl
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from typing import Literal

from engage_core.kernel.mail import MailMessage, MailUndelivered

Security = Literal["starttls", "tls", "none"]
SECURITY_MODES: tuple[Security, ...] = ("starttls", "tls", "none")
DEFAULT_TIMEOUT_SECONDS = 10.0


class SmtpMailer:
    def __init__(
        self,
        host: str,
        port: int = 587,
        *,
        sender: str,
        username: str | None = None,
        password: str | None = None,
        security: Security = "starttls",
        ssl_context: ssl.SSLContext | None = None,
        timeout: float = DEFAULT_TIMEOUT_SECONDS,
        local_hostname: str | None = None,
    ) -> None:
        """`sender` is the From address of every message; `local_hostname` is what the mailer
        calls itself in EHLO (default: this machine's fully qualified name)."""
        if security not in SECURITY_MODES:
            raise ValueError(f"The SMTP security must be one of {', '.join(SECURITY_MODES)}, not {security!r}.")
        if timeout <= 0:
            raise ValueError("The SMTP timeout must be greater than 0.")
        if (username is None) != (password is None):
            raise ValueError("Give both an SMTP username and a password, or neither.")
        if "@" not in sender:
            raise ValueError(f"The sender must be an e-mail address, not {sender!r}.")
        self._host = host
        self._port = port
        self._sender = sender
        self._username = username
        self._password = password
        self._security = security
        self._ssl_context = ssl_context or ssl.create_default_context()
        self._timeout = timeout
        self._local_hostname = local_hostname

    def __repr__(self) -> str:
        return f"SmtpMailer({self._host!r}, {self._port}, security={self._security!r})"  # never the password

    @property
    def server(self) -> str:
        return f"{self._host}:{self._port}"

    def send(self, message: MailMessage) -> None:
        email = self._compose(message)
        try:
            with self._connect() as smtp:
                if self._security == "starttls":
                    smtp.starttls(context=self._ssl_context)
                if self._username is not None and self._password is not None:
                    smtp.login(self._username, self._password)
                smtp.send_message(email)
        except OSError as exc:  # smtplib's and ssl's errors are OSErrors too
            raise MailUndelivered(self._explain(exc, message.to)) from exc

    def _connect(self) -> smtplib.SMTP:
        if self._security == "tls":
            return smtplib.SMTP_SSL(
                self._host,
                self._port,
                local_hostname=self._local_hostname,
                timeout=self._timeout,
                context=self._ssl_context,
            )
        return smtplib.SMTP(self._host, self._port, local_hostname=self._local_hostname, timeout=self._timeout)

    def _compose(self, message: MailMessage) -> EmailMessage:
        email = EmailMessage()
        email["From"] = self._sender
        email["To"] = message.to
        email["Subject"] = " ".join(message.subject.split())  # one line: no header can be injected
        email["Date"] = formatdate(localtime=False, usegmt=True)
        email["Message-ID"] = make_msgid(domain=self._sender.rpartition("@")[2])
        email.set_content(message.text)
        return email

    def _explain(self, exc: OSError, recipient: str) -> str:
        """What went wrong, for an operator: the server, and the cause in plain words."""
        where = f"The mail server {self.server}"
        if _timed_out(exc):
            return f"{where} did not answer within {self._timeout:g} seconds."
        if isinstance(exc, ConnectionRefusedError):
            return f"{where} refused the connection."
        if isinstance(exc, smtplib.SMTPNotSupportedError) and self._security == "starttls":
            return f"{where} does not offer STARTTLS; the message was not sent in clear text."
        if isinstance(exc, smtplib.SMTPAuthenticationError):
            return f"{where} rejected the username or password ({exc.smtp_code})."
        if isinstance(exc, smtplib.SMTPRecipientsRefused):
            return f"{where} refused the recipient {recipient}."
        if isinstance(exc, smtplib.SMTPSenderRefused):
            return f"{where} refused the sender {self._sender} ({exc.smtp_code})."
        if isinstance(exc, smtplib.SMTPResponseException):
            return f"{where} answered {exc.smtp_code}: {_text(exc.smtp_error)}"
        if isinstance(exc, ssl.SSLError):
            return f"{where} could not be reached over TLS: {exc.reason or exc}."
        if isinstance(exc, smtplib.SMTPException):
            return f"{where} failed: {exc}."
        return f"{where} could not be reached: {getattr(exc, 'strerror', None) or exc}."


def _timed_out(exc: BaseException) -> bool:
    """Whether a timeout is behind `exc`: smtplib reports a read that timed out as a disconnection
    whose context is the `TimeoutError`."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, TimeoutError):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _text(value: bytes | str) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else value
