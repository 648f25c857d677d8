"""Messaging: channel settings and their connection flows, the gateway to the networks (the
offline sandbox by default), messages, conversations, and what arrives from the networks."""
