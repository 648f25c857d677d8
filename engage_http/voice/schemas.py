"""Request and response bodies of voice (SPEC 2 Voice settings; SPEC 4 Voice)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

import attrs

from engage_core.kernel.unset import UNSET, Unset
from engage_core.voice import model as domain
from engage_core.voice.catalogue import BuiltinVoice
from engage_http.constraints import Doc, Text
from engage_http.converter import renders
from engage_http.uploads import Upload

Mode = Literal["preset", "clone"]
Language = Literal["ar", "en"]
Gender = Literal["male", "female"]
Style = Literal["conversational", "narrator"]
DialectCode = Literal["arb", "ksa", "egy", "leb", "syr", "jor", "irq", "uae", "bah", "qat", "pls", "msa", "en"]


@renders(domain.VoiceView)
@attrs.frozen
class VoiceSettings:
    """The workspace's voice settings (SPEC 2)."""

    enabled: bool = attrs.field(metadata={"description": "Whether the voice speaks (clone mode needs it)."})
    voice_configured: bool = attrs.field(
        metadata={"description": "A preset voice is chosen (preset mode) or a voice cloned (clone mode)."}
    )
    tts_ready: bool = attrs.field(
        metadata={"description": "`POST /voice/tts` would speak now: its prerequisites hold and minutes remain."}
    )
    has_cloned_voice: bool
    voice_cloning_enabled: bool = attrs.field(metadata={"description": "The plan allows cloning."})
    mode: Mode
    voice_id: str | None = attrs.field(metadata={"description": "The cloned voice's id, or null."})
    voice_name: str | None = attrs.field(
        metadata={"description": "The cloned voice's name in clone mode, else the preset voice's."}
    )
    language: Language
    dialect: DialectCode
    preset_voice: str | None = attrs.field(
        metadata={"description": "A name from `GET /voice/voices`; null until one is chosen."}
    )
    preset_language: str = attrs.field(metadata={"description": "`auto` (from the text) or a BCP-47 code."})
    preset_style_prompt: str | None
    voice_minutes_limit: int = attrs.field(metadata={"description": "Minutes of speech a month on the plan."})
    voice_minutes_remaining: float = attrs.field(
        metadata={"description": "This calendar month's minutes left, counted from the audio really synthesised."}
    )


@renders(domain.VoiceStatus)
@attrs.frozen
class VoiceStatus:
    """Whether a voice is configured and its engine reachable."""

    configured: bool
    connected: bool = attrs.field(
        metadata={"description": "The mode's engine is there: always in preset mode; in clone mode, a provider."}
    )
    mode: Mode


@renders(BuiltinVoice)
@attrs.frozen
class Voice:
    """A built-in voice."""

    name: str
    gender: Gender
    tags: list[str] = attrs.field(metadata={"description": "Style words."})
    languages: list[str] = attrs.field(metadata={"description": "ISO 639-1 codes it speaks."})


@attrs.frozen
class Languages:
    """The languages, as two arrays of the same length."""

    code: list[str]
    label: list[str]


@attrs.frozen
class VoiceCatalogue:
    """The built-in voices and the languages they speak."""

    mode: Mode
    voices: list[Voice]
    languages: Languages


@attrs.frozen
class Dialect:
    """A dialect code (SPEC 2) and its name."""

    code: DialectCode
    label: str


@attrs.frozen
class VoiceSettingsPatch:
    """Any of the settings; choosing `preset_voice` switches to preset mode and enables synthesis
    unless `enabled` is given."""

    mode: Mode | Unset = UNSET
    enabled: bool | Unset = UNSET
    preset_voice: Annotated[str, Text(max_length=32), Doc(example="Layla")] | Unset = UNSET
    preset_language: (
        Annotated[str, Text(max_length=35, pattern="^(auto|(ar|en)(-[A-Za-z0-9]{2,8})*)$"), Doc(example="auto")] | Unset
    ) = UNSET
    preset_style_prompt: Annotated[str, Text(max_length=domain.STYLE_PROMPT_MAX)] | Unset | None = UNSET
    language: Language | Unset = UNSET
    dialect: DialectCode | Unset = UNSET

    def to_core(self) -> domain.VoicePatch:
        prompt = self.preset_style_prompt
        return domain.VoicePatch(
            mode=None if self.mode is UNSET else self.mode,
            enabled=None if self.enabled is UNSET else self.enabled,
            preset_voice=None if self.preset_voice is UNSET else self.preset_voice,
            preset_language=None if self.preset_language is UNSET else self.preset_language,
            preset_style_prompt=None if prompt is UNSET else prompt,
            clear_style_prompt=prompt is None,
            language=None if self.language is UNSET else self.language,
            dialect=None if self.dialect is UNSET else self.dialect,
        )


@attrs.frozen
class CloneForm:
    """A recording to clone (`multipart/form-data` only)."""

    audio_file: Annotated[
        Upload,
        Doc(description="MP3, WAV, OGG, M4A, WEBM, MP4, AAC or FLAC, at most 32 MB, 5 seconds to 5 minutes."),
    ]
    name: Annotated[str, Text(max_length=domain.VOICE_NAME_MAX), Doc(example="My voice")]
    language: Language = "ar"
    dialect: DialectCode = "arb"
    gender: Gender = "female"
    style: Style = "conversational"


@attrs.frozen
class ClonedVoice:
    """The new cloned voice; the workspace is now in clone mode."""

    voice_id: str
    voice_name: str
    language: Language
    dialect: DialectCode
    mode: Mode


@attrs.frozen
class Preloaded:
    """The warmed voice."""

    voice_id: str
    preloaded_at: datetime


@attrs.frozen
class SpeechInput:
    """Text to speak."""

    text: Annotated[str, Text(min_length=1, max_length=domain.TEXT_MAX), Doc(example="Hello and welcome!")]


@renders(domain.SpeechResult)
@attrs.frozen
class Speech:
    """Where the audio is, and how it was spoken."""

    audio_url: str = attrs.field(metadata={"description": "Public URL of the m4a file."})
    format: Literal["m4a"]
    text_length: int
    mode: Mode
    duration_seconds: float = attrs.field(metadata={"description": "The audio's length, counted against minutes."})
    cached: bool = attrs.field(metadata={"description": "Served from the store: this text in this voice again."})
    language: Language
    dialect: str | None = attrs.field(metadata={"description": "The dialect really spoken."})
    dialect_fallback: bool = attrs.field(
        metadata={"description": "True when no voice speaks the dialect asked for and MSA was spoken instead."}
    )
    notice: str | None = attrs.field(metadata={"description": "Says so when `dialect_fallback` is true."})
