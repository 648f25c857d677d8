"""`engage sandbox ...` against a running server: the app with the sandbox gateway, served on 127.0.0.1."""

from __future__ import annotations

import json
from collections.abc import Iterator

import attrs
import pytest
from click.testing import CliRunner, Result
from served_app import served

from engage_cli.main import cli
from engage_core.contacts.model import ContactInput
from engage_core.messaging.message_service import SendInput
from engage_core.messaging.sandbox import SandboxGateway
from engage_core.messaging.sandbox_controls import SandboxControls
from engage_core.services import Services
from engage_core.testing import FakeClock, InMemoryUnitOfWorkFactory
from engage_http import create_app

PHONE = "+14155550123"


@attrs.frozen
class Server:
    """A running server with the sandbox, its services, and one workspace."""

    url: str
    services: Services
    account_id: int
    api_key: str

    def run(self, *args: str, api_key: str | None = None) -> Result:
        """`engage sandbox --url <server> --api-key <key> <args>`."""
        return CliRunner().invoke(cli, ["sandbox", "--url", self.url, "--api-key", api_key or self.api_key, *args])


@pytest.fixture
def server() -> Iterator[Server]:
    clock = FakeClock()
    uow = InMemoryUnitOfWorkFactory()
    sandbox = SandboxGateway(clock)
    services = Services.build(uow, clock, gateway=sandbox)
    sandbox.attach(services.inbox)
    issued = services.accounts.create("Acme")
    with served(create_app(services, sandbox=SandboxControls(uow, sandbox))) as url:
        yield Server(url, services, issued.account.id, issued.api_key)


def test_scan_connects_the_waiting_channel(server: Server) -> None:
    """`scan whatsapp` links the waiting code and prints the channel, connected."""
    server.services.channels.connect_qr(server.account_id, "whatsapp")

    result = server.run("scan", "whatsapp", "--username", PHONE)

    assert result.exit_code == 0, result.output
    assert result.output == f"whatsapp: OK, connected as {PHONE}\n"


def test_fail_prints_the_failed_attempt(server: Server) -> None:
    """`fail telegram --error ...` fails the attempt and prints why."""
    server.services.channels.connect_qr(server.account_id, "telegram")

    result = server.run("fail", "telegram", "--error", "Wrong phone.")

    assert result.output == "telegram: CREATION_FAIL, not connected (Wrong phone.)\n"


def test_set_status_takes_the_channel_offline(server: Server) -> None:
    """`set-status whatsapp credentials` disconnects the channel (any case of the status)."""
    server.services.channels.connect_qr(server.account_id, "whatsapp")
    server.run("scan", "whatsapp")

    result = server.run("set-status", "whatsapp", "credentials", "--reason", "Logged out.")

    assert result.output == "whatsapp: CREDENTIALS, not connected as +14155550100 (Logged out.)\n"


def test_inject_message_stores_an_inbound_message(server: Server) -> None:
    """`inject-message` stores the message; `--json` prints the stored message."""
    server.services.channels.connect_qr(server.account_id, "whatsapp")
    server.run("scan", "whatsapp")

    result = server.run("inject-message", "whatsapp", PHONE, "Hi there", "--name", "Kim", "--json")

    data = json.loads(result.output)
    assert (data["direction"], data["content"], data["status"]) == ("inbound", "Hi there", "delivered")


def test_inject_receipt_moves_a_sent_message(server: Server) -> None:
    """`inject-receipt ID read` marks the sent message read and prints it."""
    server.services.channels.connect_qr(server.account_id, "whatsapp")
    server.run("scan", "whatsapp")
    contact = server.services.contacts.create(server.account_id, ContactInput(name="Kim", type="whatsapp", phone=PHONE))
    sent = server.services.messages.send(server.account_id, SendInput(contact.id, "Hello")).message

    result = server.run("inject-receipt", str(sent.id), "read")

    assert result.output == f"message {sent.id}: outbound whatsapp, read, contact {contact.id}\n"


def test_a_refused_action_exits_with_the_servers_message(server: Server) -> None:
    """Scanning with no channel settings exits 1 with the server's answer on one line."""
    result = server.run("scan", "whatsapp")

    assert result.exit_code == 1
    assert "Error: The server refused (404): Channel not found." in result.output


def test_a_wrong_key_is_reported(server: Server) -> None:
    """A key the server does not know exits 1 saying the server refused it (401)."""
    result = server.run("scan", "whatsapp", api_key="not-a-key")

    assert result.exit_code == 1
    assert "(401)" in result.output


def test_a_server_without_the_sandbox_is_explained(server: Server) -> None:
    """Against a server without sandbox routes, the error says to run it with the sandbox gateway."""
    with served(create_app(server.services)) as url:
        result = CliRunner().invoke(cli, ["sandbox", "--url", url, "--api-key", server.api_key, "scan", "whatsapp"])

    assert result.exit_code == 1
    assert "ENGAGE_CHANNELS_GATEWAY=sandbox" in result.output


def test_an_unreachable_server_is_reported(server: Server) -> None:
    """A URL nothing listens on exits 1 saying the server cannot be reached."""
    result = CliRunner().invoke(
        cli, ["sandbox", "--url", "http://127.0.0.1:9", "--api-key", server.api_key, "scan", "whatsapp"]
    )

    assert result.exit_code == 1
    assert "Cannot reach the engage server at http://127.0.0.1:9" in result.output


def test_the_api_key_is_required() -> None:
    """Without `--api-key` (or ENGAGE_API_KEY) the command is a usage error."""
    result = CliRunner().invoke(cli, ["sandbox", "scan", "whatsapp"], env={"ENGAGE_API_KEY": ""})

    assert result.exit_code == 2
    assert "--api-key" in result.output


@pytest.mark.parametrize("suffix", ["/api/v1", "/api/v1/"])
def test_the_url_may_name_the_api_base(server: Server, suffix: str) -> None:
    """`--url` given with the `/api/v1` suffix (as the API's base URL) reaches the same routes."""
    server.services.channels.connect_qr(server.account_id, "whatsapp")

    result = CliRunner().invoke(
        cli, ["sandbox", "--url", server.url + suffix, "--api-key", server.api_key, "scan", "whatsapp"]
    )

    assert result.exit_code == 0, result.output
