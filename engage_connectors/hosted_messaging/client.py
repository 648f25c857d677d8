"""`HostedMessagingClient`: the hosted multi-channel messaging provider's REST API over httpx.

One client serves one provider tenant: its base URL (the tenant's DSN, `https://apiN.example:port`)
and API key, sent as `X-API-KEY` on every request. Paths are the provider's `/api/v1/...`.

Every call either returns a value of `values` or raises a `HostedMessagingError` (see `errors`):
the mapping of statuses, problem types and transport failures is done once, in `_call`. The
timeout bounds each whole exchange (connection, upload, answer), not each network read, so a
provider that drips its answer cannot hold a caller past it. Only the configured provider host is
reachable (redirects are never followed), and proxy variables are ignored.

Logging names the method, path and outcome only: never the API key, a password or a 2FA code.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit

import httpx

from engage_connectors.guarded_http import deadline, guarded_client
from engage_connectors.hosted_messaging.errors import (
    HostedMessagingError,
    ProviderProtocolError,
    ProviderUnreachable,
    error_for_response,
    error_for_transport,
)
from engage_connectors.hosted_messaging.handles import attendee_id
from engage_connectors.hosted_messaging.linkedin import read_people_page, read_standing, search_body
from engage_connectors.hosted_messaging.readers import (
    read_account,
    read_login,
    read_message_page,
    read_qr_challenge,
    read_reconnect,
    read_sent_message,
    require_text,
)
from engage_connectors.hosted_messaging.values import (
    FileUpload,
    LoginResult,
    MessagePage,
    Provider,
    ProviderAccount,
    QrChallenge,
    ReconnectResult,
    SentMessage,
)
from engage_connectors.ssrf import AddressPolicy, BlockedAddress
from engage_connectors.url_paths import path_segment
from engage_core.messaging.people import LinkedInStanding, PeoplePage, PeopleQuery

logger = logging.getLogger(__name__)

DEFAULT_TIMEOUT_SECONDS = 30.0
API_PREFIX = "/api/v1"

# Webhook sources the provider distinguishes: new messages and receipts, and account statuses.
SOURCE_MESSAGING = "messaging"
SOURCE_ACCOUNT_STATUS = "account_status"


class HostedMessagingClient:
    """The provider's accounts, checkpoints, chats, messages and webhooks. Thread-safe; `close()` it."""

    def __init__(
        self,
        base_url: str,
        api_key: str,
        timeout: float = DEFAULT_TIMEOUT_SECONDS,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        """`transport` replaces the network (tests); the whole-exchange deadline then does not apply."""
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError("The provider URL must be an absolute http(s) URL.")
        if not api_key:
            raise ValueError("The provider API key must not be empty.")
        if timeout <= 0:
            raise ValueError("The provider timeout must be positive.")
        self._base_url = base_url.rstrip("/")
        self._api_key = api_key
        self._timeout = timeout
        if transport is None:
            # The provider is chosen by the operator, not by a user: its own host is exempt from the
            # SSRF guard, which still applies the whole-exchange deadline and refuses anything else.
            self._client = guarded_client(AddressPolicy(allowed_hosts=frozenset({parts.hostname})), timeout=timeout)
        else:
            self._client = httpx.Client(
                transport=transport, timeout=httpx.Timeout(timeout), follow_redirects=False, trust_env=False
            )

    def __repr__(self) -> str:
        return f"HostedMessagingClient({self._base_url!r})"

    def close(self) -> None:
        self._client.close()

    # -- accounts ------------------------------------------------------------------------------

    def connect_qr(self, provider: Provider) -> QrChallenge:
        """Start linking a WhatsApp or Telegram device: the code to scan and the new account's id."""
        if not provider.connects_by_qr:
            raise ValueError(f"{provider} connects with credentials, not with a QR code.")
        return read_qr_challenge(self._call("POST", "/accounts", json={"provider": provider.value}))

    def connect_credentials(
        self, provider: Provider, username: str, password: str, *, country: str | None = None
    ) -> LoginResult:
        """Log an Instagram or LinkedIn account in: connected, or a checkpoint (2FA) to answer.

        `country` (ISO 3166-1 alpha-2) asks the provider to connect from that country."""
        if provider.connects_by_qr:
            raise ValueError(f"{provider} connects with a QR code, not with credentials.")
        body: dict[str, Any] = {"provider": provider.value, "username": username, "password": password}
        if country:
            body["country"] = country.upper()
        return read_login(self._call("POST", "/accounts", json=body))

    def solve_checkpoint(self, provider: Provider, account_id: str, code: str) -> LoginResult:
        """Answer the open checkpoint: connected, or the next checkpoint. A wrong code raises
        `CheckpointRejected` and leaves the checkpoint open."""
        body = {"provider": provider.value, "account_id": account_id, "code": code}
        return read_login(self._call("POST", "/accounts/checkpoint", json=body))

    def resend_checkpoint(self, provider: Provider, account_id: str) -> None:
        """Ask the network to send the checkpoint's code (or in-app prompt) again."""
        self._call("POST", "/accounts/checkpoint/resend", json={"provider": provider.value, "account_id": account_id})

    def account(self, account_id: str) -> ProviderAccount:
        """The account and its status. `NotFound` for an unknown or deleted account, and for a QR
        attempt that failed or expired."""
        return read_account(self._call("GET", f"/accounts/{_segment(account_id)}"))

    def reconnect(
        self, provider: Provider, account_id: str, *, username: str | None = None, password: str | None = None
    ) -> ReconnectResult:
        """Link a disconnected account again, keeping its id: a new QR code for WhatsApp and
        Telegram, a login (with its checkpoints) for Instagram and LinkedIn."""
        body: dict[str, Any] = {"provider": provider.value}
        if not provider.connects_by_qr:
            if not username or not password:
                raise ValueError(f"Reconnecting {provider} needs the username and password.")
            body.update(username=username, password=password)
        return read_reconnect(self._call("POST", f"/accounts/{_segment(account_id)}", json=body))

    def restart(self, account_id: str) -> None:
        """Restart a stopped or failing account's synchronisation (no new login)."""
        self._call("POST", f"/accounts/{_segment(account_id)}/restart")

    def delete(self, account_id: str) -> None:
        """Unlink the account from the provider; `NotFound` if it is already gone."""
        self._call("DELETE", f"/accounts/{_segment(account_id)}")

    # -- chats and messages --------------------------------------------------------------------

    def send_message(
        self, provider: Provider, account_id: str, recipient: str, text: str, file: FileUpload | None = None
    ) -> SentMessage:
        """Send `text` to one person: a phone number (E.164) for WhatsApp, the provider's attendee
        id elsewhere. The provider starts the one-to-one chat, or reuses it if it exists. `file`
        goes with the text as an attachment (the text its caption), in the same multipart request."""
        fields = [("account_id", account_id), ("attendees_ids", attendee_id(provider, recipient)), ("text", text)]
        return read_sent_message(self._call("POST", "/chats", form=fields, file=file), chat_id=None)

    def send_in_chat(self, chat_id: str, text: str) -> SentMessage:
        """Send `text` into an existing chat."""
        answer = self._call("POST", f"/chats/{_segment(chat_id)}/messages", form=[("text", text)])
        return read_sent_message(answer, chat_id=chat_id)

    def messages(self, chat_id: str, *, limit: int | None = None, cursor: str | None = None) -> MessagePage:
        """One page of a chat's messages, newest first."""
        params: dict[str, str] = {}
        if limit is not None:
            params["limit"] = str(limit)
        if cursor:
            params["cursor"] = cursor
        return read_message_page(self._call("GET", f"/chats/{_segment(chat_id)}/messages", params=params))

    # -- LinkedIn ------------------------------------------------------------------------------

    def search_people(self, account_id: str, query: PeopleQuery) -> PeoplePage:
        """One page of the LinkedIn account's classic people search (`linkedin.search_body`)."""
        params = {"account_id": account_id, "limit": str(query.limit)}
        if query.cursor:
            params["cursor"] = query.cursor
        return read_people_page(self._call("POST", "/linkedin/search", json=search_body(query), params=params))

    def invite(self, account_id: str, provider_id: str, note: str | None) -> str:
        """Send the member a connection invitation (with `note`): the invitation's id."""
        body = {"provider_id": provider_id, "account_id": account_id}
        if note:
            body["message"] = note
        return require_text(self._call("POST", "/users/invite", json=body), "invitation_id")

    def linkedin_standing(self, account_id: str) -> LinkedInStanding:
        """The account's InMail balance and Recruiter contract."""
        return read_standing(self._call("GET", "/linkedin/inmail_balance", params={"account_id": account_id}))

    # -- webhooks ------------------------------------------------------------------------------

    def register_webhook(self, request_url: str, source: str, headers: Mapping[str, str], *, name: str) -> str:
        """Ask the provider to POST `source` callbacks (`messaging` or `account_status`) to
        `request_url` with `headers` on each (that is how the shared secret reaches us). The webhook id."""
        body = {
            "request_url": request_url,
            "source": source,
            "name": name,
            "headers": [{"key": "Content-Type", "value": "application/json"}]
            + [{"key": key, "value": value} for key, value in headers.items()],
        }
        return require_text(self._call("POST", "/webhooks", json=body), "webhook_id")

    # -- transport -----------------------------------------------------------------------------

    def _call(
        self,
        method: str,
        path: str,
        *,
        json: Mapping[str, Any] | None = None,
        form: Sequence[tuple[str, str]] | None = None,
        file: FileUpload | None = None,
        params: Mapping[str, str] | None = None,
    ) -> dict[str, Any]:
        """Send one request; the JSON object answered, or the `HostedMessagingError` it amounts to."""
        headers = {"X-API-KEY": self._api_key, "Accept": "application/json"}
        # The provider takes chat messages as multipart form fields; (None, value) makes a plain field.
        files: list[tuple[str, tuple[Any, ...]]] | None = None
        if form is not None:
            files = [(key, (None, value)) for key, value in form]
            if file is not None:
                files.append(("attachments", (file.name, file.content, file.mime_type)))
        started = time.monotonic()
        try:
            with deadline(self._timeout):
                response = self._client.request(
                    method, self._base_url + API_PREFIX + path, headers=headers, json=json, files=files, params=params
                )
        except httpx.TransportError as exc:
            error: HostedMessagingError = error_for_transport(exc)
            self._log(method, path, started, type(error).__name__)
            raise error from None
        except BlockedAddress as exc:  # the provider's host name did not resolve
            self._log(method, path, started, "unresolved")
            raise ProviderUnreachable(f"The messaging provider could not be reached: {exc}") from None
        self._log(method, path, started, str(response.status_code))
        if not response.is_success:
            raise error_for_response(response) from None
        if response.status_code == 204 or not response.content:
            return {}
        try:
            answer = response.json()
        except ValueError:
            raise ProviderProtocolError(f"The messaging provider's answer to {path} is not JSON.") from None
        if not isinstance(answer, dict):
            raise ProviderProtocolError(f"The messaging provider answered {path} with JSON that is not an object.")
        return answer

    def _log(self, method: str, path: str, started: float, outcome: str) -> None:
        elapsed_ms = (time.monotonic() - started) * 1000
        logger.info("messaging provider %s %s -> %s in %.0f ms", method, API_PREFIX + path, outcome, elapsed_ms)


def _segment(value: str) -> str:
    """`value` as one path segment: an id never walks into another route."""
    if not value:
        raise ValueError("An account or chat id must not be empty.")
    return path_segment(value)
