"""Idempotent requests (`Idempotency-Key`, as Stripe has them): the rules of a key, and the port that
keeps keys, `IdempotencyStore`, with its in-memory fake.

A key belongs to a scope (the caller: `account:12`, `partner:3`), so two callers' keys never meet.
The first request with a key *claims* it: the key is then in progress under a lease token, and the
request runs. Its response is then *completed* onto the key (kept until the key expires, 24 hours
after the claim) or, when it should not be kept (a server error), the claim is *released* and the
key is free again. A later request with the same key gets, by `resolve`:

- the key is free, or expired, or in progress with its lease ended (the request that claimed it
  died): it claims the key itself (`CLAIMED`, with a new token);
- the key was used for another request (its fingerprint differs): `MISMATCH`;
- the key holds a response: `COMPLETED`, with that response to replay;
- the key is in progress under a live lease: `IN_PROGRESS` (the caller may wait and ask again).

A completion or release counts only with the token of the claim: a request whose lease ended and
whose key was claimed again can no longer overwrite the new claim. Every operation takes `now`, so
stores judge time as their caller does (a fake clock in tests).
"""

from __future__ import annotations

import enum
import secrets
import threading
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Protocol

import attrs

KEY_MAX_LENGTH = 255
"""The longest key accepted, in characters."""

RETENTION = timedelta(hours=24)
"""How long a key is kept after it is claimed: a retry within it is answered from the key."""

LEASE = timedelta(seconds=60)
"""How long a claim holds its key without completing: after that it counts as abandoned."""


class KeyState(enum.Enum):
    IN_PROGRESS = "in_progress"
    COMPLETED = "completed"


@attrs.frozen
class StoredResponse:
    """A response kept on a key, to replay byte for byte: its status, body and the headers worth
    replaying (lower-case names)."""

    status: int
    body: bytes
    headers: tuple[tuple[str, str], ...] = ()


@attrs.frozen
class KeyRecord:
    """What a store keeps for one key of one scope."""

    fingerprint: str
    state: KeyState
    token: str | None
    """The lease token of the claim in progress (None once completed)."""
    leased_until: datetime | None
    created_at: datetime
    expires_at: datetime
    response: StoredResponse | None = None


class ClaimState(enum.Enum):
    CLAIMED = "claimed"
    """The caller holds the key (`Claim.token`) and runs the request."""
    COMPLETED = "completed"
    """The key holds the response of the same request (`Claim.response`)."""
    MISMATCH = "mismatch"
    """The key was used for a different request."""
    IN_PROGRESS = "in_progress"
    """The same request runs elsewhere under a live lease."""


@attrs.frozen
class Claim:
    """The answer to a claim."""

    state: ClaimState
    token: str | None = None
    response: StoredResponse | None = None


def resolve(record: KeyRecord | None, fingerprint: str, now: datetime) -> Claim | None:
    """What the key's `record` answers a claim of `fingerprint` at `now` with; None when the claim
    takes the key (it is free, expired, or abandoned), replacing whatever it held."""
    if record is None or record.expires_at <= now:
        return None
    if record.fingerprint != fingerprint:
        return Claim(ClaimState.MISMATCH)
    if record.state is KeyState.COMPLETED:
        return Claim(ClaimState.COMPLETED, response=record.response)
    if record.leased_until is not None and record.leased_until > now:
        return Claim(ClaimState.IN_PROGRESS)
    return None


def new_claim(fingerprint: str, now: datetime) -> KeyRecord:
    """The record of a fresh claim at `now`, under a new random token."""
    return KeyRecord(
        fingerprint=fingerprint,
        state=KeyState.IN_PROGRESS,
        token=secrets.token_hex(16),
        leased_until=now + LEASE,
        created_at=now,
        expires_at=now + RETENTION,
    )


def key_problem(key: str) -> str | None:
    """Why `key` cannot be used (a message for the caller), or None."""
    if not key:
        return "The Idempotency-Key header must not be empty."
    if len(key) > KEY_MAX_LENGTH:
        return f"The Idempotency-Key header must be at most {KEY_MAX_LENGTH} characters."
    return None


class IdempotencyStore(Protocol):
    """Keeps idempotency keys and their responses (`engage_core.kernel.idempotency`): in memory
    (`InMemoryIdempotencyStore`) or in the database (`engage_sql.idempotency.SqlIdempotencyStore`).
    Atomic per key: however many claims of one key race, one gets `CLAIMED`."""

    def claim(self, scope: str, key: str, fingerprint: str, now: datetime) -> Claim:
        """Claim `key` of `scope` for the request of `fingerprint`, or say why not (`resolve`)."""

    def complete(self, scope: str, key: str, token: str, response: StoredResponse) -> bool:
        """Keep `response` on the key claimed under `token`; False, with nothing changed, when the
        claim no longer holds the key (its lease ended and the key was claimed again, or released)."""

    def release(self, scope: str, key: str, token: str) -> bool:
        """Free the key claimed under `token`, keeping nothing; False when the claim no longer holds it."""

    def purge(self, now: datetime) -> int:
        """Delete every key expired at `now`; how many."""


class InMemoryIdempotencyStore:
    """`IdempotencyStore` in one process's memory; thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._records: dict[tuple[str, str], KeyRecord] = {}

    def claim(self, scope: str, key: str, fingerprint: str, now: datetime) -> Claim:
        with self._lock:
            answer = resolve(self._records.get((scope, key)), fingerprint, now)
            if answer is not None:
                return answer
            record = new_claim(fingerprint, now)
            self._records[scope, key] = record
            return Claim(ClaimState.CLAIMED, token=record.token)

    def complete(self, scope: str, key: str, token: str, response: StoredResponse) -> bool:
        with self._lock:
            record = self._held(scope, key, token)
            if record is None:
                return False
            self._records[scope, key] = attrs.evolve(
                record, state=KeyState.COMPLETED, token=None, leased_until=None, response=response
            )
            return True

    def release(self, scope: str, key: str, token: str) -> bool:
        with self._lock:
            if self._held(scope, key, token) is None:
                return False
            del self._records[scope, key]
            return True

    def purge(self, now: datetime) -> int:
        with self._lock:
            expired = [slot for slot, record in self._records.items() if record.expires_at <= now]
            for slot in expired:
                del self._records[slot]
            return len(expired)

    def records(self) -> Sequence[tuple[str, str, KeyRecord]]:
        """Every key kept, as (scope, key, record): for tests."""
        with self._lock:
            return [(scope, key, record) for (scope, key), record in self._records.items()]

    def _held(self, scope: str, key: str, token: str) -> KeyRecord | None:
        record = self._records.get((scope, key))
        return record if record is not None and record.token == token else None
