"""Idempotency keys (`IdempotencyStore`): claiming, completing, releasing, expiring and purging a
key, on every adapter."""

from __future__ import annotations

from datetime import timedelta

from support import NOW

from engage_core.kernel.idempotency import LEASE, RETENTION, ClaimState, IdempotencyStore, StoredResponse

SCOPE = "account:1"
KEY = "k-1"
PRINT = "a" * 64
OTHER_PRINT = "b" * 64
CREATED = StoredResponse(201, b'{"success":true,"data":{"id":7}}', (("content-type", "application/json"),))


def claimed(store: IdempotencyStore, key: str = KEY, *, scope: str = SCOPE, fingerprint: str = PRINT) -> str:
    """Claim `key` at `NOW`; its token."""
    claim = store.claim(scope, key, fingerprint, NOW)
    assert claim.state is ClaimState.CLAIMED and claim.token is not None
    return claim.token


def test_first_claim_of_a_key_takes_it(idempotency_store: IdempotencyStore) -> None:
    """A key never seen is claimed, under a token."""
    claim = idempotency_store.claim(SCOPE, KEY, PRINT, NOW)

    assert claim.state is ClaimState.CLAIMED and claim.token


def test_second_claim_of_a_key_in_progress_is_told_so(idempotency_store: IdempotencyStore) -> None:
    """While the first claim's lease lasts, the same request is in progress."""
    claimed(idempotency_store)

    assert idempotency_store.claim(SCOPE, KEY, PRINT, NOW + LEASE / 2).state is ClaimState.IN_PROGRESS


def test_completed_key_replays_its_response(idempotency_store: IdempotencyStore) -> None:
    """The response completed onto a key comes back, byte for byte, with its headers."""
    token = claimed(idempotency_store)
    assert idempotency_store.complete(SCOPE, KEY, token, CREATED)

    claim = idempotency_store.claim(SCOPE, KEY, PRINT, NOW + timedelta(hours=1))

    assert claim.state is ClaimState.COMPLETED and claim.response == CREATED


def test_an_empty_body_is_replayed_empty(idempotency_store: IdempotencyStore) -> None:
    """A 204 (no body, no headers) is kept and replayed as it was."""
    token = claimed(idempotency_store)
    idempotency_store.complete(SCOPE, KEY, token, StoredResponse(204, b""))

    assert idempotency_store.claim(SCOPE, KEY, PRINT, NOW).response == StoredResponse(204, b"")


def test_another_request_with_a_used_key_is_a_mismatch(idempotency_store: IdempotencyStore) -> None:
    """A key completed for one request answers another request with a mismatch."""
    idempotency_store.complete(SCOPE, KEY, claimed(idempotency_store), CREATED)

    assert idempotency_store.claim(SCOPE, KEY, OTHER_PRINT, NOW).state is ClaimState.MISMATCH


def test_another_request_with_a_key_in_progress_is_a_mismatch(idempotency_store: IdempotencyStore) -> None:
    """A key in progress for one request answers another request with a mismatch too."""
    claimed(idempotency_store)

    assert idempotency_store.claim(SCOPE, KEY, OTHER_PRINT, NOW).state is ClaimState.MISMATCH


def test_scopes_keep_keys_apart(idempotency_store: IdempotencyStore) -> None:
    """The same key in another scope is another key."""
    claimed(idempotency_store)

    assert idempotency_store.claim("partner:1", KEY, OTHER_PRINT, NOW).state is ClaimState.CLAIMED


def test_released_key_is_free_again(idempotency_store: IdempotencyStore) -> None:
    """A released claim keeps nothing: the next claim, of any request, takes the key."""
    token = claimed(idempotency_store)
    assert idempotency_store.release(SCOPE, KEY, token)

    assert idempotency_store.claim(SCOPE, KEY, OTHER_PRINT, NOW).state is ClaimState.CLAIMED


def test_abandoned_claim_is_taken_over(idempotency_store: IdempotencyStore) -> None:
    """Once the lease has ended, a claim of the same request takes the key under a new token."""
    first = claimed(idempotency_store)

    claim = idempotency_store.claim(SCOPE, KEY, PRINT, NOW + LEASE)

    assert claim.state is ClaimState.CLAIMED and claim.token != first


def test_claim_taken_over_can_no_longer_complete(idempotency_store: IdempotencyStore) -> None:
    """The token of a claim taken over completes nothing; the new claim's does."""
    first = claimed(idempotency_store)
    second = idempotency_store.claim(SCOPE, KEY, PRINT, NOW + LEASE).token
    assert second is not None

    assert not idempotency_store.complete(SCOPE, KEY, first, CREATED)
    assert idempotency_store.complete(SCOPE, KEY, second, CREATED)


def test_claim_taken_over_can_no_longer_release(idempotency_store: IdempotencyStore) -> None:
    """The token of a claim taken over releases nothing: the key stays in progress."""
    first = claimed(idempotency_store)
    idempotency_store.claim(SCOPE, KEY, PRINT, NOW + LEASE)

    assert not idempotency_store.release(SCOPE, KEY, first)
    assert idempotency_store.claim(SCOPE, KEY, PRINT, NOW + LEASE).state is ClaimState.IN_PROGRESS


def test_completed_key_is_not_released(idempotency_store: IdempotencyStore) -> None:
    """Once completed, the claim's token holds the key no more: a release changes nothing."""
    token = claimed(idempotency_store)
    idempotency_store.complete(SCOPE, KEY, token, CREATED)

    assert not idempotency_store.release(SCOPE, KEY, token)
    assert idempotency_store.claim(SCOPE, KEY, PRINT, NOW).state is ClaimState.COMPLETED


def test_expired_key_is_new_again(idempotency_store: IdempotencyStore) -> None:
    """A day after the claim, the key answers no more: any request claims it afresh."""
    idempotency_store.complete(SCOPE, KEY, claimed(idempotency_store), CREATED)

    assert idempotency_store.claim(SCOPE, KEY, OTHER_PRINT, NOW + RETENTION).state is ClaimState.CLAIMED


def test_purge_deletes_only_expired_keys(idempotency_store: IdempotencyStore) -> None:
    """The purge removes the keys past their day and keeps the others."""
    idempotency_store.complete(SCOPE, "old", claimed(idempotency_store, "old"), CREATED)
    later = NOW + timedelta(hours=1)
    idempotency_store.claim(SCOPE, "new", PRINT, later)

    assert idempotency_store.purge(NOW + RETENTION) == 1
    assert idempotency_store.claim(SCOPE, "new", OTHER_PRINT, NOW + RETENTION).state is ClaimState.MISMATCH


def test_longest_key_is_kept(idempotency_store: IdempotencyStore) -> None:
    """A key of the longest length allowed is claimed and replayed like any other."""
    key = "k" * 255
    idempotency_store.complete(SCOPE, key, claimed(idempotency_store, key), CREATED)

    assert idempotency_store.claim(SCOPE, key, PRINT, NOW).response == CREATED
