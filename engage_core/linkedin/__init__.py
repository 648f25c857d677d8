"""LinkedIn sourcing: people search, invitation and message-sequence campaigns, the overview."""
