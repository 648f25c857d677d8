"""Voice engines: espeak-ng offline, an OpenAI-compatible `/audio/speech` service, an HTTP cloning
provider, m4a (AAC) encoding and clone-sample checks with PyAV."""

from engage_connectors.voice.samples import AvSampleProber
from engage_connectors.voice.wiring import cloner_for, synthesizer_for

__all__ = ["AvSampleProber", "cloner_for", "synthesizer_for"]
