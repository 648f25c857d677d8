"""Dashboard sessions: sealed cookies, not rows.

The cookie holds who is signed in (a team member, with the `password_stamp` of the password they
signed in with; or a partner's impersonation grant: the partner, the workspace and the partner's key
generation that minted the link), an expiry and a nonce, encrypted and authenticated by the
`SecretCipher` (Fernet under a key derived from `ENGAGE_SECRET_KEY`), so it cannot be read, forged
or extended without that key, and nothing is stored. It is HttpOnly, SameSite=Lax, Secure over
https, and lasts `SESSION_TTL`.

The nonce is the session's CSRF token: every form of the dashboard carries it and every POST must
send it back (`engage_http.dashboard.pages`). A page on another site can neither read the cookie nor
the page that holds the token, so it cannot forge a form.
"""

from __future__ import annotations

import base64
import binascii
import json
import secrets
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any

import attrs
from starlette.requests import Request
from starlette.responses import Response

from engage_core.kernel.clock import Clock
from engage_core.partners.model import Impersonation
from engage_core.webhooks.ports import SecretCipher

SESSION_COOKIE = "engage_session"
SESSION_TTL = timedelta(hours=8)


@attrs.frozen
class MemberGrant:
    """A team member signed in to a workspace with the password whose stamp is `stamp`."""

    account_id: int
    member_id: int
    stamp: str


@attrs.frozen
class DashboardSession:
    """Who is looking at which workspace (a partner's `grant` or a team `member`), until when."""

    grant: Impersonation | None
    expires_at: datetime
    member: MemberGrant | None = None
    nonce: str = ""
    """The session's CSRF token."""

    @property
    def account_id(self) -> int:
        """The workspace the session opens."""
        if self.member is not None:
            return self.member.account_id
        assert self.grant is not None
        return self.grant.account_id


class SessionCookies:
    """Seal a session into a cookie value and open it again (None when forged, garbled or expired)."""

    def __init__(self, cipher: SecretCipher, clock: Clock, ttl: timedelta = SESSION_TTL) -> None:
        self._cipher = cipher
        self._clock = clock
        self.ttl = ttl

    def seal(self, grant: Impersonation) -> tuple[str, DashboardSession]:
        """A session of a partner impersonating the workspace of `grant`."""
        session = DashboardSession(grant, self._clock.now() + self.ttl, nonce=secrets.token_urlsafe(24))
        document = {"p": grant.partner_id, "a": grant.account_id, "g": grant.key_generation}
        return self._seal(document, session), session

    def seal_member(self, grant: MemberGrant) -> tuple[str, DashboardSession]:
        """A session of a team member."""
        session = DashboardSession(None, self._clock.now() + self.ttl, grant, secrets.token_urlsafe(24))
        document = {"a": grant.account_id, "m": grant.member_id, "s": grant.stamp}
        return self._seal(document, session), session

    def open(self, value: str | None) -> DashboardSession | None:
        """The session sealed in `value`, or None."""
        document = self.unseal(value)
        if document is None:
            return None
        try:
            expires_at = datetime.fromtimestamp(float(document["e"]), self._clock.now().tzinfo)
            nonce = str(document.get("n", ""))
            if "m" in document:
                member = MemberGrant(int(document["a"]), int(document["m"]), str(document["s"]))
                return DashboardSession(None, expires_at, member, nonce)
            grant = Impersonation(int(document["p"]), int(document["a"]), int(document["g"]))
            return DashboardSession(grant, expires_at, nonce=nonce)
        except (ValueError, KeyError, TypeError):
            return None

    def seal_document(self, document: Mapping[str, Any], ttl: timedelta) -> str:
        """Any small document, sealed until `ttl` from now (the sign-in page's workspace choice)."""
        sealed = self._cipher.encrypt(
            json.dumps({**document, "e": (self._clock.now() + ttl).timestamp()}, separators=(",", ":"))
        )
        return base64.urlsafe_b64encode(sealed.encode()).decode().rstrip("=")  # no quoting needed

    def unseal(self, value: str | None) -> dict[str, Any] | None:
        """The document sealed in `value` while it has not expired; None when forged or garbled."""
        if not value:
            return None
        try:
            sealed = base64.urlsafe_b64decode(value + "=" * (-len(value) % 4)).decode()
            document = json.loads(self._cipher.decrypt(sealed))
            expired = self._clock.now().timestamp() >= float(document["e"])
        except (ValueError, KeyError, TypeError, binascii.Error, UnicodeDecodeError):
            return None
        return None if expired or not isinstance(document, dict) else document

    def _seal(self, document: dict[str, Any], session: DashboardSession) -> str:
        return self.seal_document({**document, "n": session.nonce}, self.ttl)


def set_session_cookie(response: Response, request: Request, value: str, ttl: timedelta, secure: bool = False) -> None:
    """Hand the browser a session cookie (HttpOnly, SameSite=Lax, Secure over https)."""
    response.set_cookie(
        SESSION_COOKIE,
        value,
        max_age=int(ttl.total_seconds()),
        path="/",
        secure=secure or request.url.scheme == "https",
        httponly=True,
        samesite="lax",
    )
