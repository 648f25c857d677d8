"""engage_cli: the `engage` command line, which composes every other package.

`engage serve` runs the HTTP service, `engage db upgrade` applies migrations and
`engage accounts ...` administers workspaces. The entry point is `engage_cli.main:main`.
"""
