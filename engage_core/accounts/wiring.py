"""The accounts area's services, as `engage_core.services.Services` holds them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engage_core.accounts.account_service import AccountService
from engage_core.accounts.profile_service import AccountProfileService

if TYPE_CHECKING:
    from engage_core.dependencies import Dependencies


class AccountsServices:
    """The accounts area's services: administration and authentication, and the workspace profile."""

    accounts: AccountService
    account_profile: AccountProfileService

    def wire(self, deps: Dependencies) -> None:
        """Build this area's services from `deps` (called once by :class:`.Services`)."""
        self.accounts = AccountService(deps.uow, deps.clock, deps.default_plan)
        self.account_profile = AccountProfileService(deps.uow, deps.clock)
