"""The partner API's own resources (SPEC 4, Partner API): the partner's profile and the plans.

Every partner operation authenticates with `X-Partner-Key` (`AuthScheme.PARTNER`, see
`engage_http.partner_auth`) and acts for `call.partner_id`.
"""

from __future__ import annotations

from collections.abc import Sequence

from engage_http.operations import AuthScheme, Call, Operation, Shape
from engage_http.partners.schemas import PartnerProfile, Plan

TAG = "Partner"
PARTNER = AuthScheme.PARTNER


def profile(call: Call[None, None]) -> PartnerProfile:
    partner = call.services.partners.get(call.partner_id)
    return PartnerProfile.from_domain(partner, call.services.partner_clients.seats_used(call.partner_id))


def plans(call: Call[None, None]) -> Sequence[Plan]:
    return [Plan.from_domain(plan) for plan in call.services.plans.list()]


OPERATIONS: tuple[Operation, ...] = (
    Operation("GET", "/partner/profile", profile, "Get the partner profile", TAG, PartnerProfile, auth=PARTNER),
    Operation(
        "GET",
        "/partner/plans",
        plans,
        "List the plans",
        TAG,
        Plan,
        Shape.MANY,
        auth=PARTNER,
        description="The plans a client workspace can run on, with their limits and features.",
    ),
)
