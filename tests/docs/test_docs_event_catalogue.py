"""webhooks.md's event catalogue against the events the services really emit: each row names
exactly the keys of its events' `data`, and each `payload` example has the shape of the real one."""

from __future__ import annotations

import re
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import doc_json
import pytest
from markdown_blocks import ROOT, blocks

from engage_core.agents.model import AgentInput
from engage_core.commerce.order_service import OrderInput, OrderPatch
from engage_core.commerce.orders import ItemRequest
from engage_core.commerce.products import ProductInput
from engage_core.contacts.model import ContactInput
from engage_core.knowledge.documents import DocumentInput, DocumentUpload
from engage_core.knowledge.entries import TextInput
from engage_core.knowledge.extraction_fakes import FakeDocumentExtractor
from engage_core.knowledge.model import KnowledgeBasePatch
from engage_core.knowledge.service import CatalogInput
from engage_core.knowledge.transcription_fakes import FakeAudioProber, FakeTranscriber
from engage_core.knowledge.voice import AudioUpload, VoiceInput
from engage_core.services import Services
from engage_core.testing import FakeClock, InMemoryUnitOfWorkFactory

WEBHOOKS = ROOT / "docs" / "webhooks.md"


def _catalogue() -> dict[str, set[str]]:
    """Event name → the fields its row of the catalogue table names."""
    rows: dict[str, set[str]] = {}
    for line in WEBHOOKS.read_text().split("## The event catalogue", 1)[1].split("\n## ", 1)[0].splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) != 2 or not cells[0].startswith("`"):
            continue
        fields = re.sub(r"\((?!and )[^()]*\)", "", cells[1]).replace("(and ", ",").replace(")", "")
        for event in re.findall(r"`([a-z_.]+)`", cells[0]):
            rows[event] = {field.strip() for field in fields.split(",") if field.strip()}
    return rows


def _emitted() -> dict[str, Mapping[str, Any]]:
    """One `data` of each order, knowledge-base and AI agent event, from the real services over the fakes."""
    uow = InMemoryUnitOfWorkFactory()
    services = Services.build(
        uow,
        FakeClock(),
        extractor=FakeDocumentExtractor(failures={"scan.pdf": "The PDF is encrypted."}),
        transcriber=FakeTranscriber(),
        prober=FakeAudioProber(),
    )
    account = services.accounts.create("Acme").account.id
    contact = services.contacts.create(account, ContactInput(name="Ada Lovelace", type="instagram"))
    catalog = services.knowledge_base.create_catalog(
        account, CatalogInput(title="Coffee", products=[ProductInput(product_name="Espresso beans", price="19.99")])
    )
    product = catalog.products[0]
    first = services.orders.create(account, OrderInput(items=[ItemRequest(product.id, 2)], contact_id=contact.id)).order
    for status in ("confirmed", "processing", "shipped", "delivered"):
        services.orders.update(account, first.id, OrderPatch(status=status))
    second = services.orders.create(account, OrderInput(items=[ItemRequest(product.id, 1)], customer_name="Lee")).order
    services.orders.cancel(account, second.id, "Changed their mind")
    _knowledge_events(services, account)
    _conversation_events(services, account, contact.id)
    _agent_events(services, account)
    return {event.name: event.payload for event in uow.store.events(account)}


def _conversation_events(services: Services, account: int, contact_id: int) -> None:
    """Each move of who answers the contact's conversation (the extension events)."""
    handling = services.conversation_handling
    handling.resolve(account, contact_id)
    handling.hand_over(account, contact_id, "Asks for a refund")
    handling.take_over(account, contact_id)
    handling.release(account, contact_id)


def _agent_events(services: Services, account: int) -> None:
    """An agent created as the default, another made the default in its place, and the first deleted."""
    first = services.ai_agents.create(account, AgentInput("Concierge", "Be kind.", is_default=True))
    second = services.ai_agents.create(account, AgentInput("Night shift", "Be brief."))
    services.ai_agents.set_default(account, second.id)
    services.ai_agents.delete(account, first.id)


def _knowledge_events(services: Services, account: int) -> None:
    """Updated and deleted entries, and processing of a voice note then of documents (whose events
    carry more fields: the catalogue names theirs)."""
    text = services.knowledge_entries.create_text(account, TextInput("Hours", "We open at 7."))
    services.knowledge_entries.update(account, text.id, KnowledgeBasePatch(status="inactive"))
    services.knowledge_entries.delete(account, text.id)
    with tempfile.TemporaryDirectory() as directory:
        audio, good, bad = (Path(directory) / name for name in ("note", "good", "bad"))
        audio.write_bytes(b"ID3")
        good.write_text("Refunds take five days.")
        bad.write_bytes(b"%PDF")
        services.knowledge_voice.create(account, VoiceInput("Note", AudioUpload("note.mp3", audio)))
        uploads = [DocumentUpload("refunds.txt", good), DocumentUpload("scan.pdf", bad)]
        services.knowledge_documents.create(account, DocumentInput("Policies", uploads))


EMITTED = _emitted()
CATALOGUE = _catalogue()


@pytest.mark.parametrize(
    "event", sorted(e for e in EMITTED if e.startswith(("order.", "knowledge_base.", "conversation.", "ai_agent.")))
)
def test_the_catalogue_names_the_fields_of_each_emitted_event(event: str) -> None:
    """The row of an order, knowledge-base, conversation or AI agent event lists exactly the keys of its `data`."""
    assert CATALOGUE.get(event) == set(EMITTED[event]), event


@pytest.mark.parametrize(
    "block", [b for b in blocks(WEBHOOKS) if b.marker and b.marker.mode == "payload"], ids=lambda b: b.marker.args
)
def test_payload_examples_have_the_shape_of_the_emitted_data(block: Any) -> None:
    """A `payload EVENT` example has the keys and types of the data the service emits for EVENT."""
    assert doc_json.differences(doc_json.parse(block.text), dict(EMITTED[block.marker.args])) == []
