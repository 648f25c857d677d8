"""AI agents: the personas that answer a workspace's contacts, the workspace's default agent, and
which agent each contact is assigned to."""
