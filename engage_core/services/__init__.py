"""Use cases. Each service takes a unit-of-work factory and a clock, and nothing else."""

from __future__ import annotations

import attrs

from engage_core.clock import Clock, SystemClock
from engage_core.ports import SecretCipher, TargetGuard, UnitOfWorkFactory
from engage_core.services.accounts import AccountService
from engage_core.services.contact_lists import ContactListService
from engage_core.services.contacts import ContactService
from engage_core.services.segments import SegmentService
from engage_core.services.tags import TagService
from engage_core.services.webhooks import WebhookService


class _Unconfigured:
    """Stands in for a port the caller did not wire; fails loudly, naming what to pass."""

    def __init__(self, what: str) -> None:
        self._what = what

    def __getattr__(self, name: str) -> object:
        raise RuntimeError(f"Services.build() was not given {self._what}; webhooks need it.")


@attrs.frozen
class Services:
    """Every use case, wired to one storage adapter and one clock."""

    accounts: AccountService
    contacts: ContactService
    tags: TagService
    lists: ContactListService
    segments: SegmentService
    webhooks: WebhookService

    @classmethod
    def build(
        cls,
        uow: UnitOfWorkFactory,
        clock: Clock | None = None,
        *,
        cipher: SecretCipher | None = None,
        guard: TargetGuard | None = None,
    ) -> Services:
        """Wire every service. `cipher` (secrets at rest) and `guard` (SSRF checks of target URLs)
        come from `engage_connectors`; without them everything but webhooks works."""
        clock = clock or SystemClock()
        cipher = cipher or _Unconfigured("cipher=SecretCipher")  # type: ignore[assignment]
        guard = guard or _Unconfigured("guard=TargetGuard")  # type: ignore[assignment]
        assert cipher is not None and guard is not None
        return cls(
            accounts=AccountService(uow, clock),
            contacts=ContactService(uow, clock),
            tags=TagService(uow, clock),
            lists=ContactListService(uow, clock),
            segments=SegmentService(uow, clock),
            webhooks=WebhookService(uow, clock, cipher, guard),
        )


__all__ = [
    "AccountService",
    "ContactListService",
    "ContactService",
    "SegmentService",
    "Services",
    "TagService",
    "WebhookService",
]
