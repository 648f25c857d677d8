"""engage as a library: the services over a SQLite file, with no server.

    python examples/library_quickstart.py

Creates an account, a few contacts, and a segment ("VIP customers on WhatsApp"), adds one
contact to the segment by hand and removes another, then prints the segment's members.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from engage_core.contacts.model import ContactInput
from engage_core.kernel.pagination import PageRequest
from engage_core.services import Services
from engage_sql import Database


def main() -> None:
    with tempfile.TemporaryDirectory() as directory:
        database = Database.connect(f"sqlite:///{Path(directory) / 'engage.db'}")
        try:
            database.upgrade()  # create the schema (applies every pending migration)
            run(Services.build(database.uow))
        finally:
            database.dispose()


def run(services: Services) -> None:
    issued = services.accounts.create("Example Shop")
    account_id = issued.account.id
    print(f"Account {account_id} ({issued.account.name}), key hint {issued.account.key_hint}")

    contacts = services.contacts
    ada = contacts.create(
        account_id, ContactInput(name="Ada Lovelace", type="whatsapp", phone="+44 20 7946 0018", tags=["VIP"])
    )
    grace = contacts.create(
        account_id, ContactInput(name="Grace Hopper", type="whatsapp", phone="+1 415 555 0100", tags=["vip", "US"])
    )
    alan = contacts.create(account_id, ContactInput(name="Alan Turing", type="telegram", phone="+44 161 496 0000"))
    for contact in (ada, grace, alan):
        print(f"  contact {contact.id}: {contact.name:<13} {contact.type:<9} {contact.phone} tags={list(contact.tags)}")

    # Rules select VIPs on WhatsApp: Ada and Grace. Tag matching ignores case ("VIP" == "vip").
    segment = services.segments.create(
        account_id,
        "VIP customers on WhatsApp",
        match="all",
        conditions=[
            {"field": "tag", "operator": "has", "value": "vip"},
            {"field": "type", "operator": "eq", "value": "whatsapp"},
        ],
    )
    # Members = (rule matches ∪ added by hand) \ removed by hand.
    contacts.add_to_segment(account_id, alan.id, segment.id)  # Alan joins by hand
    contacts.remove_from_segment(account_id, grace.id, segment.id)  # Grace leaves by hand

    members = services.segments.members(account_id, segment.id, PageRequest(page=1, per_page=100))
    print(f"Segment {segment.id} ({segment.name}): {members.total} members")
    for member in members.items:
        print(f"  {member.id}: {member.name} ({member.type}, {member.phone})")


if __name__ == "__main__":
    main()
