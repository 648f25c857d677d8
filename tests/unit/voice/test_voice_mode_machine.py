"""Voice mode (SPEC 3) as a state machine over the fakes: choosing preset voices, switching modes,
enabling and disabling, cloning, deleting the clone and speaking, in any order. After every step
the stored settings agree with a model of the rules, TTS succeeds exactly when its prerequisites
hold, the blob store holds exactly the audio and recording the rows refer to, and the minutes left
are the limit less the durations really synthesised."""

from __future__ import annotations

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from engage_core.kernel.errors import ValidationFailed
from engage_core.services import Services
from engage_core.testing import FakeClock, InMemoryBlobStore, InMemoryUnitOfWorkFactory
from engage_core.voice.fakes import SECONDS_PER_CHARACTER, FakeCloner, FakeSampleProber, FakeSynthesizer, fake_sample
from engage_core.voice.model import CLONE, PRESET, CloneRequest, VoicePatch
from engage_testing.strategies import preset_voices

from ..factories import START

TEXTS = ("Hello", "Welcome back", "مرحبا")


class VoiceModes(RuleBasedStateMachine):
    """One workspace's voice, and what the rules say it should be."""

    @initialize()
    def start(self) -> None:
        self.clock = FakeClock(START)
        self.uow = InMemoryUnitOfWorkFactory()
        self.blobs = InMemoryBlobStore()
        self.services = Services.build(
            self.uow,
            self.clock,
            blobs=self.blobs,
            synthesizer=FakeSynthesizer(),
            cloner=FakeCloner(),
            sample_prober=FakeSampleProber(),
        )
        self.account = self.services.accounts.create("Acme").account.id
        self.voice = self.services.voice
        self.mode, self.enabled, self.preset, self.cloned = PRESET, False, None, False
        self.spoken: set[tuple[str, str, str | None]] = set()  # (text, mode, preset voice) synthesised
        self.seconds = 0.0

    @rule(name=preset_voices, enabled=st.sampled_from([None, True, False]))
    def choose_preset(self, name: str, enabled: bool | None) -> None:
        self.voice.update(self.account, VoicePatch(preset_voice=name, enabled=enabled))
        self.mode, self.preset = PRESET, name
        self.enabled = True if enabled is None else enabled

    @rule(enabled=st.booleans())
    def set_enabled(self, enabled: bool) -> None:
        self.voice.update(self.account, VoicePatch(enabled=enabled))
        self.enabled = enabled

    @rule(mode=st.sampled_from([PRESET, CLONE]))
    def switch_mode(self, mode: str) -> None:
        if mode == CLONE and not self.cloned:
            with pytest.raises(ValidationFailed):
                self.voice.update(self.account, VoicePatch(mode=mode))
            return
        self.voice.update(self.account, VoicePatch(mode=mode))
        self.mode = mode

    @rule()
    def clone(self) -> None:
        self.voice.clone(self.account, CloneRequest("Me"), "me.wav", [fake_sample(20)])
        if self.cloned:  # a new clone replaces the old one and its audio
            self.spoken = {s for s in self.spoken if s[1] != CLONE}
        self.mode, self.enabled, self.cloned = CLONE, True, True

    @rule()
    def delete(self) -> None:
        self.voice.delete(self.account)
        if self.mode == CLONE:
            self.enabled = self.preset is not None
        self.mode, self.cloned = PRESET, False
        self.spoken = {s for s in self.spoken if s[1] != CLONE}

    @rule(text=st.sampled_from(TEXTS))
    def speak(self, text: str) -> None:
        ready = self.preset is not None if self.mode == PRESET else self.enabled and self.cloned
        if not ready:
            with pytest.raises(ValidationFailed):
                self.voice.speak(self.account, text)
            return
        key = (text, self.mode, self.preset if self.mode == PRESET else None)
        result = self.voice.speak(self.account, text)
        assert result.cached == (key in self.spoken)
        if not result.cached:
            self.seconds += len(text) * SECONDS_PER_CHARACTER
        self.spoken.add(key)

    @invariant()
    def settings_follow_the_rules(self) -> None:
        view = self.voice.settings(self.account)
        assert (view.mode, view.enabled, view.preset_voice, view.has_cloned_voice) == (
            self.mode,
            self.enabled,
            self.preset,
            self.cloned,
        )

    @invariant()
    def minutes_are_the_durations_synthesised(self) -> None:
        remaining = self.voice.settings(self.account).voice_minutes_remaining
        assert remaining == pytest.approx(1000 - self.seconds / 60, abs=0.01)

    @invariant()
    def the_store_holds_what_the_rows_refer_to(self) -> None:
        assert set(self.blobs.objects) == set(self.voice.stored_objects(self.account))


VoiceModes.TestCase.settings = settings(max_examples=60, stateful_step_count=25, deadline=None)
TestVoiceModes = VoiceModes.TestCase
