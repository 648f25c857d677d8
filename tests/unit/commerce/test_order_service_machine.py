"""Orders and stock as a state machine over the in-memory fakes: the kit's
:class:`engage_testing.machines.orders.OrderStockMachine`, whose module says what it checks."""

from __future__ import annotations

from hypothesis import settings

from engage_testing.machines.orders import OrderStockMachine

OrderStockMachine.TestCase.settings = settings(max_examples=60, stateful_step_count=50, deadline=None)
test_order_stock_machine = OrderStockMachine.TestCase
test_order_stock_machine.__doc__ = (
    "Stock is never negative and always conserved, terminal orders never move, and duplicates make no order."
)
