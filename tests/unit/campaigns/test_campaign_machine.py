"""Campaigns as a state machine over the in-memory fakes: the kit's
:class:`engage_testing.machines.campaigns.CampaignMachine`, whose module says what it checks."""

from __future__ import annotations

from hypothesis import settings

from engage_testing.machines.campaigns import CampaignMachine

CampaignMachine.TestCase.settings = settings(max_examples=150, stateful_step_count=40, deadline=None)
TestCampaignMachine = CampaignMachine.TestCase
