"""The AI agents area's services, as `engage_core.services.Services` holds them."""

from __future__ import annotations

from engage_core.agents.booking_desk import ServiceBookingDesk
from engage_core.agents.memory_service import ContactMemoryService
from engage_core.agents.replies import REPLY_JOB
from engage_core.agents.reply_service import AutoReplyService, reply_job
from engage_core.agents.service import AiAgentService
from engage_core.answering.engine import AnswerEngine
from engage_core.answering.product_images import ProductImages
from engage_core.bookings.booking_service import BookingService
from engage_core.bookings.setup_service import BookingSetupService
from engage_core.dependencies import Dependencies, Unconfigured
from engage_core.jobs.runner import Handler
from engage_core.messaging.message_service import MessageService
from engage_core.plans.entitlements import Entitlements


class AgentsServices:
    """The AI agents area's services: the agents, the default agent and assignments, and the
    automatic replies to inbound messages."""

    ai_agents: AiAgentService
    auto_replies: AutoReplyService
    contact_memories: ContactMemoryService
    messages: MessageService  # wired by the messaging area
    answers: AnswerEngine  # wired by the answering area
    entitlements: Entitlements  # wired by the plans area
    bookings: BookingService  # wired by the bookings area
    booking_setup: BookingSetupService  # wired by the bookings area
    _replying: bool

    def wire(self, deps: Dependencies) -> None:
        """Build this area's services from `deps` (called once by :class:`.Services`, after the
        messaging, bookings and answering areas). With a language model, every new inbound message queues its
        automatic reply (`MessageService.when_received`); without one nothing is queued."""
        self.ai_agents = AiAgentService(deps.uow, deps.clock)
        self.auto_replies = AutoReplyService(
            deps.uow,
            deps.clock,
            deps.features or self.entitlements,
            self.ai_agents,
            self.messages,
            self.answers,
            deps.language_model,
            ServiceBookingDesk(self.bookings, self.booking_setup, deps.clock),
            ProductImages(deps.blobs),
        )
        self.contact_memories = ContactMemoryService(deps.uow, deps.clock)
        self._replying = not isinstance(deps.language_model, Unconfigured)
        if self._replying:
            self.messages.when_received(self.auto_replies.queue)

    def job_handlers(self) -> dict[str, Handler]:
        """The automatic reply's handler, by kind (none without a language model: nothing is queued)."""
        return {REPLY_JOB: reply_job(self.auto_replies)} if self._replying else {}
