"""The channel gateway over the hosted messaging provider (`engage_connectors.hosted_messaging`).

`HostedGateway` implements `engage_core.messaging.ports.ChannelGateway` with `HostedMessagingClient`;
`HostedCallbackReader` turns the provider's callbacks into the core's inbound values for the
callback route (`engage_http.channel_callbacks`). Both translate the provider's vocabulary into the
domain's, in one place each:

    channel  whatsapp | telegram | instagram | linkedin   <->  Provider WHATSAPP | TELEGRAM | ...
    status   the provider's AccountStatus words pass through unchanged (the core maps them:
             `engage_core.messaging.channels.trigger_for`)

    HostedMessagingError                           ->  engage_core.messaging.gateway
     ├── ProviderUnavailable (unreachable,             GatewayUnavailable (nothing happened;
     │     timeout, 5xx/408/429)                         retry later)
     ├── ProviderAuthFailed (our API key)              GatewayUnavailable (the operator must fix the
     ├── ProviderProtocolError (unreadable answer)       configuration; logged as an error)
     └── ProviderRejected (credentials, code,          GatewayRejected (the provider's own words)
           unknown account, recipient, ...)

Which network an account belongs to: `start_qr` and `connect_credentials` learn it and remember
it; for an account this process did not create (another process, a restart) it is asked of the
provider once (`GET /accounts/{id}`).

Inbound callbacks address the contact as each network does: a WhatsApp sender is matched by phone;
Instagram and LinkedIn senders by the provider's attendee id, kept as the contact's handle (the id
a reply is sent to). Telegram senders come as provider user ids, not phones, so they cannot be
matched to a Telegram contact (a phone, in engage): such callbacks are acknowledged and logged.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import TypeVar

from engage_connectors.hosted_messaging import (
    CALLBACK_SECRET_HEADER,
    SOURCE_ACCOUNT_STATUS,
    SOURCE_MESSAGING,
    AccountStatus,
    AccountStatusChange,
    CallbackAuthenticator,
    CallbackRefused,
    CheckpointRequired,
    FileUpload,
    HostedMessagingClient,
    HostedMessagingError,
    MalformedCallback,
    NotFound,
    Provider,
    ProviderAccount,
    ProviderAuthFailed,
    ProviderRejected,
    ProviderUnavailable,
    parse_callback,
)
from engage_connectors.hosted_messaging import InboundMessage as ProviderInbound
from engage_connectors.hosted_messaging import Receipt as ProviderReceipt
from engage_core.kernel.clock import Clock
from engage_core.kernel.errors import EngageError, Unauthenticated
from engage_core.messaging.gateway import (
    Attachment,
    Authenticated,
    Checkpoint,
    GatewayRejected,
    GatewayUnavailable,
    InboundMessage,
    LoginOutcome,
    QrLogin,
    Receipt,
    SentMessage,
    StatusChange,
    StatusReport,
)
from engage_core.messaging.people import LinkedInStanding, PeoplePage, PeopleQuery

logger = logging.getLogger("engage.channels.hosted")

T = TypeVar("T")

PROVIDERS: Mapping[str, Provider] = {
    "whatsapp": Provider.WHATSAPP,
    "telegram": Provider.TELEGRAM,
    "instagram": Provider.INSTAGRAM,
    "linkedin": Provider.LINKEDIN,
}
CHANNELS: Mapping[Provider, str] = {provider: channel for channel, provider in PROVIDERS.items()}
ATTEMPT_GONE = "The connection attempt failed or expired at the provider."
MISCONFIGURED = "The messaging provider refused engage's API key; the operator must check the channel settings."
WEBHOOK_NAME = "engage"


class HostedGateway:
    """A `ChannelGateway` over the hosted messaging provider. Thread-safe; `close()` it."""

    def __init__(self, client: HostedMessagingClient, clock: Clock) -> None:
        self._client = client
        self._clock = clock
        self._providers: dict[str, Provider] = {}
        self._lock = threading.Lock()

    def close(self) -> None:
        self._client.close()

    def start_qr(self, channel: str) -> QrLogin:
        provider = _provider(channel)
        challenge = _call(lambda: self._client.connect_qr(provider))
        self._remember(challenge.account_id, provider)
        return QrLogin(challenge.account_id, challenge.qr_code)

    def poll(self, provider_account_id: str) -> StatusReport:
        try:
            account = _call(lambda: self._client.account(provider_account_id), gone=NotFound)
        except _Gone:  # a failed or expired QR attempt no longer exists at the provider
            return StatusReport("CREATION_FAIL", error=ATTEMPT_GONE)
        return _report(account)

    def connect_credentials(self, channel: str, username: str, password: str, country: str) -> LoginOutcome:
        provider = _provider(channel)
        login = _call(lambda: self._client.connect_credentials(provider, username, password, country=country))
        self._remember(login.account_id, provider)
        if isinstance(login, CheckpointRequired):
            return Checkpoint(login.account_id, login.checkpoint_type)
        return Authenticated(login.account_id, username)

    def solve_checkpoint(self, provider_account_id: str, code: str) -> LoginOutcome:
        provider = self._provider_of(provider_account_id)
        login = _call(lambda: self._client.solve_checkpoint(provider, provider_account_id, code))
        if isinstance(login, CheckpointRequired):
            return Checkpoint(login.account_id, login.checkpoint_type)
        return Authenticated(login.account_id)

    def resend_checkpoint(self, provider_account_id: str) -> None:
        provider = self._provider_of(provider_account_id)
        _call(lambda: self._client.resend_checkpoint(provider, provider_account_id))

    def refresh(self, provider_account_id: str) -> StatusReport:
        """The account's status; a stopped or failing account is restarted first."""
        account = _call(lambda: self._client.account(provider_account_id))
        if account.status in (AccountStatus.ERROR, AccountStatus.STOPPED):
            _call(lambda: self._client.restart(provider_account_id))
            account = _call(lambda: self._client.account(provider_account_id))
        return _report(account)

    def disconnect(self, provider_account_id: str) -> None:
        with contextlib.suppress(_Gone):  # already gone: the wanted state
            _call(lambda: self._client.delete(provider_account_id), gone=NotFound)
        with self._lock:
            self._providers.pop(provider_account_id, None)

    def send(self, provider_account_id: str, recipient: str, text: str) -> SentMessage:
        provider = self._provider_of(provider_account_id)
        sent = _call(lambda: self._client.send_message(provider, provider_account_id, recipient, text))
        return SentMessage(sent.message_id, self._clock.now())

    def send_file(self, provider_account_id: str, recipient: str, text: str, attachment: Attachment) -> SentMessage:
        """The file's bytes go to the provider in the message's request (it does not fetch URLs)."""
        provider = self._provider_of(provider_account_id)
        with attachment.open() as stream:
            file = FileUpload(attachment.name, attachment.mime_type, stream.read())
        sent = _call(lambda: self._client.send_message(provider, provider_account_id, recipient, text, file))
        return SentMessage(sent.message_id, self._clock.now())

    def search_people(self, provider_account_id: str, query: PeopleQuery) -> PeoplePage:
        return _call(lambda: self._client.search_people(provider_account_id, query))

    def invite(self, provider_account_id: str, provider_id: str, note: str | None) -> SentMessage:
        invitation = _call(lambda: self._client.invite(provider_account_id, provider_id, note))
        return SentMessage(invitation, self._clock.now())

    def linkedin_standing(self, provider_account_id: str) -> LinkedInStanding:
        return _call(lambda: self._client.linkedin_standing(provider_account_id))

    def username_of(self, provider_account_id: str) -> str | None:
        """The account's phone or handle as the provider knows it; None when it cannot be asked."""
        try:
            return _username(self._client.account(provider_account_id))
        except HostedMessagingError:
            return None

    def _remember(self, provider_account_id: str, provider: Provider) -> None:
        with self._lock:
            self._providers[provider_account_id] = provider

    def _provider_of(self, provider_account_id: str) -> Provider:
        with self._lock:
            known = self._providers.get(provider_account_id)
        if known is not None:
            return known
        account = _call(lambda: self._client.account(provider_account_id))
        try:
            provider = Provider(account.provider.upper())
        except ValueError:
            raise GatewayRejected(f"The account is on a network engage does not serve ({account.provider}).") from None
        self._remember(provider_account_id, provider)
        return provider


class MalformedProviderCallback(EngageError):
    """The body is not a callback of the provider (answered 400)."""


class HostedCallbackReader:
    """Authenticates the provider's callbacks (the shared secret header) and translates them into the
    core's values (`engage_http.channel_callbacks.CallbackReader`)."""

    def __init__(self, authenticator: CallbackAuthenticator, gateway: HostedGateway) -> None:
        self._authenticator = authenticator
        self._gateway = gateway

    def read(self, headers: Sequence[tuple[str, str]], body: bytes) -> InboundMessage | Receipt | StatusChange | None:
        try:
            self._authenticator.authenticate(headers)
        except CallbackRefused as exc:
            raise Unauthenticated(str(exc)) from None
        try:
            callback = parse_callback(body)
        except MalformedCallback as exc:
            raise MalformedProviderCallback(str(exc)) from None
        if isinstance(callback, ProviderInbound):
            return _inbound(callback)
        if isinstance(callback, ProviderReceipt):
            return Receipt(callback.account_id, callback.provider_message_id, callback.kind.value, callback.timestamp)
        if isinstance(callback, AccountStatusChange):
            return self._status_change(callback)
        logger.info("Provider callback ignored: %s", callback.reason)
        return None

    def _status_change(self, change: AccountStatusChange) -> StatusChange:
        # The status callback does not say who the account is; a newly linked account's phone or
        # handle fills the channel's `username`.
        username = self._gateway.username_of(change.account_id) if change.status.is_connected else None
        return StatusChange(change.account_id, change.status.value, change.message, username)


def register_callbacks(client: HostedMessagingClient, url: str, secret: str) -> list[str]:
    """Ask the provider to post message and account-status callbacks to `url` with the shared
    secret header; the webhook ids (one per source)."""
    CallbackAuthenticator(secret)  # refuses a secret too short to be one
    headers = {CALLBACK_SECRET_HEADER: secret}
    return [
        client.register_webhook(url, source, headers, name=f"{WEBHOOK_NAME}-{source}")
        for source in (SOURCE_MESSAGING, SOURCE_ACCOUNT_STATUS)
    ]


# -- translation -----------------------------------------------------------------------------------


class _Gone(Exception):
    """The provider does not know the account (a `gone=` answer of `_call`)."""


def _call(call: Callable[[], T], *, gone: type[ProviderRejected] | None = None) -> T:
    """Run one client call, its failure translated into the gateway's errors."""
    try:
        return call()
    except ProviderUnavailable as exc:
        raise GatewayUnavailable(str(exc)) from exc
    except ProviderAuthFailed as exc:
        logger.error("The messaging provider refused the API key: %s", exc)
        raise GatewayUnavailable(MISCONFIGURED) from exc
    except ProviderRejected as exc:
        if gone is not None and isinstance(exc, gone):
            raise _Gone() from exc
        raise GatewayRejected(str(exc)) from exc
    except HostedMessagingError as exc:  # an answer we cannot read: the provider's API changed
        logger.error("The messaging provider answered in an unexpected way: %s", exc)
        raise GatewayUnavailable(str(exc)) from exc
    except ValueError as exc:  # refused before any request: an invalid recipient, say
        raise GatewayRejected(str(exc)) from exc


def _provider(channel: str) -> Provider:
    provider = PROVIDERS.get(channel)
    if provider is None:
        raise GatewayRejected(f"The messaging provider does not serve the {channel} channel.")
    return provider


def _username(account: ProviderAccount) -> str | None:
    return account.username or None


def _report(account: ProviderAccount) -> StatusReport:
    status = account.status
    connected_or_waiting = status.is_connected or status is AccountStatus.CONNECTING
    return StatusReport(status.value, _username(account), None if connected_or_waiting else status.description)


def _inbound(callback: ProviderInbound) -> InboundMessage | None:
    if callback.text is None:
        logger.info("Provider callback ignored: message %s has no text", callback.provider_message_id)
        return None
    if callback.provider == Provider.WHATSAPP:
        if callback.sender_phone is None:  # a group, or an id that is not a phone
            logger.info("Provider callback ignored: WhatsApp sender %s is not a phone", callback.sender_id)
            return None
        sender = callback.sender_phone
    else:
        sender = callback.sender_id
    return InboundMessage(
        provider_account_id=callback.account_id,
        provider_message_id=callback.provider_message_id,
        sender=sender,
        text=callback.text,
        received_at=callback.timestamp,
        sender_name=callback.sender_name,
    )
