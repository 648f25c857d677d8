"""The workspace's own account (SPEC 4, Account): its profile, its plan and use, its channels.

`PATCH /account` changes the name, the locale and the timezone: the one setting bookings' working hours are
read in, so it is the same change as `PUT /bookings/working-hours/timezone`.
"""

from __future__ import annotations

from collections.abc import Sequence

from engage_core.accounts.profile_service import ProfilePatch
from engage_http.accounts.schemas import Account, AccountUpdate, Subscription
from engage_http.messaging.channel_schemas import Channel
from engage_http.operations import Call, Operation, Shape

TAG = "Account"

RULES = frozenset({422})
"""Declared in `errors`: a timezone must be a known IANA name, a rule no schema can state."""


def show(call: Call[None, None]) -> Account:
    return Account.from_domain(call.services.account_profile.get(call.account_id))


def update(call: Call[ProfilePatch, None]) -> Account:
    return Account.from_domain(call.services.account_profile.update(call.account_id, call.body))


def subscription(call: Call[None, None]) -> Subscription:
    return Subscription.from_domain(call.services.entitlements.subscription(call.account_id))


def channels(call: Call[None, None]) -> Sequence[Channel]:
    return [Channel.from_domain(channel) for channel in call.services.channels.list(call.account_id)]


OPERATIONS: tuple[Operation, ...] = (
    Operation("GET", "/account", show, "Get the account", TAG, Account, message="Account retrieved."),
    Operation(
        "PATCH",
        "/account",
        update,
        "Update the account",
        TAG,
        Account,
        message="Account updated.",
        body=AccountUpdate,
        errors=RULES,
        description="Name, timezone and locale; the timezone is the one bookings' working hours are read in.",
    ),
    Operation(
        "GET",
        "/account/subscription",
        subscription,
        "Get the plan, its limits and their use",
        TAG,
        Subscription,
        message="Subscription retrieved.",
        description="The plan in force, its features, each limit with its current use and what remains, "
        "the billing cycle and a plan change waiting for its start.",
    ),
    Operation(
        "GET",
        "/account/channels",
        channels,
        "List the account's channels",
        TAG,
        Channel,
        Shape.MANY,
        message="Channels retrieved.",
        description="Every channel setting with its connection status, ascending id.",
    ),
)
