"""The services of an app under test over a real database, with offline stand-ins for the outside
world (cipher, SSRF guard, password hasher, mailer, document reader, speech), the offline language
model, and the sandbox channel gateway attached."""

from __future__ import annotations

from engage_connectors.llm.offline import OfflineLanguageModel
from engage_core.kernel.clock import Clock
from engage_core.kernel.fakes import InMemoryBlobStore
from engage_core.knowledge.extraction_fakes import FakeDocumentExtractor
from engage_core.knowledge.transcription_fakes import FakeAudioProber, FakeTranscriber
from engage_core.messaging.sandbox import SandboxGateway
from engage_core.services import Services
from engage_core.testing import AllowAllTargets, FakeCipher, FakeMailer, FakePasswordHasher
from engage_core.unit_of_work import UnitOfWorkFactory
from engage_core.voice.fakes import FakeSampleProber, FakeSynthesizer


def offline_services(uow: UnitOfWorkFactory, clock: Clock) -> Services:
    """Every service over `uow`, reaching nothing outside the process."""
    sandbox = SandboxGateway(clock)
    services = Services.build(
        uow,
        clock,
        cipher=FakeCipher(),
        guard=AllowAllTargets(),
        hasher=FakePasswordHasher(),
        mailer=FakeMailer(),
        gateway=sandbox,
        extractor=FakeDocumentExtractor(),
        transcriber=FakeTranscriber(),
        prober=FakeAudioProber(),
        language_model=OfflineLanguageModel(),
        blobs=InMemoryBlobStore(),
        synthesizer=FakeSynthesizer(),
        sample_prober=FakeSampleProber(),
    )
    sandbox.attach(services.inbox)
    return services
