"""Contacts in SQL: contacts, tags, lists, segments (rules compiled to SQL) and notes."""

from __future__ import annotations

from engage_core.contacts.model import ContactFilter
from engage_sql.contacts.contacts import SqlContactRepository, is_short_page
from engage_sql.contacts.lists import SqlContactListRepository
from engage_sql.contacts.notes import SqlNoteRepository
from engage_sql.contacts.segments import SqlSegmentRepository
from engage_sql.contacts.tags import SqlTagRepository
from engage_sql.registry import SqlArea

AREA = SqlArea(
    workspace={
        "contacts": lambda s: SqlContactRepository(s.connection, s.account_id),
        "tags": lambda s: SqlTagRepository(s.connection, s.account_id),
        "lists": lambda s: SqlContactListRepository(s.connection, s.account_id),
        "segments": lambda s: SqlSegmentRepository(s.connection, s.account_id),
        "notes": lambda s: SqlNoteRepository(s.connection, s.account_id),
    },
    short_reads={ContactFilter: is_short_page},
)
