"""The web chat area's services, as `engage_core.services.Services` holds them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engage_core.answering.engine import AnswerEngine
from engage_core.answering.product_images import ProductImages
from engage_core.dependencies import Unconfigured
from engage_core.jobs.runner import Handler
from engage_core.webchat.service import REPLY_JOB, WebChatService

if TYPE_CHECKING:
    from engage_core.dependencies import Dependencies


class WebChatServices:
    """Web chat: sessions, the widget, and the AI's answers to visitors."""

    web_chat: WebChatService
    answers: AnswerEngine  # wired by the answering area

    def wire(self, deps: Dependencies) -> None:
        """Build this area's services from `deps` (after the answering area). Without a language model
        the AI answers nobody (visitor messages wait for a person)."""
        replying = not isinstance(deps.language_model, Unconfigured)
        self.web_chat = WebChatService(
            deps.uow,
            deps.clock,
            live=deps.live,
            engine=self.answers if replying else None,
            personas=deps.personas,
            images=ProductImages(deps.blobs),
        )

    def job_handlers(self) -> dict[str, Handler]:
        """The AI answer's handler, by kind."""
        return {REPLY_JOB: self.web_chat.job_handler()}
