"""Support's services, as `engage_core.services.Services` holds them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engage_core.support.department_service import DepartmentService
from engage_core.support.ticket_service import TicketService

if TYPE_CHECKING:
    from engage_core.dependencies import Dependencies


class SupportServices:
    """The support area's services: tickets and departments."""

    departments: DepartmentService
    tickets: TicketService

    def wire(self, deps: Dependencies) -> None:
        """Build this area's services from `deps` (called once by :class:`.Services`)."""
        self.departments = DepartmentService(deps.uow, deps.clock)
        self.tickets = TicketService(deps.uow, deps.clock)
