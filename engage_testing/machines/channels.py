"""The channel connection lifecycle as a state machine, driven by Hypothesis through the real
`Services` over the storage `make_backend()` gives (the in-memory fakes by default) and the sandbox
gateway.

One channel (any of the four) is connected, scanned, refused, left to expire, logged into with
any number of 2FA rounds (right and wrong codes, wrong passwords), refreshed, polled, told any
provider status in any order, and disconnected. A plain model, with the transition table written
out again below, predicts each outcome.

After every step:

- the stored `(sync_status, is_connected)` is a phase of the table, and the model's phase;
- a connected setting has `last_synced_at`; a setting with a waiting checkpoint is pending;
- the outbox has one `channel.connected` (CREATION_SUCCESS or RECONNECTED) per move into a
  connected phase, one `channel.disconnected` per move out of one (a removal included), and one
  `channel.error` per failed attempt.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from hypothesis import strategies as st
from hypothesis.stateful import initialize, invariant, precondition, rule

from engage_core.kernel.errors import Conflict, NotFound, ValidationFailed
from engage_core.messaging.channel_service import ConnectOutcome, CredentialsInput
from engage_core.messaging.channels import ChannelAccount
from engage_core.messaging.sandbox import QR_LIFETIME, SANDBOX_CODE, SandboxGateway, SandboxRefused
from engage_core.services import Services
from engage_core.testing import FakeClock

from .base import START, Backend, EngageMachine, refused

STATES = {
    "pending": ("CONNECTING", False),
    "failed": ("CREATION_FAIL", False),
    "syncing": ("CONNECTING", True),
    "synced": ("SYNC_SUCCESS", True),
    "ok": ("OK", True),
    "credentials": ("CREDENTIALS", False),
    "error": ("ERROR", False),
    "stopped": ("STOPPED", False),
}
CONNECTED = {"syncing", "synced", "ok"}
LOSSES = {"lose_credentials": "credentials", "error": "error", "stop": "stopped"}
TABLE = {
    "absent": {"start": "pending"},
    "pending": {"start": "pending", "authenticate": "syncing", "healthy": "ok", "synced": "synced",
                "fail": "failed", "error": "failed", "lose_credentials": "failed", "stop": "failed",
                "remove": "absent"},
    "failed": {"start": "pending", "remove": "absent"},
    "syncing": {"healthy": "ok", "synced": "synced", **LOSSES, "remove": "absent"},
    "synced": {"healthy": "ok", "synced": "synced", **LOSSES, "remove": "absent"},
    "ok": {"healthy": "ok", "synced": "synced", **LOSSES, "remove": "absent"},
    "credentials": {"start": "pending", "healthy": "ok", "error": "error", "stop": "stopped", "remove": "absent"},
    "error": {"start": "pending", "healthy": "ok", "lose_credentials": "credentials", "stop": "stopped",
              "remove": "absent"},
    "stopped": {"start": "pending", "healthy": "ok", "lose_credentials": "credentials", "error": "error",
                "remove": "absent"},
}  # fmt: skip
"""The designed table (engage_core.messaging.channels docstring), written out here so the machine checks the code."""
PROVIDER = {
    "OK": "healthy",
    "RECONNECTED": "healthy",
    "SYNC_SUCCESS": "synced",
    "CREATION_FAIL": "fail",
    "CREDENTIALS": "lose_credentials",
    "ERROR": "error",
    "STOPPED": "stop",
    "DELETED": "remove",
    "CONNECTING": None,
}


class CountingBytes:
    """Deterministic stand-in for `secrets.token_bytes`: every call returns new bytes."""

    def __init__(self) -> None:
        self._next = itertools.count()

    def __call__(self, size: int) -> bytes:
        return bytes(next(self._next) % 256 for _ in range(size))


class ChannelWorld:
    """One account over `backend`, with the sandbox provider calling back into the services' inbox."""

    def __init__(self, backend: Backend) -> None:
        self.backend = backend
        self.clock = FakeClock(START)
        self.sandbox = SandboxGateway(self.clock, token_bytes=CountingBytes())
        self.services = Services.build(backend.uow, self.clock, gateway=self.sandbox)
        self.sandbox.attach(self.services.inbox)
        self.account = self.services.accounts.create("Acme").account.id

    def channel(self, channel: str) -> ChannelAccount:
        """The account's setting of `channel`, as `GET /channels/{channel}/status` reads it."""
        return self.services.channels.status(self.account, channel)

    def events(self, name: str) -> list[Mapping[str, Any]]:
        """Payloads of the committed events called `name`, oldest first."""
        return [e.payload for e in self.backend.events(self.account) if e.name == name]


class ChannelMachine(EngageMachine):
    @initialize(channel=st.sampled_from(["whatsapp", "telegram", "instagram", "linkedin"]))
    def start(self, channel: str) -> None:
        self.world = ChannelWorld(self.make_backend())
        self.channel = channel
        self.qr = channel in {"whatsapp", "telegram"}
        self.phase = "absent"
        self.pid: str | None = None
        self.sandbox_status: str | None = None  # the provider's status of the current account
        self.deadline: datetime | None = None
        self.qr_waiting = False
        self.rounds_left = 0
        self.expected: Counter[str] = Counter()

    # -- the model ----------------------------------------------------------------------------

    def move(self, trigger: str | None) -> None:
        """Apply a trigger the way the service must: moves outside the table are ignored."""
        if trigger is None:
            return
        after = TABLE[self.phase].get(trigger)
        if after is None or after == self.phase:
            return
        before = self.phase
        if after in CONNECTED and before not in CONNECTED:
            self.expected["channel.connected"] += 1
        if before in CONNECTED and after not in CONNECTED:
            self.expected["channel.disconnected"] += 1
        if after == "failed":
            self.expected["channel.error"] += 1
        self.phase = after
        if after == "absent":
            self.pid = None

    def expire(self) -> None:
        """What the sandbox does on every look at a QR account whose code ran out."""
        if (
            self.sandbox_status == "CONNECTING"
            and self.deadline is not None
            and self.world.clock.now() >= self.deadline
        ):
            self.sandbox_status = "CREATION_FAIL"
            self.qr_waiting = False

    # -- connecting ---------------------------------------------------------------------------

    @precondition(lambda self: self.qr)
    @rule()
    def connect_qr(self) -> None:
        if self.phase in CONNECTED:
            with refused(Conflict):
                self.world.services.channels.connect_qr(self.world.account, self.channel)
            return
        started = self.world.services.channels.connect_qr(self.world.account, self.channel)
        self.move("start")
        self.pid = started.channel.provider_account_id
        self.sandbox_status = "CONNECTING"
        self.deadline = self.world.clock.now() + QR_LIFETIME
        self.qr_waiting = True

    @precondition(lambda self: self.qr and self.pid is not None)
    @rule(refuse=st.booleans())
    def phone(self, refuse: bool) -> None:
        """The phone scans (or refuses) the current QR code."""
        assert self.pid is not None
        self.expire()
        action = self.world.sandbox.fail if refuse else self.world.sandbox.scan
        if not (self.qr_waiting and self.sandbox_status == "CONNECTING"):
            with refused(SandboxRefused):
                action(self.pid)
            return
        action(self.pid)
        self.qr_waiting = False
        self.sandbox_status = "CREATION_FAIL" if refuse else "OK"
        self.move("fail" if refuse else "healthy")

    @precondition(lambda self: not self.qr)
    @rule(rounds=st.integers(0, 3), wrong=st.booleans())
    def log_in(self, rounds: int, wrong: bool) -> None:
        password = "wrong" if wrong else f"secret#2fa{rounds}" if rounds else "secret"
        data = CredentialsInput("acme.shop", password)
        if self.phase in CONNECTED:
            with refused(Conflict):
                self.world.services.channels.connect_credentials(self.world.account, self.channel, data)
            return
        if wrong:
            with refused(ValidationFailed):
                self.world.services.channels.connect_credentials(self.world.account, self.channel, data)
            self.move("start")
            self.move("fail")
            self.pid = None
            return
        outcome = self.world.services.channels.connect_credentials(self.world.account, self.channel, data)
        self.move("start")
        self.pid = outcome.channel.provider_account_id
        self.deadline = None
        self.rounds_left = rounds
        self.sandbox_status = "CONNECTING" if rounds else "OK"
        if not rounds:
            self.move("authenticate")
        assert outcome.requires_2fa == (rounds > 0)

    @precondition(lambda self: not self.qr and self.pid is not None)
    @rule(right=st.booleans())
    def code(self, right: bool) -> None:
        assert self.pid is not None
        waiting = self.phase == "pending" and self.rounds_left > 0 and self.sandbox_status == "CONNECTING"

        def submit() -> ConnectOutcome:
            return self.world.services.channels.submit_code(
                self.world.account, self.channel, self.pid or "", SANDBOX_CODE if right else "000000"
            )

        if self.phase != "pending" or self.rounds_left == 0:
            with refused(Conflict):
                submit()
            return
        if not right or not waiting:
            with refused(ValidationFailed, Conflict):
                submit()
            return
        outcome = submit()
        self.rounds_left -= 1
        if self.rounds_left == 0:
            self.sandbox_status = "OK"
            self.move("authenticate")
        assert outcome.requires_2fa == (self.rounds_left > 0)

    # -- time, polling, refreshing, the provider --------------------------------------------------

    @rule(seconds=st.sampled_from([0, 1, 30, 61]))
    def poll(self, seconds: int) -> None:
        """Some time passes (a QR code may expire), then the owner polls the status."""
        self.world.clock.advance(seconds=seconds)
        if self.phase == "absent":
            with refused(NotFound):
                self.world.channel(self.channel)
            return
        self.world.channel(self.channel)
        if self.qr and self.phase == "pending" and self.pid is not None:
            self.expire()
            self.move(PROVIDER.get(self.sandbox_status or ""))

    @rule()
    def refresh(self) -> None:
        if self.phase == "absent":
            with refused(NotFound):
                self.world.services.channels.refresh(self.world.account, self.channel)
            return
        if self.pid is None:
            self.world.services.channels.refresh(self.world.account, self.channel)
            return
        self.expire()
        trigger = PROVIDER.get(self.sandbox_status or "")
        if trigger == "remove":
            with refused(NotFound):
                self.world.services.channels.refresh(self.world.account, self.channel)
        else:
            refreshed = self.world.services.channels.refresh(self.world.account, self.channel)
            if refreshed.is_connected:
                assert refreshed.last_synced_at == self.world.clock.now()
        self.move(trigger)

    def provider_says(self, status: str) -> None:
        assert self.pid is not None
        self.world.sandbox.set_status(self.pid, status)
        self.sandbox_status = status
        self.move(PROVIDER[status])

    @precondition(lambda self: self.pid is not None)
    @rule(status=st.sampled_from(["CREDENTIALS", "ERROR", "STOPPED", "CREATION_FAIL"]))
    def provider_loses_it(self, status: str) -> None:
        self.provider_says(status)

    @precondition(lambda self: self.pid is not None)
    @rule(status=st.sampled_from(["OK", "RECONNECTED", "SYNC_SUCCESS", "CONNECTING"]))
    def provider_has_it(self, status: str) -> None:
        self.provider_says(status)

    @precondition(lambda self: self.pid is not None)
    @rule()
    def provider_deletes_it(self) -> None:
        self.provider_says("DELETED")

    @rule()
    def disconnect(self) -> None:
        if self.phase == "absent":
            with refused(NotFound):
                self.world.services.channels.disconnect(self.world.account, self.channel)
            return
        self.world.services.channels.disconnect(self.world.account, self.channel)
        self.move("remove")

    # -- invariants -------------------------------------------------------------------------------

    @invariant()
    def the_stored_state_is_the_model_phase(self) -> None:
        stored = self.world.services.channels.list(self.world.account)
        if self.phase == "absent":
            assert stored == []
            return
        (account,) = stored
        assert (account.sync_status, account.is_connected) == STATES[self.phase]
        assert account.provider_account_id == self.pid

    @invariant()
    def connected_settings_have_synced_and_checkpoints_are_pending(self) -> None:
        for account in self.world.services.channels.list(self.world.account):
            assert not account.is_connected or account.last_synced_at is not None
            assert account.checkpoint_type is None or account.phase == "pending"

    @invariant()
    def the_outbox_tells_every_crossing(self) -> None:
        names = Counter(e.name for e in self.world.backend.events(self.world.account))
        for name in ("channel.connected", "channel.disconnected", "channel.error"):
            if name == "channel.connected":
                crossings = sum(
                    1 for p in self.world.events(name) if p["status"] in {"CREATION_SUCCESS", "RECONNECTED"}
                )
                assert crossings == self.expected[name]
            else:
                assert names[name] == self.expected[name]
