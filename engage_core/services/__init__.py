"""Use cases. Each service takes a unit-of-work factory and a clock, and nothing else."""

from __future__ import annotations

import attrs

from engage_core.clock import Clock, SystemClock
from engage_core.ports import SecretCipher, StorePlatform, TargetGuard, UnitOfWorkFactory
from engage_core.services.accounts import AccountService
from engage_core.services.contact_lists import ContactListService
from engage_core.services.contacts import ContactService
from engage_core.services.orders import OrderService
from engage_core.services.products import ProductService
from engage_core.services.segments import SegmentService
from engage_core.services.tags import TagService
from engage_core.services.webhooks import WebhookService


class _Unconfigured:
    """Stands in for a port the caller did not wire; fails loudly, naming what to pass."""

    def __init__(self, what: str, needed_by: str) -> None:
        self._what = what
        self._needed_by = needed_by

    def __getattr__(self, name: str) -> object:
        raise RuntimeError(f"Services.build() was not given {self._what}; {self._needed_by} need it.")


@attrs.frozen
class Services:
    """Every use case, wired to one storage adapter and one clock."""

    accounts: AccountService
    contacts: ContactService
    tags: TagService
    lists: ContactListService
    segments: SegmentService
    webhooks: WebhookService
    products: ProductService
    orders: OrderService

    @classmethod
    def build(
        cls,
        uow: UnitOfWorkFactory,
        clock: Clock | None = None,
        *,
        cipher: SecretCipher | None = None,
        guard: TargetGuard | None = None,
        store: StorePlatform | None = None,
    ) -> Services:
        """Wire every service. `cipher` (secrets at rest) and `guard` (SSRF checks of target URLs)
        come from `engage_connectors`; without them everything but webhooks works. `store` is the
        connected online store; without it everything works but status changes of store-sourced
        orders (which only a store integration creates)."""
        clock = clock or SystemClock()
        cipher = cipher or _Unconfigured("cipher=SecretCipher", "webhooks")  # type: ignore[assignment]
        guard = guard or _Unconfigured("guard=TargetGuard", "webhooks")  # type: ignore[assignment]
        store = store or _Unconfigured("store=StorePlatform", "status changes of store-sourced orders")  # type: ignore[assignment]
        assert cipher is not None and guard is not None and store is not None
        return cls(
            accounts=AccountService(uow, clock),
            contacts=ContactService(uow, clock),
            tags=TagService(uow, clock),
            lists=ContactListService(uow, clock),
            segments=SegmentService(uow, clock),
            webhooks=WebhookService(uow, clock, cipher, guard),
            products=ProductService(uow, clock),
            orders=OrderService(uow, clock, store),
        )


__all__ = [
    "AccountService",
    "ContactListService",
    "ContactService",
    "OrderService",
    "ProductService",
    "SegmentService",
    "Services",
    "TagService",
    "WebhookService",
]
