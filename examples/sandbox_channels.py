"""Channels offline: connect WhatsApp through the sandbox gateway, with no phone and no network.

    python examples/sandbox_channels.py

The services run over a SQLite file with the sandbox gateway. WhatsApp is connected by QR code
(the sandbox "scans" it, as a phone would), a contact writes in, the message is answered, the
answer is reported read, and the conversations are listed.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from engage_core.kernel.clock import SystemClock
from engage_core.kernel.pagination import PageRequest
from engage_core.messaging.conversations import ConversationFilter
from engage_core.messaging.message_service import SendInput
from engage_core.messaging.sandbox import SandboxGateway
from engage_core.services import Services
from engage_sql import Database


def main() -> None:
    with tempfile.TemporaryDirectory() as directory:
        database = Database.connect(f"sqlite:///{Path(directory) / 'engage.db'}")
        try:
            database.upgrade()  # create the schema (applies every pending migration)
            sandbox = SandboxGateway(SystemClock())
            services = Services.build(database.uow, gateway=sandbox)
            sandbox.attach(services.inbox)  # what the sandbox's network side does reaches the services
            run(services, sandbox)
        finally:
            database.dispose()


def run(services: Services, sandbox: SandboxGateway) -> None:
    account_id = services.accounts.create("Example Shop").account.id

    # The owner asks to connect WhatsApp: a real multi-device QR text to show as a QR image.
    started = services.channels.connect_qr(account_id, "whatsapp")
    provider_account_id = started.channel.provider_account_id or ""
    print(f"QR code to scan: {started.qr_code[:40]}...")
    print(f"  polling: in_progress={services.channels.status(account_id, 'whatsapp').in_progress}")

    # The phone scans it (a sandbox action): the channel connects.
    sandbox.scan(provider_account_id, "+14155550100")
    channel = services.channels.status(account_id, "whatsapp")
    print(f"WhatsApp {channel.sync_status}, connected={channel.is_connected}, as {channel.username}")

    # A customer writes in: the contact is created from the phone number.
    inbound = sandbox.inject_message(provider_account_id, "+14155550123", "Is my order ready?", sender_name="Kim")
    print(f"Received from {inbound.sender}: {inbound.text!r}")

    conversations = services.messages.conversations(account_id, ConversationFilter(), PageRequest())
    [conversation] = conversations.items
    reply = services.messages.send(account_id, SendInput(conversation.contact_id, "Yes, it ships today."))
    print(f"Sent message {reply.message.id}: {reply.message.status}")

    # The customer's phone reports the reply read; the customer's own message is marked read.
    sandbox.inject_receipt(provider_account_id, reply.message.provider_message_id or "", "read")
    services.messages.mark_read(account_id, conversation.contact_id)

    for summary in services.messages.conversations(account_id, ConversationFilter(), PageRequest()).items:
        print(f"  {summary.contact_name}: {summary.last_message!r} on {summary.channel}, {summary.unread_count} unread")
    messages = services.messages.for_contact(account_id, conversation.contact_id, None, PageRequest())
    print("  statuses, newest first:", [m.status for m in messages.items])


if __name__ == "__main__":
    main()
