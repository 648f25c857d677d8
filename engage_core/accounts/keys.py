"""API keys: 44 characters, a readable prefix, random body and a CRC32 checksum.

Layout: `eng_` + 34 random base62 characters + 6 base62 characters of CRC32(prefix + body).
The checksum lets us reject a mistyped or truncated key without a database look-up, and lets
secret scanners recognise our keys. Only the SHA-256 of the whole key is stored.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import string
import zlib

import attrs

ALPHABET = string.digits + string.ascii_letters
_BASE62 = frozenset(ALPHABET)
KEY_LENGTH = 44
CHECKSUM_LENGTH = 6
WORKSPACE_PREFIX = "eng_"
PARTNER_PREFIX = "enp_"


def _base62(number: int, width: int) -> str:
    chars = []
    for _ in range(width):
        number, rem = divmod(number, 62)
        chars.append(ALPHABET[rem])
    return "".join(reversed(chars))


def _checksum(text: str) -> str:
    return _base62(zlib.crc32(text.encode()), CHECKSUM_LENGTH)


@attrs.frozen
class IssuedKey:
    """A freshly generated key: `plaintext` is shown once, `digest` is what we keep."""

    plaintext: str
    digest: str
    hint: str


def generate_key(prefix: str = WORKSPACE_PREFIX) -> IssuedKey:
    body_length = KEY_LENGTH - len(prefix) - CHECKSUM_LENGTH
    body = "".join(secrets.choice(ALPHABET) for _ in range(body_length))
    key = prefix + body + _checksum(prefix + body)
    return IssuedKey(plaintext=key, digest=digest_key(key), hint=key_hint(key))


def is_well_formed(key: str, prefix: str = WORKSPACE_PREFIX) -> bool:
    """Right length, prefix, alphabet and checksum. Says nothing about whether the key exists."""
    if len(key) != KEY_LENGTH or not key.startswith(prefix):
        return False
    payload, check = key[:-CHECKSUM_LENGTH], key[-CHECKSUM_LENGTH:]
    if not _BASE62.issuperset(key[len(prefix) :]):  # every request checks this: no per-character loop
        return False
    return hmac.compare_digest(_checksum(payload), check)


def digest_key(key: str) -> str:
    """Hex SHA-256 of the key: the only form stored."""
    return hashlib.sha256(key.encode()).hexdigest()


def key_hint(key: str) -> str:
    """Prefix plus four characters, safe to show in listings (`eng_AbCd…`)."""
    return key[: len(WORKSPACE_PREFIX) + 4] + "…"


def digests_match(a: str, b: str) -> bool:
    """Constant-time comparison of two digests."""
    return hmac.compare_digest(a.encode(), b.encode())
