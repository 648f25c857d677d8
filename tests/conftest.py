"""What every test directory shares: Hypothesis's profile, and the report header.

Fixtures that need storage or a webhook receiver live in the plugin `storage_fixtures.py`, which
imports what they need only when a test asks for one: the pure-core unit tests import nothing of
`engage_sql` (and collect fast).
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

pytest_plugins = ("storage_fixtures",)

POSTGRES_ENV = "ENGAGE_TEST_POSTGRES_URL"

# Property tests judge behaviour, never speed: on a loaded two-core CI machine a per-example
# deadline only produces flaky failures.
settings.register_profile("engage", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("engage")


def pytest_report_header() -> str:
    where = "set" if os.environ.get(POSTGRES_ENV) else "not set: PostgreSQL tests will be skipped"
    return f"{POSTGRES_ENV}: {where}"
