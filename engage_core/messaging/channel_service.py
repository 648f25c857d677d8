"""Channels: connect (QR or credentials with 2FA rounds), poll, refresh, disconnect, and the
provider's status changes (SPEC 3 Channels, SPEC 4 Channels).

The lifecycle rules are in `engage_core.messaging.channels`. Every gateway call is made outside any database
transaction (a network call must never hold the workspace's write lock); its outcome is then
applied in a transaction of its own, which re-reads the setting and checks it is still the one
the call was about. Gateway failures become `Unavailable` (the provider did not answer: nothing
changed) or a 422 / 409 naming what the provider refused.

Rules beyond the lifecycle:

- connecting a channel that is connected is a `Conflict` (409), for every channel (SPEC 4 says it
  for WhatsApp; Telegram has "the same shapes"; for Instagram and LinkedIn a second login would
  silently replace a working account);
- disconnecting WhatsApp while a campaign runs or is paused on it is a 422 (`CampaignGuard`);
- disconnecting deletes the local setting after the provider deleted its account; if the provider
  cannot be reached the setting stays, so the account is not left running at the provider;
- every LinkedIn operation needs the `linkedin_access` feature (`FeatureGate`), else 403 with code
  `linkedin_upgrade_required`;
- a new attempt (a new QR code, a new login) replaces a failed, lost or pending one; the provider
  account of the replaced attempt is deleted at the provider, best effort.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Sequence
from typing import TypeVar

import attrs

from engage_core.kernel.clock import Clock
from engage_core.kernel.errors import Conflict, NotFound, PlanLimitReached, Unavailable, ValidationFailed
from engage_core.kernel.events import DomainEvent
from engage_core.kernel.validation import ErrorCollector, required_text
from engage_core.messaging.channels import (
    CAMPAIGN_GUARDED,
    CHANNEL_TYPES,
    CREDENTIAL_CHANNELS,
    DEFAULT_COUNTRY,
    QR_CHANNELS,
    ChannelAccount,
    ChannelDraft,
    Trigger,
    advance,
    next_phase,
    removal,
    trigger_for,
)
from engage_core.messaging.gateway import (
    Authenticated,
    Checkpoint,
    GatewayError,
    GatewayRejected,
    GatewayUnavailable,
    LoginOutcome,
    StatusChange,
    StatusReport,
)
from engage_core.messaging.ports import CampaignGuard, ChannelGateway
from engage_core.plans.entitlements import Entitlements, PlanLimits
from engage_core.plans.features import LINKEDIN_ACCESS, linkedin_refused
from engage_core.plans.model import CHANNELS, Plan, month_of
from engage_core.plans.ports import FeatureGate
from engage_core.unit_of_work import UnitOfWorkFactory, WorkspaceUnitOfWork

T = TypeVar("T")

USERNAME_MAX = 255
PASSWORD_MAX = 1024
CODE_MAX = 64
_COUNTRY = re.compile(r"^[A-Z]{2}$")
DISCONNECT_REASON = "Disconnected by the workspace."
PROVIDER_DELETED_REASON = "The account was deleted at the provider."
ATTEMPT_FAILED = "The connection attempt failed."


@attrs.frozen
class CredentialsInput:
    """Fields of `POST /channels/{instagram|linkedin}/connect`."""

    username: str
    password: str
    country: str = DEFAULT_COUNTRY


@attrs.frozen
class QrConnection:
    """The answer to a QR connect: the setting (pending) and the QR text to show. SPEC 4's
    `account_id` is `channel.provider_account_id`."""

    channel: ChannelAccount
    qr_code: str


@attrs.frozen
class ConnectOutcome:
    """The answer to a credentials login or a 2FA code: the setting, connected, or waiting for
    another checkpoint round (`requires_2fa`, with `channel.checkpoint_type`)."""

    channel: ChannelAccount

    @property
    def requires_2fa(self) -> bool:
        """Whether a checkpoint round waits for a code (`channel.checkpoint_type` is set)."""
        return self.channel.checkpoint_type is not None


class ChannelService:
    """A workspace's channel settings (WhatsApp, Telegram, Instagram, LinkedIn): connecting them, polling,
    refreshing, disconnecting, and the provider's status changes.

    Every method raises :class:`.NotFound` for an unknown channel type or one without a setting, and
    :class:`.FeatureUnavailable` (`linkedin_upgrade_required`) for LinkedIn without the
    `linkedin_access` feature; a provider that cannot be reached is :class:`.Unavailable` (nothing
    changed). Phase changes emit `channel.connected`, `channel.disconnected` and `channel.error` (see
    :mod:`engage_core.messaging.channels`)."""

    def __init__(
        self,
        uow: UnitOfWorkFactory,
        clock: Clock,
        gateway: ChannelGateway,
        campaigns: CampaignGuard,
        features: FeatureGate,
        entitlements: Entitlements | None = None,
        relay: Callable[[int, DomainEvent], None] | None = None,
    ) -> None:
        """`entitlements` enforces the `channels` limit on new channel settings (none without it).
        `relay` is told each committed `channel.*` event (a partner's client workspace passes
        `channel.connected`/`channel.disconnected` on to its partner), after the commit."""
        self._relay = relay
        self._uow = uow
        self._clock = clock
        self._gateway = gateway
        self._campaigns = campaigns
        self._features = features
        self._entitlements = entitlements
        self._limits = PlanLimits(entitlements)

    # -- reading ------------------------------------------------------------------------------

    def list(self, account_id: int) -> Sequence[ChannelAccount]:
        """Every channel setting of the account, ascending id."""
        with self._uow.workspace(account_id, readonly=True) as uow:
            return uow.channels.list()

    def status(
        self, account_id: int, channel: str, provider_account_id: str | None = None, *, plan: Plan | None = None
    ) -> ChannelAccount:
        """`GET /channels/{channel}/status`. A pending QR attempt asks the provider (polling; an
        attempt the provider no longer knows has failed); every other answer comes from the local
        records. `provider_account_id` (SPEC 4's optional
        `account_id`) must name the current attempt when given."""
        self._check(account_id, channel, plan=plan)
        current = self._current(account_id, channel)
        if provider_account_id is not None and provider_account_id != current.provider_account_id:
            raise NotFound("Channel")
        if channel not in QR_CHANNELS or not current.in_progress or current.provider_account_id is None:
            return current
        report = self._ask(lambda: self._gateway.poll(current.provider_account_id or ""))
        return self._report(account_id, current.provider_account_id, report) or current

    # -- connecting ---------------------------------------------------------------------------

    def connect_qr(self, account_id: int, channel: str, *, plan: Plan | None = None) -> QrConnection:
        """`POST /channels/{whatsapp|telegram}/connect`: a new QR attempt (409 while connected)."""
        self._check(account_id, channel, QR_CHANNELS, plan=plan)
        self._refuse_if_connected(account_id, channel)
        self._check_room(account_id, channel, plan)
        login = _call(lambda: self._gateway.start_qr(channel))
        account, replaced = self._begin(account_id, channel, login.provider_account_id, None, None, plan)
        self._forget(replaced)
        return QrConnection(account, login.qr_code)

    def connect_credentials(
        self, account_id: int, channel: str, data: CredentialsInput, *, plan: Plan | None = None
    ) -> ConnectOutcome:
        """`POST /channels/{instagram|linkedin}/connect`: log in; connected, or a checkpoint round.

        Credentials the provider refuses are recorded as a failed attempt (`channel.error`) and
        answered with a 422 on `password`."""
        self._check(account_id, channel, CREDENTIAL_CHANNELS, plan=plan)
        username, password, country = _credentials(data)
        self._refuse_if_connected(account_id, channel)
        self._check_room(account_id, channel, plan)
        try:
            outcome = self._gateway.connect_credentials(channel, username, password, country)
        except GatewayUnavailable as exc:
            raise Unavailable(exc.message) from exc
        except GatewayRejected as exc:
            self._record_refused_login(account_id, channel, username, exc.message)
            raise ValidationFailed.on("password", exc.message) from exc
        checkpoint = outcome.checkpoint_type if isinstance(outcome, Checkpoint) else None
        account, replaced = self._begin(account_id, channel, outcome.provider_account_id, username, checkpoint, plan)
        self._forget(replaced)
        if isinstance(outcome, Authenticated):
            account = self._authenticated(account_id, outcome) or account
        return ConnectOutcome(account)

    def submit_code(
        self, account_id: int, channel: str, provider_account_id: str, code: str, *, plan: Plan | None = None
    ) -> ConnectOutcome:
        """`POST /channels/{instagram|linkedin}/2fa`: answer the waiting checkpoint. A wrong code is
        a 422 on `code` and the checkpoint keeps waiting."""
        self._check(account_id, channel, CREDENTIAL_CHANNELS, plan=plan)
        code = required_text("code", code, max_length=CODE_MAX)
        self._waiting_checkpoint(account_id, channel, provider_account_id)
        outcome: LoginOutcome = _call(lambda: self._gateway.solve_checkpoint(provider_account_id, code), field="code")
        if isinstance(outcome, Authenticated):
            account = self._authenticated(account_id, outcome)
        else:
            account = self._next_checkpoint(account_id, outcome)
        if account is None:  # disconnected while the provider was answering
            raise NotFound("Channel")
        return ConnectOutcome(account)

    def resend_code(self, account_id: int, channel: str, provider_account_id: str, *, plan: Plan | None = None) -> None:
        """`POST /channels/{instagram|linkedin}/2fa/resend`."""
        self._check(account_id, channel, CREDENTIAL_CHANNELS, plan=plan)
        self._waiting_checkpoint(account_id, channel, provider_account_id)
        try:
            self._gateway.resend_checkpoint(provider_account_id)
        except GatewayUnavailable as exc:
            raise Unavailable(exc.message) from exc
        except GatewayRejected as exc:
            raise Conflict(exc.message) from exc

    # -- keeping it running -------------------------------------------------------------------

    def refresh(self, account_id: int, channel: str, *, plan: Plan | None = None) -> ChannelAccount:
        """`POST /channels/{channel}/refresh`: ask the provider to resynchronise, apply the status it
        reports, and stamp `last_synced_at` if connected. An account the provider no longer knows
        counts as `ERROR`."""
        self._check(account_id, channel, plan=plan)
        current = self._current(account_id, channel)
        if current.provider_account_id is None:
            return current
        pid = current.provider_account_id
        report = self._ask(lambda: self._gateway.refresh(pid))
        found = self._report(account_id, pid, report, refreshed=True)
        if found is None:
            raise NotFound("Channel")
        return found

    def disconnect(self, account_id: int, channel: str, *, plan: Plan | None = None) -> None:
        """`POST /channels/{channel}/disconnect`: delete the provider account, then the setting."""
        self._check(account_id, channel, plan=plan)
        current = self._current(account_id, channel)
        if channel in CAMPAIGN_GUARDED and self._campaigns.active_on(account_id, channel):
            raise ValidationFailed.on(
                "channel",
                f"A campaign is running or paused on the {channel} channel. Cancel or finish it before disconnecting.",
            )
        if current.provider_account_id is not None:
            try:
                self._gateway.disconnect(current.provider_account_id)
            except GatewayUnavailable as exc:
                raise Unavailable(exc.message) from exc
            except GatewayRejected:
                pass  # the provider does not know the account: already the state we want
        now = self._clock.now()
        with self._uow.workspace(account_id) as uow:
            stored = uow.channels.by_type(channel)
            if stored is None:
                return
            uow.channels.delete(stored.id)
            events = list(removal(stored, now, DISCONNECT_REASON))
            for event in events:
                uow.emit(event)
            uow.commit()
        self._relay_all(account_id, events)

    def status_changed(self, account_id: int, change: StatusChange) -> ChannelAccount | None:
        """A provider status callback. Moves the table does not have are ignored (callbacks arrive
        late and twice); the setting as it is afterwards, None when it is (now) gone."""
        trigger = trigger_for(change.status)
        return self._move(
            account_id, change.provider_account_id, trigger, detail=change.reason, username=change.username
        )

    # -- helpers ------------------------------------------------------------------------------

    def _check(self, account_id: int, channel: str, flow: frozenset[str] | None = None, *, plan: Plan | None) -> None:
        """The channel exists (and has this flow), and the plan allows it."""
        if channel not in CHANNEL_TYPES or (flow is not None and channel not in flow):
            raise NotFound("Channel")
        if channel == "linkedin" and not self._allows(account_id, LINKEDIN_ACCESS, plan):
            raise linkedin_refused()

    def _allows(self, account_id: int, feature: str, plan: Plan | None) -> bool:
        """The plan given decides, unless the services were built with a feature gate of their own."""
        if plan is not None and self._features is self._entitlements:
            return plan.has(feature)
        return self._features.allows(account_id, feature)

    def _current(self, account_id: int, channel: str) -> ChannelAccount:
        with self._uow.workspace(account_id, readonly=True) as uow:
            current = uow.channels.by_type(channel)
        if current is None:
            raise NotFound("Channel")
        return current

    def _refuse_if_connected(self, account_id: int, channel: str) -> None:
        with self._uow.workspace(account_id, readonly=True) as uow:
            _refuse_connected(uow, channel)

    def _check_room(self, account_id: int, channel: str, admitted: Plan | None) -> None:
        """Refuse a new channel setting past the plan's `channels` limit before the provider is
        asked for anything. An early answer only: `_begin` reserves the room race-free."""
        plan = self._limits.plan_of(account_id, admitted)
        if plan is None:
            return
        with self._uow.workspace(account_id, readonly=True) as uow:
            if uow.channels.by_type(channel) is None:
                plan.check_room(CHANNELS, uow.usage.count(CHANNELS, month_of(self._clock.now())[0]))

    def _waiting_checkpoint(self, account_id: int, channel: str, provider_account_id: str) -> None:
        current = self._current(account_id, channel)
        if current.provider_account_id != provider_account_id:
            raise NotFound("Channel")
        if current.checkpoint_type is None or not current.in_progress:
            raise Conflict("No 2FA checkpoint is waiting for a code on this account.")

    def _begin(
        self,
        account_id: int,
        channel: str,
        provider_account_id: str,
        username: str | None,
        checkpoint_type: str | None,
        admitted: Plan | None,
    ) -> tuple[ChannelAccount, str | None]:
        """Store a new attempt (phase `pending`): a new setting, or the failed, lost or pending one
        restarted. Returns it with the provider account id it replaced, if any."""
        now = self._clock.now()
        plan = self._limits.plan_of(account_id, admitted)
        with self._uow.workspace(account_id) as uow:
            # One read (locked, when the storage locks): a second one could find the setting another
            # request added and moved on since the first found none.
            current = uow.channels.by_type(channel)
            if current is not None and current.is_connected:
                self._forget(provider_account_id)  # connected meanwhile: drop the new attempt
                raise _connected(channel)
            if current is None:
                try:
                    self._limits.reserve(uow, plan, CHANNELS, now)
                except PlanLimitReached:
                    self._forget(provider_account_id)  # the provider's attempt is of no use now
                    raise
                try:
                    account = uow.channels.add(
                        ChannelDraft(channel, provider_account_id, username, checkpoint_type), now
                    )
                except Conflict:
                    self._forget(provider_account_id)  # another request started a connection meanwhile
                    raise
                replaced = None
            else:
                restarted, _ = advance(current, "start", now)
                account = attrs.evolve(
                    restarted,
                    provider_account_id=provider_account_id,
                    username=username,
                    checkpoint_type=checkpoint_type,
                    error=None,
                    updated_at=now,
                )
                uow.channels.update(account)
                replaced = current.provider_account_id
            uow.commit()
        return account, None if replaced == provider_account_id else replaced

    def _record_refused_login(self, account_id: int, channel: str, username: str, error: str) -> None:
        """A login the provider refused is a failed attempt: `channel.error`, no provider account."""
        now = self._clock.now()
        replaced = None
        with self._uow.workspace(account_id) as uow:
            current = uow.channels.by_type(channel)
            if current is not None and current.is_connected:
                return  # connected meanwhile: this attempt changes nothing
            if current is None:
                attempt = uow.channels.add(ChannelDraft(channel, None, username), now)
            else:
                replaced = current.provider_account_id
                restarted, _ = advance(current, "start", now)
                attempt = attrs.evolve(restarted, provider_account_id=None, username=username, checkpoint_type=None)
            failed, events = advance(attempt, "fail", now, detail=error)
            uow.channels.update(failed)
            for event in events:
                uow.emit(event)
            uow.commit()
        self._relay_all(account_id, events)
        self._forget(replaced)

    def _authenticated(self, account_id: int, outcome: Authenticated) -> ChannelAccount | None:
        return self._move(account_id, outcome.provider_account_id, "authenticate", username=outcome.username)

    def _next_checkpoint(self, account_id: int, outcome: Checkpoint) -> ChannelAccount | None:
        now = self._clock.now()
        with self._uow.workspace(account_id) as uow:
            current = uow.channels.by_provider_account(outcome.provider_account_id)
            if current is None:
                return None
            changed = attrs.evolve(current, checkpoint_type=outcome.checkpoint_type, updated_at=now)
            uow.channels.update(changed)
            uow.commit()
        return changed

    def _report(
        self, account_id: int, provider_account_id: str, report: StatusReport, *, refreshed: bool = False
    ) -> ChannelAccount | None:
        trigger = trigger_for(report.status)
        detail = report.error or (ATTEMPT_FAILED if trigger == "fail" else None)
        return self._move(
            account_id, provider_account_id, trigger, detail=detail, username=report.username, refreshed=refreshed
        )

    def _move(
        self,
        account_id: int,
        provider_account_id: str,
        trigger: Trigger | None,
        *,
        detail: str | None = None,
        username: str | None = None,
        refreshed: bool = False,
    ) -> ChannelAccount | None:
        """Apply one provider-reported move to the setting of `provider_account_id`, if it still
        exists; a move the table does not have changes nothing."""
        now = self._clock.now()
        events: list[DomainEvent] = []
        with self._uow.workspace(account_id) as uow:
            current = uow.channels.by_provider_account(provider_account_id)
            if current is None:
                return None
            changed: ChannelAccount | None
            if trigger == "remove":
                uow.channels.delete(current.id)
                changed, events = None, list(removal(current, now, detail or PROVIDER_DELETED_REASON))
            else:
                changed = current
                if username and username != current.username:
                    changed = attrs.evolve(changed, username=username, updated_at=now)
                if trigger is not None and next_phase(changed.phase, trigger) is not None:
                    if trigger == "fail" and detail is None:
                        detail = ATTEMPT_FAILED
                    changed, events = advance(changed, trigger, now, detail=detail)
                if refreshed and changed.is_connected:
                    changed = attrs.evolve(changed, last_synced_at=now, updated_at=now)
                if changed == current:
                    return current
                uow.channels.update(changed)
            for event in events:
                uow.emit(event)
            uow.commit()
        self._relay_all(account_id, events)
        return changed

    def _relay_all(self, account_id: int, events: Sequence[DomainEvent]) -> None:
        """Pass committed events to `relay`; never inside a unit of work (it opens its own)."""
        if self._relay is not None:
            for event in events:
                self._relay(account_id, event)

    @staticmethod
    def _ask(call: Callable[[], StatusReport]) -> StatusReport:
        """A status question to the provider. An account it no longer knows counts as `ERROR`."""
        try:
            return call()
        except GatewayUnavailable as exc:
            raise Unavailable(exc.message) from exc
        except GatewayRejected as exc:
            return StatusReport("ERROR", error=exc.message)

    def _forget(self, provider_account_id: str | None) -> None:
        """Delete an abandoned attempt at the provider, best effort: it is only housekeeping."""
        if provider_account_id is None:
            return
        with contextlib.suppress(GatewayError):
            self._gateway.disconnect(provider_account_id)


def _refuse_connected(uow: WorkspaceUnitOfWork, channel: str) -> None:
    current = uow.channels.by_type(channel)
    if current is not None and current.is_connected:
        raise _connected(channel)


def _connected(channel: str) -> Conflict:
    return Conflict(f"The {channel} channel is already connected. Disconnect it first.")


def _call(call: Callable[[], T], *, field: str | None = None) -> T:
    """Run a gateway call: `Unavailable` when the provider did not answer; when it refused, a 422
    on `field`, or a 409 when no field is to blame."""
    try:
        return call()
    except GatewayUnavailable as exc:
        raise Unavailable(exc.message) from exc
    except GatewayRejected as exc:
        if field is None:
            raise Conflict(exc.message) from exc
        raise ValidationFailed.on(field, exc.message) from exc


def _credentials(data: CredentialsInput) -> tuple[str, str, str]:
    errors = ErrorCollector()
    username = errors.run(lambda: required_text("username", data.username, max_length=USERNAME_MAX))
    if not data.password:
        errors.errors["password"] = ["The password field is required."]
    elif len(data.password) > PASSWORD_MAX:
        errors.errors["password"] = [f"The password may not be greater than {PASSWORD_MAX} characters."]
    country = (data.country or DEFAULT_COUNTRY).strip().upper()
    if not _COUNTRY.match(country):
        errors.errors["country"] = ["The country must be an ISO 3166-1 alpha-2 code."]
    errors.raise_if_any()
    assert username is not None
    return username, data.password, country
