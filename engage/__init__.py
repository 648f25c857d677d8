"""`python -m engage`: the `engage` command. The library itself is in `engage_core`, `engage_sql`,
`engage_connectors`, `engage_http` and `engage_cli`."""
