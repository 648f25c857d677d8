"""Voice use cases (SPEC 4 Voice): settings, status, catalogue, clone, preload, TTS, delete.

TTS audio is stored through the `BlobStore` and cached by voice and text: the same text in the same
voice is served from the store, costing no minutes. The object and its cache row cannot be written
in one transaction, so the media library's removal records cover the gap (as an upload's do,
`engage_core.media.service`): a record of the new key, due after a grace period, is committed
before the object is stored and cancelled in the transaction that adds the row; a crash between
leaves the record, and the media sweep removes the object.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta
from typing import BinaryIO

import attrs

from engage_core.jobs.model import JobRequest
from engage_core.kernel.blobs import BlobStore, BlobTooLarge, new_key
from engage_core.kernel.clock import Clock
from engage_core.kernel.errors import Unavailable, ValidationFailed
from engage_core.media.service import SWEEP_JOB, SWEEP_KEY, UPLOAD_GRACE
from engage_core.plans.entitlements import Entitlements
from engage_core.plans.model import Plan
from engage_core.unit_of_work import UnitOfWorkFactory, WorkspaceUnitOfWork
from engage_core.voice.catalogue import DIALECTS, ENGLISH_DIALECT, LANGUAGES, VOICES, BuiltinVoice, voice_named
from engage_core.voice.model import (
    AUTO,
    CLONE,
    MINUTES_BY_PLAN,
    PRELOAD_STALE_SECONDS,
    PRESET,
    UNLIMITED_MINUTES,
    ClonedVoice,
    CloneRequest,
    SpeechResult,
    VoicePatch,
    VoiceSettings,
    VoiceStatus,
    VoiceView,
    apply_patch,
    check_text,
    detect_language,
)
from engage_core.voice.ports import (
    CachedSpeech,
    CloningUnavailable,
    SampleProber,
    SampleRefused,
    Speech,
    SpeechRequest,
    SpeechSynthesizer,
    SynthesisFailed,
    VoiceCloner,
)

log = logging.getLogger("engage.voice")

KEY_PREFIX = "voice"
AUDIO_FORMAT = "m4a"
AUDIO_TYPE = "audio/mp4"
SAMPLE_MAX_BYTES = 32 * 1024 * 1024
SAMPLE_MIN_SECONDS = 5.0
SAMPLE_MAX_SECONDS = 300.0
AUDIO_FILE = "audio_file"
AUDIO_MAX_BYTES = 64 * 1024 * 1024
"""The largest synthesised file kept (5000 characters are a few minutes: a few MB of AAC)."""


def minutes_limit(plan: Plan | None) -> int:
    """The plan's monthly voice minutes (`MINUTES_BY_PLAN`); unlimited without plans."""
    if plan is None:
        return UNLIMITED_MINUTES
    return MINUTES_BY_PLAN.get(plan.slug, 0)


class VoiceService:
    """A workspace's voice."""

    def __init__(
        self,
        uow: UnitOfWorkFactory,
        clock: Clock,
        blobs: BlobStore,
        synthesizer: SpeechSynthesizer,
        cloner: VoiceCloner,
        sample_prober: SampleProber,
        entitlements: Entitlements | None = None,
        *,
        grace: timedelta = UPLOAD_GRACE,
    ) -> None:
        self._uow = uow
        self._clock = clock
        self._blobs = blobs
        self._synthesizer = synthesizer
        self._cloner = cloner
        self._prober = sample_prober
        self._entitlements = entitlements
        self._grace = grace

    # -- reading ------------------------------------------------------------------------------------

    def settings(self, account_id: int, plan: Plan | None = None) -> VoiceView:
        """`GET /voice`."""
        with self._uow.workspace(account_id, readonly=True) as uow:
            settings = uow.voice_settings.get() or VoiceSettings()
        return self._view(account_id, settings, plan)

    def status(self, account_id: int) -> VoiceStatus:
        """`GET /voice/status`: `connected` when the mode's engine is there (offline, clone mode is
        connected only with a cloning provider configured)."""
        with self._uow.workspace(account_id, readonly=True) as uow:
            settings = uow.voice_settings.get() or VoiceSettings()
        connected = self._cloner.configured if settings.mode == CLONE else True
        return VoiceStatus(configured=settings.voice_configured, connected=connected, mode=settings.mode)

    @staticmethod
    def voices() -> Sequence[BuiltinVoice]:
        """The built-in voices (SPEC 2)."""
        return VOICES

    @staticmethod
    def languages() -> dict[str, str]:
        """The languages the voices speak: code -> name."""
        return dict(LANGUAGES)

    @staticmethod
    def dialects() -> dict[str, str]:
        """SPEC 2's dialect codes: code -> name."""
        return dict(DIALECTS)

    def mode(self, account_id: int) -> str:
        """The workspace's mode (`preset` or `clone`)."""
        with self._uow.workspace(account_id, readonly=True) as uow:
            settings = uow.voice_settings.get() or VoiceSettings()
        return settings.mode

    # -- changing -----------------------------------------------------------------------------------

    def update(self, account_id: int, patch: VoicePatch, plan: Plan | None = None) -> VoiceView:
        """`PATCH /voice/settings` (SPEC 3 Voice mode)."""
        with self._uow.workspace(account_id) as uow:
            settings = apply_patch(uow.voice_settings.lock(self._clock.now()), patch)
            uow.voice_settings.save(settings, self._clock.now())
            uow.commit()
        return self._view(account_id, settings, plan)

    def clone(
        self,
        account_id: int,
        request: CloneRequest,
        filename: str,
        chunks: Iterable[bytes],
        plan: Plan | None = None,
    ) -> ClonedVoice:
        """`POST /voice/clone`: store the sample, check it, and have the provider clone it. Without a
        provider the sample is kept and :class:`.Unavailable` says cloning needs one."""
        plan = self._plan(account_id, plan)
        if plan is not None:
            plan.require("voice_cloning_enabled")
        request = request.checked()
        key = new_key(f"{KEY_PREFIX}/samples", "bin")
        self._schedule(account_id, key, self._clock.now() + self._grace)
        try:
            self._blobs.put(key, chunks, max_bytes=SAMPLE_MAX_BYTES, content_type="application/octet-stream")
        except BlobTooLarge:
            self._discard(account_id, key)
            raise ValidationFailed.on(AUDIO_FILE, "The audio file may not be larger than 32 MB.") from None
        except BaseException:
            self._discard(account_id, key)
            raise
        try:
            with self._blobs.open(key) as source:
                probe = self._prober.probe(source)
        except SampleRefused as refused:
            self._discard(account_id, key)
            raise ValidationFailed.on(AUDIO_FILE, refused.reason) from None
        if not SAMPLE_MIN_SECONDS <= probe.duration_seconds <= SAMPLE_MAX_SECONDS:
            self._discard(account_id, key)
            raise ValidationFailed.on(
                AUDIO_FILE,
                f"The recording must last between {SAMPLE_MIN_SECONDS:g} seconds and {SAMPLE_MAX_SECONDS / 60:g} "
                f"minutes (it lasts {probe.duration_seconds:.1f} s); at least 10 seconds of speech is recommended.",
            )
        self._keep_sample(account_id, key)
        wanted = ClonedVoice("", request.name, request.language, request.dialect, request.gender, request.style)
        try:
            with self._blobs.open(key) as source:
                voice_id = self._cloner.clone(source, filename or f"sample.{probe.format}", wanted)
        except CloningUnavailable as missing:
            raise Unavailable(str(missing)) from None
        except SynthesisFailed as failed:
            raise Unavailable(f"The voice could not be cloned: {failed.reason}") from None
        cloned = ClonedVoice(voice_id, request.name, request.language, request.dialect, request.gender, request.style)
        now = self._clock.now()
        with self._uow.workspace(account_id) as uow:
            settings = uow.voice_settings.lock(self._clock.now())
            previous = settings.clone
            stale = list(uow.speech_cache.remove_cloned()) if previous is not None else []
            for old in stale:
                self._schedule_in(uow, old, now)
            uow.voice_settings.save(_with_clone(settings, cloned, now), now)
            uow.commit()
        if previous is not None and previous.voice_id != voice_id:
            self._forget_at_provider(previous.voice_id)
        self._remove_now(account_id, stale)
        return cloned

    def preload(self, account_id: int) -> tuple[str, datetime]:
        """`POST /voice/preload`: warm the cloned voice (clone mode only)."""
        with self._uow.workspace(account_id, readonly=True) as uow:
            settings = uow.voice_settings.get() or VoiceSettings()
        if settings.mode != CLONE or settings.clone is None:
            raise ValidationFailed.on("mode", "Preloading is for clone mode: clone a voice first.")
        return settings.clone.voice_id, self._preload(account_id, settings.clone.voice_id)

    def delete(self, account_id: int) -> None:
        """`DELETE /voice`: the cloned voice, its sample and its audio, for good. Preset settings stay."""
        now = self._clock.now()
        with self._uow.workspace(account_id) as uow:
            settings = uow.voice_settings.lock(now)
            previous = settings.clone
            keys = list(uow.speech_cache.remove_cloned())
            if settings.sample_key is not None:
                keys.append(settings.sample_key)
            for key in keys:
                self._schedule_in(uow, key, now)
            cleared = VoiceSettings(
                enabled=settings.enabled if settings.mode == PRESET else settings.preset_voice is not None,
                mode=PRESET,
                preset_voice=settings.preset_voice,
                preset_language=settings.preset_language,
                preset_style_prompt=settings.preset_style_prompt,
                language=settings.language,
                dialect=settings.dialect,
                usage_month=settings.usage_month,
                seconds_used=settings.seconds_used,
            )
            uow.voice_settings.save(cleared, now)
            uow.commit()
        if previous is not None:
            self._forget_at_provider(previous.voice_id)
        self._remove_now(account_id, keys)

    # -- speaking -----------------------------------------------------------------------------------

    def speak(self, account_id: int, text: str, plan: Plan | None = None) -> SpeechResult:
        """`POST /voice/tts`: the audio of `text` in the workspace's voice, from the cache when the
        same text was spoken in the same voice before. Refused (422) when the prerequisites do not
        hold or this month's minutes are spent."""
        text = check_text(text)
        plan = self._plan(account_id, plan)
        limit_seconds = minutes_limit(plan) * 60
        with self._uow.workspace(account_id, readonly=True) as uow:
            settings = uow.voice_settings.get() or VoiceSettings()
        request, voice_id = self._request(settings, text)
        cache_key = self._cache_key(request, voice_id)
        with self._uow.workspace(account_id, readonly=True) as uow:
            cached = uow.speech_cache.get(cache_key)
        if cached is not None:
            return self._result(cached, text, settings.mode, cached=True)
        if settings.used_seconds(self._clock.now()) >= limit_seconds:
            raise ValidationFailed.on("text", "This month's voice minutes are used up.")
        speech = self._synthesize(account_id, settings, request, voice_id)
        key = new_key(f"{KEY_PREFIX}/tts", AUDIO_FORMAT)
        self._schedule(account_id, key, self._clock.now() + self._grace)
        try:
            self._blobs.put(key, [speech.audio], max_bytes=AUDIO_MAX_BYTES, content_type=AUDIO_TYPE)
        except BaseException:
            self._discard(account_id, key)
            raise
        entry = CachedSpeech(
            cache_key,
            key,
            speech.duration_seconds,
            request.language,
            speech.dialect,
            speech.dialect_fallback,
            voice_id is not None,
        )
        now = self._clock.now()
        with self._uow.workspace(account_id) as uow:
            current = uow.voice_settings.lock(self._clock.now())
            uow.voice_settings.save(current.spent(speech.duration_seconds, now), now)
            added = uow.speech_cache.add(entry, now)
            if added:
                uow.blob_removals.cancel(key, now)
            uow.commit()
        if not added:  # a concurrent request stored the same speech first: serve its copy
            self._discard(account_id, key)
            with self._uow.workspace(account_id, readonly=True) as uow:
                entry = uow.speech_cache.get(cache_key) or entry
        return self._result(entry, text, settings.mode, cached=False)

    def _request(self, settings: VoiceSettings, text: str) -> tuple[SpeechRequest, str | None]:
        """What to synthesise, and the cloned voice's id (None for a preset voice)."""
        if settings.mode == CLONE:
            if not settings.enabled or settings.clone is None:
                raise ValidationFailed.on("mode", "Clone mode needs voice enabled and a cloned voice (see GET /voice).")
            clone = settings.clone
            dialect = clone.dialect if clone.language == "ar" else ENGLISH_DIALECT
            return SpeechRequest(text, clone.language, dialect), clone.voice_id
        voice = voice_named(settings.preset_voice or "")
        if voice is None:
            raise ValidationFailed.on("preset_voice", "Choose a preset voice first (PATCH /voice/settings).")
        language = settings.preset_language.split("-")[0] if settings.preset_language != AUTO else detect_language(text)
        dialect = settings.dialect if language == "ar" else ENGLISH_DIALECT
        if language == "ar" and dialect == ENGLISH_DIALECT:
            dialect = "arb"
        return SpeechRequest(text, language, dialect, voice, settings.preset_style_prompt), None

    def _cache_key(self, request: SpeechRequest, voice_id: str | None) -> str:
        engine = "clone" if voice_id is not None else self._synthesizer.engine
        voice = voice_id if voice_id is not None else (request.voice.name if request.voice else "")
        parts = (engine, voice, request.language, request.dialect or "", request.style_prompt or "", request.text)
        return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()

    def _synthesize(
        self, account_id: int, settings: VoiceSettings, request: SpeechRequest, voice_id: str | None
    ) -> Speech:
        try:
            if voice_id is None:
                return self._synthesizer.synthesize(request)
            stale = (
                settings.preloaded_at is None
                or (self._clock.now() - settings.preloaded_at).total_seconds() > PRELOAD_STALE_SECONDS
            )
            if stale:  # SPEC 4: auto-warm a voice whose last preload is older than 60 minutes
                self._preload(account_id, voice_id)
            return self._cloner.synthesize(voice_id, request)
        except CloningUnavailable as missing:
            raise Unavailable(str(missing)) from None
        except SynthesisFailed as failed:
            if failed.unavailable:
                raise Unavailable(f"Speech could not be synthesised: {failed.reason}") from None
            raise ValidationFailed.on("text", failed.reason) from None

    def _preload(self, account_id: int, voice_id: str) -> datetime:
        try:
            self._cloner.preload(voice_id)
        except CloningUnavailable as missing:
            raise Unavailable(str(missing)) from None
        except SynthesisFailed as failed:
            raise Unavailable(f"The voice could not be preloaded: {failed.reason}") from None
        now = self._clock.now()
        with self._uow.workspace(account_id) as uow:
            settings = uow.voice_settings.lock(self._clock.now())
            if settings.clone is not None and settings.clone.voice_id == voice_id:
                uow.voice_settings.save(_preloaded(settings, now), now)
            uow.commit()
        return now

    def _result(self, entry: CachedSpeech, text: str, mode: str, *, cached: bool) -> SpeechResult:
        notice = None
        if entry.dialect_fallback:
            notice = "No offline voice speaks this dialect: the audio is in Modern Standard Arabic."
        return SpeechResult(
            audio_url=self._blobs.public_url(entry.storage_key),
            format=AUDIO_FORMAT,
            text_length=len(text),
            mode=mode,
            duration_seconds=round(entry.duration_seconds, 3),
            cached=cached,
            language=entry.language,
            dialect=entry.dialect,
            dialect_fallback=entry.dialect_fallback,
            notice=notice,
        )

    # -- helpers ------------------------------------------------------------------------------------

    def _plan(self, account_id: int, plan: Plan | None) -> Plan | None:
        if plan is not None or self._entitlements is None:
            return plan
        return self._entitlements.plan_of(account_id)

    def _view(self, account_id: int, settings: VoiceSettings, plan: Plan | None) -> VoiceView:
        plan = self._plan(account_id, plan)
        limit = minutes_limit(plan)
        used = settings.used_seconds(self._clock.now()) / 60
        cloning = plan.has("voice_cloning_enabled") if plan is not None else True
        return VoiceView(settings, cloning, limit, round(max(limit - used, 0.0), 2))

    def _keep_sample(self, account_id: int, key: str) -> None:
        """Make `key` the workspace's sample (its removal record cancelled), removing the previous one."""
        now = self._clock.now()
        with self._uow.workspace(account_id) as uow:
            settings = uow.voice_settings.lock(self._clock.now())
            old = settings.sample_key
            uow.blob_removals.cancel(key, now)
            if old is not None:
                self._schedule_in(uow, old, now)
            uow.voice_settings.save(_with_sample(settings, key), now)
            uow.commit()
        if old is not None:
            self._remove_now(account_id, [old])

    def _schedule(self, account_id: int, key: str, when: datetime) -> None:
        with self._uow.workspace(account_id) as uow:
            self._schedule_in(uow, key, when)
            uow.commit()

    def _schedule_in(self, uow: WorkspaceUnitOfWork, key: str, when: datetime) -> None:
        uow.blob_removals.schedule(key, when)
        uow.jobs.enqueue(JobRequest(SWEEP_JOB, key=SWEEP_KEY, run_at=when), self._clock.now())

    def _discard(self, account_id: int, key: str) -> None:
        """Remove an object that will not be kept, and its record; best effort (the sweep's else)."""
        try:
            self._blobs.delete(key)
            with self._uow.workspace(account_id) as uow:
                uow.blob_removals.cancel(key, self._clock.now())
                uow.commit()
        except Exception:
            log.warning("The discarded voice object %s could not be removed; the sweep will.", key, exc_info=True)

    def _remove_now(self, account_id: int, keys: Sequence[str]) -> None:
        """Remove objects whose records are due now (committed); what fails is the sweep's."""
        if not keys:
            return
        try:
            for key in keys:
                self._blobs.delete(key)
            with self._uow.workspace(account_id) as uow:
                uow.blob_removals.remove(keys)
                uow.commit()
        except Exception:
            log.warning("Voice objects could not be removed yet; the sweep will.", exc_info=True)

    def _forget_at_provider(self, voice_id: str) -> None:
        try:
            self._cloner.delete(voice_id)
        except Exception:
            log.warning("The cloning provider could not delete a voice.", exc_info=True)

    def stored_objects(self, account_id: int) -> Sequence[str]:
        """Every object of the workspace in the blob store: its audio and its clone sample (for the
        workspace's deletion, `PartnerClientService.delete`)."""
        with self._uow.workspace(account_id, readonly=True) as uow:
            keys = list(uow.speech_cache.storage_keys())
            settings = uow.voice_settings.get()
        if settings is not None and settings.sample_key is not None:
            keys.append(settings.sample_key)
        return keys

    def remove_objects(self, keys: Sequence[str]) -> None:
        """Remove the objects of a deleted workspace; what fails is logged (its rows are gone)."""
        for key in keys:
            try:
                self._blobs.delete(key)
            except Exception:
                log.warning("The voice object %s of a deleted workspace could not be removed.", key, exc_info=True)

    def sample(self, account_id: int) -> BinaryIO | None:
        """The stored clone sample (None when there is none); close it when done."""
        with self._uow.workspace(account_id, readonly=True) as uow:
            settings = uow.voice_settings.get()
        if settings is None or settings.sample_key is None:
            return None
        return self._blobs.open(settings.sample_key)


def _with_clone(settings: VoiceSettings, cloned: ClonedVoice, now: datetime) -> VoiceSettings:
    """SPEC 3: a successful clone sets mode `clone` and `enabled` true."""

    return attrs.evolve(settings, clone=cloned, mode=CLONE, enabled=True, preloaded_at=now)


def _with_sample(settings: VoiceSettings, key: str) -> VoiceSettings:

    return attrs.evolve(settings, sample_key=key)


def _preloaded(settings: VoiceSettings, now: datetime) -> VoiceSettings:

    return attrs.evolve(settings, preloaded_at=now)
