"""The real `SecretCipher`: Fernet (AES-128-CBC with HMAC-SHA256) under a key derived from `ENGAGE_SECRET_KEY` by HKDF.

Ciphertexts carry a version prefix so that a later change of algorithm or key can coexist with
rows written before it.
"""

from __future__ import annotations

import base64

from cryptography.fernet import Fernet, InvalidToken
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

_PREFIX = "v1:"


class FernetCipher:
    def __init__(self, secret_key: str) -> None:
        if len(secret_key) < 16:
            raise ValueError("ENGAGE_SECRET_KEY must be at least 16 characters long.")
        derived = HKDF(algorithm=hashes.SHA256(), length=32, salt=b"engage", info=b"secrets-at-rest/v1").derive(
            secret_key.encode()
        )
        self._fernet = Fernet(base64.urlsafe_b64encode(derived))

    def encrypt(self, plaintext: str) -> str:
        return _PREFIX + self._fernet.encrypt(plaintext.encode()).decode()

    def decrypt(self, ciphertext: str) -> str:
        if not ciphertext.startswith(_PREFIX):
            raise ValueError("Unknown ciphertext version.")
        try:
            return self._fernet.decrypt(ciphertext[len(_PREFIX) :].encode()).decode()
        except InvalidToken as exc:
            raise ValueError("The secret cannot be decrypted with this ENGAGE_SECRET_KEY.") from exc
