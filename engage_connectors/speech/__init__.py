"""Voice notes: decoding with PyAV, and speech to text offline (pocketsphinx, English) or by an
OpenAI-compatible service. Needs the `voice` extra (`av`, `pocketsphinx`)."""

from engage_connectors.speech.decoding import AvAudioProber
from engage_connectors.speech.wiring import transcriber_for

__all__ = ["AvAudioProber", "transcriber_for"]
