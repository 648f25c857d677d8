"""Accounts and keys: workspaces, their API keys, origin whitelists, admission of a request (the
account, its suspension and its plan, read with the key), and the account profile."""
