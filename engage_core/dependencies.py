"""What the services are built from: storage, time, the outbound ports and two settings.

`Services.build` fills it in (an unconfigured port stands in for one not given, and fails loudly,
naming what to pass, when used); each area's `wiring` module builds its services from it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, cast

import attrs

from engage_core.answering.persona import NoPersonas
from engage_core.answering.ports import LanguageModel, PersonaDirectory
from engage_core.campaigns.quotas import Quotas
from engage_core.commerce.ports import StorePlatform
from engage_core.kernel.blobs import BlobStore
from engage_core.kernel.clock import Clock
from engage_core.kernel.mail import Mailer
from engage_core.knowledge.crawling import Crawler
from engage_core.knowledge.embeddings import Embedder
from engage_core.knowledge.extraction import DocumentExtractor
from engage_core.knowledge.transcription import AudioProber, Transcriber
from engage_core.media.ports import MediaProber
from engage_core.messaging.ports import CampaignGuard, ChannelGateway
from engage_core.plans.ports import FeatureGate
from engage_core.team.ports import PasswordHasher
from engage_core.unit_of_work import UnitOfWorkFactory
from engage_core.voice.offline import NoCloningEngine
from engage_core.voice.ports import SampleProber, SpeechSynthesizer, VoiceCloner
from engage_core.webchat.ports import LiveFeed, NoLiveFeed
from engage_core.webhooks.ports import SecretCipher, TargetGuard


class Unconfigured:
    """Stands in for a port the caller did not wire; fails loudly, naming what to pass."""

    def __init__(self, what: str, needed_by: str) -> None:
        self._what = what
        self._needed_by = needed_by

    def __getattr__(self, name: str) -> object:
        raise RuntimeError(f"Services.build() was not given {self._what}; {self._needed_by} need it.")


def unconfigured(what: str, needed_by: str) -> Any:
    """An `Unconfigured` typed as whatever port it stands in for."""
    return cast(Any, Unconfigured(what, needed_by))


@attrs.frozen
class Dependencies:
    """Everything a service may be built from (see `Services.build` for each)."""

    uow: UnitOfWorkFactory
    clock: Clock
    cipher: SecretCipher
    guard: TargetGuard
    store: StorePlatform
    gateway: ChannelGateway
    campaigns: CampaignGuard
    features: FeatureGate | None
    hasher: PasswordHasher
    mailer: Mailer
    app_url: str
    default_plan: str
    extractor: DocumentExtractor
    transcriber: Transcriber
    prober: AudioProber
    crawler: Crawler = attrs.field(factory=lambda: unconfigured("crawler=Crawler", "website crawls"))
    blobs: BlobStore = attrs.field(factory=lambda: unconfigured("blobs=BlobStore", "the media library"))
    media_prober: MediaProber = attrs.field(factory=lambda: unconfigured("media_prober=MediaProber", "media uploads"))
    embedder: Embedder | None = None
    language_model: LanguageModel = attrs.field(
        factory=lambda: unconfigured("language_model=LanguageModel", "AI answers and chat completions")
    )
    personas: PersonaDirectory = attrs.field(factory=NoPersonas)
    campaign_quotas: Quotas = attrs.field(factory=Quotas)
    job_lease_seconds: float = 60.0
    sleep: Callable[[float], None] = time.sleep
    synthesizer: SpeechSynthesizer = attrs.field(
        factory=lambda: unconfigured("synthesizer=SpeechSynthesizer", "text to speech")
    )
    cloner: VoiceCloner = attrs.field(factory=NoCloningEngine)
    sample_prober: SampleProber = attrs.field(
        factory=lambda: unconfigured("sample_prober=SampleProber", "voice cloning")
    )
    live: LiveFeed = attrs.field(factory=NoLiveFeed)
    """Tells live listeners (web chat streams) of new messages."""
