"""Request and response bodies of team members (SPEC 2, Team member; SPEC 4, Team; SPEC 8).

A password is accepted (at least 8 characters) and never returned: no response class has the field.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

import attrs

from engage_core.kernel.unset import UNSET, Unset
from engage_core.team import model as domain
from engage_core.team.service import MemberInput, MemberPatch, NewMember
from engage_http.constraints import Doc, Text
from engage_http.converter import renders, structures_into
from engage_http.fields import Email, Name

Role = Literal["admin", "agent"]
MemberStatus = Literal["active", "inactive"]

Password = Annotated[
    str,
    Text(min_length=domain.PASSWORD_MIN, max_length=domain.PASSWORD_MAX),
    Doc(
        description="At least 8 characters, spaces included and never trimmed. Stored only as an argon2id hash; "
        "never returned.",
        example="correct horse battery staple",
    ),
]


@structures_into(MemberInput)
@attrs.frozen
class TeamMemberCreate:
    """A new team member. The address must be new to the workspace, whatever its case; an invitation
    e-mail is sent to it."""

    name: Name
    email: Email
    role: Role
    password: Password = attrs.field(repr=False)
    status: MemberStatus = "active"


@structures_into(MemberPatch)
@attrs.frozen
class TeamMemberUpdate:
    """Any subset of the fields; fields left out keep their value. A `password` replaces the old one."""

    name: Name | Unset = UNSET
    email: Email | Unset = UNSET
    role: Role | Unset = UNSET
    status: MemberStatus | Unset = UNSET
    password: Password | Unset = attrs.field(default=UNSET, repr=False)


@attrs.frozen
class TeamFilters:
    """Query filters of `GET /team`."""

    role: Role | None = None


@renders(domain.TeamMember)
@attrs.frozen
class TeamMember:
    """A team member (SPEC 2)."""

    id: int
    name: str
    email: str = attrs.field(metadata={"description": "Used to sign in; unique in the workspace, regardless of case."})
    role: Role
    status: MemberStatus
    created_at: datetime
    updated_at: datetime


@attrs.frozen
class NewTeamMember(TeamMember):
    """The answer to `POST /team`: the member, and whether the invitation reached the mail server
    (`invitation_sent` and, when not, `invitation_error`: additions to the SPEC fields). A failed
    invitation leaves the member added."""

    invitation_sent: bool
    invitation_error: str | None = attrs.field(
        default=None,
        metadata={"description": "Why the invitation was not sent (no mail server, a refusal); null once sent."},
    )

    @classmethod
    def from_new(cls, new: NewMember) -> NewTeamMember:
        # The wire flattens the member and the invitation's outcome into one object.
        member = {field.name: getattr(new.member, field.name) for field in attrs.fields(TeamMember)}
        return cls(**member, invitation_sent=new.invitation_sent, invitation_error=new.invitation_error)


__all__ = ["NewTeamMember", "TeamFilters", "TeamMember", "TeamMemberCreate", "TeamMemberUpdate"]
