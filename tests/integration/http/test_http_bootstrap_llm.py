"""The composition root's language model: the OpenAI-compatible service when ENGAGE_LLM_URL is set,
else the offline model."""

from __future__ import annotations

from engage_connectors.llm import OfflineLanguageModel, OpenAICompatibleModel
from engage_core.settings import Settings
from engage_http.bootstrap import language_model


def test_without_a_url_the_offline_model_answers() -> None:
    """No ENGAGE_LLM_URL: retrieval only, nothing to reach."""
    assert isinstance(language_model(Settings()), OfflineLanguageModel)


def test_a_url_picks_the_upstream_with_its_two_models() -> None:
    """ENGAGE_LLM_URL set: the OpenAI-compatible client, each alias mapped, the key kept out of its repr."""
    settings = Settings(
        llm_url="http://127.0.0.1:11434/v1",
        llm_key="sk-secret-31",
        llm_chat_model="llama3.1",
        llm_logic_model="qwen2.5",
    )

    model = language_model(settings)
    try:
        assert isinstance(model, OpenAICompatibleModel)
        assert repr(model) == (
            "OpenAICompatibleModel('http://127.0.0.1:11434/v1/chat/completions', "
            "{'service-chat': 'llama3.1', 'service-logic': 'qwen2.5'})"
        )
    finally:
        model.close()
