"""The machinery of the in-memory fakes: tables grouped by area, one state per transaction.

Each area's fakes (`engage_core.<area>.fakes`) keep their rows in a `Tables` class of their own;
`State` holds one instance of each, and `MemoryStore` the committed state that a transaction copies
(`State.copy`), works on, and swaps back in on commit, under one lock (every transaction
serialisable, like SQLite's single writer). `engage_core.testing` composes the areas.

What SQL does with foreign keys, the fakes do through `State`: `forget(kind, id)` tells every area
that a row it may reference is gone (`ON DELETE CASCADE` across areas), and `purge_account`
removes every row of an account from every table.
"""

from __future__ import annotations

import copy
import itertools
import threading
from collections.abc import Callable, Iterable, Mapping
from typing import Any, ClassVar, Self, TypeVar

import attrs

T = TypeVar("T", bound="Tables")
"""An area's tables class."""


@attrs.define
class Tables:
    """One area's tables: an attrs class whose fields are dicts, sets or lists of rows.

    Rows are immutable values (replaced, never changed in place) except in the tables named in
    `MUTABLE_ROWS`, which a transaction copies deeply."""

    MUTABLE_ROWS: ClassVar[frozenset[str]] = frozenset()

    def copy(self) -> Self:
        """A private copy for one transaction: every table copied, rows shared where immutable."""
        values = {
            field.name: (copy.deepcopy if field.name in self.MUTABLE_ROWS else copy.copy)(getattr(self, field.name))
            for field in attrs.fields(type(self))
        }
        return type(self)(**values)

    def forget(self, kind: str, ident: int) -> None:
        """A row of `kind` (`contact`, ...) with this id was deleted: drop the rows that depend on it."""

    def tables(self) -> dict[str, Any]:
        """Every table, by name."""
        return {field.name: getattr(self, field.name) for field in attrs.fields(type(self))}


class State:
    """The tables of every area, as one transaction sees them.

    A copy shares the tables of its original until it first asks for an area's (`of`): only the
    areas a transaction touches are copied, which keeps a transaction's cost independent of how
    much the other areas hold.

    A unit of work goes on after its commit in a new transaction, over the same state (its
    repositories were opened over it): `committed` hands the store a state of its own to keep, and
    leaves this one to copy a table again before it next writes it, so what is done after the commit
    is seen by no other unit of work, and is rolled back unless committed in turn."""

    def __init__(self, areas: Iterable[Tables]) -> None:
        self._areas: dict[type[Tables], Tables] = {type(tables): tables for tables in areas}
        self._own: set[type[Tables]] = set(self._areas)
        self._goes_on = False

    def __eq__(self, other: object) -> bool:
        return isinstance(other, State) and self._areas == other._areas

    __hash__ = None  # type: ignore[assignment]  # mutable

    def of(self, kind: type[T]) -> T:
        """The tables of one area (this state's own copy of them, made now if need be)."""
        if kind not in self._own:
            self._areas[kind] = self._areas[kind].copy()
            self._own.add(kind)
        tables = self._areas[kind]
        assert isinstance(tables, kind)
        return tables

    def copy(self) -> State:
        """A state for the next transaction: it shares these tables until it asks for them. The first
        copy asked of a state after its `committed` is that state itself: the transaction that follows
        the commit in the same unit of work, whose repositories write to this state."""
        if self._goes_on:
            self._goes_on = False
            return self
        copied = State(())
        copied._areas = dict(self._areas)
        return copied

    def committed(self) -> State:
        """This transaction's state as the store keeps it once committed: a state sharing every table,
        while this one, which the unit of work goes on with, gives them up (it copies a table again
        before it next writes it)."""
        kept = State(())
        kept._areas = dict(self._areas)
        self._own = set()
        self._goes_on = True
        return kept

    def tables(self) -> dict[str, Any]:
        """Every table of every area, by name."""
        return {name: table for kind in list(self._areas) for name, table in self.of(kind).tables().items()}

    def forget(self, kind: str, ident: int) -> None:
        """Cascade a deletion to every area (see `Tables.forget`)."""
        for area in list(self._areas):
            self.of(area).forget(kind, ident)

    def purge_account(self, account_id: int) -> None:
        """Remove every row of the account from every table: the in-memory reference of "every
        table with `account_id`". Ids come from one counter across all tables, so a key equal to
        the account id can only be the account's own. A row belongs to the account when its key is
        the account id (or a tuple starting with it), or its value is a tuple starting with the
        account id or has an `account_id` attribute equal to it; rows keyed by the id of a removed
        row (secrets, passwords, memberships) go with it."""
        removed: set[int] = {account_id}

        def owned(key: object, value: object) -> bool:
            if key == account_id or (isinstance(key, tuple) and key and key[0] == account_id):
                return True
            if isinstance(value, tuple) and value and value[0] == account_id and not isinstance(value[0], bool):
                return True
            return getattr(value, "account_id", None) == account_id

        every = list(self.tables().values())
        for table in every:
            if isinstance(table, dict):
                for key in [k for k, v in table.items() if owned(k, v)]:
                    del table[key]
                    if isinstance(key, int):
                        removed.add(key)
        for table in every:  # dependants of removed rows
            if isinstance(table, dict):
                for key in [k for k in table if k in removed]:
                    del table[key]
            elif isinstance(table, set):
                table.difference_update({row for row in table if isinstance(row, tuple) and set(row) & removed})
            elif isinstance(table, list):
                table[:] = [row for row in table if getattr(row, "account_id", None) != account_id]


class MemoryStore:
    """The committed state behind every fake unit of work. One lock serialises transactions."""

    def __init__(self, areas: Iterable[type[Tables]]) -> None:
        self._state = State(kind() for kind in areas)
        self.lock = threading.RLock()
        self._ids = itertools.count(1)

    @property
    def state(self) -> State:
        """The committed state: what a transaction copies when it begins."""
        return self._state

    @state.setter
    def state(self, value: State) -> None:
        """Commit a transaction's state (see `State.committed`)."""
        self._state = value.committed()

    def next_id(self) -> int:
        """Ids come from one counter across every table (as `purge_account` relies on)."""
        return next(self._ids)


class Repo:
    """A repository over one transaction's `state`; `account_id` 0 for one that spans accounts."""

    def __init__(self, store: MemoryStore, state: State, account_id: int = 0) -> None:
        self._store = store
        self._state = state
        self._account = account_id


RepoFactory = Callable[[MemoryStore, State, int], object]
"""Makes a repository over one transaction's state: `(store, state, account_id)`."""


@attrs.frozen
class FakeArea:
    """An area's fakes as `engage_core.testing` composes them: its tables, and the repositories it
    hands to each kind of unit of work, by attribute name (the names of the core's unit-of-work
    protocols, `engage_core.unit_of_work`)."""

    tables: type[Tables]
    workspace: Mapping[str, RepoFactory] = attrs.field(factory=dict)
    admin: Mapping[str, RepoFactory] = attrs.field(factory=dict)
    partners: Mapping[str, RepoFactory] = attrs.field(factory=dict)
