"""Benchmark: the real-time factor of the offline speech engine (espeak-ng, encoded to m4a by PyAV).

    .venv/bin/python -m bench.voice [--repeats 5] [--voice Layla]

For an English and an Arabic passage of a few sentences each, synthesises `--repeats` times and
reports the real-time factor: the wall time the synthesis took (espeak-ng, then encoding to AAC)
over the duration of the audio it produced. Below 1 is faster than real time; the lower, the more
TTS requests a core serves. The encoding's own real-time factor is reported beside it, from
re-encoding espeak-ng's WAV of the same passage. A ratio, never a timed assertion: it depends on the machine.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import time

from engage_connectors.voice.encoding import to_m4a
from engage_connectors.voice.espeak import EspeakSynthesizer
from engage_core.voice.catalogue import voice_named
from engage_core.voice.ports import SpeechRequest

PASSAGES = {
    "en": (
        "Thank you for contacting us. Your order has been confirmed and will be delivered on Thursday "
        "morning. If you need to change the address or the time, reply to this message and a member of "
        "our team will help you right away."
    ),
    "ar": (
        "شكرا لتواصلك معنا. تم تأكيد طلبك وسيتم توصيله صباح يوم الخميس. إذا كنت ترغب في تغيير العنوان "
        "أو الموعد، يرجى الرد على هذه الرسالة وسيساعدك أحد أعضاء فريقنا على الفور."
    ),
}


def measure(language: str, voice: str, repeats: int) -> tuple[float, float, float]:
    """(median real-time factor, audio seconds, median real-time factor of the encoding alone)."""
    synthesizer = EspeakSynthesizer()
    request = SpeechRequest(PASSAGES[language], language, "arb" if language == "ar" else "en", voice_named(voice))
    factors, audio = [], 0.0
    for _ in range(repeats):
        started = time.perf_counter()
        speech = synthesizer.synthesize(request)
        factors.append((time.perf_counter() - started) / speech.duration_seconds)
        audio = speech.duration_seconds
    spoken = voice_named(voice)
    assert spoken is not None
    wav = subprocess.run(
        ["espeak-ng", "-v", f"{'ar' if language == 'ar' else 'en-us'}+{spoken.variant}", "--stdout"],
        input=PASSAGES[language].encode(),
        capture_output=True,
        check=True,
    ).stdout
    encoding = []
    for _ in range(repeats):
        started = time.perf_counter()
        encoded = to_m4a(wav, "wav")
        encoding.append((time.perf_counter() - started) / encoded.duration_seconds)
    return statistics.median(factors), audio, statistics.median(encoding)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--voice", default="Layla")
    args = parser.parse_args()
    print(f"espeak-ng + PyAV AAC, voice {args.voice}, {args.repeats} runs each (median)")
    for language in PASSAGES:
        factor, audio, encoding = measure(language, args.voice, args.repeats)
        print(
            f"{language}: {audio:5.1f} s of audio, real-time factor {factor:.3f} "
            f"({1 / factor:.0f}x faster than real time); AAC encoding alone {encoding:.3f}"
        )


if __name__ == "__main__":
    main()
