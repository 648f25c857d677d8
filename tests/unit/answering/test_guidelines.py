"""Response guidelines as the engine reads them (leniently) and as a writer checks them."""

from __future__ import annotations

from engage_core.answering.guidelines import MAX_REPLY_MAX, MAX_REPLY_MIN, Guidelines, problems


def test_the_guardrail_keys_and_the_rules_are_read() -> None:
    """`max_reply_chars` and `refused_topics` are guardrails; other keys are rules, as text."""
    read = Guidelines.of(
        {"language": "Arabic", "max_reply_chars": 300, "refused_topics": ["politics"], "emoji": False, "tone": None}
    )

    assert read == Guidelines(300, ("politics",), (("language", "Arabic"), ("emoji", "false")))


def test_a_limit_out_of_bounds_is_brought_within_them() -> None:
    """Too small is the minimum, too large the maximum; not an integer is no limit."""
    assert Guidelines.of({"max_reply_chars": 3}).max_reply_chars == MAX_REPLY_MIN
    assert Guidelines.of({"max_reply_chars": 10**6}).max_reply_chars == MAX_REPLY_MAX
    assert Guidelines.of({"max_reply_chars": "300"}).max_reply_chars is None
    assert Guidelines.of({"max_reply_chars": True}).max_reply_chars is None


def test_topics_are_read_leniently() -> None:
    """One string is one topic; blanks and non-strings are dropped."""
    assert Guidelines.of({"refused_topics": "politics"}).refused_topics == ("politics",)
    assert Guidelines.of({"refused_topics": [" ", 3, " religion "]}).refused_topics == ("religion",)
    assert Guidelines.of({"refused_topics": {"a": 1}}).refused_topics == ()


def test_problems_name_the_bad_guardrails() -> None:
    """A stricter writer is told which keys it would refuse."""
    assert problems({"max_reply_chars": 10, "refused_topics": "politics", "tone": "warm"}) == {
        "response_guidelines.max_reply_chars": ["The max_reply_chars must be an integer from 50 to 4000."],
        "response_guidelines.refused_topics": [
            "The refused_topics must be a list of topics, each 1 to 200 characters."
        ],
    }
    assert problems({"max_reply_chars": 500, "refused_topics": ["politics"]}) == {}
