"""Partners (resellers): partner accounts and keys, client workspaces with their lifecycle,
usage reports, impersonation and partner-level webhooks."""
