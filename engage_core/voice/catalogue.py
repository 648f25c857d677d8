"""The built-in voices, the dialects and the languages of the voice API (SPEC 2 Voice settings).

Every built-in voice speaks Arabic and English. Offline, each is one espeak-ng variant (`variant`)
with its own pitch and speed, so that two voices never sound alike; docs/voice.md lists the mapping.
A production synthesizer may map the names to its own voices (`engage_connectors.voice`).
"""

from __future__ import annotations

import attrs

FEMALE = "female"
MALE = "male"
GENDERS = (FEMALE, MALE)

LANGUAGES: dict[str, str] = {"ar": "Arabic", "en": "English"}
"""The languages the voices speak, by ISO 639-1 code."""

MSA = "arb"
ENGLISH_DIALECT = "en"
DIALECTS: dict[str, str] = {
    "arb": "Modern Standard Arabic",
    "ksa": "Saudi Arabic",
    "egy": "Egyptian Arabic",
    "leb": "Lebanese Arabic",
    "syr": "Syrian Arabic",
    "jor": "Jordanian Arabic",
    "irq": "Iraqi Arabic",
    "uae": "Emirati Arabic",
    "bah": "Bahraini Arabic",
    "qat": "Qatari Arabic",
    "pls": "Palestinian Arabic",
    "msa": "Formal Modern Standard Arabic",
    "en": "English",
}
"""SPEC 2's dialect codes, with a label."""


@attrs.frozen
class BuiltinVoice:
    """A preset voice: its public entry (`name`, `gender`, `tags`, `languages`) and the offline
    engine's rendering of it (an espeak-ng variant, a pitch 0-99 and a speed in words per minute)."""

    name: str
    gender: str
    tags: tuple[str, ...]
    variant: str
    pitch: int
    speed: int
    languages: tuple[str, ...] = ("ar", "en")


def _v(name: str, gender: str, tags: str, variant: str, pitch: int, speed: int) -> BuiltinVoice:
    return BuiltinVoice(name, gender, tuple(tags.split()), variant, pitch, speed)


VOICES: tuple[BuiltinVoice, ...] = (
    _v("Layla", FEMALE, "warm conversational", "f1", 55, 165),
    _v("Noura", FEMALE, "calm professional", "f2", 48, 155),
    _v("Sara", FEMALE, "friendly upbeat", "f3", 62, 175),
    _v("Maha", FEMALE, "clear narrator", "f4", 50, 150),
    _v("Huda", FEMALE, "soft soothing", "f5", 45, 140),
    _v("Rania", FEMALE, "energetic promotional", "Alicia", 60, 185),
    _v("Dana", FEMALE, "confident professional", "Andrea", 52, 165),
    _v("Yasmin", FEMALE, "bright friendly", "Annie", 65, 170),
    _v("Lina", FEMALE, "gentle conversational", "anika", 50, 160),
    _v("Salma", FEMALE, "mature trustworthy", "aunty", 42, 150),
    _v("Reem", FEMALE, "youthful casual", "belinda", 68, 180),
    _v("Hala", FEMALE, "polished formal", "linda", 50, 155),
    _v("Amal", FEMALE, "warm storyteller", "steph", 56, 150),
    _v("Mariam", FEMALE, "quiet intimate", "whisperf", 50, 145),
    _v("Omar", MALE, "deep authoritative", "m1", 35, 155),
    _v("Khalid", MALE, "calm professional", "m2", 40, 160),
    _v("Faisal", MALE, "friendly conversational", "m3", 45, 170),
    _v("Tariq", MALE, "clear narrator", "m4", 38, 150),
    _v("Yousef", MALE, "warm reassuring", "m5", 42, 155),
    _v("Hamza", MALE, "energetic promotional", "m6", 50, 185),
    _v("Ali", MALE, "steady formal", "m7", 36, 150),
    _v("Saad", MALE, "bright upbeat", "m8", 48, 175),
    _v("Ahmed", MALE, "confident professional", "Andy", 40, 165),
    _v("Majed", MALE, "relaxed casual", "Lee", 44, 160),
    _v("Nasser", MALE, "mature trustworthy", "Henrique", 34, 145),
    _v("Ziad", MALE, "youthful friendly", "Hugo", 52, 175),
    _v("Karim", MALE, "smooth storyteller", "Marco", 40, 150),
    _v("Sami", MALE, "crisp announcer", "antonio", 46, 170),
    _v("Adel", MALE, "gentle soothing", "michel", 38, 140),
    _v("Bilal", MALE, "lively conversational", "miguel", 50, 180),
)
"""14 female and 16 male voices (SPEC 2)."""

_BY_NAME = {voice.name.casefold(): voice for voice in VOICES}


def voice_named(name: str) -> BuiltinVoice | None:
    """The built-in voice `name` (any case), or None."""
    return _BY_NAME.get(name.strip().casefold())
