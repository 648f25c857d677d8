"""Guardrails: refused topics, sentences, and cutting a reply to its length limit."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from engage_core.answering.guardrails import ELLIPSIS, fit, refused_topic, sentences


def test_a_topic_is_refused_when_every_word_of_it_is_there() -> None:
    """ "competitor prices" refuses a message holding both words, as written or by their stem."""
    assert refused_topic("What are your competitors' prices?", ["politics", "competitor prices"]) == "competitor prices"


def test_a_message_with_part_of_a_topic_is_not_refused() -> None:
    """ "What are your prices?" is not about competitor prices."""
    assert refused_topic("What are your prices?", ["competitor prices"]) is None


def test_a_topic_of_stop_words_refuses_nothing() -> None:
    """A topic without a meaningful word is ignored."""
    assert refused_topic("What is this?", ["what is"]) is None


def test_sentences_split_at_ends_and_line_breaks() -> None:
    """Sentence ends followed by space, and line breaks, split; list markers go; decimals stay whole."""
    text = "It costs 9.99 USD. Really!\n- Free returns\n2) Fast shipping؟ Yes"

    assert sentences(text) == ["It costs 9.99 USD.", "Really!", "Free returns", "Fast shipping؟", "Yes"]


def test_a_reply_within_the_limit_is_kept() -> None:
    """Nothing is cut from a reply that fits (or has no limit)."""
    assert fit(" Short. ", 50) == "Short."
    assert fit("x" * 5000, None) == "x" * 5000


def test_whole_sentences_are_kept() -> None:
    """The sentences that fit, whole."""
    assert fit("One sentence here. Another one there. A third.", 40) == "One sentence here. Another one there."


def test_a_first_sentence_too_long_is_cut_at_a_word() -> None:
    """When no sentence fits, the text is cut at a word boundary, with an ellipsis."""
    assert fit("A very long first sentence without any end in sight", 20) == "A very long first" + ELLIPSIS


@given(st.text(min_size=1, max_size=400), st.integers(min_value=50, max_value=200))
def test_a_fitted_reply_is_never_longer_than_the_limit(reply: str, limit: int) -> None:
    """Whatever the text, the result fits the limit."""
    assert len(fit(reply, limit)) <= limit
