"""Support: tickets with their replies and state machine, and departments."""
