"""A partner's client workspaces as a state machine over the in-memory fakes: the kit's
:class:`engage_testing.machines.partners.PartnerClientMachine`, whose module says what it checks."""

from __future__ import annotations

from hypothesis import settings

from engage_testing.machines.partners import PartnerClientMachine

PartnerClientMachine.TestCase.settings = settings(max_examples=60, stateful_step_count=30, deadline=None)
test_partner_clients = PartnerClientMachine.TestCase
