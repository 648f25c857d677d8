"""Campaigns (SPEC 4 Campaigns): drafts, start, pause, resume, cancel, and the recipients.

Creating, editing, deleting, pausing and resuming are database work only (the write lane on
SQLite); starting (the snapshot of up to the whole contact base) and cancelling (every pending
recipient skipped) may write many rows, so they keep their worker thread.
"""

from __future__ import annotations

import attrs

from engage_core.campaigns import model as domain
from engage_core.campaigns.service import CampaignInput, CampaignPatch
from engage_core.kernel.pagination import Page
from engage_http.campaigns.schemas import (
    Campaign,
    CampaignContact,
    CampaignCreate,
    CampaignFilters,
    CampaignUpdate,
    RecipientFilters,
)
from engage_http.operations import Call, Operation, Shape, declare

TAG = "Campaigns"

RULES = frozenset({422})
"""Declared in `errors`: a 422 may also answer a request the document calls valid, for a rule no schema
can state (the campaign's status, an unknown placeholder, a list of another account)."""

_SOURCES = (
    "start: a draft; pause: a running campaign; resume: a paused one; cancel: a scheduled, running or paused "
    "one. Any other status is a 422."
)


def index(call: Call[None, domain.CampaignFilter]) -> Page[Campaign]:
    assert call.page is not None
    return call.services.campaigns.list(call.account_id, call.query, call.page).map(Campaign.from_domain)


def store(call: Call[CampaignInput, None]) -> Campaign:
    return Campaign.from_domain(call.services.campaigns.create(call.account_id, call.body))


def show(call: Call[None, None]) -> Campaign:
    return Campaign.from_domain(call.services.campaigns.get(call.account_id, call.path["id"]))


def update(call: Call[CampaignPatch, None]) -> Campaign:
    return Campaign.from_domain(call.services.campaigns.update(call.account_id, call.path["id"], call.body))


def destroy(call: Call[None, None]) -> None:
    call.services.campaigns.delete(call.account_id, call.path["id"])


def start(call: Call[None, None]) -> Campaign:
    return Campaign.from_domain(call.services.campaigns.start(call.account_id, call.path["id"]))


def pause(call: Call[None, None]) -> Campaign:
    return Campaign.from_domain(call.services.campaigns.pause(call.account_id, call.path["id"]))


def resume(call: Call[None, None]) -> Campaign:
    return Campaign.from_domain(call.services.campaigns.resume(call.account_id, call.path["id"]))


def cancel(call: Call[None, None]) -> Campaign:
    return Campaign.from_domain(call.services.campaigns.cancel(call.account_id, call.path["id"]))


def contacts(call: Call[None, domain.RecipientFilter]) -> Page[domain.RecipientView]:
    assert call.page is not None
    return call.services.campaigns.recipients(call.account_id, call.path["id"], call.query, call.page)


def _action(method: str, suffix: str, handler: object, summary: str, message: str, description: str) -> Operation:
    return Operation(
        method,
        f"/campaigns/{{id:id}}/{suffix}",
        handler,  # type: ignore[arg-type]
        summary,
        TAG,
        Campaign,
        message=message,
        errors=RULES,
        body_optional=True,
        description=description + " " + _SOURCES,
    )


OPERATIONS: tuple[Operation, ...] = declare(
    Operation(
        "GET",
        "/campaigns",
        index,
        "List campaigns",
        TAG,
        Campaign,
        Shape.PAGE,
        query=CampaignFilters,
        page=domain.CAMPAIGNS,
        description="Newest first, filtered by `status` and `channel`.",
    ),
    Operation(
        "POST",
        "/campaigns",
        store,
        "Create a campaign",
        TAG,
        Campaign,
        status=201,
        message="Campaign created.",
        body=CampaignCreate,
        errors=RULES,
        description="Created as a `draft`. Lists and segments must be the workspace's (422 naming each other one); "
        "contact ids that are not the workspace's contacts are left out when the audience is resolved.",
        write_lane=True,
    ),
    Operation("GET", "/campaigns/{id:id}", show, "Get a campaign with its counters", TAG, Campaign),
    Operation(
        "PUT",
        "/campaigns/{id:id}",
        update,
        "Update a draft campaign",
        TAG,
        Campaign,
        message="Campaign updated.",
        body=CampaignUpdate,
        errors=RULES,
        description="Only a draft (422 otherwise). Fields left out keep their value.",
        write_lane=True,
    ),
    Operation(
        "DELETE",
        "/campaigns/{id:id}",
        destroy,
        "Delete a draft or cancelled campaign",
        TAG,
        shape=Shape.NOTHING,
        status=204,
        errors=RULES,
        description="Only a draft or a cancelled campaign (422 otherwise). Its recipients go with it; the messages "
        "sent stay in the conversations.",
        write_lane=True,
    ),
    _action(
        "POST",
        "start",
        start,
        "Start a campaign",
        "Campaign started.",
        "The audience is resolved once into the recipients (each contact once; blacklisted contacts, contacts of "
        "another channel and contacts without a phone or handle on it are skipped with a reason) and the worker "
        "sends at the campaign's rate within the channel's quotas (`campaign.started`). With `starts_at` to come "
        "the campaign is `scheduled` and all that happens then. 422 when the channel is not connected or the "
        "audience resolves to nobody (it stays a draft).",
    ),
    attrs.evolve(
        _action(
            "POST",
            "pause",
            pause,
            "Pause a campaign",
            "Campaign paused.",
            "Sending stops after the message in flight (`campaign.paused`); the pending recipients wait.",
        ),
        write_lane=True,
    ),
    attrs.evolve(
        _action(
            "POST",
            "resume",
            resume,
            "Resume a campaign",
            "Campaign resumed.",
            "Sending goes on from the first pending recipient (`campaign.started`); nobody already sent to is "
            "sent to again.",
        ),
        write_lane=True,
    ),
    _action(
        "POST",
        "cancel",
        cancel,
        "Cancel a campaign",
        "Campaign cancelled.",
        "The pending recipients are skipped (`cancelled`); the message in flight is still recorded "
        "(`campaign.cancelled`). A cancelled campaign can be deleted.",
    ),
    Operation(
        "GET",
        "/campaigns/{id:id}/contacts",
        contacts,
        "List a campaign's recipients and their delivery status",
        TAG,
        CampaignContact,
        Shape.PAGE,
        query=RecipientFilters,
        page=domain.RECIPIENTS,
        description="In the order they are sent to, filtered by `status` (`pending`, `sending`, `sent`, `delivered`, "
        "`read`, `failed`, `skipped`) and `reason`. Empty until the campaign starts.",
    ),
    feature="campaigns",
)
