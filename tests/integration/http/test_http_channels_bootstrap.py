"""The composition root's channel gateway: the sandbox by default (with its control routes), the
hosted provider on request (with its callback route), and a refusal to start when misconfigured."""

from __future__ import annotations

from pathlib import Path

import pytest
from starlette.testclient import TestClient

from engage_connectors.hosted_messaging import CALLBACK_SECRET_HEADER
from engage_core.settings import Settings
from engage_http.bootstrap import ChannelsMisconfigured, build_app, channel_wiring

SECRET = "callback-secret-0123456789abcdef"


@pytest.fixture
def database_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'engage.db'}"


def hosted(database_url: str, **overrides: str) -> Settings:
    values = {
        "channels_provider_url": "https://provider.example:13851",
        "channels_provider_key": "provider-key",
        "channels_webhook_secret": SECRET,
    }
    values.update(overrides)
    return Settings(database_url=database_url, channels_gateway="hosted", **values)  # type: ignore[arg-type]


def test_the_default_app_runs_the_sandbox_flows(database_url: str) -> None:
    """By default the app connects through the sandbox, and its scan route links the waiting code."""
    app = build_app(Settings(database_url=database_url))
    headers = {"X-Api-Key": app.state.services.accounts.create("Acme").api_key}

    with TestClient(app) as client:
        client.post("/api/v1/channels/whatsapp/connect", headers=headers)
        scanned = client.post("/api/v1/sandbox/channels/whatsapp/scan", headers=headers)
        status = client.get("/api/v1/channels/whatsapp/status", headers=headers).json()["data"]

    assert scanned.status_code == 200
    assert (status["completed"], status["is_connected"]) == (True, True)


def test_the_default_app_has_no_callback_route(database_url: str) -> None:
    """Without the hosted provider, the provider callback path does not exist (404)."""
    with TestClient(build_app(Settings(database_url=database_url))) as client:
        assert client.post("/api/v1/channels/provider/callbacks", json={}).status_code == 404


def test_the_hosted_app_serves_callbacks_and_no_sandbox(database_url: str) -> None:
    """With the hosted provider, the callback route answers (401 without the secret) and the sandbox routes are 404."""
    app = build_app(hosted(database_url))
    headers = {"X-Api-Key": app.state.services.accounts.create("Acme").api_key}

    with TestClient(app) as client:
        refused = client.post("/api/v1/channels/provider/callbacks", json={}, headers={CALLBACK_SECRET_HEADER: "x"})
        sandbox = client.post("/api/v1/sandbox/channels/whatsapp/scan", headers=headers)

    assert (refused.status_code, sandbox.status_code) == (401, 404)


@pytest.mark.parametrize(
    ("overrides", "named"),
    [
        ({"channels_provider_key": ""}, "ENGAGE_CHANNELS_PROVIDER_KEY"),
        ({"channels_provider_url": ""}, "ENGAGE_CHANNELS_PROVIDER_URL"),
        ({"channels_webhook_secret": ""}, "ENGAGE_CHANNELS_WEBHOOK_SECRET"),
    ],
)
def test_a_hosted_gateway_without_a_setting_refuses_to_start(
    database_url: str, overrides: dict[str, str], named: str
) -> None:
    """A hosted gateway missing its URL, key or secret refuses to start, naming the variable on one line."""
    with pytest.raises(ChannelsMisconfigured) as refused:
        build_app(hosted(database_url, **overrides))

    assert named in refused.value.message and "\n" not in refused.value.message


@pytest.mark.parametrize(
    ("settings", "fragment"),
    [
        (Settings(channels_gateway="carrier-pigeon"), "must be sandbox or hosted"),
        (hosted("sqlite://", channels_webhook_secret="short"), "at least 16 characters"),
        (hosted("sqlite://", channels_provider_url="ftp://provider.example"), "absolute http(s) URL"),
    ],
)
def test_invalid_channel_settings_are_refused(settings: Settings, fragment: str) -> None:
    """An unknown gateway, a short callback secret or a provider URL that is not http(s) are refused."""
    with pytest.raises(ChannelsMisconfigured) as refused:
        channel_wiring(settings)

    assert fragment in refused.value.message


def test_settings_read_the_channel_variables() -> None:
    """`ENGAGE_CHANNELS_*` are read from the environment; the gateway defaults to the sandbox."""
    environ = {
        "ENGAGE_CHANNELS_GATEWAY": "Hosted",
        "ENGAGE_CHANNELS_PROVIDER_URL": " https://provider.example ",
        "ENGAGE_CHANNELS_PROVIDER_KEY": "provider-api-key-42",
        "ENGAGE_CHANNELS_WEBHOOK_SECRET": SECRET,
    }

    settings = Settings.from_env(environ)

    assert (settings.channels_gateway, settings.channels_provider_url) == ("hosted", "https://provider.example")
    assert (settings.channels_provider_key, settings.channels_webhook_secret) == ("provider-api-key-42", SECRET)
    assert Settings.from_env({}).channels_gateway == "sandbox"
    assert "provider-api-key-42" not in repr(settings) and SECRET not in repr(settings)
