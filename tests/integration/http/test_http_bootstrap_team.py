"""The composition root for team members: argon2id passwords, and the mailer chosen from the settings
(`ENGAGE_SMTP_*`, `ENGAGE_APP_URL`)."""

from __future__ import annotations

from collections.abc import Iterator
from email import message_from_bytes
from email.policy import default
from pathlib import Path

import pytest
from smtp_server import SmtpServer
from starlette.testclient import TestClient

from engage_connectors.smtp_mailer import SmtpMailer
from engage_core.kernel.mail import LoggingMailer
from engage_core.services import Services
from engage_core.settings import Settings
from engage_core.team.model import DEFAULT_APP_URL
from engage_http.bootstrap import MailerMisconfigured, build_app, mailer
from engage_sql import Database
from engage_sql.team.tables import team_members


@pytest.fixture
def smtp_server() -> Iterator[SmtpServer]:
    server = SmtpServer().start()
    yield server
    server.close()


def test_without_an_smtp_host_mail_is_only_logged() -> None:
    """No ENGAGE_SMTP_HOST: the logging mailer is wired."""
    assert isinstance(mailer(Settings()), LoggingMailer)


def test_without_an_smtp_host_a_new_member_is_told_no_invitation_went(tmp_path: Path) -> None:
    """No ENGAGE_SMTP_HOST: `POST /team` answers that the invitation was not sent, and why."""
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'engage.db'}", run_worker=False)
    with TestClient(build_app(settings)) as client:
        key = client.app.state.services.accounts.create("Acme").api_key  # type: ignore[attr-defined]
        response = client.post(
            "/api/v1/team",
            headers={"X-Api-Key": key},
            json={"name": "Ada", "email": "ada@example.com", "role": "agent", "password": "analytical1"},
        )

    body = response.json()
    assert (response.status_code, body["data"]["invitation_sent"]) == (201, False)
    assert "ENGAGE_SMTP_HOST" in body["data"]["invitation_error"]
    assert "not sent" in body["message"]


def test_an_smtp_host_and_sender_wire_the_smtp_mailer() -> None:
    """ENGAGE_SMTP_HOST, ENGAGE_SMTP_PORT and ENGAGE_SMTP_FROM give an SmtpMailer for that server."""
    wired = mailer(Settings(smtp_host="mail.example.com", smtp_port=465, smtp_security="tls", smtp_from="a@b.io"))

    assert isinstance(wired, SmtpMailer)
    assert wired.server == "mail.example.com:465"


@pytest.mark.parametrize(
    ("settings", "named"),
    [
        (Settings(smtp_host="mail.example.com"), "ENGAGE_SMTP_FROM"),
        (Settings(smtp_host="mail.example.com", smtp_from="a@b.io", smtp_security="ssl"), "ENGAGE_SMTP_SECURITY"),
        (Settings(smtp_host="mail.example.com", smtp_from="a@b.io", smtp_username="ada"), "password"),
        (Settings(smtp_host="mail.example.com", smtp_from="nobody"), "sender"),
    ],
)
def test_an_incomplete_smtp_configuration_is_refused(settings: Settings, named: str) -> None:
    """A host without a sender, an unknown security mode, a username alone or a sender that is no address
    stops the composition with an error naming what is wrong."""
    with pytest.raises(MailerMisconfigured, match=named):
        mailer(settings)


def test_the_settings_read_the_mail_variables() -> None:
    """`Settings.from_env` reads ENGAGE_APP_URL and every ENGAGE_SMTP_* variable."""
    settings = Settings.from_env(
        {
            "ENGAGE_APP_URL": "https://app.example.com",
            "ENGAGE_SMTP_HOST": "mail.example.com",
            "ENGAGE_SMTP_PORT": "2525",
            "ENGAGE_SMTP_SECURITY": "NONE",
            "ENGAGE_SMTP_USERNAME": "ada",
            "ENGAGE_SMTP_PASSWORD": "smtp-pass-1",
            "ENGAGE_SMTP_FROM": "engage@example.com",
            "ENGAGE_SMTP_TIMEOUT": "2.5",
        }
    )

    assert (
        settings.app_url, settings.smtp_host, settings.smtp_port, settings.smtp_security, settings.smtp_username,
        settings.smtp_password, settings.smtp_from, settings.smtp_timeout_seconds,
    ) == (
        "https://app.example.com", "mail.example.com", 2525, "none", "ada", "smtp-pass-1", "engage@example.com", 2.5,
    )  # fmt: skip
    assert "smtp-pass-1" not in repr(settings)


def test_the_mail_defaults_log_and_link_to_the_local_server() -> None:
    """With nothing set, no SMTP host is configured and invitations link under the default address."""
    settings = Settings.from_env({})

    assert (settings.smtp_host, settings.smtp_port, settings.smtp_security, settings.app_url) == (
        None,
        587,
        "starttls",
        DEFAULT_APP_URL,
    )


def test_the_app_hashes_with_argon2id_and_invites_through_smtp(tmp_path: Path, smtp_server: SmtpServer) -> None:
    """Adding a member through the built app stores an argon2id hash and sends the invitation to the
    SMTP server, linking under ENGAGE_APP_URL."""
    url = f"sqlite:///{tmp_path / 'engage.db'}"
    settings = Settings(
        database_url=url,
        run_worker=False,
        app_url="https://app.example.com",
        smtp_host="127.0.0.1",
        smtp_port=smtp_server.port,
        smtp_security="none",
        smtp_from="engage@example.com",
    )
    with TestClient(build_app(settings)) as client:
        database = Database.connect(url)
        try:
            key = Services.build(database.uow).accounts.create("Acme").api_key
            response = client.post(
                "/api/v1/team",
                headers={"X-Api-Key": key},
                json={"name": "Ada", "email": "ada@example.com", "role": "agent", "password": "analytical1"},
            )
            with database.engine.connect() as connection:
                stored = connection.execute(
                    team_members.select().with_only_columns(team_members.c.password_hash)
                ).scalar()
        finally:
            database.dispose()

    assert (response.status_code, response.json()["data"]["invitation_sent"]) == (201, True)
    assert stored is not None and stored.startswith("$argon2id$")
    [received] = smtp_server.received
    mail = message_from_bytes(received.data, policy=default)
    assert (received.rcpt_to, mail["From"], mail["Subject"]) == (
        ("ada@example.com",),
        "engage@example.com",
        "You have been added to Acme",
    )
    assert "https://app.example.com/login?email=ada%40example.com" in mail.get_content()  # type: ignore[attr-defined]
