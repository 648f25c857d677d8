"""A deleted workspace takes its voice objects (audio and clone sample) out of the blob store."""

from __future__ import annotations

from engage_core.partners.client_service import AdminInput, ClientInput
from engage_core.services import Services
from engage_core.testing import (
    AllowAllTargets,
    FakeCipher,
    FakeClock,
    FakeMailer,
    FakePasswordHasher,
    InMemoryBlobStore,
    InMemoryUnitOfWorkFactory,
)
from engage_core.voice.fakes import FakeCloner, FakeSampleProber, FakeSynthesizer, fake_sample
from engage_core.voice.model import CloneRequest, VoicePatch


def test_deleting_a_client_workspace_removes_its_voice_objects(
    uow: InMemoryUnitOfWorkFactory, clock: FakeClock
) -> None:
    """Audio and sample of the deleted workspace go; another workspace's audio stays."""
    blobs = InMemoryBlobStore()
    services = Services.build(
        uow,
        clock,
        hasher=FakePasswordHasher(),
        mailer=FakeMailer(),
        cipher=FakeCipher(),
        guard=AllowAllTargets(),
        blobs=blobs,
        synthesizer=FakeSynthesizer(),
        cloner=FakeCloner(),
        sample_prober=FakeSampleProber(),
    )
    partner = services.partners.create("Reseller", "ops@reseller.example").partner.id
    data = ClientInput("Client", "business", AdminInput("Ada", "Lovelace", "ada@client.example"))
    client = services.partner_clients.create(partner, data).client.id
    kept = services.accounts.create("Other").account.id
    for account in (client, kept):
        services.voice.update(account, VoicePatch(preset_voice="Layla"))
        services.voice.speak(account, "Hello")
    services.voice.clone(client, CloneRequest("Me"), "me.wav", [fake_sample(20)])
    kept_keys = set(services.voice.stored_objects(kept))

    services.partner_clients.delete(partner, client)

    assert set(blobs.objects) == kept_keys
