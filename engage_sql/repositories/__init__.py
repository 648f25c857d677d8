"""Repositories: the storage ports of `engage_core.unit_of_work`, over one connection and one account."""
