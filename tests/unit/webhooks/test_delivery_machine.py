"""The webhook retry schedule as a state machine over the in-memory fakes: the kit's
:class:`engage_testing.machines.deliveries.DeliveryMachine`, whose module says what it checks."""

from __future__ import annotations

from hypothesis import settings

from engage_testing.machines.deliveries import DeliveryMachine

DeliveryMachine.TestCase.settings = settings(max_examples=50, stateful_step_count=30, deadline=None)
test_delivery_machine = DeliveryMachine.TestCase
test_delivery_machine.__doc__ = (
    "Retries follow 2, 10, 30 minutes, stop after four attempts, and terminal states are final."
)
