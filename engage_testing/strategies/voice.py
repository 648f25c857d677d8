"""Voice settings and text to speech (SPEC 3 Voice mode; SPEC 4 Voice)."""

from __future__ import annotations

from hypothesis import strategies as st

from engage_core.voice.catalogue import DIALECTS, LANGUAGES, VOICES
from engage_core.voice.model import AUTO, PRESET, STYLE_PROMPT_MAX, TEXT_MAX, VoicePatch

from ._text import broken, field, texts, too_long

preset_voices = st.sampled_from([voice.name for voice in VOICES])
"""The names of the built-in voices (`GET /voice/voices`)."""


def voice_patches(*, invalid: bool = False) -> st.SearchStrategy[VoicePatch]:
    """`PATCH /voice/settings` bodies in preset mode (clone mode needs a cloned voice first): a
    built-in voice, languages, dialects and a style prompt, any subset. `invalid=True` draws an
    unknown mode, voice, language or dialect, a malformed preset language or a long style prompt."""
    valid = st.builds(
        VoicePatch,
        mode=st.none() | st.just(PRESET),
        enabled=st.none() | st.booleans(),
        preset_voice=st.none() | preset_voices,
        preset_language=st.none() | st.sampled_from([AUTO, "ar", "en", "ar-SA", "en-GB"]),
        preset_style_prompt=st.none() | texts(STYLE_PROMPT_MAX),
        clear_style_prompt=st.booleans(),
        language=st.none() | st.sampled_from(sorted(LANGUAGES)),
        dialect=st.none() | st.sampled_from(sorted(DIALECTS)),
    )
    if not invalid:
        return valid
    return broken(
        valid,
        field("mode", st.sampled_from(["robot", "", "PRESET"])),
        field("preset_voice", st.sampled_from(["Nobody", "", "hal-9000"])),
        field("preset_language", st.sampled_from(["fr", "english", "ar_SA", "x"])),
        st.tuples(too_long(STYLE_PROMPT_MAX)).map(lambda t: {"preset_style_prompt": t[0], "clear_style_prompt": False}),
        field("language", st.sampled_from(["fr", "", "arabic"])),
        field("dialect", st.sampled_from(["klingon", "", "xx"])),
    )


def speech_texts(*, invalid: bool = False) -> st.SearchStrategy[str]:
    """`POST /voice/tts` texts (short, so drawing many stays cheap); `invalid=True` draws blank text
    or text over the limit."""
    if not invalid:
        return texts(200)
    return st.sampled_from(["", "   ", "\n"]) | too_long(TEXT_MAX)
