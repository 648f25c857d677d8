"""engage_cli."""
