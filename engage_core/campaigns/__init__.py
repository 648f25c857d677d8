"""Outreach campaigns: one message template sent to an audience of contacts on one channel."""
