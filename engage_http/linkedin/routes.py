"""LinkedIn (SPEC 4 LinkedIn): the overview, the people search, and campaign launches. Every route needs
the `linkedin_access` feature, reads included: the service checks it and answers 403
`linkedin_upgrade_required` (SPEC 5 item 7), as the LinkedIn channel routes do, rather than the
operation table's gate, whose code is `feature_not_in_plan` and which keeps reads allowed."""

from __future__ import annotations

from engage_core.linkedin.service import LaunchInput
from engage_core.messaging.people import PeopleQuery
from engage_http.linkedin.schemas import (
    LaunchedCampaign,
    LaunchRequest,
    LinkedInOverview,
    SearchItem,
    SearchPage,
    SearchRequest,
)
from engage_http.operations import Call, Operation

TAG = "LinkedIn"
NOTE = " Needs the `linkedin_access` feature (else 403, code `linkedin_upgrade_required`)."
RULES = frozenset({422})


def overview(call: Call[None, None]) -> LinkedInOverview:
    return LinkedInOverview.from_domain(call.services.linkedin.overview(call.account_id))


def search(call: Call[PeopleQuery, None]) -> SearchPage:
    page = call.services.linkedin.search(call.account_id, call.body)
    items = tuple(
        SearchItem(p.provider_id, p.name, p.headline, p.location, p.company, p.profile_url) for p in page.items
    )
    return SearchPage(items, page.next_cursor)


def launch(call: Call[LaunchInput, None]) -> LaunchedCampaign:
    return LaunchedCampaign.from_domain(call.services.linkedin.launch(call.account_id, call.body))


OPERATIONS: tuple[Operation, ...] = (
    Operation(
        "GET",
        "/linkedin/overview",
        overview,
        "LinkedIn overview",
        TAG,
        LinkedInOverview,
        description="The connection, the LinkedIn inbox, the active LinkedIn campaigns, the InMail balance, the "
        "Recruiter-contract flag, and the week's invitations against the weekly cap (`warning` from 80 %)." + NOTE,
    ),
    Operation(
        "POST",
        "/linkedin/sourcing/search",
        search,
        "Search LinkedIn people",
        TAG,
        SearchPage,
        body=SearchRequest,
        errors=RULES,
        description="Through the connected LinkedIn account (the sandbox answers from an offline directory). At "
        "least one criterion (422 otherwise, and without a connected account); page on with `next_cursor`." + NOTE,
    ),
    Operation(
        "POST",
        "/linkedin/sourcing/launch-campaign",
        launch,
        "Launch a LinkedIn campaign",
        TAG,
        LaunchedCampaign,
        status=201,
        message="Campaign launched.",
        body=LaunchRequest,
        errors=RULES,
        description="Creates a contact per member not known yet (handle: the member id), then a campaign on the "
        "`linkedin` channel to them, started at once (`campaign.started`; scheduled when the first sequence "
        "message waits days). Invitations and messages respect the channel's daily and weekly quotas. Needs the "
        "`campaigns` feature too. 422 for a note over 200 characters, a sequence without messages, messages on an "
        "invite campaign, an unknown placeholder, or no connected LinkedIn account." + NOTE,
    ),
)
