"""Background jobs: durable, leased, retried work that runs after the request that asked for it."""
