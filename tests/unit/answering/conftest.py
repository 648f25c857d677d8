"""Fixtures of the answering tests: the services over the in-memory fakes with a scripted language
model and an in-memory persona directory, and a one-line way to add a knowledge-base passage."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from engage_core.answering.fakes import InMemoryPersonaDirectory, ScriptedLanguageModel
from engage_core.commerce.fakes import FakeStorePlatform
from engage_core.knowledge.entries import TextInput
from engage_core.services import Services
from engage_core.testing import FakeClock, InMemoryUnitOfWorkFactory


@pytest.fixture
def model() -> ScriptedLanguageModel:
    return ScriptedLanguageModel()


@pytest.fixture
def personas() -> InMemoryPersonaDirectory:
    return InMemoryPersonaDirectory()


@pytest.fixture
def services(
    uow: InMemoryUnitOfWorkFactory,
    clock: FakeClock,
    store_platform: FakeStorePlatform,
    model: ScriptedLanguageModel,
    personas: InMemoryPersonaDirectory,
) -> Services:
    return Services.build(uow, clock, store=store_platform, language_model=model, personas=personas)


@pytest.fixture
def add_passage(services: Services, account_id: int) -> Callable[[str, str], int]:
    """`add_passage(title, text) -> chunk id`: a one-chunk text entry."""

    def add(title: str, text: str) -> int:
        entry = services.knowledge_entries.create_text(account_id, TextInput(title, text))
        [chunk] = services.knowledge_chunks.list(account_id, entry.id).chunks
        return chunk.id

    return add
