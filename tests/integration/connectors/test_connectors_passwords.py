"""Argon2idHasher: real argon2id hashes of team members' passwords (DESIGN: Passwords: argon2id)."""

from __future__ import annotations

import argon2
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engage_connectors.passwords import Argon2idHasher

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
