"""What the accounts area needs from storage."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Protocol

from engage_core.accounts.model import Account, Admission


class AccountRepository(Protocol):
    """All accounts: used by administration and authentication, never by workspace services."""

    def add(self, name: str, key_digest: str, key_hint: str, now: datetime) -> Account: ...

    def get(self, account_id: int) -> Account | None: ...

    def by_key_digest(self, key_digest: str) -> tuple[Account, str] | None:
        """The account whose key has this digest, with the stored digest (compared again in constant time)."""

    def admission(self, key_digest: str, now: datetime, default_plan: str) -> tuple[Admission, str] | None:
        """`by_key_digest` with, in the same indexed read, whether the account's workspace is
        suspended and its plan in force at `now` (its client's plan, the pending one from
        `pending_from`, or `default_plan` without a partner), and `changes_at`: the pending plan's
        `pending_from` while it is still ahead of `now`."""

    def list(self) -> Sequence[Account]: ...

    def set_key(self, account_id: int, key_digest: str, key_hint: str, now: datetime) -> None: ...

    def set_active(self, account_id: int, is_active: bool, now: datetime) -> None: ...

    def set_origins(self, account_id: int, origins: tuple[str, ...], now: datetime) -> None: ...

    def rename(self, account_id: int, name: str, now: datetime) -> None: ...

    def set_locale(self, account_id: int, locale: str, now: datetime) -> None: ...


class AccountsRepositories(Protocol):
    """What a unit of work across accounts (administration, partners) hands out of this area."""

    @property
    def accounts(self) -> AccountRepository: ...
