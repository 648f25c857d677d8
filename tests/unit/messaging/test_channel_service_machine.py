"""The channel connection lifecycle as a state machine over the in-memory fakes and the sandbox
gateway: the kit's :class:`engage_testing.machines.channels.ChannelMachine`, whose module says what
it checks."""

from __future__ import annotations

from hypothesis import settings

from engage_testing.machines.channels import ChannelMachine

ChannelMachine.TestCase.settings = settings(max_examples=100, stateful_step_count=50, deadline=None)
test_channel_machine = ChannelMachine.TestCase
test_channel_machine.__doc__ = (
    "The stored channel always sits in the phase the transition table predicts, with one event per crossing."
)
