"""The voice settings of a workspace and the rules of SPEC 3 "Voice mode".

- One settings row per workspace, created with defaults on first use: mode `preset`, disabled,
  no preset voice, language `ar`, dialect `arb`, preset language `auto`.
- Selecting `preset_voice` switches mode to `preset` and enables synthesis when `enabled` is
  omitted. A successful clone sets mode `clone` and `enabled` true. Deleting the cloned voice clears
  the clone's metadata (a workspace in clone mode falls back to `preset`); preset voices are
  unaffected.
- TTS needs, in preset mode, `preset_voice`; in clone mode, `enabled` and a cloned voice.
- Minutes: what was synthesised this calendar month (UTC), from the real duration of the audio
  (a cached answer costs nothing). The limit comes from the plan (`MINUTES_BY_PLAN`).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

import attrs

from engage_core.kernel.errors import ValidationFailed
from engage_core.voice.catalogue import DIALECTS, GENDERS, LANGUAGES, voice_named

PRESET = "preset"
CLONE = "clone"
MODES = (PRESET, CLONE)
STYLES = ("conversational", "narrator")
AUTO = "auto"

TEXT_MAX = 5000
STYLE_PROMPT_MAX = 500
VOICE_NAME_MAX = 100
PRELOAD_STALE_SECONDS = 60 * 60
"""SPEC 8: clone mode warms the voice again when its last preload is older than this."""

MINUTES_BY_PLAN: dict[str, int] = {"starter": 10, "pro": 100, "business": 1000}
"""Synthesised minutes a month, by plan slug (SPEC names the limit, not its values)."""
UNLIMITED_MINUTES = 1_000_000
"""Without plans (a library user's services): a limit nobody reaches."""

_BCP47 = re.compile(r"[a-z]{2,3}(-[A-Za-z0-9]{2,8})*")


def month_start(now: datetime) -> datetime:
    return datetime(now.year, now.month, 1, tzinfo=UTC)


@attrs.frozen
class ClonedVoice:
    """The provider's clone of the workspace's voice."""

    voice_id: str
    name: str
    language: str
    dialect: str
    gender: str
    style: str


@attrs.frozen
class VoiceSettings:
    """A workspace's stored voice settings, its clone and its use this month."""

    enabled: bool = False
    mode: str = PRESET
    preset_voice: str | None = None
    preset_language: str = AUTO
    preset_style_prompt: str | None = None
    language: str = "ar"
    dialect: str = "arb"
    clone: ClonedVoice | None = None
    sample_key: str | None = None
    preloaded_at: datetime | None = None
    usage_month: datetime | None = None
    seconds_used: float = 0.0

    @property
    def has_cloned_voice(self) -> bool:
        return self.clone is not None

    @property
    def voice_configured(self) -> bool:
        return self.preset_voice is not None if self.mode == PRESET else self.has_cloned_voice

    @property
    def tts_ready(self) -> bool:
        """The SPEC 4 TTS prerequisites hold."""
        if self.mode == PRESET:
            return self.preset_voice is not None
        return self.enabled and self.has_cloned_voice

    def used_seconds(self, now: datetime) -> float:
        """Seconds synthesised in `now`'s month."""
        return self.seconds_used if self.usage_month == month_start(now) else 0.0

    def spent(self, seconds: float, now: datetime) -> VoiceSettings:
        """These settings after `seconds` more of synthesis at `now`."""
        return attrs.evolve(self, usage_month=month_start(now), seconds_used=self.used_seconds(now) + seconds)


@attrs.frozen
class VoiceView:
    """`GET /voice`: the settings object of SPEC 2."""

    settings: VoiceSettings
    voice_cloning_enabled: bool
    voice_minutes_limit: int
    voice_minutes_remaining: float

    @property
    def enabled(self) -> bool:
        return self.settings.enabled

    @property
    def voice_configured(self) -> bool:
        return self.settings.voice_configured

    @property
    def tts_ready(self) -> bool:
        return self.settings.tts_ready and self.voice_minutes_remaining > 0

    @property
    def has_cloned_voice(self) -> bool:
        return self.settings.has_cloned_voice

    @property
    def mode(self) -> str:
        return self.settings.mode

    @property
    def voice_id(self) -> str | None:
        clone = self.settings.clone
        return None if clone is None else clone.voice_id

    @property
    def voice_name(self) -> str | None:
        settings = self.settings
        if settings.mode == CLONE and settings.clone is not None:
            return settings.clone.name
        return settings.preset_voice

    @property
    def language(self) -> str:
        return self.settings.language

    @property
    def dialect(self) -> str:
        return self.settings.dialect

    @property
    def preset_voice(self) -> str | None:
        return self.settings.preset_voice

    @property
    def preset_language(self) -> str:
        return self.settings.preset_language

    @property
    def preset_style_prompt(self) -> str | None:
        return self.settings.preset_style_prompt


@attrs.frozen
class VoiceStatus:
    """`GET /voice/status`: whether a voice is configured, whether its engine answers, the mode."""

    configured: bool
    connected: bool
    mode: str


@attrs.frozen
class VoicePatch:
    """`PATCH /voice/settings`: only the fields given (None: not given; `preset_style_prompt`
    `clear_style_prompt` to set it to null)."""

    mode: str | None = None
    enabled: bool | None = None
    preset_voice: str | None = None
    preset_language: str | None = None
    preset_style_prompt: str | None = None
    clear_style_prompt: bool = False
    language: str | None = None
    dialect: str | None = None


def apply_patch(settings: VoiceSettings, patch: VoicePatch) -> VoiceSettings:
    """The settings after `patch` (SPEC 3 Voice mode); ValidationFailed naming each bad field."""
    errors: dict[str, list[str]] = {}
    changes: dict[str, object] = {}
    if patch.mode is not None:
        if patch.mode not in MODES:
            errors["mode"] = ["The mode must be preset or clone."]
        elif patch.mode == CLONE and not settings.has_cloned_voice:
            errors["mode"] = ["Clone mode needs a cloned voice: clone one first (POST /voice/clone)."]
        else:
            changes["mode"] = patch.mode
    if patch.preset_voice is not None:
        voice = voice_named(patch.preset_voice)
        if voice is None:
            errors["preset_voice"] = ["Unknown voice: choose a name from GET /voice/voices."]
        else:
            changes["preset_voice"] = voice.name
            if patch.mode is None:
                changes["mode"] = PRESET
            if patch.enabled is None:
                changes["enabled"] = True
    if patch.enabled is not None:
        changes["enabled"] = patch.enabled
    if patch.preset_language is not None:
        if patch.preset_language != AUTO and (
            not _BCP47.fullmatch(patch.preset_language) or patch.preset_language.split("-")[0] not in LANGUAGES
        ):
            errors["preset_language"] = ["The preset language must be auto or a BCP-47 code of Arabic or English."]
        else:
            changes["preset_language"] = patch.preset_language
    if patch.clear_style_prompt:
        changes["preset_style_prompt"] = None
    elif patch.preset_style_prompt is not None:
        prompt = patch.preset_style_prompt.strip()
        if len(prompt) > STYLE_PROMPT_MAX:
            errors["preset_style_prompt"] = [f"The style prompt may not be longer than {STYLE_PROMPT_MAX} characters."]
        else:
            changes["preset_style_prompt"] = prompt or None
    if patch.language is not None:
        if patch.language not in LANGUAGES:
            errors["language"] = ["The language must be ar or en."]
        else:
            changes["language"] = patch.language
    if patch.dialect is not None:
        if patch.dialect not in DIALECTS:
            errors["dialect"] = ["Unknown dialect: choose a code from GET /voice/dialects."]
        else:
            changes["dialect"] = patch.dialect
    if errors:
        raise ValidationFailed(errors)
    return attrs.evolve(settings, **changes)  # type: ignore[arg-type]


@attrs.frozen
class CloneRequest:
    """`POST /voice/clone` fields besides the sample."""

    name: str
    language: str = "ar"
    dialect: str = "arb"
    gender: str = "female"
    style: str = "conversational"

    def checked(self) -> CloneRequest:
        """The request with its name trimmed; ValidationFailed naming each bad field."""
        errors: dict[str, list[str]] = {}
        name = self.name.strip()
        if not name:
            errors["name"] = ["The name field is required."]
        elif len(name) > VOICE_NAME_MAX:
            errors["name"] = [f"The name may not be longer than {VOICE_NAME_MAX} characters."]
        if self.language not in LANGUAGES:
            errors["language"] = ["The language must be ar or en."]
        if self.dialect not in DIALECTS:
            errors["dialect"] = ["Unknown dialect: choose a code from GET /voice/dialects."]
        if self.gender not in GENDERS:
            errors["gender"] = ["The gender must be male or female."]
        if self.style not in STYLES:
            errors["style"] = ["The style must be conversational or narrator."]
        if errors:
            raise ValidationFailed(errors)
        return attrs.evolve(self, name=name)


@attrs.frozen
class SpeechResult:
    """`POST /voice/tts`: where the audio is, and what was said how."""

    audio_url: str
    format: str
    text_length: int
    mode: str
    duration_seconds: float
    cached: bool
    language: str
    dialect: str | None
    dialect_fallback: bool
    notice: str | None


def check_text(text: str) -> str:
    """The TTS text (1-5000 characters, not blank); ValidationFailed on `text`."""
    if not text.strip():
        raise ValidationFailed.on("text", "The text field is required.")
    if len(text) > TEXT_MAX:
        raise ValidationFailed.on("text", f"The text may not be longer than {TEXT_MAX} characters.")
    return text


_ARABIC = re.compile(r"[\u0600-\u06ff\u0750-\u077f\u08a0-\u08ff\ufb50-\ufdff\ufe70-\ufeff]")


def detect_language(text: str) -> str:
    """`ar` when the text holds Arabic letters, else `en` (for preset language `auto`)."""
    return "ar" if _ARABIC.search(text) else "en"
