"""engage_http."""
