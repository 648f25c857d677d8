"""`PocketsphinxTranscriber`: offline English speech to text with the model in the pocketsphinx wheel.

English only: pocketsphinx ships the US English acoustic model, language model and dictionary, and no
offline model for Arabic (or another language) exists in any package, so any other `language` is
refused with a message that names the service setting. With `language` None it assumes English; it
cannot detect a language.

Thread safety and cost, measured on 2 busy cores: a decoder takes 0.4-0.9 s and about 95 MB to
build (it loads the model), and recognition runs at about 0.15-0.5x real time (a 3.6 s sentence in
0.5-1.8 s). A decoder holds one utterance's state, so it is never shared between calls. One decoder
per call would pay the build every time and let memory grow with concurrent uploads; one decoder
behind a lock would make every upload wait for all the others. So built decoders are pooled: a call
takes an idle one or builds one, and at most `max_concurrent` calls recognise at once (the others
wait), which bounds memory to `max_concurrent` decoders.

Recognition cannot be interrupted once started: its time is bounded by the duration cap
(`max_seconds`), checked while decoding, before any recognition starts.
"""

from __future__ import annotations

import threading
from typing import Any

from engage_connectors.speech.decoding import DEFAULT_DECODE_SECONDS, SAMPLE_RATE, Pcm, decode_pcm
from engage_core.knowledge.transcription import (
    DEFAULT_MAX_VOICE_NOTE_SECONDS,
    VOICE_NOTE_MAX_BYTES,
    AudioInput,
    Transcript,
    TranscriptionFailed,
)

LANGUAGE = "en"
DEFAULT_MAX_CONCURRENT = 2


class PocketsphinxTranscriber:
    """`Transcriber` for English, offline. Thread-safe (see the module docstring)."""

    def __init__(
        self,
        *,
        max_seconds: float = DEFAULT_MAX_VOICE_NOTE_SECONDS,
        decode_seconds: float = DEFAULT_DECODE_SECONDS,
        max_concurrent: int = DEFAULT_MAX_CONCURRENT,
        max_bytes: int = VOICE_NOTE_MAX_BYTES,
    ) -> None:
        if max_seconds <= 0 or decode_seconds <= 0 or max_concurrent < 1:
            raise ValueError("Limits must be positive and max_concurrent at least 1.")
        # Imported here so that a deployment without the `voice` extra can import this package.
        import pocketsphinx

        self._pocketsphinx: Any = pocketsphinx
        self._max_seconds = max_seconds
        self._decode_seconds = decode_seconds
        self._max_bytes = max_bytes
        self._slots = threading.BoundedSemaphore(max_concurrent)
        self._idle: list[Any] = []
        self._idle_lock = threading.Lock()

    def __repr__(self) -> str:
        return f"PocketsphinxTranscriber(language={LANGUAGE!r}, max_seconds={self._max_seconds})"

    def transcribe(self, audio: AudioInput, *, language: str | None) -> Transcript:
        if language is not None and language.lower() != LANGUAGE:
            raise TranscriptionFailed.no_offline_model(language)
        pcm = decode_pcm(
            audio, max_seconds=self._max_seconds, decode_seconds=self._decode_seconds, max_bytes=self._max_bytes
        )
        with self._slots:
            decoder = self._take_decoder()
            # A decoder that raised mid-utterance is dropped rather than given back.
            text = self._recognise(decoder, pcm)
            self._give_back(decoder)
        if not text:
            raise TranscriptionFailed.no_speech()
        return Transcript(text=text, language=LANGUAGE, duration_seconds=pcm.duration_seconds)

    def _recognise(self, decoder: Any, pcm: Pcm) -> str:
        decoder.start_utt()
        # The whole note as one utterance (full_utt): cepstral normalisation then uses the note's
        # own mean, so a pooled decoder's earlier notes cannot change the transcript, as they do in
        # live mode (fed in chunks, a reused decoder got the sentence right and a fresh one did not).
        decoder.process_raw(pcm.samples, no_search=False, full_utt=True)
        decoder.end_utt()
        hypothesis = decoder.hyp()
        return " ".join(hypothesis.hypstr.split()) if hypothesis is not None else ""

    def _take_decoder(self) -> Any:
        with self._idle_lock:
            if self._idle:
                return self._idle.pop()
        return self._pocketsphinx.Decoder(samprate=SAMPLE_RATE, loglevel="FATAL")

    def _give_back(self, decoder: Any) -> None:
        with self._idle_lock:
            self._idle.append(decoder)
