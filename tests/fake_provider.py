"""A local stand-in for the hosted messaging provider: its REST API on 127.0.0.1, in a thread.

It answers the routes `HostedMessagingClient` uses with the provider's shapes and error documents,
and keeps real state: accounts and their statuses, QR links that stay pending until the test
scans them, credential logins that need a configurable series of checkpoint rounds (each with a
code the test reads as if from the user's phone; a resend replaces it), one-to-one chats and the
messages sent through them, LinkedIn people searches (over the sandbox's generated directory),
invitations and the InMail balance. Webhooks registered through the API receive callbacks (new messages,
receipts, account statuses) with the headers they were registered with.

    with FakeProvider() as provider:
        provider.add_login(Provider.LINKEDIN, "ada@example.com", "pw", rounds=("2FA", "OTP"))
        ... client = HostedMessagingClient(provider.url, provider.api_key) ...
        provider.code_for(account_id)              # the code the network "sent"
        provider.scan(account_id)                  # the owner scans the QR code
        provider.outage("error")                   # every request now fails: error, reset, hang, drip
        provider.receive_message(account_id, "966500000001@s.whatsapp.net", "Hi")  # posts a callback

An outage applies to the API only; `outage(None)` ends it. A stopped provider (`close()`) refuses
connections.
"""

from __future__ import annotations

import base64
import email.parser
import email.policy
import itertools
import json
import secrets
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal
from urllib.parse import parse_qs, unquote, urlsplit

import httpx
from loopback import Closing, LoopbackHandler, LoopbackServer

from engage_connectors.hosted_messaging import AccountStatus, Provider
from engage_core.messaging import people_directory
from engage_core.messaging.people import PeopleQuery

Outage = Literal["error", "reset", "hang", "drip"]
WHATSAPP_SUFFIX = "@s.whatsapp.net"


@dataclass
class Login:
    """Credentials the network accepts, and the checkpoint types a login with them goes through."""

    password: str
    rounds: tuple[str, ...]


@dataclass
class Account:
    id: str
    provider: Provider
    status: AccountStatus
    username: str | None = None
    name: str | None = None
    qr_code: str | None = None  # set while a QR link waits to be scanned
    rounds_left: list[str] = field(default_factory=list)  # checkpoint types still to pass
    code: str | None = None  # the code of the open checkpoint
    reconnecting: bool = False


@dataclass(frozen=True)
class StoredMessage:
    id: str
    chat_id: str
    account_id: str
    sender_id: str
    text: str
    is_sender: bool
    timestamp: str


@dataclass(frozen=True)
class Sent:
    """A message an API client asked the provider to send."""

    account_id: str
    chat_id: str
    message_id: str
    attendee_id: str
    text: str
    attachments: tuple[Attachment, ...] = ()


@dataclass(frozen=True)
class Attachment:
    """A file sent with a message, as the provider received it."""

    filename: str
    content_type: str
    content: bytes


@dataclass(frozen=True)
class Webhook:
    id: str
    url: str
    source: str
    headers: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Delivery:
    """A callback the provider posted, and the status the receiver answered (None: no answer)."""

    url: str
    body: dict[str, Any]
    status: int | None


class ApiError(Exception):
    def __init__(self, status: int, error_type: str, detail: str) -> None:
        super().__init__(detail)
        self.status = status
        self.error_type = error_type
        self.detail = detail


class FakeProvider(Closing):
    """The provider's API on an ephemeral port of 127.0.0.1."""

    def __init__(self, *, api_key: str = "fake-provider-key-0123456789") -> None:
        self.api_key = api_key
        self.accounts: dict[str, Account] = {}
        self.sent: list[Sent] = []
        self.deliveries: list[Delivery] = []
        self.resends: dict[str, int] = {}
        self.requests: list[tuple[str, str]] = []  # (method, path) of every API request read
        self.invitations: dict[tuple[str, str], str | None] = {}  # (account id, member id) -> note
        self.searches: list[dict[str, Any]] = []  # the bodies of the people searches
        self.inmail_credits = 25
        self._logins: dict[tuple[Provider, str], Login] = {}
        self._webhooks: list[Webhook] = []
        self._chats: dict[str, tuple[str, str]] = {}  # chat id -> (account id, attendee id)
        self._messages: dict[str, list[StoredMessage]] = {}  # chat id -> oldest first
        self._outage: Outage | None = None
        self._outage_seconds = 0.0
        self._ids = itertools.count(1)
        self._lock = threading.RLock()
        self._server = _Server(_Handler)
        self._server.provider = self
        self._server.start()

    @property
    def url(self) -> str:
        """The base URL (the tenant's DSN) to give the client."""
        return f"http://127.0.0.1:{self._server.port}"

    def close(self) -> None:
        """Stop listening (idempotent): later connections are refused; waiting handlers give up."""
        self._server.close()

    # -- what a test controls ----------------------------------------------------------------------

    def add_login(self, provider: Provider, username: str, password: str, *, rounds: Sequence[str] = ()) -> None:
        """The network accepts `username`/`password`, after one checkpoint per entry of `rounds`."""
        with self._lock:
            self._logins[(provider, username)] = Login(password, tuple(rounds))

    def code_for(self, account_id: str) -> str:
        """The code of the account's open checkpoint, as the network sent it to the user."""
        with self._lock:
            code = self.accounts[account_id].code
            assert code is not None, f"account {account_id} has no open checkpoint"
            return code

    def scan(self, account_id: str, *, phone: str = "+966500000001", name: str = "Scanned Phone") -> None:
        """The owner scans the pending QR code: the account connects."""
        with self._lock:
            account = self.accounts[account_id]
            assert account.qr_code is not None, f"account {account_id} has no pending QR code"
            account.qr_code = None
            account.status = AccountStatus.OK
            account.username = phone if account.provider is Provider.WHATSAPP else phone.removeprefix("+")
            account.name = name
            event = AccountStatus.RECONNECTED if account.reconnecting else AccountStatus.CREATION_SUCCESS
            account.reconnecting = False
        self.post_status(account_id, event, provider=account.provider)

    def fail_qr(self, account_id: str) -> None:
        """The QR code expires unscanned: no account is created."""
        with self._lock:
            account = self.accounts.pop(account_id)
        self.post_status(account_id, AccountStatus.CREATION_FAIL, provider=account.provider)

    def set_status(self, account_id: str, status: AccountStatus) -> list[Delivery]:
        """The account's status changes (a session ends, sync fails, ...) and a callback says so."""
        with self._lock:
            account = self.accounts[account_id]
            account.status = status
        return self.post_status(account_id, status, provider=account.provider)

    def outage(self, mode: Outage | None, *, seconds: float = 30.0) -> None:
        """From now on every API request fails: `error` answers 500, `reset` hangs up without an
        answer, `hang` answers only after `seconds`, `drip` sends its answer a byte per `seconds`.
        None ends the outage."""
        with self._lock:
            self._outage = mode
            self._outage_seconds = seconds

    def receive_message(
        self, account_id: str, sender_id: str, text: str, *, sender_name: str | None = "Kim"
    ) -> tuple[str, list[Delivery]]:
        """Someone writes to the account: the message is stored and announced to `messaging` webhooks."""
        with self._lock:
            account = self.accounts[account_id]
            chat_id = self._chat_with(account_id, sender_id)
            message = self._store(chat_id, account_id, sender_id, text, is_sender=False)
        body: dict[str, Any] = {
            "event": "message_received",
            "account_id": account_id,
            "account_type": account.provider.value,
            "account_info": {"type": account.provider.value, "feature": "classic", "user_id": self._own_id(account)},
            "chat_id": chat_id,
            "timestamp": message.timestamp,
            "webhook_name": "engage",
            "message_id": message.id,
            "message": text,
            "sender": {
                "attendee_id": f"att_{sender_id}",
                "attendee_name": sender_name,
                "attendee_provider_id": sender_id,
                "attendee_profile_url": None,
            },
            "attendees": [],
            "attachments": [],
        }
        return message.id, self.post_callback("messaging", body)

    def echo_own_message(self, account_id: str, chat_id: str, text: str) -> list[Delivery]:
        """The owner writes from the phone app: the provider reports the account's own message too."""
        with self._lock:
            account = self.accounts[account_id]
            message = self._store(chat_id, account_id, self._own_id(account), text, is_sender=True)
        body = {
            "event": "message_received",
            "account_id": account_id,
            "account_type": account.provider.value,
            "account_info": {"type": account.provider.value, "feature": "classic", "user_id": self._own_id(account)},
            "chat_id": chat_id,
            "timestamp": message.timestamp,
            "message_id": message.id,
            "message": text,
            "sender": {"attendee_provider_id": self._own_id(account), "attendee_name": account.name},
        }
        return self.post_callback("messaging", body)

    def receipt(self, message_id: str, event: Literal["message_delivered", "message_read"]) -> list[Delivery]:
        """The recipient's app reports the sent message delivered or read."""
        with self._lock:
            sent = next(s for s in self.sent if s.message_id == message_id)
            account = self.accounts[sent.account_id]
        body = {
            "event": event,
            "account_id": sent.account_id,
            "account_type": account.provider.value,
            "chat_id": sent.chat_id,
            "message_id": message_id,
            "timestamp": _now(),
            "webhook_name": "engage",
        }
        return self.post_callback("messaging", body)

    def post_status(self, account_id: str, status: AccountStatus, *, provider: Provider) -> list[Delivery]:
        body = {"AccountStatus": {"account_id": account_id, "account_type": provider.value, "message": status.value}}
        return self.post_callback("account_status", body)

    def post_callback(self, source: str, body: dict[str, Any]) -> list[Delivery]:
        """POST `body` to every webhook registered for `source`, with its registered headers."""
        with self._lock:
            targets = [w for w in self._webhooks if w.source == source]
        made: list[Delivery] = []
        with httpx.Client(timeout=5.0, trust_env=False) as client:
            for webhook in targets:
                try:
                    status: int | None = client.post(
                        webhook.url, content=json.dumps(body).encode(), headers=list(webhook.headers)
                    ).status_code
                except httpx.TransportError:
                    status = None
                made.append(Delivery(webhook.url, body, status))
        with self._lock:
            self.deliveries.extend(made)
        return made

    def webhooks(self) -> list[Webhook]:
        with self._lock:
            return list(self._webhooks)

    # -- the API -----------------------------------------------------------------------------------

    def _route(self, method: str, path: str, query: dict[str, list[str]], body: dict[str, Any]) -> tuple[int, Any]:
        parts = [unquote(p) for p in path.removeprefix("/api/v1/").split("/")]
        with self._lock:
            match method, parts:
                case "POST", ["accounts"]:
                    return self._create_account(body)
                case "POST", ["accounts", "checkpoint"]:
                    return self._solve(body)
                case "POST", ["accounts", "checkpoint", "resend"]:
                    return self._resend(body)
                case "GET", ["accounts", account_id]:
                    return 200, self._account_object(self._existing(account_id))
                case "POST", ["accounts", account_id]:
                    return self._reconnect(self._existing(account_id), body)
                case "POST", ["accounts", account_id, "restart"]:
                    return self._restart(self._existing(account_id))
                case "DELETE", ["accounts", account_id]:
                    account = self._existing(account_id)
                    del self.accounts[account_id]
                    self._after(lambda: self.post_status(account_id, AccountStatus.DELETED, provider=account.provider))
                    return 200, {"object": "AccountDeleted"}
                case "POST", ["chats"]:
                    return self._start_chat(body)
                case "POST", ["chats", chat_id, "messages"]:
                    return self._send_in_chat(chat_id, body)
                case "GET", ["chats", chat_id, "messages"]:
                    return self._list_messages(chat_id, query)
                case "POST", ["webhooks"]:
                    return self._register_webhook(body)
                case "POST", ["linkedin", "search"]:
                    return self._search(query, body)
                case "POST", ["users", "invite"]:
                    return self._invite(body)
                case "GET", ["linkedin", "inmail_balance"]:
                    self._linkedin(_first(query, "account_id"))
                    return 200, {"object": "InMailBalance", "premium": self.inmail_credits, "recruiter": None}
        raise ApiError(404, "errors/resource_not_found", f"No route {method} {path}.")

    def _create_account(self, body: dict[str, Any]) -> tuple[int, Any]:
        provider = _provider(body)
        if provider.connects_by_qr:
            account = Account(self._new_id("acc"), provider, AccountStatus.CONNECTING, qr_code=_qr_code(provider))
            self.accounts[account.id] = account
            return 201, _qr_answer(account)
        login = self._check_credentials(provider, body)
        account = Account(self._new_id("acc"), provider, AccountStatus.CONNECTING, username=str(body["username"]))
        self.accounts[account.id] = account
        return self._start_rounds(account, login, created="AccountCreated")

    def _reconnect(self, account: Account, body: dict[str, Any]) -> tuple[int, Any]:
        account.reconnecting = True
        if account.provider.connects_by_qr:
            account.qr_code = _qr_code(account.provider)
            account.status = AccountStatus.CONNECTING
            return 201, _qr_answer(account)
        login = self._check_credentials(account.provider, body)
        return self._start_rounds(account, login, created="AccountReconnected")

    def _start_rounds(self, account: Account, login: Login, *, created: str) -> tuple[int, Any]:
        account.rounds_left = list(login.rounds)
        if account.rounds_left:
            account.code = _code()
            return 202, _checkpoint_answer(account)
        return self._connected(account, created)

    def _solve(self, body: dict[str, Any]) -> tuple[int, Any]:
        account = self._open_checkpoint(body)
        if str(body.get("code", "")) != account.code:
            raise ApiError(401, "errors/invalid_checkpoint_solution", "The checkpoint resolution did not pass.")
        account.rounds_left.pop(0)
        if account.rounds_left:
            account.code = _code()
            return 202, _checkpoint_answer(account)
        account.code = None
        return self._connected(account, "AccountReconnected" if account.reconnecting else "AccountCreated")

    def _resend(self, body: dict[str, Any]) -> tuple[int, Any]:
        account = self._open_checkpoint(body)
        previous = account.code
        while account.code == previous:  # the new code replaces the one sent before
            account.code = _code()
        self.resends[account.id] = self.resends.get(account.id, 0) + 1
        return 201, {"object": "CheckpointResend", "account_id": account.id}

    def _connected(self, account: Account, created: str) -> tuple[int, Any]:
        account.status = AccountStatus.OK
        account.name = account.name or account.username
        event = AccountStatus.RECONNECTED if account.reconnecting else AccountStatus.CREATION_SUCCESS
        account.reconnecting = False
        self._after(lambda: self.post_status(account.id, event, provider=account.provider))
        return 201, {"object": created, "account_id": account.id}

    def _restart(self, account: Account) -> tuple[int, Any]:
        if account.status in (AccountStatus.ERROR, AccountStatus.STOPPED):
            account.status = AccountStatus.OK
        return 200, {"object": "AccountRestarted"}

    def _start_chat(self, body: dict[str, Any]) -> tuple[int, Any]:
        account = self._sendable(str(body.get("account_id", "")))
        attendees = body.get("attendees_ids") or []
        text = str(body.get("text", ""))
        if len(attendees) != 1 or not text:
            raise ApiError(400, "errors/invalid_parameters", "One attendee and a text are required.")
        attendee = attendees[0]
        if account.provider is Provider.WHATSAPP and not attendee.endswith(WHATSAPP_SUFFIX):
            raise ApiError(422, "errors/invalid_recipient", "The recipient is not a WhatsApp user.")
        chat_id = self._chat_with(account.id, attendee)
        message = self._send(account, chat_id, attendee, text, tuple(body.get("attachments", ())))
        return 201, {"object": "ChatStarted", "chat_id": chat_id, "message_id": message.id}

    def _send_in_chat(self, chat_id: str, body: dict[str, Any]) -> tuple[int, Any]:
        if chat_id not in self._chats:
            raise ApiError(404, "errors/resource_not_found", "Chat not found.")
        account_id, attendee = self._chats[chat_id]
        message = self._send(self._sendable(account_id), chat_id, attendee, str(body.get("text", "")))
        return 201, {"object": "MessageSent", "message_id": message.id}

    def _send(
        self, account: Account, chat_id: str, attendee: str, text: str, attachments: tuple[Attachment, ...] = ()
    ) -> StoredMessage:
        message = self._store(chat_id, account.id, self._own_id(account), text, is_sender=True)
        self.sent.append(Sent(account.id, chat_id, message.id, attendee, text, attachments))
        return message

    def _list_messages(self, chat_id: str, query: dict[str, list[str]]) -> tuple[int, Any]:
        if chat_id not in self._chats:
            raise ApiError(404, "errors/resource_not_found", "Chat not found.")
        newest_first = list(reversed(self._messages.get(chat_id, [])))
        start = int(query.get("cursor", ["0"])[0])
        limit = int(query.get("limit", ["100"])[0])
        page = newest_first[start : start + limit]
        cursor = str(start + limit) if start + limit < len(newest_first) else None
        items = [
            {
                "object": "Message",
                "id": m.id,
                "chat_id": m.chat_id,
                "account_id": m.account_id,
                "sender_id": m.sender_id,
                "text": m.text,
                "timestamp": m.timestamp,
                "is_sender": int(m.is_sender),  # the provider sends 0/1 here
                "seen": 0,
            }
            for m in page
        ]
        return 200, {"object": "MessageList", "items": items, "cursor": cursor}

    def _linkedin(self, account_id: str) -> Account:
        account = self._sendable(account_id)
        if account.provider is not Provider.LINKEDIN:
            raise ApiError(400, "errors/invalid_account", "The account is not a LinkedIn account.")
        return account

    def _search(self, query: dict[str, list[str]], body: dict[str, Any]) -> tuple[int, Any]:
        """The classic people search over the sandbox's generated directory, in the provider's shapes."""
        self._linkedin(_first(query, "account_id"))
        if body.get("api") != "classic" or body.get("category") != "people":
            raise ApiError(400, "errors/invalid_parameters", "Only the classic people search is served.")
        advanced = body.get("advanced_keywords") or {}
        self.searches.append(body)
        page = people_directory.search(
            PeopleQuery(
                keywords=body.get("keywords"),
                title=advanced.get("title"),
                company=advanced.get("company"),
                limit=int(_first(query, "limit") or 10),
                cursor=_first(query, "cursor") or None,
            )
        )
        items = [
            {
                "object": "SearchResult",
                "type": "PEOPLE",
                "id": p.provider_id,
                "name": p.name,
                "headline": p.headline,
                "location": p.location,
                "profile_url": p.profile_url,
                "current_positions": [{"company": p.company, "role": p.headline.split(" at ")[0]}],
            }
            for p in page.items
        ]
        return 200, {"object": "LinkedinSearch", "items": items, "cursor": page.next_cursor}

    def _invite(self, body: dict[str, Any]) -> tuple[int, Any]:
        account = self._linkedin(str(body.get("account_id", "")))
        member = str(body.get("provider_id", ""))
        if not member:
            raise ApiError(400, "errors/invalid_parameters", "The provider_id is required.")
        if (account.id, member) in self.invitations:
            raise ApiError(422, "errors/already_invited_recently", "An invitation is already pending.")
        self.invitations[(account.id, member)] = body.get("message")
        return 201, {"object": "UserInvitationSent", "invitation_id": self._new_id("inv")}

    def _register_webhook(self, body: dict[str, Any]) -> tuple[int, Any]:
        headers = tuple((str(h["key"]), str(h["value"])) for h in body.get("headers", []))
        webhook = Webhook(self._new_id("wh"), str(body["request_url"]), str(body["source"]), headers)
        self._webhooks.append(webhook)
        return 201, {"object": "WebhookCreated", "webhook_id": webhook.id}

    # -- helpers -----------------------------------------------------------------------------------

    def _check_credentials(self, provider: Provider, body: dict[str, Any]) -> Login:
        login = self._logins.get((provider, str(body.get("username", ""))))
        if login is None or body.get("password") != login.password:
            raise ApiError(401, "errors/invalid_credentials", "The provided credentials are invalid.")
        return login

    def _open_checkpoint(self, body: dict[str, Any]) -> Account:
        account = self.accounts.get(str(body.get("account_id", "")))
        if account is None or account.code is None:
            raise ApiError(400, "errors/invalid_parameters", "No checkpoint is waiting for this account.")
        return account

    def _existing(self, account_id: str) -> Account:
        if account_id not in self.accounts:
            raise ApiError(404, "errors/resource_not_found", "Account not found.")
        return self.accounts[account_id]

    def _sendable(self, account_id: str) -> Account:
        account = self._existing(account_id)
        if account.status is not AccountStatus.OK:
            raise ApiError(401, "errors/disconnected_account", "The account is disconnected.")
        return account

    def _chat_with(self, account_id: str, attendee: str) -> str:
        for chat_id, pair in self._chats.items():
            if pair == (account_id, attendee):
                return chat_id
        chat_id = self._new_id("chat")
        self._chats[chat_id] = (account_id, attendee)
        return chat_id

    def _store(self, chat_id: str, account_id: str, sender_id: str, text: str, *, is_sender: bool) -> StoredMessage:
        message = StoredMessage(self._new_id("msg"), chat_id, account_id, sender_id, text, is_sender, _now())
        self._messages.setdefault(chat_id, []).append(message)
        return message

    def _own_id(self, account: Account) -> str:
        if account.provider is Provider.WHATSAPP and account.username:
            return account.username.removeprefix("+") + WHATSAPP_SUFFIX
        return f"self_{account.id}"

    def _account_object(self, account: Account) -> dict[str, Any]:
        im_key = "phone_number" if account.provider is Provider.WHATSAPP else "username"
        return {
            "object": "Account",
            "type": account.provider.value,
            "id": account.id,
            "name": account.name,
            "created_at": _now(),
            "connection_params": {"im": {"id": f"self_{account.id}", im_key: account.username}},
            "sources": [{"id": f"{account.id}_MESSAGING", "status": account.status.value}],
            "groups": [],
        }

    def _new_id(self, prefix: str) -> str:
        return f"{prefix}_{next(self._ids)}_{secrets.token_urlsafe(6)}"

    def _after(self, callback: Any) -> None:
        """Run `callback` once the current answer is written, as the provider's webhooks lag its API."""
        threading.Thread(target=callback, daemon=True).start()

    def _outage_now(self) -> tuple[Outage | None, float]:
        with self._lock:
            return self._outage, self._outage_seconds


def _provider(body: dict[str, Any]) -> Provider:
    try:
        return Provider(str(body.get("provider")))
    except ValueError:
        raise ApiError(400, "errors/invalid_parameters", "Unknown provider.") from None


def _qr_code(provider: Provider) -> str:
    if provider is Provider.TELEGRAM:
        return "tg://login?token=" + secrets.token_urlsafe(32)
    # WhatsApp multi-device pairing data: ref, noise key, identity key, secret, comma-separated.
    parts = [secrets.token_urlsafe(24)] + [base64.b64encode(secrets.token_bytes(32)).decode() for _ in range(3)]
    return "2@" + ",".join(parts)


def _qr_answer(account: Account) -> dict[str, Any]:
    return {
        "object": "Checkpoint",
        "account_id": account.id,
        "checkpoint": {"type": "QRCODE", "qrcode": account.qr_code},
    }


def _checkpoint_answer(account: Account) -> dict[str, Any]:
    return {"object": "Checkpoint", "account_id": account.id, "checkpoint": {"type": account.rounds_left[0]}}


def _code() -> str:
    return f"{secrets.randbelow(1_000_000):06d}"


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class _Server(LoopbackServer):
    provider: FakeProvider


class _Handler(LoopbackHandler):
    server: _Server

    def do_DELETE(self) -> None:
        self.handle_request()

    def handle_request(self) -> None:
        provider = self.server.provider
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        url = urlsplit(self.path)
        with provider._lock:
            provider.requests.append((self.command, url.path))
        mode, seconds = provider._outage_now()
        if mode == "reset":
            self.close_connection = True
            return
        if mode == "hang" and self.server.closed.wait(seconds):
            return
        if mode == "error":
            self._answer(500, _problem(500, "errors/unexpected_error", "An unexpected error occurred."), 0.0)
            return
        if self.headers.get("X-API-KEY") != provider.api_key:
            self._answer(401, _problem(401, "errors/missing_credentials", "Missing or invalid API key."), 0.0)
            return
        try:
            status, body = provider._route(self.command, url.path, parse_qs(url.query), self._body(raw))
        except ApiError as exc:
            status, body = exc.status, _problem(exc.status, exc.error_type, exc.detail)
        self._answer(status, body, seconds if mode == "drip" else 0.0)

    def _body(self, raw: bytes) -> dict[str, Any]:
        content_type = self.headers.get("Content-Type") or ""
        if content_type.startswith("multipart/form-data"):
            return _form(content_type, raw)
        if not raw:
            return {}
        try:
            data = json.loads(raw)
        except ValueError:
            raise ApiError(400, "errors/malformed_request", "The body is not JSON.") from None
        return data if isinstance(data, dict) else {}

    def _answer(self, status: int, body: Any, drip: float) -> None:
        payload = json.dumps(body).encode()
        head = (
            f"HTTP/1.1 {status} {self.responses.get(status, ('',))[0]}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(payload)}\r\n\r\n"
        ).encode()
        if drip:
            if not self.drip(head, drip):
                return
        else:
            self.wfile.write(head)
        self.wfile.write(payload)
        self.wfile.flush()


def _form(content_type: str, raw: bytes) -> dict[str, Any]:
    """Multipart form fields; repeated fields (attendees_ids) become lists, text fields strings, files
    (attachments) `Attachment`s."""
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
        b"Content-Type: " + content_type.encode() + b"\r\n\r\n" + raw
    )
    fields: dict[str, Any] = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        payload = part.get_payload(decode=True)
        if name == "attachments":
            filename = str(part.get_param("filename", header="content-disposition") or "")
            file = Attachment(filename, part.get_content_type(), payload if isinstance(payload, bytes) else b"")
            fields.setdefault(name, []).append(file)
            continue
        value = payload.decode() if isinstance(payload, bytes) else ""
        if name == "attendees_ids":
            fields.setdefault(name, []).append(value)
        else:
            fields[str(name)] = value
    return fields


def _problem(status: int, error_type: str, detail: str) -> dict[str, Any]:
    return {"status": status, "type": error_type, "title": detail, "detail": detail}


def _first(query: dict[str, list[str]], key: str) -> str:
    values = query.get(key) or [""]
    return values[0]
