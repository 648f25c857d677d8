"""Commerce's services, as `engage_core.services.Services` holds them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engage_core.commerce.order_service import OrderService
from engage_core.commerce.product_service import ProductService

if TYPE_CHECKING:
    from engage_core.dependencies import Dependencies


class CommerceServices:
    """The commerce area's services: products and orders."""

    products: ProductService
    orders: OrderService

    def wire(self, deps: Dependencies) -> None:
        """Build this area's services from `deps` (called once by :class:`.Services`)."""
        self.products = ProductService(deps.uow, deps.clock)
        self.orders = OrderService(deps.uow, deps.clock, deps.store)
