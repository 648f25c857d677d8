"""The workspace's own profile (`GET /account`, `PATCH /account`): its name, timezone and locale.

The timezone is the one setting bookings' working hours are read in (`working_hours.WorkingHours
.timezone`, `BookingSetupService.set_timezone`): one timezone per workspace, so changing it here
or through the booking setup is the same change, and the weekly hours keep their wall-clock times.
The name and the locale live on the account (`admin` unit of work), the timezone in the workspace's
working hours (`workspace` unit of work); every field is validated before any is written.
"""

from __future__ import annotations

import attrs

from engage_core.accounts.model import Account, parse_locale
from engage_core.bookings.working_hours import DEFAULT_HOURS, WorkingHours, parse_timezone
from engage_core.kernel.clock import Clock
from engage_core.kernel.errors import NotFound
from engage_core.kernel.unset import UNSET, Unset
from engage_core.kernel.validation import ErrorCollector, required_text
from engage_core.unit_of_work import UnitOfWorkFactory

NAME_MAX = 255


@attrs.frozen
class AccountProfile:
    """A workspace's profile: its account (name, locale) and the timezone its working hours are read in."""

    account: Account
    timezone: str


@attrs.frozen
class ProfilePatch:
    """Any subset; `UNSET` leaves a field alone."""

    name: str | Unset = UNSET
    timezone: str | Unset = UNSET
    locale: str | Unset = UNSET


class AccountProfileService:
    """The workspace's own profile: name, timezone and locale (`GET`/`PATCH /account`)."""

    def __init__(self, uow: UnitOfWorkFactory, clock: Clock) -> None:
        self._uow = uow
        self._clock = clock

    def get(self, account_id: int) -> AccountProfile:
        """The profile of account `account_id`; the timezone is the default one until working hours are
        set.

        Raises :class:`.NotFound` when there is no such account."""
        with self._uow.admin(readonly=True) as admin:
            account = admin.accounts.get(account_id)
        if account is None:
            raise NotFound("Account")
        with self._uow.workspace(account_id, readonly=True) as uow:
            hours = uow.working_hours.get() or DEFAULT_HOURS
        return AccountProfile(account, hours.timezone)

    def update(self, account_id: int, patch: ProfilePatch) -> AccountProfile:
        """Rename the workspace, move it to another IANA timezone and/or set its locale (a BCP 47
        tag, stored in canonical case); 422 names each bad field and then nothing is written."""
        errors = ErrorCollector()
        name = (
            None
            if patch.name is UNSET
            else errors.run(lambda: required_text("name", str(patch.name), max_length=NAME_MAX))
        )
        zone = None if patch.timezone is UNSET else errors.run(lambda: parse_timezone("timezone", str(patch.timezone)))
        locale = None if patch.locale is UNSET else errors.run(lambda: parse_locale("locale", str(patch.locale)))
        errors.raise_if_any()
        now = self._clock.now()
        if name is not None or locale is not None:
            with self._uow.admin() as admin:
                account = admin.accounts.get(account_id)
                if account is None:
                    raise NotFound("Account")
                if name is not None:
                    admin.accounts.rename(account_id, name, now)
                if locale is not None and locale != account.locale:
                    admin.accounts.set_locale(account_id, locale, now)
                admin.commit()
        if zone is not None:
            with self._uow.workspace(account_id) as uow:
                current = uow.working_hours.get() or DEFAULT_HOURS
                if current.timezone != zone:
                    uow.working_hours.put(WorkingHours(zone, current.schedule))
                    uow.commit()
        return self.get(account_id)
