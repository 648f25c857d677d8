"""Plan features that gate parts of the API (SPEC 5 item 7). Plans come later; until then every
workspace has every feature (`AllowAllFeatures`, the default `FeatureGate`)."""

from __future__ import annotations

from engage_core.kernel.errors import Forbidden

LINKEDIN_ACCESS = "linkedin_access"
LINKEDIN_UPGRADE_REQUIRED = "linkedin_upgrade_required"


class AllowAllFeatures:
    """Every workspace has every feature."""

    def allows(self, account_id: int, feature: str) -> bool:
        return True


def linkedin_refused() -> Forbidden:
    """The 403 of a LinkedIn route without `linkedin_access` (SPEC 5 item 7, SPEC 7)."""
    return Forbidden(
        "LinkedIn needs the linkedin_access feature. Upgrade the plan to use it.", code=LINKEDIN_UPGRADE_REQUIRED
    )
