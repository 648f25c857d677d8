"""`LanguageModel` adapters (`engage_core.answering.ports`): an OpenAI-compatible service
(`openai_compatible`), and the offline, retrieval-only default (`offline`)."""

from engage_connectors.llm.offline import OfflineLanguageModel
from engage_connectors.llm.openai_compatible import OpenAICompatibleModel

__all__ = ["OfflineLanguageModel", "OpenAICompatibleModel"]
