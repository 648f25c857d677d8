"""Fakes of the kernel's ports: a clock tests can move, and a mailer that records."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from engage_core.kernel.mail import MailMessage, MailUndelivered


class FakeClock:
    """A clock that stands still until told to move."""

    def __init__(self, start: datetime | None = None) -> None:
        self._now = start or datetime(2026, 1, 1, 12, 0, tzinfo=UTC)

    def now(self) -> datetime:
        """The moment the clock stands at (:meth:`.Clock.now`)."""
        return self._now

    def advance(self, **delta: float) -> datetime:
        """Move the clock forward by `timedelta(**delta)` (`minutes=5`, ...) and return the new moment."""
        self._now += timedelta(**delta)
        return self._now

    def set(self, moment: datetime) -> None:
        """Stand the clock at `moment`."""
        self._now = moment


class FakeMailer:
    """Records every message in `sent` until told to `fail()`; then raises `MailUndelivered`."""

    def __init__(self) -> None:
        self.sent: list[MailMessage] = []
        self.failing: str | None = None

    def fail(self, reason: str = "The mail server could not be reached.") -> None:
        """Make every later `send` raise :class:`.MailUndelivered` with `reason`, until :meth:`recover`."""
        self.failing = reason

    def recover(self) -> None:
        """Deliver again: undo :meth:`fail`."""
        self.failing = None

    def send(self, message: MailMessage) -> None:
        """Record the message, or raise :class:`.MailUndelivered` while failing (:meth:`.Mailer.send`)."""
        if self.failing is not None:
            raise MailUndelivered(self.failing)
        self.sent.append(message)
