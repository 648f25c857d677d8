"""Answering's services, as `engage_core.services.Services` holds them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engage_core.answering.completion_service import ChatCompletionService
from engage_core.answering.engine import AnswerEngine
from engage_core.knowledge.embeddings import KnowledgeSearch

if TYPE_CHECKING:
    from engage_core.dependencies import Dependencies


class AnsweringServices:
    """The answer engine and the chat completions built on it."""

    answers: AnswerEngine
    chat_completions: ChatCompletionService
    knowledge_search: KnowledgeSearch  # wired by the knowledge area

    def wire(self, deps: Dependencies) -> None:
        """Build this area's services from `deps` (called once by :class:`.Services`, after the
        knowledge area, whose search these use)."""
        self.answers = AnswerEngine(self.knowledge_search, deps.language_model)
        self.chat_completions = ChatCompletionService(
            deps.clock, self.answers, deps.language_model, deps.personas, self.knowledge_search
        )
