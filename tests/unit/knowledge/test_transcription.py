"""The transcription port's user-facing failures and the in-memory fake transcriber."""

from __future__ import annotations

from pathlib import Path

import pytest

from engage_core.knowledge.transcription import TranscriptionFailed, language_label
from engage_core.knowledge.transcription_fakes import FakeTranscriber


def test_a_missing_offline_model_names_the_language_and_the_setting() -> None:
    """The message names the language in words and code, and the setting that fixes it."""
    assert str(TranscriptionFailed.no_offline_model("ar")) == (
        "No offline speech model exists for Arabic (ar): "
        "configure ENGAGE_TRANSCRIPTION_URL for an OpenAI-compatible service"
    )


def test_an_unnamed_language_is_shown_as_its_code() -> None:
    """A code without a name here is shown as it is."""
    assert language_label("sw") == "sw"


@pytest.mark.parametrize(("seconds", "shown"), [(600, "10 minutes"), (60, "1 minute"), (90, "90 seconds")])
def test_the_duration_limit_is_said_in_minutes_when_whole(seconds: float, shown: str) -> None:
    """Whole minutes are said in minutes, anything else in seconds."""
    assert str(TranscriptionFailed.too_long(seconds)) == f"The voice note is longer than {shown}"


def test_service_trouble_is_retryable_and_a_refused_key_is_not() -> None:
    """Only failures that may pass later are marked retryable."""
    assert TranscriptionFailed.service_unavailable("status 503").retryable
    assert not TranscriptionFailed.service_refused_key().retryable


def test_the_fake_returns_its_text_and_records_the_call() -> None:
    """The fake answers with its text and remembers the bytes and language."""
    fake = FakeTranscriber(text="Opening hours are nine to five.")
    transcript = fake.transcribe(b"note", language=None)
    assert (transcript.text, transcript.language) == ("Opening hours are nine to five.", "en")
    assert fake.calls == [(b"note", None)]


def test_the_fake_reads_a_path(tmp_path: Path) -> None:
    """A path is read, and particular bytes get their own text."""
    path = tmp_path / "note.ogg"
    path.write_bytes(b"second note")
    fake = FakeTranscriber(texts={b"second note": "The second note."})
    assert fake.transcribe(path, language="en").text == "The second note."


def test_the_fake_refuses_a_language_it_lacks() -> None:
    """Like the offline transcriber, the fake refuses a language outside its own."""
    with pytest.raises(TranscriptionFailed, match=r"Arabic \(ar\)"):
        FakeTranscriber().transcribe(b"note", language="ar")


def test_the_fake_raises_the_failure_it_is_given() -> None:
    """`fail_with` makes every later call fail with that failure."""
    fake = FakeTranscriber()
    fake.fail_with(TranscriptionFailed.service_unavailable("status 502"))
    with pytest.raises(TranscriptionFailed) as failed:
        fake.transcribe(b"note", language="en")
    assert failed.value.retryable
