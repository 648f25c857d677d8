"""engage_sql: the persistence adapter of engage, on SQLite (embedded) and PostgreSQL (production).

`Database.connect(url)` gives an engine and `db.uow`, the `engage_core.unit_of_work.UnitOfWorkFactory`
the services run on. `db.upgrade()` applies the Alembic migrations shipped in this package.
`PostgresLiveFeed` carries web chat's live notices between processes (LISTEN/NOTIFY).
"""

from engage_sql.database import Database
from engage_sql.engines import deployment_name
from engage_sql.live import PostgresLiveFeed
from engage_sql.retryable import unavailable
from engage_sql.unit_of_work import SqlUnitOfWorkFactory

__all__ = ["Database", "PostgresLiveFeed", "SqlUnitOfWorkFactory", "deployment_name", "unavailable"]
