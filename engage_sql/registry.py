"""How an area of the SQL adapter registers its repositories with the units of work.

Each area package (`engage_sql.contacts`, ...) defines its tables in its `tables` module and an
`AREA`: the repositories it hands to each kind of unit of work, by attribute name (the names of
the core's unit-of-work protocols, `engage_core.unit_of_work`), each made from the unit of work's
`Scope`. `engage_sql.areas` lists the areas.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import attrs
from sqlalchemy import Connection

from engage_core.kernel.pagination import PageRequest

if TYPE_CHECKING:
    from engage_sql.accounts.admissions import AdmissionCache


@attrs.frozen
class Scope:
    """What a repository is made over: the unit of work's connection, its account (0 for a unit of
    work across accounts), and whether it writes (repositories then lock the rows they read for an
    update, `FOR UPDATE` on PostgreSQL)."""

    connection: Connection
    account_id: int = 0
    writes: bool = False
    admissions: AdmissionCache | None = None
    """The process's kept admissions (PostgreSQL, `engage_sql.accounts.admissions`), if any."""


RepositoryFactory = Callable[[Scope], object]

ShortRead = Callable[[Any, PageRequest | None], bool]
"""Given a read's filters (a core filter value) and page, whether it is always a few indexed rows."""


@attrs.frozen
class SqlArea:
    """An area's repositories, by the kind of unit of work that hands them out."""

    workspace: Mapping[str, RepositoryFactory] = attrs.field(factory=dict)
    admin: Mapping[str, RepositoryFactory] = attrs.field(factory=dict)
    partners: Mapping[str, RepositoryFactory] = attrs.field(factory=dict)
    short_reads: Mapping[type, ShortRead] = attrs.field(factory=dict)
    """The reads of the area that are always short, by the core filter type they take."""
