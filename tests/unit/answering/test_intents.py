"""Small talk and requests for a person."""

from __future__ import annotations

import pytest

from engage_core.answering.intents import asks_for_a_person, small_talk


@pytest.mark.parametrize(
    ("message", "kind"),
    [
        ("Hi!", "greeting"),
        ("Good morning", "greeting"),
        ("مرحبا", "greeting"),
        ("thanks a lot", "thanks"),
        ("great, thanks", "thanks"),
        ("شكراً", "thanks"),
        ("ok bye", "farewell"),
        ("That's all, thanks", "farewell"),
    ],
)
def test_small_talk_is_recognised(message: str, kind: str) -> None:
    """Greetings, thanks and goodbyes, in a few languages."""
    assert small_talk(message) == kind


@pytest.mark.parametrize("message", ["Hi, do you ship to Canada?", "Is it good?", "great", "", "refund"])
def test_questions_are_not_small_talk(message: str) -> None:
    """A message with any other word, or only a filler word, is a question."""
    assert small_talk(message) is None


@pytest.mark.parametrize(
    "message",
    ["Can I talk to a human?", "I want a real agent", "Human!", "agent please", "I need to speak with someone"],
)
def test_a_request_for_a_person_is_recognised(message: str) -> None:
    """A way to reach someone followed by a person, or a person alone."""
    assert asks_for_a_person(message)


@pytest.mark.parametrize(
    "message", ["Do your staff speak Arabic?", "Is there a human I can call?", "Where is my order?"]
)
def test_questions_about_people_are_not_requests_for_one(message: str) -> None:
    """A person named before the way to reach one is a question."""
    assert not asks_for_a_person(message)
