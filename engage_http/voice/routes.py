"""Voice (SPEC 4): settings, status, the catalogue, dialects, clone, preload, TTS and delete.

`POST /voice/clone` takes `multipart/form-data` (the recording is at most 32 MB) and needs the
plan's `voice_cloning_enabled`; without a cloning provider it answers 503 saying one is needed,
the recording kept. `POST /voice/tts` may take a few seconds offline (espeak-ng) and longer with a
service; the same text in the same voice is served from the store at once.
"""

from __future__ import annotations

from engage_core.voice.catalogue import BuiltinVoice
from engage_core.voice.model import CloneRequest, SpeechResult, VoiceStatus, VoiceView
from engage_http.operations import Call, Operation, Shape, declare
from engage_http.voice.schemas import (
    ClonedVoice,
    CloneForm,
    Dialect,
    Languages,
    Preloaded,
    Speech,
    SpeechInput,
    Voice,
    VoiceCatalogue,
    VoiceSettings,
    VoiceSettingsPatch,
)
from engage_http.voice.schemas import VoiceStatus as VoiceStatusSchema

TAG = "Voice"

CLONE_BODY_MAX = 33 * 1024 * 1024
"""The whole form: the 32 MB recording and its text fields."""


def show(call: Call[None, None]) -> VoiceView:
    return call.services.voice.settings(call.account_id, call.plan)


def status(call: Call[None, None]) -> VoiceStatus:
    return call.services.voice.status(call.account_id)


def update(call: Call[VoiceSettingsPatch, None]) -> VoiceView:
    return call.services.voice.update(call.account_id, call.body.to_core(), call.plan)


def voices(call: Call[None, None]) -> VoiceCatalogue:
    service = call.services.voice
    languages = service.languages()
    return VoiceCatalogue(
        mode=service.mode(call.account_id),  # type: ignore[arg-type]
        voices=[_voice(v) for v in service.voices()],
        languages=Languages(list(languages), list(languages.values())),
    )


def _voice(voice: BuiltinVoice) -> Voice:
    return Voice(voice.name, voice.gender, list(voice.tags), list(voice.languages))  # type: ignore[arg-type]


def dialects(call: Call[None, None]) -> list[Dialect]:
    return [Dialect(code, label) for code, label in call.services.voice.dialects().items()]  # type: ignore[arg-type]


def clone(call: Call[CloneForm, None]) -> ClonedVoice:
    body = call.body
    request = CloneRequest(body.name, body.language, body.dialect, body.gender, body.style)
    data = body.audio_file.data
    cloned = call.services.voice.clone(call.account_id, request, body.audio_file.filename, [data], call.plan)
    return ClonedVoice(cloned.voice_id, cloned.name, cloned.language, cloned.dialect, "clone")  # type: ignore[arg-type]


def preload(call: Call[None, None]) -> Preloaded:
    voice_id, preloaded_at = call.services.voice.preload(call.account_id)
    return Preloaded(voice_id, preloaded_at)


def tts(call: Call[SpeechInput, None]) -> SpeechResult:
    return call.services.voice.speak(call.account_id, call.body.text, call.plan)


def destroy(call: Call[None, None]) -> None:
    call.services.voice.delete(call.account_id)


OPERATIONS: tuple[Operation, ...] = declare(
    Operation("GET", "/voice", show, "Get the voice settings", TAG, VoiceSettings, message="Voice settings retrieved."),
    Operation(
        "GET",
        "/voice/status",
        status,
        "Get the voice status",
        TAG,
        VoiceStatusSchema,
        message="Voice status retrieved.",
    ),
    Operation(
        "PATCH",
        "/voice/settings",
        update,
        "Update the voice settings",
        TAG,
        VoiceSettings,
        message="Voice settings updated.",
        body=VoiceSettingsPatch,
        errors=frozenset({422}),
        description="Choosing `preset_voice` switches to preset mode and enables synthesis unless `enabled` is "
        "given. `mode: clone` needs a cloned voice. Unknown voices, dialects and languages are a 422.",
    ),
    Operation(
        "GET", "/voice/voices", voices, "List the built-in voices", TAG, VoiceCatalogue, message="Voices retrieved."
    ),
    Operation(
        "GET", "/voice/dialects", dialects, "List the dialects", TAG, Dialect, Shape.MANY, message="Dialects retrieved."
    ),
    Operation(
        "POST",
        "/voice/clone",
        clone,
        "Clone a voice",
        TAG,
        ClonedVoice,
        status=201,
        message="Voice cloned.",
        body=CloneForm,
        form_only=True,
        body_limit=CLONE_BODY_MAX,
        feature="voice_cloning_enabled",
        errors=frozenset({422}),
        description="`multipart/form-data` with an `audio_file` (MP3, WAV, OGG, M4A, WEBM, MP4, AAC or FLAC, read "
        "from the content; at most 32 MB; 5 seconds to 5 minutes, at least 10 seconds of speech recommended) and "
        "a `name`. May take 30-90 seconds. A successful clone sets mode `clone` and `enabled` true. Without a "
        "cloning provider the recording is kept and the answer is a 503 saying one is needed.",
    ),
    Operation(
        "POST",
        "/voice/preload",
        preload,
        "Preload the cloned voice",
        TAG,
        Preloaded,
        message="Voice preloaded.",
        errors=frozenset({422}),
        description="Clone mode only (422 otherwise). TTS warms the voice itself when the last preload is older "
        "than 60 minutes.",
    ),
    Operation(
        "POST",
        "/voice/tts",
        tts,
        "Text to speech",
        TAG,
        Speech,
        message="Speech generated.",
        body=SpeechInput,
        errors=frozenset({422}),
        description="Speaks 1-5000 characters in the workspace's voice and answers the m4a file's public URL. Preset "
        "mode needs `preset_voice`; clone mode needs `enabled` and a cloned voice (422 otherwise), as does a month "
        "whose voice minutes are used up. The same text in the same voice is served from the store, costing no "
        "minutes. A dialect no voice speaks is spoken in Modern Standard Arabic, and `dialect_fallback` says so.",
    ),
    Operation(
        "DELETE",
        "/voice",
        destroy,
        "Delete the cloned voice",
        TAG,
        shape=Shape.NOTHING,
        status=204,
        description="Irreversible: the cloned voice, its recording and its audio are removed; the preset settings "
        "stay, and a workspace in clone mode returns to preset mode.",
    ),
)
