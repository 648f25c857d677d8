"""FernetCipher: webhook secrets encrypted at rest under ENGAGE_SECRET_KEY."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engage_connectors.secrets import FernetCipher
from engage_core.webhooks.signatures import generate_secret

KEY = "a-long-enough-test-secret-key"


@pytest.fixture
def make_cipher() -> Callable[..., FernetCipher]:
    """`make_cipher(key=KEY) -> FernetCipher`."""

    def make(key: str = KEY) -> FernetCipher:
        return FernetCipher(key)

    return make


@given(plaintext=st.text())
def test_decrypt_undoes_encrypt(plaintext: str) -> None:
    """Any text comes back unchanged."""
    cipher = FernetCipher(KEY)
    assert cipher.decrypt(cipher.encrypt(plaintext)) == plaintext


def test_a_cipher_with_the_same_key_can_decrypt(make_cipher: Callable[..., FernetCipher]) -> None:
    """The key is derived deterministically: another process with the same key reads old rows."""
    secret = generate_secret()
    assert make_cipher().decrypt(make_cipher().encrypt(secret)) == secret


def test_the_ciphertext_does_not_contain_the_secret(make_cipher: Callable[..., FernetCipher]) -> None:
    """What is stored is neither the secret nor contains it, and carries the version prefix."""
    secret = generate_secret()
    stored = make_cipher().encrypt(secret)
    assert secret not in stored
    assert stored.startswith("v1:")


def test_encrypting_twice_gives_different_ciphertexts(make_cipher: Callable[..., FernetCipher]) -> None:
    """Fernet uses a fresh IV: equal secrets do not produce equal rows."""
    cipher = make_cipher()
    assert cipher.encrypt("same") != cipher.encrypt("same")


def test_a_wrong_key_cannot_decrypt(make_cipher: Callable[..., FernetCipher]) -> None:
    """A ciphertext written under one key is refused under another, with a ValueError."""
    stored = make_cipher().encrypt(generate_secret())
    with pytest.raises(ValueError, match="cannot be decrypted"):
        make_cipher("another-long-enough-secret-key").decrypt(stored)


def test_a_tampered_ciphertext_is_refused(make_cipher: Callable[..., FernetCipher]) -> None:
    """Changing a character of the ciphertext makes it undecryptable (it is authenticated)."""
    cipher = make_cipher()
    stored = cipher.encrypt("secret")
    index = len(stored) // 2
    tampered = stored[:index] + ("A" if stored[index] != "A" else "B") + stored[index + 1 :]
    with pytest.raises(ValueError, match="cannot be decrypted"):
        cipher.decrypt(tampered)


def test_an_unknown_version_is_refused(make_cipher: Callable[..., FernetCipher]) -> None:
    """A ciphertext without the `v1:` prefix is refused."""
    with pytest.raises(ValueError, match="version"):
        make_cipher().decrypt("fake:terces")


def test_a_short_key_is_refused() -> None:
    """ENGAGE_SECRET_KEY must have at least 16 characters."""
    with pytest.raises(ValueError, match="at least 16"):
        FernetCipher("short")
