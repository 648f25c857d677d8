"""Idempotency keys in SQL (`engage_core.kernel.idempotency`): the table, and the store over it
(`store.SqlIdempotencyStore`, built by `Database.idempotency_store()`). No unit of work hands out a
repository of it: the HTTP adapter claims a key in a transaction of its own, around the request's."""

from __future__ import annotations

from engage_sql.registry import SqlArea

AREA = SqlArea()
