"""Settings never show a secret when printed or logged."""

from __future__ import annotations

import pytest

from engage_core.settings import Settings

SECRETS = {
    "ENGAGE_SECRET_KEY": "secret-key-value-0001",
    "ENGAGE_STORE_TOKEN": "store-token-value-0002",
    "ENGAGE_SMTP_PASSWORD": "smtp-password-value-0003",
    "ENGAGE_CHANNELS_PROVIDER_KEY": "provider-key-value-0004",
    "ENGAGE_CHANNELS_WEBHOOK_SECRET": "webhook-secret-value-0005",
    "ENGAGE_METRICS_TOKEN": "metrics-token-value-0006",
    "ENGAGE_LLM_KEY": "llm-key-value-0007",
}


def test_the_repr_of_settings_holds_no_secret() -> None:
    """Every secret read from the environment is kept out of `repr(settings)`."""
    text = repr(Settings.from_env(SECRETS))

    assert [name for name, value in SECRETS.items() if value in text] == []


def test_the_secrets_are_still_read() -> None:
    """Hiding them from `repr` does not drop them: the settings still carry each value."""
    settings = Settings.from_env(SECRETS)

    assert settings.secret_key == SECRETS["ENGAGE_SECRET_KEY"]


def test_the_log_format_is_text_unless_json_is_asked() -> None:
    """ENGAGE_LOG_FORMAT defaults to `text` and is read case-insensitively."""
    assert Settings.from_env({}).log_format == "text"
    assert Settings.from_env({"ENGAGE_LOG_FORMAT": " JSON "}).log_format == "json"


def test_the_metrics_setting_reads_on_and_off() -> None:
    """`ENGAGE_METRICS=on` turns metrics on, `off` leaves them off, anything else is refused."""
    assert Settings.from_env({"ENGAGE_METRICS": "on"}).metrics is True
    assert Settings.from_env({"ENGAGE_METRICS": "off"}).metrics is False
    with pytest.raises(ValueError, match="ENGAGE_METRICS"):
        Settings.from_env({"ENGAGE_METRICS": "maybe"})


def test_the_language_model_settings_are_read() -> None:
    """ENGAGE_LLM_* set the service, its two models and its timeout; unset, the offline model is meant."""
    settings = Settings.from_env(
        {
            "ENGAGE_LLM_URL": " http://127.0.0.1:11434/v1 ",
            "ENGAGE_LLM_CHAT_MODEL": "llama3.1",
            "ENGAGE_LLM_LOGIC_MODEL": "qwen2.5",
            "ENGAGE_LLM_TIMEOUT": "12.5",
        }
    )

    assert (settings.llm_url, settings.llm_chat_model, settings.llm_logic_model, settings.llm_timeout_seconds) == (
        "http://127.0.0.1:11434/v1",
        "llama3.1",
        "qwen2.5",
        12.5,
    )
    assert Settings.from_env({}).llm_url is None
