"""The team in SQL: members and their password hashes."""

from __future__ import annotations

from engage_sql.registry import SqlArea
from engage_sql.team.repository import SqlMemberDirectory, SqlTeamMemberRepository

AREA = SqlArea(
    workspace={
        "team": lambda s: SqlTeamMemberRepository(s.connection, s.account_id),
    },
    admin={"team_directory": lambda s: SqlMemberDirectory(s.connection)},
)
