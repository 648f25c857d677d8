"""Outgoing e-mail: the message value, the error a `Mailer` raises, and the embedded default.

`LoggingMailer` is what a deployment without a mail server uses: it writes one log line per
message, naming the recipient and the subject only (a body may carry links meant for one person),
and raises `MailNotConfigured`, so that callers report the message as not sent.
The SMTP adapter is `engage_connectors.smtp_mailer.SmtpMailer`.
"""

from __future__ import annotations

import logging
from typing import Protocol

import attrs

log = logging.getLogger("engage.mail")


@attrs.frozen
class MailMessage:
    """A plain-text e-mail to one recipient. The sender is the mailer's configuration."""

    to: str
    subject: str
    text: str


class MailUndelivered(Exception):
    """A `Mailer` could not hand the message over (server unreachable, refused, timed out).
    `message` says why, for logs and operators; it never contains credentials."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class MailNotConfigured(MailUndelivered):
    """No mail server is configured, so nothing can be sent."""


NOT_CONFIGURED = "no mail server is configured (set ENGAGE_SMTP_HOST)"


class LoggingMailer:
    """Delivers nothing: logs that the message was not sent, and says so (`MailNotConfigured`), so a
    caller never reports as sent what only reached a log."""

    def send(self, message: MailMessage) -> None:
        log.warning("Mail not sent, %s: to=%s subject=%r", NOT_CONFIGURED, message.to, message.subject)
        raise MailNotConfigured(NOT_CONFIGURED)


class Mailer(Protocol):
    """Sends e-mail (`mail.LoggingMailer` by default; `engage_connectors.smtp_mailer.SmtpMailer`).

    Called outside any database transaction."""

    def send(self, message: MailMessage) -> None:
        """Hand the message over for delivery; raises `mail.MailUndelivered` when that failed."""
