"""Team members (SPEC 4, Team): the people who sign in to the workspace.

Adding a member sends an invitation e-mail once the member is stored. When the mail server fails,
or none is configured, the member stays added and the answer says so (`invitation_sent` false,
`invitation_error` and the message say why).
"""

from __future__ import annotations

from engage_core.kernel.pagination import Page
from engage_core.team import model as domain
from engage_core.team.model import TEAM
from engage_core.team.service import MemberInput, MemberPatch
from engage_http.operations import Call, Operation, Reply, Shape
from engage_http.team.schemas import NewTeamMember, TeamFilters, TeamMember, TeamMemberCreate, TeamMemberUpdate

TAG = "Team"

RULES = frozenset({422})
"""Declared in `errors`: an address another member of the workspace already has is a 422 the document
cannot state."""

INVITED = "Team member added; the invitation was sent."
NOT_INVITED = "Team member added, but the invitation was not sent: {reason}."


def index(call: Call[None, TeamFilters]) -> Page[domain.TeamMember]:
    assert call.page is not None
    return call.services.team.find(call.account_id, call.query.role, call.page)


def store(call: Call[MemberInput, None]) -> Reply:
    created = call.services.team.create(call.account_id, call.body, plan=call.plan)
    message = INVITED if created.invitation_sent else NOT_INVITED.format(reason=created.invitation_error)
    return Reply(NewTeamMember.from_new(created), message)


def show(call: Call[None, None]) -> domain.TeamMember:
    return call.services.team.get(call.account_id, call.path["id"])


def update(call: Call[MemberPatch, None]) -> domain.TeamMember:
    return call.services.team.update(call.account_id, call.path["id"], call.body)


def destroy(call: Call[None, None]) -> None:
    call.services.team.delete(call.account_id, call.path["id"])


OPERATIONS: tuple[Operation, ...] = (
    Operation(
        "GET",
        "/team",
        index,
        "List team members",
        TAG,
        TeamMember,
        Shape.PAGE,
        message="Team members retrieved.",
        query=TeamFilters,
        page=TEAM,
        description="Ascending id; only members of `role` when it is given.",
    ),
    Operation(
        "POST",
        "/team",
        store,
        "Add a team member",
        TAG,
        NewTeamMember,
        status=201,
        message=INVITED,
        body=TeamMemberCreate,
        errors=RULES,
        description="An address another member of the workspace has, in any case, is a 422 on `email`. The "
        "password is stored as an argon2id hash and never returned. An invitation e-mail (workspace, role, "
        "sign-in link; never the password) is sent once the member is stored; if the mail server fails or none "
        "is configured, the member stays added with `invitation_sent` false and `invitation_error` saying why.",
    ),
    Operation("GET", "/team/{id:id}", show, "Get a team member", TAG, TeamMember),
    Operation(
        "PUT",
        "/team/{id:id}",
        update,
        "Update a team member",
        TAG,
        TeamMember,
        message="Team member updated.",
        body=TeamMemberUpdate,
        errors=RULES,
        description="Any subset of the fields. A new address must be free in the workspace (422 on `email`); a "
        "new `password` replaces the old one.",
    ),
    Operation(
        "DELETE",
        "/team/{id:id}",
        destroy,
        "Delete a team member",
        TAG,
        shape=Shape.NOTHING,
        status=204,
        description="Everything the member worked on stays; what was assigned to them (tickets) is unassigned, "
        "each with `ticket.updated`.",
    ),
)
