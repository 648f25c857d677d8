"""engage_connectors."""
