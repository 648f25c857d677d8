"""The sandbox channel gateway: the embedded default, which runs every channel flow offline.

It keeps its accounts in memory and behaves like a hosted messaging provider, so an app built on
engage can exercise every path (QR linking, 2FA rounds, sends, inbound messages, receipts, status
changes) without a phone or a network account. Sandbox *actions* play the other side: the phone
that scans the code, the contact who writes, the network that reports a receipt or an outage.

Connecting
    `start_qr` returns a real QR text: for WhatsApp the multi-device pairing string
    (`2@<ref>,<noise-key>,<identity-key>,<adv-secret>`, base64 parts), for Telegram a
    `tg://login?token=<base64url>` login link. The account stays `CONNECTING` until the action
    `scan` links it (`OK`) or `fail` refuses it (`CREATION_FAIL`); a code not scanned within
    `QR_LIFETIME` expires (`CREATION_FAIL`, "The QR code expired.").

Credentials (Instagram, LinkedIn): a password convention chooses what happens:
    - a password starting with `wrong` is refused ("Invalid credentials.");
    - a password ending in `#2fa` asks for one 2FA round, `#2fa<n>` for `n` rounds (at most 9);
      the rounds' checkpoint types cycle through `CHECKPOINT_TYPES` of the channel;
    - any other password logs in at once.

    The code that passes a checkpoint is `SANDBOX_CODE` (`123456`); any other is refused and the
    checkpoint keeps waiting. `resend_checkpoint` counts resends (`SandboxAccount.resends`).

LinkedIn sourcing: `search_people` answers from the offline directory of generated members
(`people_directory`); `invite` accepts one invitation per member (kept in
`SandboxAccount.invited`; a second is refused); `linkedin_standing` reports `SANDBOX_INMAIL_BALANCE`
InMail credits, and a Recruiter contract when the login names `recruiter`.

Sending: a connected account accepts every send and names it `sbx-msg-<n>`; the sends are kept in
`SandboxAccount.sent`. `outage(message)` makes every gateway call fail with `GatewayUnavailable`
until `restore()`, to exercise provider failures.

Actions that come from the network (`scan`, `fail`, `set_status`, `inject_message`,
`inject_receipt`) build the same values a provider's callbacks would and hand them to the attached
`InboundSink` (`attach`), exactly as a provider webhook route does.

Deterministic for tests: ids come from counters, time from the injected clock, and the random
bytes of QR codes from the injected `token_bytes`.
"""

from __future__ import annotations

import base64
import itertools
import re
import secrets
import threading
from collections.abc import Callable, Mapping
from datetime import datetime, timedelta

import attrs

from engage_core.kernel.clock import Clock
from engage_core.messaging import people_directory
from engage_core.messaging.channels import CREDENTIAL_CHANNELS, QR_CHANNELS
from engage_core.messaging.gateway import (
    MEDIA_CHANNELS,
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
from engage_core.messaging.ports import InboundSink

QR_LIFETIME = timedelta(seconds=60)
SANDBOX_CODE = "123456"
CHECKPOINT_TYPES: Mapping[str, tuple[str, ...]] = {
    "instagram": ("2FA", "OTP"),
    "linkedin": ("OTP", "IN_APP_VALIDATION", "CAPTCHA"),
}
DEFAULT_USERNAMES: Mapping[str, str] = {"whatsapp": "+14155550100", "telegram": "@sandbox_user"}
"""Who `scan` links when no username is given."""
SANDBOX_INMAIL_BALANCE = 40
"""The InMail credits every sandbox LinkedIn account reports."""
CONNECTED_STATUSES = frozenset({"OK", "SYNC_SUCCESS", "CREATION_SUCCESS", "RECONNECTED"})

_ROUNDS = re.compile(r"#2fa(\d?)$")


class SandboxRefused(ValueError):
    """A sandbox action that does not apply (unknown account, no code waiting, expired code, ...)."""


@attrs.frozen
class SandboxSent:
    """A message the sandbox accepted."""

    provider_message_id: str
    recipient: str
    text: str
    sent_at: datetime
    attachment: Attachment | None = None
    """The file sent with the text (its caption), if any."""


@attrs.define
class SandboxAccount:
    """One account as the sandbox provider holds it. `status` is the provider's word."""

    id: str
    channel: str
    status: str
    username: str | None = None
    qr_code: str | None = None
    qr_expires_at: datetime | None = None
    checkpoint_type: str | None = None
    rounds_left: int = 0
    rounds_done: int = 0
    resends: int = 0
    error: str | None = None
    sent: list[SandboxSent] = attrs.Factory(list)
    invited: dict[str, str | None] = attrs.Factory(dict)
    """LinkedIn invitations sent: the member's id and the note."""


class SandboxGateway:
    """A `ChannelGateway` that really runs the flows, in memory. Thread-safe."""

    def __init__(
        self,
        clock: Clock,
        *,
        token_bytes: Callable[[int], bytes] = secrets.token_bytes,
        sink: InboundSink | None = None,
    ) -> None:
        self._clock = clock
        self._token_bytes = token_bytes
        self._sink = sink
        self._accounts: dict[str, SandboxAccount] = {}
        self._account_ids = itertools.count(1)
        self._message_ids = itertools.count(1)
        self._outage: str | None = None
        self._lock = threading.RLock()

    def attach(self, sink: InboundSink) -> None:
        """Hand what arrives from now on to `sink` (the services' inbox)."""
        self._sink = sink

    # -- the gateway port -------------------------------------------------------------------------

    def start_qr(self, channel: str) -> QrLogin:
        if channel not in QR_CHANNELS:
            raise GatewayRejected(f"{channel} does not connect with a QR code.")
        with self._lock:
            self._check_up()
            qr_code = self._whatsapp_qr() if channel == "whatsapp" else self._telegram_link()
            account = self._new_account(channel)
            account.qr_code = qr_code
            account.qr_expires_at = self._clock.now() + QR_LIFETIME
            return QrLogin(account.id, qr_code)

    def poll(self, provider_account_id: str) -> StatusReport:
        with self._lock:
            self._check_up()
            account = self._known(provider_account_id)
            self._expire(account)
            return StatusReport(account.status, account.username, account.error)

    def connect_credentials(self, channel: str, username: str, password: str, country: str) -> LoginOutcome:
        if channel not in CREDENTIAL_CHANNELS:
            raise GatewayRejected(f"{channel} does not connect with credentials.")
        with self._lock:
            self._check_up()
            if password.startswith("wrong"):
                raise GatewayRejected("Invalid credentials.")
            account = self._new_account(channel)
            account.username = username
            match = _ROUNDS.search(password)
            account.rounds_left = 0 if match is None else int(match.group(1) or 1)
            return self._next_round(account)

    def solve_checkpoint(self, provider_account_id: str, code: str) -> LoginOutcome:
        with self._lock:
            self._check_up()
            account = self._known(provider_account_id)
            if account.checkpoint_type is None:
                raise GatewayRejected("No checkpoint is waiting for a code.")
            if code.strip() != SANDBOX_CODE:
                raise GatewayRejected("The code is not valid.")
            account.rounds_left -= 1
            account.rounds_done += 1
            return self._next_round(account)

    def resend_checkpoint(self, provider_account_id: str) -> None:
        with self._lock:
            self._check_up()
            account = self._known(provider_account_id)
            if account.checkpoint_type is None:
                raise GatewayRejected("No checkpoint is waiting for a code.")
            account.resends += 1

    def refresh(self, provider_account_id: str) -> StatusReport:
        return self.poll(provider_account_id)

    def disconnect(self, provider_account_id: str) -> None:
        with self._lock:
            self._check_up()
            self._accounts.pop(provider_account_id, None)

    def send(self, provider_account_id: str, recipient: str, text: str) -> SentMessage:
        return self._send(provider_account_id, recipient, text, None)

    def send_file(self, provider_account_id: str, recipient: str, text: str, attachment: Attachment) -> SentMessage:
        """The file is read, as a provider would, and recorded with the message."""
        with attachment.open() as stream:
            stream.read()
        return self._send(provider_account_id, recipient, text, attachment)

    def _send(self, provider_account_id: str, recipient: str, text: str, attachment: Attachment | None) -> SentMessage:
        with self._lock:
            self._check_up()
            account = self._known(provider_account_id)
            if account.status not in CONNECTED_STATUSES:
                raise GatewayRejected("The account is not connected.")
            if attachment is not None and account.channel not in MEDIA_CHANNELS:
                raise GatewayRejected(f"{account.channel} messages cannot carry a file.")
            sent = SandboxSent(f"sbx-msg-{next(self._message_ids)}", recipient, text, self._clock.now(), attachment)
            account.sent.append(sent)
            return SentMessage(sent.provider_message_id, sent.sent_at)

    def search_people(self, provider_account_id: str, query: PeopleQuery) -> PeoplePage:
        self._linkedin(provider_account_id)
        try:
            return people_directory.search(query)
        except ValueError as exc:
            raise GatewayRejected(str(exc)) from exc

    def invite(self, provider_account_id: str, provider_id: str, note: str | None) -> SentMessage:
        with self._lock:
            account = self._linkedin(provider_account_id)
            if provider_id in account.invited:
                raise GatewayRejected("An invitation to this member is already pending.")
            account.invited[provider_id] = note
            return SentMessage(f"sbx-inv-{next(self._message_ids)}", self._clock.now())

    def linkedin_standing(self, provider_account_id: str) -> LinkedInStanding:
        account = self._linkedin(provider_account_id)
        return LinkedInStanding(SANDBOX_INMAIL_BALANCE, "recruiter" in (account.username or "").lower())

    # -- sandbox actions: the other side of the network -----------------------------------------

    def scan(self, provider_account_id: str, username: str | None = None) -> None:
        """The phone scans the QR code: the account is linked (`OK`)."""
        with self._lock:
            account = self._waiting_qr(provider_account_id)
            account.status = "OK"
            account.username = username or DEFAULT_USERNAMES[account.channel]
            account.qr_code = None
            linked = account.username
        self._tell(StatusChange(provider_account_id, "CREATION_SUCCESS", username=linked))

    def fail(self, provider_account_id: str, error: str = "The QR code was refused.") -> None:
        """The phone refuses the QR code: the attempt fails (`CREATION_FAIL`)."""
        with self._lock:
            account = self._waiting_qr(provider_account_id)
            account.status = "CREATION_FAIL"
            account.error = error
            account.qr_code = None
        self._tell(StatusChange(provider_account_id, "CREATION_FAIL", error))

    def set_status(self, provider_account_id: str, status: str, reason: str | None = None) -> None:
        """The provider moves the account to `status` (`CREDENTIALS`, `ERROR`, `STOPPED`, `OK`,
        `SYNC_SUCCESS`, ...) and calls back."""
        with self._lock:
            account = self._known(provider_account_id, refused=SandboxRefused)
            account.status = status.upper()
            account.error = reason
            username = account.username
        self._tell(StatusChange(provider_account_id, status.upper(), reason, username))

    def inject_message(
        self,
        provider_account_id: str,
        sender: str,
        text: str,
        *,
        sender_name: str | None = None,
        provider_message_id: str | None = None,
    ) -> InboundMessage:
        """A contact writes to the account (`sender`: a phone on WhatsApp and Telegram, a handle on
        Instagram and LinkedIn)."""
        with self._lock:
            self._known(provider_account_id, refused=SandboxRefused)
            message = InboundMessage(
                provider_account_id=provider_account_id,
                provider_message_id=provider_message_id or f"sbx-in-{next(self._message_ids)}",
                sender=sender,
                text=text,
                received_at=self._clock.now(),
                sender_name=sender_name,
            )
        if self._sink is not None:
            self._sink.receive(message)
        return message

    def inject_receipt(self, provider_account_id: str, provider_message_id: str, status: str) -> Receipt:
        """The network reports a sent message `delivered` or `read`."""
        if status not in ("delivered", "read"):
            raise SandboxRefused("A receipt is delivered or read.")
        with self._lock:
            self._known(provider_account_id, refused=SandboxRefused)
            receipt = Receipt(provider_account_id, provider_message_id, status, self._clock.now())
        if self._sink is not None:
            self._sink.receipt(receipt)
        return receipt

    def outage(self, message: str = "The messaging provider is unavailable.") -> None:
        """Every gateway call fails with `GatewayUnavailable` until `restore()`."""
        self._outage = message

    def restore(self) -> None:
        self._outage = None

    def account(self, provider_account_id: str) -> SandboxAccount:
        with self._lock:
            return self._known(provider_account_id, refused=SandboxRefused)

    def accounts(self) -> list[SandboxAccount]:
        with self._lock:
            return list(self._accounts.values())

    # -- helpers ----------------------------------------------------------------------------------

    def _check_up(self) -> None:
        if self._outage is not None:
            raise GatewayUnavailable(self._outage)

    def _linkedin(self, provider_account_id: str) -> SandboxAccount:
        """A connected LinkedIn account of the sandbox (else GatewayRejected)."""
        with self._lock:
            self._check_up()
            account = self._known(provider_account_id)
            if account.channel != "linkedin" or account.status not in CONNECTED_STATUSES:
                raise GatewayRejected("The account is not a connected LinkedIn account.")
            return account

    def _known(self, provider_account_id: str, refused: type[Exception] = GatewayRejected) -> SandboxAccount:
        account = self._accounts.get(provider_account_id)
        if account is None:
            raise refused(f"Unknown account {provider_account_id}.")
        return account

    def _waiting_qr(self, provider_account_id: str) -> SandboxAccount:
        account = self._known(provider_account_id, refused=SandboxRefused)
        self._expire(account)
        if account.qr_code is None or account.status != "CONNECTING":
            raise SandboxRefused(f"No QR code of {provider_account_id} is waiting to be scanned.")
        return account

    def _expire(self, account: SandboxAccount) -> None:
        if (
            account.status == "CONNECTING"
            and account.qr_expires_at is not None
            and self._clock.now() >= account.qr_expires_at
        ):
            account.status = "CREATION_FAIL"
            account.error = "The QR code expired."
            account.qr_code = None

    def _new_account(self, channel: str) -> SandboxAccount:
        account = SandboxAccount(id=f"sbx-{channel}-{next(self._account_ids)}", channel=channel, status="CONNECTING")
        self._accounts[account.id] = account
        return account

    def _next_round(self, account: SandboxAccount) -> LoginOutcome:
        if account.rounds_left > 0:
            types = CHECKPOINT_TYPES[account.channel]
            account.checkpoint_type = types[account.rounds_done % len(types)]
            return Checkpoint(account.id, account.checkpoint_type)
        account.checkpoint_type = None
        account.status = "OK"
        return Authenticated(account.id, account.username)

    def _b64(self, size: int) -> str:
        return base64.b64encode(self._token_bytes(size)).decode("ascii")

    def _whatsapp_qr(self) -> str:
        """The multi-device pairing string: reference, noise public key, identity key, adv secret."""
        return f"2@{self._b64(48)},{self._b64(32)},{self._b64(32)},{self._b64(32)}"

    def _telegram_link(self) -> str:
        token = base64.urlsafe_b64encode(self._token_bytes(32)).decode("ascii").rstrip("=")
        return f"tg://login?token={token}"

    def _tell(self, change: StatusChange) -> None:
        if self._sink is not None:
            self._sink.status_changed(change)
