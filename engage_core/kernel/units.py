"""The shape every unit of work shares: one transaction, entered with `with`."""

from __future__ import annotations

from types import TracebackType
from typing import Protocol, Self


class UnitOfWork(Protocol):
    """One transaction. Leaving the `with` block without `commit()` rolls back."""

    def commit(self) -> None:
        """Make the transaction's changes (and the events it emitted) durable and visible, atomically."""

    def __enter__(self) -> Self: ...

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None: ...
