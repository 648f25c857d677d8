"""A client generated from the OpenAPI document works: openapi-python-client builds one class per
request schema, with every field, and its calls round-trip against a served app (docs/api.md,
"Generating a client")."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from collections.abc import Iterator
from types import ModuleType

import attrs
import pytest
from served_app import served

from engage_core.services import Services
from engage_http import create_app
from engage_http.areas import OPERATIONS, PARTNER_OPERATIONS
from engage_http.contacts.schemas import ContactCreate
from engage_http.openapi import build_document
from engage_http.routing import API_PREFIX

pytestmark = pytest.mark.slow

PACKAGE = "engage_generated_client"

CONTACT = {
    "name": "Ada Lovelace",
    "type": "whatsapp",
    "phone": "+442071838750",
    "email": "ada@example.com",
    "tags": ["Newsletter", "VIP"],  # in the order they are read back (by title)
    "status": "inactive",
    "company": "Analytical Engines",
    "address": "12 St James's Square, London",
    "country_id": 44,
}
"""A value for every field of `ContactCreate`, none of them its default."""


@attrs.frozen
class Generated:
    package: ModuleType
    output: str
    """What the generator printed (its warnings name each schema or operation it left out)."""


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Generated]:
    """The client package openapi-python-client generates from the document, imported."""
    root = tmp_path_factory.mktemp("client")
    document = root / "openapi.json"
    document.write_text(json.dumps(build_document((*OPERATIONS, *PARTNER_OPERATIONS), prefix=API_PREFIX)))
    config = root / "config.json"
    config.write_text(json.dumps({"post_hooks": []}))  # no formatting of the generated code
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "openapi_python_client",
            "generate",
            "--path",
            str(document),
            "--output-path",
            str(root / PACKAGE),
            "--meta",
            "none",
            "--config",
            str(config),
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    sys.path.insert(0, str(root))
    try:
        yield Generated(importlib.import_module(PACKAGE), run.stdout + run.stderr)
    finally:
        sys.path.remove(str(root))
        for name in [name for name in sys.modules if name.partition(".")[0] == PACKAGE]:
            del sys.modules[name]


def test_the_generator_leaves_nothing_out(generated: Generated) -> None:
    """openapi-python-client generates every schema and operation without a warning."""
    assert "warning" not in generated.output.lower(), generated.output


def test_the_create_class_has_every_field(generated: Generated) -> None:
    """`ContactCreate` is one class holding every field of the schema (no `ContactCreateType0` union)."""
    models = importlib.import_module(f"{PACKAGE}.models")
    names = {field.name.removesuffix("_") for field in attrs.fields(models.ContactCreate)}

    assert {field.name for field in attrs.fields(ContactCreate)} <= names
    assert not hasattr(models, "ContactCreateType0")


def test_a_generated_client_creates_a_contact_and_reads_it_back(generated: Generated, services: Services) -> None:
    """Creating a contact with every field through the generated client, then reading it back with
    it, returns each field as sent."""
    models = importlib.import_module(f"{PACKAGE}.models")
    store = importlib.import_module(f"{PACKAGE}.api.contacts.contacts_store")
    show = importlib.import_module(f"{PACKAGE}.api.contacts.contacts_show")
    key = services.accounts.create("Acme").api_key

    with served(create_app(services)) as base_url:
        client = generated.package.AuthenticatedClient(base_url=base_url, token=key)
        created = store.sync(client=client, body=models.ContactCreate.from_dict(CONTACT))
        assert isinstance(created, models.ContactsStoreResponse201), created
        read = show.sync(id=created.data.id, client=client)

    assert isinstance(read, models.ContactsShowResponse200), read
    contact = read.data.to_dict()
    assert {name: contact[name] for name in CONTACT} == CONTACT
    assert read.data.id == created.data.id
