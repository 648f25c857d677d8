"""Partner authentication (SPEC 5 item 6): the partner key, from `X-Partner-Key` only.

The two kinds of key never cross: a partner route reads `X-Partner-Key` and nothing else (a
workspace key there, in any header, is the partner 401), and a workspace route refuses a request
that carries a partner key instead of a workspace key with a 401 that says where partner keys go.
Partner keys have their own prefix (`engage_core.accounts.keys.PARTNER_PREFIX`), so both checks happen
before storage is asked. `PartnerService.authenticate` decides the rest: an unknown key is 401, a
suspended partner's valid key 403.
"""

from __future__ import annotations

from collections.abc import Mapping

from engage_core.accounts import keys as api_keys
from engage_core.kernel.errors import Unauthenticated
from engage_core.partners.model import Partner
from engage_core.partners.partner_service import PartnerService

PARTNER_KEY_HEADER = "x-partner-key"
PARTNER_KEY_ON_WORKSPACE_ROUTE = (
    "Partner keys are accepted only by the partner API (/api/v1/partner/..., header X-Partner-Key). "
    "Provide the workspace API key in X-Api-Key or Authorization: Bearer."
)


def partner_key(headers: Mapping[str, str]) -> str | None:
    """The partner key a request carries, or None."""
    return headers.get(PARTNER_KEY_HEADER) or None


def authenticate(partners: PartnerService, headers: Mapping[str, str]) -> Partner:
    """The partner the request acts for. Raises Unauthenticated (401) or Forbidden (403)."""
    return partners.authenticate(partner_key(headers))


def refuse_partner_key(headers: Mapping[str, str], workspace_key: str | None) -> None:
    """On a workspace route: a 401 naming the mistake when the caller sent a partner key (in
    `X-Partner-Key`, or as the workspace key: `workspace_key`, the request's `auth.api_key`) and no
    workspace key. A workspace key fails the partner check at its prefix: nothing more is read."""
    if workspace_key is not None and not api_keys.is_well_formed(workspace_key, api_keys.PARTNER_PREFIX):
        return
    if workspace_key is not None or partner_key(headers) is not None:
        raise Unauthenticated(PARTNER_KEY_ON_WORKSPACE_ROUTE)
