"""Argon2idHasher: real argon2id hashes of team members' passwords (DESIGN: Passwords: argon2id), and
BoundedHasher, which keeps how many run at once within the memory they need."""

from __future__ import annotations

import os
import threading

import argon2
import pytest
from gated_hasher import GatedHasher
from hypothesis import given, settings
from hypothesis import strategies as st

from engage_connectors.passwords import Argon2idHasher, BoundedHasher, available_memory, default_slots
from engage_core.kernel.errors import Unavailable
from engage_core.settings import Settings
from engage_core.testing import FakePasswordHasher
from engage_http.bootstrap import password_hasher

PASSWORD = "correct horse battery staple"


@pytest.fixture(scope="module")
def hasher() -> Argon2idHasher:
    """The production parameters: every test below runs the real cost at least once."""
    return Argon2idHasher()


@pytest.fixture(scope="module")
def cheap() -> Argon2idHasher:
    """Minimal costs, for the property test that hashes many passwords."""
    return Argon2idHasher(time_cost=1, memory_cost=8, parallelism=1)


def test_hashes_are_argon2id_with_the_rfc_9106_parameters(hasher: Argon2idHasher) -> None:
    """The hash names argon2id, version 19, 64 MiB, 3 passes, 4 lanes."""
    assert hasher.hash(PASSWORD).startswith("$argon2id$v=19$m=65536,t=3,p=4$")


def test_the_right_password_verifies(hasher: Argon2idHasher) -> None:
    """hash then verify with the same password is true."""
    assert hasher.verify(hasher.hash(PASSWORD), PASSWORD)


def test_a_wrong_password_does_not_verify(hasher: Argon2idHasher) -> None:
    """A different password is false, not an error."""
    assert not hasher.verify(hasher.hash(PASSWORD), PASSWORD + "!")


def test_every_hash_has_its_own_salt(hasher: Argon2idHasher) -> None:
    """Hashing one password twice gives two different hashes, neither containing it."""
    first, second = hasher.hash(PASSWORD), hasher.hash(PASSWORD)
    assert first != second and PASSWORD not in first


@pytest.mark.parametrize(
    "stored",
    [
        "",
        PASSWORD,
        "$argon2id$v=19$m=65536,t=3,p=4$not-base64$also-not",
        "$2b$12$abcdefghijklmnopqrstuuJ3wG8p6Z0CqkQmYy6KjGZpD8ZrQzK6G",
    ],
    ids=["empty", "plaintext", "damaged", "bcrypt"],
)
def test_anything_but_an_argon2id_hash_does_not_verify(hasher: Argon2idHasher, stored: str) -> None:
    """Malformed or foreign hashes are false, never an exception."""
    assert not hasher.verify(stored, PASSWORD)


def test_an_argon2i_hash_is_refused(hasher: Argon2idHasher) -> None:
    """Only the argon2id variant is accepted, even with the right password."""
    argon2i = argon2.PasswordHasher(time_cost=1, memory_cost=8, parallelism=1, type=argon2.Type.I)
    assert not hasher.verify(argon2i.hash(PASSWORD), PASSWORD)


def test_hashes_made_with_other_parameters_still_verify(hasher: Argon2idHasher, cheap: Argon2idHasher) -> None:
    """Parameters travel in the hash: a change of settings keeps old hashes working."""
    assert hasher.verify(cheap.hash(PASSWORD), PASSWORD)


def test_hashes_with_other_parameters_need_a_rehash(hasher: Argon2idHasher, cheap: Argon2idHasher) -> None:
    """needs_rehash is true for a hash made with other parameters, false for its own."""
    assert (hasher.needs_rehash(cheap.hash(PASSWORD)), hasher.needs_rehash(hasher.hash(PASSWORD))) == (True, False)


@settings(max_examples=25, deadline=None)
@given(password=st.text(min_size=8, max_size=64))
def test_any_text_round_trips(cheap: Argon2idHasher, password: str) -> None:
    """Any Unicode password verifies against its own hash and not against a changed one."""
    stored = cheap.hash(password)
    assert cheap.verify(stored, password) and not cheap.verify(stored, password + "x")


# -- at most so many at once (each argon2id hash holds 64 MiB) ---------------------------------------


def _hash_in_threads(hasher: BoundedHasher, count: int) -> tuple[list[threading.Thread], list[BaseException]]:
    failures: list[BaseException] = []

    def run() -> None:
        try:
            hasher.hash(PASSWORD)
        except BaseException as exc:  # reported by the test
            failures.append(exc)

    threads = [threading.Thread(target=run) for _ in range(count)]
    for thread in threads:
        thread.start()
    return threads, failures


def test_concurrent_hashes_never_exceed_the_bound() -> None:
    """24 threads hashing through 3 slots (queue 21): 3 run at once, never more, and all finish."""
    gated = GatedHasher()
    bounded = BoundedHasher(gated, 3, queue=21)

    threads, failures = _hash_in_threads(bounded, 24)
    gated.wait_until_running(3)
    gated.gate.set()
    for thread in threads:
        thread.join()

    assert (gated.most, failures) == (3, [])


def test_a_hash_beyond_the_queue_is_refused_at_once_with_a_retry_hint() -> None:
    """With the slot taken and the queue full, the next hash raises Unavailable with retry_after."""
    gated = GatedHasher()
    bounded = BoundedHasher(gated, 1, queue=0)
    threads, _ = _hash_in_threads(bounded, 1)
    gated.wait_until_running(1)

    try:
        with pytest.raises(Unavailable) as refused:
            bounded.hash(PASSWORD)
    finally:
        gated.gate.set()
        threads[0].join()

    assert refused.value.retry_after is not None and refused.value.retry_after > 0


def test_a_hash_waiting_past_its_wait_is_refused() -> None:
    """A queued hash whose turn does not come within wait_seconds raises Unavailable."""
    gated = GatedHasher()
    bounded = BoundedHasher(gated, 1, queue=1, wait_seconds=0.05)
    threads, _ = _hash_in_threads(bounded, 1)
    gated.wait_until_running(1)

    try:
        with pytest.raises(Unavailable):
            bounded.hash(PASSWORD)
    finally:
        gated.gate.set()
        threads[0].join()


def test_verification_takes_a_slot_too() -> None:
    """verify is bounded like hash: with the one slot busy and no queue, it is refused."""
    gated = GatedHasher()
    bounded = BoundedHasher(gated, 1, queue=0)
    stored = FakePasswordHasher().hash(PASSWORD)
    threads, _ = _hash_in_threads(bounded, 1)
    gated.wait_until_running(1)

    try:
        with pytest.raises(Unavailable):
            bounded.verify(stored, PASSWORD)
    finally:
        gated.gate.set()
        threads[0].join()


def test_the_default_bound_fits_memory_and_cpus() -> None:
    """Unconfigured, the bound is at least 1, at most the CPU count, and its hashes fit in a quarter
    of the available memory."""
    slots = default_slots(Argon2idHasher().memory_cost)

    assert 1 <= slots <= (os.cpu_count() or 1)
    assert slots == 1 or slots * 64 * 1024 * 1024 <= available_memory() // 4


def test_the_server_hasher_is_bounded_by_the_settings() -> None:
    """`ENGAGE_PASSWORD_HASH_CONCURRENCY` and `_QUEUE` set the bound of the hasher the app uses."""
    environ = {"ENGAGE_PASSWORD_HASH_CONCURRENCY": "2", "ENGAGE_PASSWORD_HASH_QUEUE": "5"}

    hasher = password_hasher(Settings.from_env(environ))

    assert (hasher.slots, hasher.queue, type(hasher.inner)) == (2, 5, Argon2idHasher)
