"""In-memory fakes of the accounts area's ports."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import attrs

from engage_core.accounts.model import Account, Admission
from engage_core.kernel.memory import FakeArea, Repo, Tables
from engage_core.partners.fakes import PartnersTables
from engage_core.plans.fakes import PlansTables


@attrs.define
class AccountsTables(Tables):
    """The accounts area's rows, by table."""

    MUTABLE_ROWS = frozenset({"accounts"})

    accounts: dict[int, _AccountRow] = attrs.Factory(dict)


class _Repo(Repo):
    @property
    def _t(self) -> AccountsTables:
        """This area\'s tables, as the transaction sees them."""
        return self._state.of(AccountsTables)


@attrs.define
class _AccountRow:
    account: Account
    key_digest: str


class InMemoryAccountRepository(_Repo):
    """The in-memory :class:`.AccountRepository`."""

    def add(self, name: str, key_digest: str, key_hint: str, now: datetime) -> Account:
        """In memory, as :meth:`.AccountRepository.add`."""
        account = Account(self._store.next_id(), name, True, (), key_hint, now, now)
        self._t.accounts[account.id] = _AccountRow(account, key_digest)
        return account

    def get(self, account_id: int) -> Account | None:
        """In memory, as :meth:`.AccountRepository.get`."""
        row = self._t.accounts.get(account_id)
        return None if row is None else row.account

    def by_key_digest(self, key_digest: str) -> tuple[Account, str] | None:
        """In memory, as :meth:`.AccountRepository.by_key_digest`."""
        for row in self._t.accounts.values():
            if row.key_digest == key_digest:
                return row.account, row.key_digest
        return None

    def admission(self, key_digest: str, now: datetime, default_plan: str) -> tuple[Admission, str] | None:
        """In memory, as :meth:`.AccountRepository.admission`."""
        found = self.by_key_digest(key_digest)
        if found is None:
            return None
        account, digest = found
        client = self._state.of(PartnersTables).clients.get(account.id)
        slug = default_plan if client is None else client.plan_at(now)
        suspended = client is not None and client.is_suspended
        pending_from = None if client is None else client.schedule.pending_from
        changes_at = pending_from if pending_from is not None and now < pending_from else None
        return Admission(account, suspended, self._state.of(PlansTables).plans.get(slug), changes_at), digest

    def list(self) -> Sequence[Account]:
        """In memory, as :meth:`.AccountRepository.list`."""
        return sorted((r.account for r in self._t.accounts.values()), key=lambda a: a.id)

    def set_key(self, account_id: int, key_digest: str, key_hint: str, now: datetime) -> None:
        """In memory, as :meth:`.AccountRepository.set_key`."""
        row = self._t.accounts[account_id]
        row.key_digest = key_digest
        row.account = attrs.evolve(row.account, key_hint=key_hint, updated_at=now)

    def set_active(self, account_id: int, is_active: bool, now: datetime) -> None:
        """In memory, as :meth:`.AccountRepository.set_active`."""
        row = self._t.accounts[account_id]
        row.account = attrs.evolve(row.account, is_active=is_active, updated_at=now)

    def set_origins(self, account_id: int, origins: tuple[str, ...], now: datetime) -> None:
        """In memory, as :meth:`.AccountRepository.set_origins`."""
        row = self._t.accounts[account_id]
        row.account = attrs.evolve(row.account, allowed_origins=origins, updated_at=now)

    def rename(self, account_id: int, name: str, now: datetime) -> None:
        """In memory, as :meth:`.AccountRepository.rename`."""
        row = self._t.accounts[account_id]
        row.account = attrs.evolve(row.account, name=name, updated_at=now)

    def set_locale(self, account_id: int, locale: str, now: datetime) -> None:
        """In memory, as :meth:`.AccountRepository.set_locale`."""
        row = self._t.accounts[account_id]
        row.account = attrs.evolve(row.account, locale=locale, updated_at=now)


AREA = FakeArea(
    AccountsTables, admin={"accounts": InMemoryAccountRepository}, partners={"accounts": InMemoryAccountRepository}
)
