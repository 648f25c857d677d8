"""`engage sandbox ...`: play the network's side of the sandbox gateway on a running server.

The sandbox keeps its accounts in the memory of the server process, so these commands do not open
the database: they call the sandbox routes (`/api/v1/sandbox/...`) of the server at `--url` with a
workspace's API key, and act on that workspace's channels and messages only. The server must run
with the sandbox gateway (`ENGAGE_CHANNELS_GATEWAY=sandbox`, the default) and one process.

engage sandbox [--url URL] --api-key KEY scan CHANNEL [--username NAME]
engage sandbox ... fail CHANNEL [--error TEXT]
engage sandbox ... set-status CHANNEL STATUS [--reason TEXT]
engage sandbox ... inject-message CHANNEL SENDER TEXT [--name NAME]
engage sandbox ... inject-receipt MESSAGE_ID delivered|read

Each prints one line describing the channel or message afterwards (`--json`: the response's `data`).
"""

from __future__ import annotations

import json
from typing import Any

import attrs
import click
import httpx

from engage_core.messaging.channels import CHANNEL_TYPES
from engage_core.messaging.sandbox_controls import SANDBOX_STATUSES

DEFAULT_URL = "http://127.0.0.1:8000"
TIMEOUT_SECONDS = 30.0
ROUTE_MISSING = "Not found."
"""The message of a 404 for a path the server does not serve (rather than a missing channel)."""


@attrs.frozen
class SandboxRemote:
    """The sandbox routes of one running server, called with one workspace's key."""

    url: str
    api_key: str = attrs.field(repr=False)

    def post(self, path: str, body: dict[str, Any]) -> Any:
        """POST `body` to the sandbox route; its `data`, or a ClickException saying what went wrong."""
        target = api_base(self.url) + "/sandbox" + path
        try:
            response = httpx.post(
                target, json=body, headers={"X-Api-Key": self.api_key}, timeout=TIMEOUT_SECONDS, trust_env=False
            )
        except httpx.HTTPError as exc:
            raise click.ClickException(f"Cannot reach the engage server at {self.url}: {exc}") from exc
        try:
            answer = response.json()
        except ValueError:
            answer = {}
        message = str(answer.get("message") or response.reason_phrase) if isinstance(answer, dict) else ""
        if response.status_code == 404 and message == ROUTE_MISSING:
            raise click.ClickException(
                f"The server at {self.url} has no sandbox routes: is it running with ENGAGE_CHANNELS_GATEWAY=sandbox?"
            )
        if not response.is_success:
            errors = answer.get("errors") if isinstance(answer, dict) else None
            details = "; ".join(f"{f}: {m}" for f, ms in (errors or {}).items() for m in ms)
            raise click.ClickException(f"The server refused ({response.status_code}): {details or message}")
        return answer.get("data")


def api_base(url: str) -> str:
    """The API's base URL from the server's, given with or without its `/api/v1` suffix."""
    from engage_http.routing import API_PREFIX  # on first use: `engage --help` imports no web framework

    base = url.rstrip("/")
    return base if base.endswith(API_PREFIX) else base + API_PREFIX


pass_remote = click.make_pass_decorator(SandboxRemote)
channel_argument = click.argument("channel", type=click.Choice(CHANNEL_TYPES))
json_option = click.option("--json", "as_json", is_flag=True, help="Print the response's data as JSON.")


@click.group()
@click.option(
    "--url",
    envvar="ENGAGE_URL",
    default=DEFAULT_URL,
    show_default=True,
    show_envvar=True,
    help="Base URL of the running engage server (with or without /api/v1).",
)
@click.option("--api-key", envvar="ENGAGE_API_KEY", required=True, show_envvar=True, help="The workspace's API key.")
@click.pass_context
def sandbox(ctx: click.Context, url: str, api_key: str) -> None:
    """Act as the network for the sandbox gateway of a running server (scan codes, write in, ...)."""
    ctx.obj = SandboxRemote(url, api_key)


@sandbox.command()
@channel_argument
@click.option("--username", help="The phone (WhatsApp) or handle (Telegram) that scans; a sandbox default if omitted.")
@json_option
@pass_remote
def scan(remote: SandboxRemote, channel: str, username: str | None, as_json: bool) -> None:
    """Scan the channel's waiting QR code: the channel connects."""
    show_channel(remote.post(f"/channels/{channel}/scan", {"username": username}), as_json)


@sandbox.command()
@channel_argument
@click.option("--error", help="Why the phone refused the code.")
@json_option
@pass_remote
def fail(remote: SandboxRemote, channel: str, error: str | None, as_json: bool) -> None:
    """Refuse the channel's waiting QR code: the attempt fails (CREATION_FAIL)."""
    show_channel(remote.post(f"/channels/{channel}/fail", {"error": error}), as_json)


@sandbox.command(name="set-status")
@channel_argument
@click.argument("status", type=click.Choice(SANDBOX_STATUSES, case_sensitive=False))
@click.option("--reason", help="Why, as the provider would say it.")
@json_option
@pass_remote
def set_status(remote: SandboxRemote, channel: str, status: str, reason: str | None, as_json: bool) -> None:
    """Report a new provider status for the channel's account (CREDENTIALS, ERROR, OK, DELETED, ...)."""
    data = remote.post(f"/channels/{channel}/status", {"status": status.upper(), "reason": reason})
    show_channel(data, as_json, gone=channel)


@sandbox.command(name="inject-message")
@channel_argument
@click.argument("sender")
@click.argument("text")
@click.option("--name", "sender_name", help="The sender's display name (names a new contact).")
@json_option
@pass_remote
def inject_message(
    remote: SandboxRemote, channel: str, sender: str, text: str, sender_name: str | None, as_json: bool
) -> None:
    """A contact (SENDER: a phone, or a handle on Instagram and LinkedIn) writes TEXT to the channel."""
    body = {"sender": sender, "text": text, "sender_name": sender_name}
    show_message(remote.post(f"/channels/{channel}/messages", body), as_json)


@sandbox.command(name="inject-receipt")
@click.argument("message_id", type=click.IntRange(min=1))
@click.argument("status", type=click.Choice(("delivered", "read")))
@json_option
@pass_remote
def inject_receipt(remote: SandboxRemote, message_id: int, status: str, as_json: bool) -> None:
    """Report the sent message MESSAGE_ID delivered or read."""
    show_message(remote.post(f"/messages/{message_id}/receipts", {"status": status}), as_json)


def show_channel(data: dict[str, Any] | None, as_json: bool, *, gone: str = "") -> None:
    if as_json:
        click.echo(json.dumps(data))
    elif data is None:
        click.echo(f"{gone}: removed (the provider deleted the account)")
    else:
        state = "connected" if data["is_connected"] else "not connected"
        who = f" as {data['username']}" if data.get("username") else ""
        why = f" ({data['error']})" if data.get("error") and not data["is_connected"] else ""
        click.echo(f"{data['type']}: {data['sync_status']}, {state}{who}{why}")


def show_message(data: dict[str, Any], as_json: bool) -> None:
    if as_json:
        click.echo(json.dumps(data))
    else:
        where = f"{data['direction']} {data['channel']}, {data['status']}"
        click.echo(f"message {data['id']}: {where}, contact {data['contact_id']}")
