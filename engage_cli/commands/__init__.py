"""One module per command group: `serve`, `db`, `accounts`."""
