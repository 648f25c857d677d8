"""What the accounts area needs from storage."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Protocol

from engage_core.accounts.model import Account, Admission


class AccountRepository(Protocol):
    """All accounts: used by administration and authentication, never by workspace services."""

    def add(self, name: str, key_digest: str, key_hint: str, now: datetime) -> Account:
        """Store a new active account with this key digest and hint, created at `now`."""

    def get(self, account_id: int) -> Account | None:
        """The account `account_id`, or None."""

    def by_key_digest(self, key_digest: str) -> tuple[Account, str] | None:
        """The account whose key has this digest, with the stored digest (compared again in constant time)."""

    def admission(self, key_digest: str, now: datetime, default_plan: str) -> tuple[Admission, str] | None:
        """`by_key_digest` with, in the same indexed read, whether the account's workspace is
        suspended and its plan in force at `now` (its client's plan, the pending one from
        `pending_from`, or `default_plan` without a partner), and `changes_at`: the pending plan's
        `pending_from` while it is still ahead of `now`."""

    def list(self) -> Sequence[Account]:
        """Every account, by id."""

    def set_key(self, account_id: int, key_digest: str, key_hint: str, now: datetime) -> None:
        """Replace the account's key digest and hint; the old key stops matching."""

    def set_active(self, account_id: int, is_active: bool, now: datetime) -> None:
        """Activate or deactivate the account."""

    def set_origins(self, account_id: int, origins: tuple[str, ...], now: datetime) -> None:
        """Replace the account's origin whitelist."""

    def rename(self, account_id: int, name: str, now: datetime) -> None:
        """Rename the account."""

    def set_locale(self, account_id: int, locale: str, now: datetime) -> None:
        """Set the account's locale (a canonical BCP 47 tag)."""


class AccountsRepositories(Protocol):
    """What a unit of work across accounts (administration, partners) hands out of this area."""

    @property
    def accounts(self) -> AccountRepository:
        """The accounts."""
