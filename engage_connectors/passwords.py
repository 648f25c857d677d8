"""The real `PasswordHasher`: argon2id through argon2-cffi.

The default parameters are RFC 9106's second recommended profile (argon2-cffi's
`RFC_9106_LOW_MEMORY`: 3 passes over 64 MiB with 4 lanes, a 16-byte salt, a 32-byte tag), tens of
milliseconds per hash. Every hash carries its parameters and salt (`$argon2id$v=19$m=65536,t=3,
p=4$<salt>$<tag>`), so hashes made under older parameters keep verifying after a change, and
`needs_rehash` says which to replace at the next sign-in.

Only argon2id hashes are accepted: a hash of another variant or any other text verifies as false.
"""

from __future__ import annotations

import argon2
from argon2.exceptions import InvalidHashError, VerificationError

PREFIX = "$argon2id$"


class Argon2idHasher:
    def __init__(
        self,
        *,
        time_cost: int = argon2.profiles.RFC_9106_LOW_MEMORY.time_cost,
        memory_cost: int = argon2.profiles.RFC_9106_LOW_MEMORY.memory_cost,
        parallelism: int = argon2.profiles.RFC_9106_LOW_MEMORY.parallelism,
    ) -> None:
        """`memory_cost` is in KiB. Lower costs are for tests only."""
        self._hasher = argon2.PasswordHasher(
            time_cost=time_cost, memory_cost=memory_cost, parallelism=parallelism, type=argon2.Type.ID
        )

    def hash(self, password: str) -> str:
        return self._hasher.hash(password)

    def verify(self, password_hash: str, password: str) -> bool:
        if not password_hash.startswith(PREFIX):
            return False
        try:
            return self._hasher.verify(password_hash, password)
        except (VerificationError, InvalidHashError):  # a mismatch, or a hash damaged in storage
            return False

    def needs_rehash(self, password_hash: str) -> bool:
        """Whether the hash was made with other parameters than this hasher's."""
        try:
            return self._hasher.check_needs_rehash(password_hash)
        except InvalidHashError:
            return True
