"""Contacts with their notes and tags, contact lists, and rule-based segments."""
