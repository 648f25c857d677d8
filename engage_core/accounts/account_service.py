"""Accounts: creation, keys, activation, origin whitelist and authentication."""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from engage_core.accounts import keys as api_keys
from engage_core.accounts.model import ORIGIN_NOT_ALLOWED_CODE, Account, Admission, normalise_origin, origin_allowed
from engage_core.kernel.clock import Clock
from engage_core.kernel.errors import Forbidden, NotFound, Unauthenticated, ValidationFailed
from engage_core.kernel.validation import required_text
from engage_core.plans.model import DEFAULT_PLAN
from engage_core.unit_of_work import AdminUnitOfWork, UnitOfWorkFactory


@attrs.frozen
class NewKey:
    """An account with the plaintext key that was just issued for it (shown once)."""

    account: Account
    api_key: str


class AccountService:
    """Administration of accounts (workspaces) and authentication of the requests that act for them."""

    def __init__(self, uow: UnitOfWorkFactory, clock: Clock, default_plan: str = DEFAULT_PLAN) -> None:
        self._uow = uow
        self._clock = clock
        self._default_plan = default_plan  # of a workspace without a partner, as `Entitlements`'

    def create(self, name: str) -> NewKey:
        """Create an active account on the default plan and issue its first API key.

        Raises :class:`.ValidationFailed` when `name` is blank or longer than 255 characters."""
        name = required_text("name", name, max_length=255)
        key = api_keys.generate_key()
        with self._uow.admin() as uow:
            account = uow.accounts.add(name, key.digest, key.hint, self._clock.now())
            uow.commit()
        return NewKey(account=account, api_key=key.plaintext)

    def list(self) -> Sequence[Account]:
        """Every account, oldest first."""
        with self._uow.admin(readonly=True) as uow:
            return uow.accounts.list()

    def get(self, account_id: int) -> Account:
        """The account `account_id`.

        Raises :class:`.NotFound` when there is none."""
        with self._uow.admin(readonly=True) as uow:
            return _require(uow, account_id)

    def rotate_key(self, account_id: int) -> NewKey:
        """Issue a new key; the old one stops working when this returns.

        Raises :class:`.NotFound` when there is no such account."""
        key = api_keys.generate_key()
        with self._uow.admin() as uow:
            _require(uow, account_id)
            uow.accounts.set_key(account_id, key.digest, key.hint, self._clock.now())
            account = _require(uow, account_id)
            uow.commit()
        return NewKey(account=account, api_key=key.plaintext)

    def set_active(self, account_id: int, is_active: bool) -> Account:
        """Activate or deactivate the account; an inactive one is refused with 403 `account_inactive`.

        Raises :class:`.NotFound` when there is no such account."""
        with self._uow.admin() as uow:
            _require(uow, account_id)
            uow.accounts.set_active(account_id, is_active, self._clock.now())
            account = _require(uow, account_id)
            uow.commit()
        return account

    def set_origins(self, account_id: int, origins: Sequence[str]) -> Account:
        """Replace the whitelist. `*` or no origins allows every origin.

        Raises :class:`.ValidationFailed` naming each origin that is not valid (`origins.<index>`);
        :class:`.NotFound` when there is no such account."""
        cleaned: list[str] = []
        errors: dict[str, list[str]] = {}
        for index, origin in enumerate(origins):
            try:
                cleaned.append(normalise_origin(origin))
            except ValueError:
                errors[f"origins.{index}"] = [f"Not a valid origin: {origin!r}."]
        if errors:
            raise ValidationFailed(errors)
        with self._uow.admin() as uow:
            _require(uow, account_id)
            uow.accounts.set_origins(account_id, tuple(dict.fromkeys(cleaned)), self._clock.now())
            account = _require(uow, account_id)
            uow.commit()
        return account

    def authenticate(self, raw_key: str | None, *, origin: str | None = None, referer: str | None = None) -> Account:
        """The account a request acts for (SPEC 5).

        Raises :class:`.Unauthenticated` for a missing, malformed or unknown key (the same error for
        each); :class:`.Forbidden` for an origin the account does not allow (`origin_not_allowed`) or
        an inactive account (`account_inactive`)."""
        if not raw_key or not api_keys.is_well_formed(raw_key):
            raise Unauthenticated()
        digest = api_keys.digest_key(raw_key)
        with self._uow.admin(readonly=True) as uow:
            found = uow.accounts.by_key_digest(digest)
        if found is None or not api_keys.digests_match(found[1], digest):
            raise Unauthenticated()
        return _allowed(found[0], origin, referer)

    def admit(self, raw_key: str | None, *, origin: str | None = None, referer: str | None = None) -> Admission:
        """`authenticate`, with what else a workspace request needs in the same read: whether the
        workspace is suspended, and the plan in force (`Entitlements.plan_of`'s). The caller refuses
        with `Admission.plan_to_run_on`.

        Raises as :meth:`authenticate` does."""
        if not raw_key or not api_keys.is_well_formed(raw_key):  # refused before storage is asked
            raise Unauthenticated()
        digest = api_keys.digest_key(raw_key)
        with self._uow.admin(readonly=True) as uow:
            found = uow.accounts.admission(digest, self._clock.now(), self._default_plan)
        if found is None or not api_keys.digests_match(found[1], digest):
            raise Unauthenticated()
        _allowed(found[0].account, origin, referer)
        return found[0]


def _allowed(account: Account, origin: str | None, referer: str | None) -> Account:
    """`account`, unless the request comes from an origin it does not allow or it is inactive (403).
    The origin comes first: a page the account does not allow learns nothing of the account, and
    every later refusal went to an allowed origin (the HTTP adapter lets such a page read it)."""
    if not origin_allowed(account.allowed_origins, origin, referer):
        raise Forbidden("The request origin is not allowed for this account.", code=ORIGIN_NOT_ALLOWED_CODE)
    if not account.is_active:
        raise Forbidden("This account is inactive.", code="account_inactive")
    return account


def _require(uow: AdminUnitOfWork, account_id: int) -> Account:
    account = uow.accounts.get(account_id)
    if account is None:
        raise NotFound("Account")
    return account
