"""The cloning provider of an installation without one: every clone is refused, never faked."""

from __future__ import annotations

from typing import BinaryIO, NoReturn

from engage_core.voice.model import ClonedVoice
from engage_core.voice.ports import CloningUnavailable, Speech, SpeechRequest

NO_CLONING_ENGINE = (
    "Voice cloning needs a cloning provider, and none is configured: set ENGAGE_VOICE_CLONE_URL. "
    "The recording was kept; the built-in voices work without one."
)


class NoCloningEngine:
    """The `VoiceCloner` offline: `CloningUnavailable` for every call."""

    @property
    def configured(self) -> bool:
        return False

    def clone(self, sample: BinaryIO, filename: str, request: ClonedVoice) -> str:
        self._refuse()

    def preload(self, voice_id: str) -> None:
        self._refuse()

    def synthesize(self, voice_id: str, request: SpeechRequest) -> Speech:
        self._refuse()

    def delete(self, voice_id: str) -> None:
        return None

    @staticmethod
    def _refuse() -> NoReturn:
        raise CloningUnavailable(NO_CLONING_ENGINE)
