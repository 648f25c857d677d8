"""Repositories: the storage ports of `engage_core.ports`, over one connection and one account."""
