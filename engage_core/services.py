"""Every use case, wired to one storage adapter, one clock and the outbound ports.

`Services` is the sum of every area's services: each area declares its own, and how to build
them, in its `wiring` module (`ContactsServices`, ...), and is registered here once, as a base
class. They are wired in the order of the bases (an area wires after those whose services it uses).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from engage_core.accounts.wiring import AccountsServices
from engage_core.agents.personas import AgentPersonas
from engage_core.agents.wiring import AgentsServices
from engage_core.answering.ports import LanguageModel, PersonaDirectory
from engage_core.answering.wiring import AnsweringServices
from engage_core.bookings.wiring import BookingsServices
from engage_core.campaigns.guard import ActiveCampaigns
from engage_core.campaigns.quotas import Quotas
from engage_core.campaigns.wiring import CampaignsServices
from engage_core.commerce.ports import StorePlatform
from engage_core.commerce.wiring import CommerceServices
from engage_core.contacts.wiring import ContactsServices
from engage_core.dependencies import Dependencies, unconfigured
from engage_core.jobs.runner import Handler
from engage_core.kernel.blobs import BlobStore
from engage_core.kernel.clock import Clock, SystemClock
from engage_core.kernel.mail import LoggingMailer, Mailer
from engage_core.knowledge.crawling import Crawler
from engage_core.knowledge.embeddings import Embedder
from engage_core.knowledge.extraction import DocumentExtractor
from engage_core.knowledge.transcription import AudioProber, Transcriber
from engage_core.knowledge.website_wiring import WebsiteServices
from engage_core.knowledge.wiring import KnowledgeServices
from engage_core.linkedin.wiring import LinkedInServices
from engage_core.media.ports import MediaProber
from engage_core.media.wiring import MediaServices
from engage_core.messaging.ports import CampaignGuard, ChannelGateway
from engage_core.messaging.wiring import MessagingServices
from engage_core.partners.wiring import PartnersServices
from engage_core.plans.model import DEFAULT_PLAN
from engage_core.plans.ports import FeatureGate
from engage_core.plans.wiring import PlansServices
from engage_core.support.wiring import SupportServices
from engage_core.team.model import DEFAULT_APP_URL
from engage_core.team.ports import PasswordHasher
from engage_core.team.wiring import TeamServices
from engage_core.unit_of_work import UnitOfWorkFactory
from engage_core.voice.offline import NoCloningEngine
from engage_core.voice.ports import SampleProber, SpeechSynthesizer, VoiceCloner
from engage_core.voice.wiring import VoiceServices
from engage_core.webchat.ports import LiveFeed
from engage_core.webchat.wiring import WebChatServices
from engage_core.webhooks.ports import SecretCipher, TargetGuard
from engage_core.webhooks.wiring import WebhooksServices


class Services(
    PlansServices,
    AccountsServices,
    PartnersServices,
    ContactsServices,
    MessagingServices,
    BookingsServices,
    CommerceServices,
    KnowledgeServices,
    WebsiteServices,
    AnsweringServices,
    CampaignsServices,
    LinkedInServices,
    MediaServices,
    VoiceServices,
    SupportServices,
    TeamServices,
    AgentsServices,
    WebhooksServices,
    WebChatServices,
):
    """Every use case, wired to one storage adapter and one clock."""

    def __init__(self, deps: Dependencies) -> None:
        self.dependencies = deps
        for area in type(self).__bases__:
            vars(area)["wire"](self, deps)

    def job_handlers(self) -> dict[str, Handler]:
        """The handlers of every job kind, by kind: each area whose wiring defines `job_handlers`
        declares its own (the worker runs the jobs of these kinds)."""
        handlers: dict[str, Handler] = {}
        for area in type(self).__bases__:
            declare = vars(area).get("job_handlers")
            if declare is None:
                continue
            for kind, handler in declare(self).items():
                if kind in handlers:
                    raise ValueError(f"two areas handle the job kind {kind!r}")
                handlers[kind] = handler
        return handlers

    @classmethod
    def build(
        cls,
        uow: UnitOfWorkFactory,
        clock: Clock | None = None,
        *,
        cipher: SecretCipher | None = None,
        guard: TargetGuard | None = None,
        store: StorePlatform | None = None,
        gateway: ChannelGateway | None = None,
        campaigns: CampaignGuard | None = None,
        features: FeatureGate | None = None,
        hasher: PasswordHasher | None = None,
        mailer: Mailer | None = None,
        app_url: str = DEFAULT_APP_URL,
        default_plan: str = DEFAULT_PLAN,
        crawler: Crawler | None = None,
        embedder: Embedder | None = None,
        extractor: DocumentExtractor | None = None,
        transcriber: Transcriber | None = None,
        prober: AudioProber | None = None,
        language_model: LanguageModel | None = None,
        personas: PersonaDirectory | None = None,
        campaign_quotas: Quotas | None = None,
        job_lease_seconds: float = 60.0,
        sleep: Callable[[float], None] | None = None,
        blobs: BlobStore | None = None,
        media_prober: MediaProber | None = None,
        synthesizer: SpeechSynthesizer | None = None,
        cloner: VoiceCloner | None = None,
        sample_prober: SampleProber | None = None,
        live: LiveFeed | None = None,
    ) -> Services:
        """Wire every service. `cipher` (secrets at rest) and `guard` (SSRF checks of target URLs)
        come from `engage_connectors`; without them everything but webhooks works. `store` is the
        connected online store; without it everything works but status changes of store-sourced
        orders (which only a store integration creates). `gateway` reaches the messaging networks
        (`engage_core.messaging.sandbox.SandboxGateway` offline); without it everything but
        connecting channels and sending works (listing, receiving and receipts do). A gateway that
        calls back (the sandbox) is then attached to `inbox`. `campaigns` answers whether a campaign
        holds a channel (none, by default); `features` gates plan features (the workspace's plan, by
        default); the plan's limits apply to creating contacts, team members and channel settings
        and to sending. `hasher` hashes team members' passwords (argon2id from `engage_connectors`);
        without it everything but adding members, changing passwords and signing in works.
        `mailer` sends invitations (logged only, by default); they link to the sign-in page under
        `app_url`. `default_plan` is the plan of every workspace without a partner. `crawler` reads
        websites (`engage_connectors.crawler.HttpCrawler`); without it website entries are created
        and queued, but no worker crawls them. `extractor` reads uploaded documents
        (`engage_connectors.documents.FileExtractor`); without it everything but document entries
        works. `transcriber` and `prober` transcribe and identify voice notes
        (`engage_connectors.speech`); without them everything but voice entries works. `embedder`
        turns chunks into vectors (`engage_connectors.openai_embeddings.OpenAIEmbedder`): with it a
        change of an entry's text queues their embedding and search blends full text with similarity;
        without it search is full text alone. `language_model` answers customers and chat completions
        (`engage_connectors.llm`: an OpenAI-compatible service, or the offline retrieval-only model);
        without it everything but AI answers works. `personas` finds each workspace's default AI
        agent (the stored agents, by default; a workspace without one has `service-chat` answer as a
        generic assistant). `campaign_quotas` are the per-channel daily and weekly
        send quotas of campaigns (`Quotas()` defaults); `job_lease_seconds` is the worker's job lease,
        after which a campaign send left in flight by a dead worker is settled; `sleep` is how the
        campaign sender waits between sends (`time.sleep`; tests move a fake clock).
        `blobs` keeps uploaded files (`engage_connectors.blobs`) and
        `media_prober` checks and measures media uploads (`engage_connectors.media_probe`); without them
        everything but the media library works. `synthesizer` speaks with the built-in voices
        (`engage_connectors.voice`: espeak-ng offline, or an OpenAI-compatible service), `cloner`
        clones voices (none by default: cloning is refused, saying a provider is needed) and
        `sample_prober` checks clone recordings; voice audio is kept by `blobs`. `live` tells web
        chat's live streams of new messages (none by default: the streams look again every few
        seconds)."""
        deps = Dependencies(
            uow=uow,
            clock=clock or SystemClock(),
            cipher=cipher or unconfigured("cipher=SecretCipher", "webhooks"),
            guard=guard or unconfigured("guard=TargetGuard", "webhooks"),
            store=store or unconfigured("store=StorePlatform", "status changes of store-sourced orders"),
            gateway=gateway or unconfigured("gateway=ChannelGateway", "channels and sending"),
            campaigns=campaigns or ActiveCampaigns(uow),
            features=features,
            hasher=hasher or unconfigured("hasher=PasswordHasher", "team member passwords"),
            mailer=mailer or LoggingMailer(),
            app_url=app_url,
            default_plan=default_plan,
            crawler=crawler or unconfigured("crawler=Crawler", "website crawls"),
            embedder=embedder,
            extractor=extractor or unconfigured("extractor=DocumentExtractor", "document entries"),
            transcriber=transcriber or unconfigured("transcriber=Transcriber", "voice entries"),
            prober=prober or unconfigured("prober=AudioProber", "voice entries"),
            language_model=language_model
            or unconfigured("language_model=LanguageModel", "AI answers and chat completions"),
            personas=personas or AgentPersonas(uow),
            campaign_quotas=campaign_quotas or Quotas(),
            job_lease_seconds=job_lease_seconds,
            sleep=sleep or time.sleep,
            blobs=blobs or unconfigured("blobs=BlobStore", "the media library"),
            media_prober=media_prober or unconfigured("media_prober=MediaProber", "media uploads"),
            synthesizer=synthesizer or unconfigured("synthesizer=SpeechSynthesizer", "text to speech"),
            cloner=cloner or NoCloningEngine(),
            sample_prober=sample_prober or unconfigured("sample_prober=SampleProber", "voice cloning"),
            **({} if live is None else {"live": live}),
        )
        return cls(deps)


__all__ = ["Services"]
