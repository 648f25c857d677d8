"""The OpenAI-compatible transcriber against a local fake service on 127.0.0.1: the multipart request,
the key, and how answers and silences map to failures."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from email.message import EmailMessage
from email.parser import BytesParser
from email.policy import HTTP

import attrs
import pytest
from loopback import Closing, LoopbackHandler, LoopbackServer
from voice_notes import ENGLISH_SENTENCE, encode, speak

from engage_connectors.speech.openai_compatible import OpenAICompatibleTranscriber
from engage_core.knowledge.transcription import AudioFormat, TranscriptionFailed

KEY = "sk-test-transcription-key-1234"


@attrs.define
class Received:
    """One request as the fake service saw it."""

    path: str
    headers: dict[str, str]
    fields: dict[str, str]
    file_name: str | None
    file_type: str | None
    file_bytes: bytes | None


class FakeTranscriptionService(Closing):
    """Answers `POST /v1/audio/transcriptions` with `status` and `body`, or after `delay` seconds."""

    def __init__(self) -> None:
        self.status = 200
        self.body: object = {"text": "  Please call me   tomorrow. "}
        self.delay = 0.0
        self.received: list[Received] = []
        server = _Server(_Handler)
        server.fake = self
        server.start()
        self._server = server
        self.base_url = f"http://127.0.0.1:{server.port}/v1"

    def close(self) -> None:
        self._server.close()


class _Server(LoopbackServer):
    fake: FakeTranscriptionService


class _Handler(LoopbackHandler):
    server: _Server

    def handle_request(self) -> None:
        fake = self.server.fake
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        fake.received.append(_parse(self.path, dict(self.headers.items()), body))
        if fake.delay and self.server.closed.wait(fake.delay):
            return
        answer = json.dumps(fake.body).encode()
        self.send_response(fake.status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)


def _parse(path: str, headers: dict[str, str], body: bytes) -> Received:
    """The multipart form: plain fields, and the one file part."""
    head = f"Content-Type: {headers.get('Content-Type', '')}\r\n\r\n".encode()
    message = BytesParser(policy=HTTP).parsebytes(head + body)
    assert isinstance(message, EmailMessage)
    fields: dict[str, str] = {}
    file_part: EmailMessage | None = None
    for part in message.iter_parts():
        assert isinstance(part, EmailMessage)
        name = part.get_param("name", header="content-disposition")
        if part.get_filename() is not None:
            file_part = part
        else:
            fields[str(name)] = part.get_content().strip()
    return Received(
        path=path,
        headers={key.lower(): value for key, value in headers.items()},
        fields=fields,
        file_name=file_part.get_filename() if file_part else None,
        file_type=file_part.get_content_type() if file_part else None,
        file_bytes=file_part.get_payload(decode=True) if file_part else None,
    )


@pytest.fixture
def service() -> Iterator[FakeTranscriptionService]:
    with FakeTranscriptionService() as fake:
        yield fake


@pytest.fixture
def note() -> bytes:
    return encode(speak(ENGLISH_SENTENCE), AudioFormat.OGG)


@pytest.fixture
def transcriber(service: FakeTranscriptionService) -> Iterator[OpenAICompatibleTranscriber]:
    made = OpenAICompatibleTranscriber(service.base_url, KEY, model="whisper-large-v3")
    yield made
    made.close()


def test_the_note_is_posted_as_multipart_with_model_language_and_format(
    service: FakeTranscriptionService, transcriber: OpenAICompatibleTranscriber, note: bytes
) -> None:
    """The request goes to `/audio/transcriptions` with model, language and response_format=json."""
    transcriber.transcribe(note, language="ar")
    [request] = service.received
    assert request.path == "/v1/audio/transcriptions"
    assert request.headers["content-type"].startswith("multipart/form-data")
    assert request.fields == {"model": "whisper-large-v3", "language": "ar", "response_format": "json"}


def test_the_file_part_carries_the_note_named_by_its_detected_format(
    service: FakeTranscriptionService, transcriber: OpenAICompatibleTranscriber, note: bytes
) -> None:
    """The file part is the uploaded bytes, named and typed by the format found in them."""
    transcriber.transcribe(note, language=None)
    [request] = service.received
    assert request.file_bytes == note
    assert request.file_name == "voice-note.ogg"
    assert request.file_type == "audio/ogg"
    assert "language" not in request.fields


def test_the_key_is_sent_as_a_bearer_token(
    service: FakeTranscriptionService, transcriber: OpenAICompatibleTranscriber, note: bytes
) -> None:
    """The key goes in `Authorization: Bearer`."""
    transcriber.transcribe(note, language="en")
    assert service.received[0].headers["authorization"] == f"Bearer {KEY}"


def test_no_key_sends_no_authorization(service: FakeTranscriptionService, note: bytes) -> None:
    """Without a key (a self-hosted server) no Authorization header is sent."""
    transcriber = OpenAICompatibleTranscriber(service.base_url, None)
    try:
        transcriber.transcribe(note, language="en")
    finally:
        transcriber.close()
    assert "authorization" not in service.received[0].headers


def test_the_answer_becomes_the_transcript(transcriber: OpenAICompatibleTranscriber, note: bytes) -> None:
    """The answer's text (whitespace tidied), the asked language and the decoded duration."""
    transcript = transcriber.transcribe(note, language="en")
    assert transcript.text == "Please call me tomorrow."
    assert transcript.language == "en"
    assert 3.0 < transcript.duration_seconds < 4.5


def test_401_means_the_key_was_refused_and_the_key_is_never_shown(
    service: FakeTranscriptionService,
    transcriber: OpenAICompatibleTranscriber,
    note: bytes,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A 401 is "the transcription service refused the key", not retryable; the key is in no
    message or log line."""
    service.status, service.body = 401, {"error": {"message": f"Incorrect API key provided: {KEY}"}}
    with caplog.at_level(logging.DEBUG), pytest.raises(TranscriptionFailed) as failed:
        transcriber.transcribe(note, language="en")
    assert "the transcription service refused the key" in failed.value.reason
    assert not failed.value.retryable
    assert KEY not in failed.value.reason
    assert KEY not in caplog.text


def test_500_is_a_retryable_failure(
    service: FakeTranscriptionService, transcriber: OpenAICompatibleTranscriber, note: bytes
) -> None:
    """A 5xx answer is a retryable failure saying the service is unavailable."""
    service.status, service.body = 500, {"error": {"message": "internal"}}
    with pytest.raises(TranscriptionFailed, match="unavailable") as failed:
        transcriber.transcribe(note, language="en")
    assert failed.value.retryable


def test_a_refusal_carries_the_services_message(
    service: FakeTranscriptionService, transcriber: OpenAICompatibleTranscriber, note: bytes
) -> None:
    """A 400 is not retryable and quotes the service's own error message."""
    service.status, service.body = 400, {"error": {"message": "Unsupported language: xx"}}
    with pytest.raises(
        TranscriptionFailed, match=r"refused the voice note \(400\): Unsupported language: xx"
    ) as failed:
        transcriber.transcribe(note, language="xx")
    assert not failed.value.retryable


def test_a_service_that_does_not_answer_in_time_is_a_retryable_failure(
    service: FakeTranscriptionService, note: bytes
) -> None:
    """No answer within the timeout is a retryable failure."""
    service.delay = 30.0
    transcriber = OpenAICompatibleTranscriber(service.base_url, KEY, timeout=0.5)
    try:
        with pytest.raises(TranscriptionFailed, match=r"no answer within 0\.5 s") as failed:
            transcriber.transcribe(note, language="en")
    finally:
        transcriber.close()
    assert failed.value.retryable


def test_an_answer_without_text_is_unreadable(
    service: FakeTranscriptionService, transcriber: OpenAICompatibleTranscriber, note: bytes
) -> None:
    """A 200 whose JSON has no `text` is a failure, not an empty transcript."""
    service.body = {"transcript": "elsewhere"}
    with pytest.raises(TranscriptionFailed, match="could not be read"):
        transcriber.transcribe(note, language="en")


def test_a_file_that_is_not_audio_never_reaches_the_service(
    service: FakeTranscriptionService, transcriber: OpenAICompatibleTranscriber
) -> None:
    """Text named like audio is refused locally; the service sees no request."""
    with pytest.raises(TranscriptionFailed, match="not audio"):
        transcriber.transcribe(b"just some text, not a recording\n" * 50, language="en")
    assert service.received == []
