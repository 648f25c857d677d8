"""engage_sql."""
