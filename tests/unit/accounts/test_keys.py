"""API keys: 44 characters, a readable prefix, a checksum, and only a SHA-256 digest stored."""

from __future__ import annotations

import hashlib
import string

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from engage_core.accounts import keys as api_keys
from engage_core.accounts.keys import (
    ALPHABET,
    KEY_LENGTH,
    PARTNER_PREFIX,
    WORKSPACE_PREFIX,
    digest_key,
    digests_match,
    generate_key,
    is_well_formed,
    key_hint,
)

keys = st.builds(generate_key)


def test_key_is_44_characters() -> None:
    """A generated key is 44 characters long (SPEC 5.2)."""
    assert len(generate_key().plaintext) == KEY_LENGTH == 44


def test_workspace_key_has_the_workspace_prefix() -> None:
    """A workspace key starts with `eng_`."""
    assert generate_key().plaintext.startswith(WORKSPACE_PREFIX)


def test_partner_key_has_the_partner_prefix() -> None:
    """A partner key starts with `enp_` and is well formed as a partner key."""
    key = generate_key(PARTNER_PREFIX).plaintext
    assert key.startswith("enp_")
    assert is_well_formed(key, PARTNER_PREFIX)


def test_workspace_key_is_not_a_partner_key() -> None:
    """A workspace key is rejected where a partner key is expected."""
    assert not is_well_formed(generate_key().plaintext, PARTNER_PREFIX)


def test_key_body_uses_the_base62_alphabet() -> None:
    """Everything after the prefix is base62."""
    assert set(generate_key().plaintext[len(WORKSPACE_PREFIX) :]) <= set(ALPHABET)


def test_keys_are_random() -> None:
    """Two generated keys differ."""
    assert generate_key().plaintext != generate_key().plaintext


@given(keys)
def test_generated_keys_are_well_formed(key: api_keys.IssuedKey) -> None:
    """Every generated key passes the format check."""
    assert is_well_formed(key.plaintext)


@given(key=keys, data=st.data())
def test_checksum_detects_any_single_character_change(key: api_keys.IssuedKey, data: st.DataObject) -> None:
    """Replacing any one character of a key, with any character, makes it malformed."""
    text = key.plaintext
    index = data.draw(st.integers(0, KEY_LENGTH - 1), label="index")
    replacement = data.draw(st.one_of(st.sampled_from(ALPHABET + "_-+/="), st.characters()), label="char")
    assume(replacement != text[index])
    assert not is_well_formed(text[:index] + replacement + text[index + 1 :])


def test_issued_digest_is_sha256_hex_of_the_key() -> None:
    """The digest kept for a key is the hex SHA-256 of the plaintext."""
    key = generate_key()
    assert key.digest == hashlib.sha256(key.plaintext.encode()).hexdigest() == digest_key(key.plaintext)


def test_digest_is_64_lowercase_hex_characters() -> None:
    """A digest is 64 hex characters."""
    digest = digest_key(generate_key().plaintext)
    assert len(digest) == 64
    assert set(digest) <= set(string.hexdigits.lower())


@given(keys)
def test_digest_never_equals_the_key(key: api_keys.IssuedKey) -> None:
    """What is stored is never the key itself."""
    assert key.digest != key.plaintext


@pytest.mark.parametrize("prefix", [api_keys.WORKSPACE_PREFIX, api_keys.PARTNER_PREFIX])
def test_hint_shows_the_prefix_and_four_characters(prefix: str) -> None:
    """The hint of a workspace or partner key is its prefix plus four characters and an ellipsis."""
    key = generate_key(prefix)
    assert key.hint == key.plaintext[:8] + "…" == key_hint(key.plaintext)


@pytest.mark.parametrize(
    "bad",
    [
        "",
        "eng_",
        WORKSPACE_PREFIX + "a" * 40,  # right length, checksum wrong
    ],
)
def test_is_well_formed_rejects_obvious_garbage(bad: str) -> None:
    """Empty, prefix-only and bad-checksum strings are rejected."""
    assert not is_well_formed(bad)


def test_is_well_formed_rejects_a_truncated_key() -> None:
    """A key missing its last character is rejected (wrong length)."""
    assert not is_well_formed(generate_key().plaintext[:-1])


def test_is_well_formed_rejects_a_lengthened_key() -> None:
    """A key with an extra character is rejected (wrong length)."""
    assert not is_well_formed(generate_key().plaintext + "a")


def test_is_well_formed_rejects_a_wrong_prefix() -> None:
    """The same body and checksum under another prefix of the same length is rejected."""
    key = generate_key().plaintext
    assert not is_well_formed("abc_" + key[4:])


def test_is_well_formed_rejects_characters_outside_the_alphabet() -> None:
    """A character outside base62 in the body is rejected even before the checksum."""
    key = generate_key().plaintext
    assert not is_well_formed(key[:10] + "-" + key[11:])


def test_is_well_formed_rejects_non_ascii_without_raising() -> None:
    """Non-ASCII input is simply not a key (no TypeError from the constant-time compare)."""
    key = generate_key().plaintext
    assert not is_well_formed(key[:-1] + "é")


def test_digests_match_compares_equal_digests() -> None:
    """Equal digests match."""
    digest = digest_key(generate_key().plaintext)
    assert digests_match(digest, digest)


def test_digests_match_rejects_different_digests() -> None:
    """Different digests do not match."""
    assert not digests_match(digest_key(generate_key().plaintext), digest_key(generate_key().plaintext))
