"""Workspace authentication (SPEC 5): the API key from `X-Api-Key` or `Authorization: Bearer`.

The two headers are equivalent; `X-Api-Key` wins when both are sent. The core decides everything
else (`AccountService.admit`): a missing, malformed or unknown key is one `Unauthenticated`
(one body, so a caller learns nothing about why), an inactive account or an unlisted `Origin` /
`Referer` is `Forbidden` with a machine-readable code. The same read brings the workspace's
suspension and plan in force, which routes refuse on. Routes call this inside the same
worker-thread hop as the handler, so authentication costs no extra context switch.
"""

from __future__ import annotations

from collections.abc import Mapping

from engage_core.accounts.account_service import AccountService
from engage_core.accounts.model import Admission

API_KEY_HEADER = "x-api-key"


def api_key(headers: Mapping[str, str]) -> str | None:
    """The key a request carries, or None. Headers are looked up case-insensitively by Starlette."""
    key = headers.get(API_KEY_HEADER)
    if key:
        return key
    authorization = headers.get("authorization")
    if not authorization:
        return None
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() != "bearer":
        return None
    return token.strip() or None


def admit(accounts: AccountService, headers: Mapping[str, str], key: str | None) -> Admission:
    """The account the request acts for, with its workspace's suspension and plan in force (one read).
    `key` is the request's `api_key(headers)`. Raises Unauthenticated (401) or Forbidden (403); the
    caller refuses a suspended workspace (`Admission.plan_to_run_on`)."""
    return accounts.admit(key, origin=headers.get("origin"), referer=headers.get("referer"))
