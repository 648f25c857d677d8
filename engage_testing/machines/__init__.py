"""engage's rule state machines as bases to subclass: each drives the real services through random
sequences of operations, predicts every outcome with a plain model, and checks invariants after
every step. Subclass one to add invariants of your own, or override
:meth:`~engage_testing.machines.base.EngageMachine.make_backend` to run it over a real database;
run it with ``TestX = MyMachine.TestCase`` (pytest, unittest) or Hypothesis's
``run_state_machine_as_test``.
"""

from __future__ import annotations

from .base import Backend, EngageMachine, InMemoryBackend, refused
from .bookings import BookingMachine
from .campaigns import CampaignMachine
from .channels import ChannelMachine
from .deliveries import DeliveryMachine
from .orders import OrderStockMachine
from .partners import PartnerClientMachine
from .tickets import TicketMachine
from .web_chat import WebChatSessionMachine

__all__ = [
    "Backend",
    "BookingMachine",
    "CampaignMachine",
    "ChannelMachine",
    "DeliveryMachine",
    "EngageMachine",
    "InMemoryBackend",
    "OrderStockMachine",
    "PartnerClientMachine",
    "TicketMachine",
    "WebChatSessionMachine",
    "refused",
]
