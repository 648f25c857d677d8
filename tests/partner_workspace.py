"""The partner services over any unit-of-work factory, client input, and a workspace with at least one
record of every kind (all through the ports): shared by the contract and SQL integration tests."""

from __future__ import annotations

from datetime import datetime, timedelta
from decimal import Decimal

import attrs

from engage_core.agents.memories import MemoryDraft
from engage_core.agents.model import AgentDraft
from engage_core.agents.replies import AiReplyDraft
from engage_core.bookings.model import BookingDraft
from engage_core.bookings.setup import BookingTypeDraft, ResourceDraft
from engage_core.bookings.working_hours import DEFAULT_HOURS
from engage_core.campaigns.model import Audience, CampaignDraft
from engage_core.commerce.orders import OrderDraft, OrderItemDraft
from engage_core.commerce.products import ProductDraft
from engage_core.contacts.model import ContactDraft
from engage_core.contacts.segments import SegmentRules
from engage_core.jobs.model import JobRequest
from engage_core.kernel.clock import Clock
from engage_core.kernel.events import DomainEvent
from engage_core.knowledge.chunking import chunk_text
from engage_core.knowledge.documents import DocumentDraft
from engage_core.knowledge.model import KnowledgeBaseDraft
from engage_core.knowledge.voice import VoiceNoteDraft
from engage_core.knowledge.websites import StoredPage, WebsiteDraft
from engage_core.linkedin.model import LinkedInPlan, SequenceStep
from engage_core.media.model import MediaDraft
from engage_core.messaging.channels import ChannelDraft
from engage_core.messaging.handling import ConversationHandling
from engage_core.messaging.messages import MessageDraft
from engage_core.partners.client_service import AdminInput, ClientInput, PartnerClientService
from engage_core.partners.model import Impersonation
from engage_core.partners.partner_service import PartnerService
from engage_core.plans.entitlements import Entitlements
from engage_core.plans.plan_service import PlanService
from engage_core.support.tickets import ReplyDraft, TicketDraft
from engage_core.team.model import MemberDraft
from engage_core.testing import AllowAllTargets, FakeCipher, FakeMailer, FakePasswordHasher
from engage_core.unit_of_work import UnitOfWorkFactory
from engage_core.voice.model import VoiceSettings
from engage_core.voice.ports import CachedSpeech
from engage_core.webchat.sessions import MessageDraft as WebChatMessageDraft
from engage_core.webchat.sessions import SessionDraft, VisitorDetails
from engage_core.webchat.widgets import new_widget

APP_URL = "https://app.example.com"


@attrs.frozen
class PartnerServices:
    partners: PartnerService
    clients: PartnerClientService
    plans: PlanService
    entitlements: Entitlements
    mailer: FakeMailer


def partner_services(uow: UnitOfWorkFactory, clock: Clock) -> PartnerServices:
    """The partner-facing services over `uow`, with a mailer that records."""
    mailer = FakeMailer()
    return PartnerServices(
        partners=PartnerService(uow, clock, FakeCipher(), AllowAllTargets()),
        clients=PartnerClientService(uow, clock, FakePasswordHasher(), mailer, APP_URL),
        plans=PlanService(uow, clock),
        entitlements=Entitlements(uow, clock),
        mailer=mailer,
    )


def client_input(company: str = "Acme Café", email: str = "ada@acme.example", plan: str = "pro") -> ClientInput:
    return ClientInput(company_name=company, plan=plan, admin=AdminInput("Ada", "Lovelace", email))


def fill_workspace(uow: UnitOfWorkFactory, account_id: int, partner_id: int, now: datetime) -> None:
    """At least one record of every kind in the workspace (on SQL, a row in every table of its data),
    through the repositories."""
    with uow.workspace(account_id) as unit:
        agent = unit.ai_agents.add(AgentDraft("Concierge", "Answer politely.", is_default=True), now)
        contact = unit.contacts.add(ContactDraft(name="Ada", type="whatsapp", phone="+966501234567"), now)
        assert contact.ai_agent_id == agent.id  # the default agent, a reference the purge must survive
        tag = unit.tags.add("vip", now)
        unit.tags.attach(contact.id, tag.id)
        members = unit.lists.add("Newsletter", now)
        unit.lists.add_member(members.id, contact.id, now)
        segment = unit.segments.add("Manual", None, SegmentRules("all", ()), now)
        unit.segments.include(segment.id, contact.id)
        unit.notes.add(contact.id, "Called back", now)
        unit.webhooks.add("Hook", "https://hooks.example.com", (), True, "fake:terces", now)
        catalog = unit.knowledge_base.add(KnowledgeBaseDraft("Catalog", "product_catalog"), now)
        product = unit.products.add_many(catalog.id, [ProductDraft("Tea", price=Decimal("2.50"))], now)[0]
        unit.knowledge_chunks.replace(catalog.id, chunk_text("Tea: 2.50 USD", title="Catalog"), now)
        unit.jobs.enqueue(JobRequest("crawl", {"entry_id": catalog.id}, key=f"entry:{catalog.id}"), now)
        documents = unit.knowledge_base.add(KnowledgeBaseDraft("Manual", "document"), now)
        unit.knowledge_documents.add_many(documents.id, [DocumentDraft("manual.txt", "txt", "completed", "Hi")], now)
        voice = unit.knowledge_base.add(KnowledgeBaseDraft("Greeting", "voice"), now)
        unit.knowledge_voice_notes.add(voice.id, VoiceNoteDraft("hello.mp3", "completed", "Hello"), now)
        site = unit.knowledge_base.add(KnowledgeBaseDraft("Site", "website"), now)
        unit.knowledge_websites.add(site.id, WebsiteDraft("https://shop.example.com"), now)
        unit.knowledge_websites.add_page(site.id, StoredPage("https://shop.example.com/", "Shop", "Tea", 0), now)
        item = OrderItemDraft(product.id, "Tea", None, 1, Decimal("2.50"))
        unit.orders.add(
            OrderDraft(contact.id, "Ada", None, None, "USD", (item,), Decimal("2.50"), Decimal("2.50"), "api"), now
        )
        unit.channels.add(ChannelDraft("whatsapp", f"wa-{account_id}"), now)
        question = unit.messages.add(MessageDraft(contact.id, "inbound", "whatsapp", "Open?", "delivered"), now)
        answer = unit.messages.add(MessageDraft(contact.id, "outbound", "whatsapp", "Hello", "sent"), now)
        unit.ai_replies.add(AiReplyDraft(contact.id, question.id, answer.id, "continue", (1,), 0.9), now)
        unit.contact_memories.add(MemoryDraft(contact.id, "Prefers email", question.id), now)
        unit.handles.link(contact.id, "instagram", f"ada{account_id}")
        department = unit.departments.add("Support", now)
        member = unit.team.add(MemberDraft("Ada Admin", f"admin{account_id}@example.com", "admin"), "fake$x$y", now)
        ticket = unit.tickets.add(
            TicketDraft(f"T-{unit.tickets.next_number()}", "Help", "Body", "low", department.id, assignee_id=member.id),
            now,
        )
        unit.tickets.add_reply(ticket.id, ReplyDraft("On it", "admin", member.id), now)
        unit.conversation_handling.put(ConversationHandling(contact.id, "human", "Wants a person", member.id, now, now))
        kind = unit.booking_types.add(BookingTypeDraft("Consultation", 30), now)
        room = unit.resources.add(ResourceDraft("Room 1", "room"), now)
        unit.bookings.add(
            BookingDraft(
                contact.id, kind.id, room.id, "Visit", now + timedelta(days=1), now + timedelta(days=1, hours=1)
            ),
            now,
        )
        unit.working_hours.put(DEFAULT_HOURS)
        media_key = f"media/{account_id:02d}/logo{account_id}.png"
        unit.media.add(MediaDraft("Logo", "logo.png", media_key, "image", "image/png", "png", 68, None), now)
        unit.blob_removals.schedule(f"media/{account_id:02d}/orphan{account_id}.png", now + timedelta(hours=1))
        unit.working_hours.put_resource(room.id, DEFAULT_HOURS.schedule)
        campaign = unit.campaigns.add(CampaignDraft("Launch", "whatsapp", "Hi {{name}}", Audience((contact.id,))), now)
        unit.campaign_recipients.snapshot(campaign, now)
        unit.campaign_send_counts.add("whatsapp", now.date(), 1)
        chat = unit.web_chat_sessions.add(
            SessionDraft(f"wcs_{account_id}", f"{account_id:064d}", VisitorDetails()), now
        )
        unit.web_chat_sessions.add_message(chat, WebChatMessageDraft("visitor", "Hello"), 1, now)
        unit.web_chat_widgets.save(new_widget(now))
        steps = (SequenceStep("Hi {{name}}"), SequenceStep("Any questions?", wait_days=2))
        unit.linkedin_campaigns.add_plan(campaign.id, LinkedInPlan("sequence", steps=steps))
        [recipient] = unit.campaign_recipients.claim(campaign.id, 1, now)
        unit.linkedin_campaigns.schedule(campaign.id, recipient.id, contact.id, 1, now + timedelta(days=2), now)
        unit.voice_settings.save(VoiceSettings(enabled=True), now)
        cached = CachedSpeech(f"tts-{account_id}", f"voice/{account_id:02d}/hello.m4a", 1.5, "en", None, False, False)
        unit.speech_cache.add(cached, now)
        unit.emit(DomainEvent("contact.created", {"id": contact.id}, now))
        unit.commit()
    with uow.partners() as unit:
        unit.impersonations.add(f"{account_id:064d}", Impersonation(partner_id, account_id, 1), now, now)
        unit.commit()
