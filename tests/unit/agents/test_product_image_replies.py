"""Automatic replies that carry a product's image: a reply drawing on a catalogue product with a
linked image sends the image with the reply as its caption where the channel takes files, the text
alone elsewhere, and the image again when a crashed send is retried; in the web chat the bot's
answer shows it."""

from __future__ import annotations

import pytest

from engage_core.agents.model import AgentInput
from engage_core.answering.fakes import ScriptedLanguageModel
from engage_core.commerce.products import ProductInput
from engage_core.jobs.runner import JobRunner
from engage_core.kernel.blobs import new_key
from engage_core.knowledge.entries import TextInput
from engage_core.knowledge.service import CatalogInput
from engage_core.media.model import MediaDraft
from engage_core.messaging.channel_service import CredentialsInput
from engage_core.messaging.gateway import Attachment, SentMessage
from engage_core.messaging.sandbox import SandboxGateway, SandboxSent
from engage_core.services import Services
from engage_core.testing import FakeClock, InMemoryBlobStore, InMemoryJobQueue, InMemoryUnitOfWorkFactory
from engage_core.webchat.sessions import VisitorDetails, WebChatMessage

from ..factories import START
from ..messaging.fixtures import PHONE, CountingBytes, ScriptedFeatures
from .test_auto_replies import answer_from_passages

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64


class CrashOnce:
    """The sandbox, except that the first file send raises as a worker dying mid-send would."""

    def __init__(self, sandbox: SandboxGateway) -> None:
        self.sandbox = sandbox
        self.crash = False

    def __getattr__(self, name: str) -> object:
        return getattr(self.sandbox, name)

    def send_file(self, provider_account_id: str, recipient: str, text: str, attachment: Attachment) -> SentMessage:
        if self.crash:
            self.crash = False
            raise RuntimeError("the worker died")
        return self.sandbox.send_file(provider_account_id, recipient, text, attachment)


class Shop:
    """One account with a connected channel, a default agent and a catalogue of one product."""

    def __init__(self, channel: str = "whatsapp") -> None:
        self.clock = FakeClock(START)
        self.uow = InMemoryUnitOfWorkFactory()
        self.blobs = InMemoryBlobStore()
        self.sandbox = SandboxGateway(self.clock, token_bytes=CountingBytes())
        self.gateway = CrashOnce(self.sandbox)
        self.services = Services.build(
            self.uow,
            self.clock,
            gateway=self.gateway,
            features=ScriptedFeatures(),
            language_model=ScriptedLanguageModel(answer_from_passages),
            blobs=self.blobs,
        )
        self.sandbox.attach(self.services.inbox)
        self.account = self.services.accounts.create("Acme").account.id
        if channel == "linkedin":
            login = CredentialsInput("a@b.c", "p")
            connected = self.services.channels.connect_credentials(self.account, channel, login)
            self.pid = connected.channel.provider_account_id or ""  # type: ignore[union-attr]
        else:
            self.pid = self.services.channels.connect_qr(self.account, channel).channel.provider_account_id or ""
            self.sandbox.scan(self.pid)
        self.sender = "ada-lovelace" if channel == "linkedin" else PHONE
        self.services.ai_agents.create(self.account, AgentInput("Shop", "Answer politely.", is_default=True))
        self.runner = JobRunner(InMemoryJobQueue(self.uow.store), self.services.job_handlers(), self.clock)

    def image(self, name: str = "tea.png", file_type: str = "image") -> int:
        key = new_key("media", "png")
        self.blobs.put(key, [PNG], max_bytes=1024, content_type="image/png")
        draft = MediaDraft(name, name, key, file_type, "image/png", "png", len(PNG), None)
        with self.uow.workspace(self.account) as uow:
            media = uow.media.add(draft, START)
            uow.commit()
        return media.id

    def catalog(self, *media_ids: int) -> None:
        product = ProductInput("Green tea", "Loose leaf sencha.", price="4.50", media_file_ids=list(media_ids))
        self.services.knowledge_base.create_catalog(self.account, CatalogInput("Teas", products=[product]))

    def ask(self, text: str = "Do you sell green tea?") -> None:
        self.clock.advance(seconds=1)
        self.sandbox.inject_message(self.pid, self.sender, text)
        self.clock.advance(seconds=1)
        while self.runner.run_once():
            pass

    def sent(self) -> list[SandboxSent]:
        return list(self.sandbox.account(self.pid).sent)


@pytest.fixture
def shop() -> Shop:
    return Shop()


def test_a_reply_about_a_product_carries_its_image(shop: Shop) -> None:
    """The reply citing the product goes as one message: the image, with the reply as its caption."""
    shop.catalog(shop.image())

    shop.ask()

    [reply] = shop.sent()
    assert reply.attachment is not None
    assert (reply.attachment.name, reply.attachment.mime_type, "Green tea" in reply.text) == (
        "tea.png",
        "image/png",
        True,
    )


def test_the_first_linked_image_is_sent(shop: Shop) -> None:
    """Of several linked files the first image goes; a video before it is passed over."""
    shop.catalog(shop.image("clip.mp4", file_type="video"), shop.image("front.png"), shop.image("back.png"))

    shop.ask()

    assert [s.attachment.name if s.attachment else None for s in shop.sent()] == ["front.png"]


def test_a_long_product_before_it_does_not_shift_the_image(shop: Shop) -> None:
    """A product whose description fills several chunks comes first; the next product still gets its own image."""
    long = ProductInput("Tea sampler", " ".join(["Assorted black teas from Assam."] * 120), price="30")
    tea = ProductInput("Green tea", "Loose leaf sencha.", price="4.50", media_file_ids=[shop.image()])
    shop.services.knowledge_base.create_catalog(shop.account, CatalogInput("Teas", products=[long, tea]))

    shop.ask()

    assert [s.attachment.name if s.attachment else None for s in shop.sent()] == ["tea.png"]


def test_a_product_without_an_image_gets_a_text_reply(shop: Shop) -> None:
    """No linked image: the reply is text alone."""
    shop.catalog()

    shop.ask()

    assert [(s.attachment, "Green tea" in s.text) for s in shop.sent()] == [(None, True)]


def test_a_reply_from_a_text_entry_carries_nothing(shop: Shop) -> None:
    """A reply citing an ordinary text entry sends no file, even when a product has an image."""
    shop.catalog(shop.image())
    shop.services.knowledge_entries.create_text(shop.account, TextInput("Hours", "We open at nine on weekdays."))

    shop.ask("When do you open on weekdays?")

    assert [(s.attachment, s.text) for s in shop.sent()] == [(None, "We open at nine on weekdays.")]


def test_a_deleted_image_is_not_sent(shop: Shop) -> None:
    """Once its only image is deleted from the library, the product's reply is text alone."""
    photo = shop.image()
    shop.catalog(photo)
    shop.services.media.delete(shop.account, photo)

    shop.ask()

    assert [s.attachment for s in shop.sent()] == [None]


def test_linkedin_replies_are_text_only() -> None:
    """LinkedIn messages take no file: the reply about the product goes as text."""
    shop = Shop("linkedin")
    shop.catalog(shop.image())

    shop.ask()

    assert [s.attachment for s in shop.sent()] == [None]


def test_a_retried_reply_sends_the_image_again(shop: Shop) -> None:
    """A worker that died while sending leaves the reply pending; the retry sends it with its image."""
    shop.catalog(shop.image())
    shop.gateway.crash = True

    shop.ask()
    shop.clock.advance(minutes=5)
    while shop.runner.run_once():
        pass

    assert [s.attachment.name if s.attachment else None for s in shop.sent()] == ["tea.png"]


def chat_answer(shop: Shop, question: str) -> WebChatMessage:
    """A visitor asks in a new web chat session; the last message once the worker is done."""
    chat = shop.services.web_chat
    started = chat.start(shop.account, VisitorDetails())
    chat.visitor_send(shop.account, started.token, question)
    shop.clock.advance(seconds=1)
    while shop.runner.run_once():
        pass
    return chat.get(shop.account, started.session.session_id).messages[-1]


def test_a_web_chat_answer_about_a_product_shows_its_image(shop: Shop) -> None:
    """In the web chat the bot's answer about the product carries the image's public address."""
    photo = shop.image()
    shop.catalog(photo)

    answer = chat_answer(shop, "Do you sell green tea?")

    assert (answer.sender_type, answer.media_url) == ("bot", shop.services.media.get(shop.account, photo).url)


def test_a_web_chat_answer_from_a_text_entry_shows_no_image(shop: Shop) -> None:
    """A web chat answer citing an ordinary text entry has no image."""
    shop.services.knowledge_entries.create_text(shop.account, TextInput("Hours", "We open at nine on weekdays."))

    answer = chat_answer(shop, "When do you open on weekdays?")

    assert (answer.sender_type, answer.media_url) == ("bot", None)
