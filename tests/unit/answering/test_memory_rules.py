"""The offline memory rules (`self_statements`): explicit self-statements in English and Arabic,
and nothing from questions or vague values."""

from __future__ import annotations

import pytest

from engage_core.answering.memory import self_statements


@pytest.mark.parametrize(
    ("message", "facts"),
    [
        ("Hi, my name is Sara Ali and I live in Dubai.", ("Name: Sara Ali", "Lives in Dubai")),
        ("I'm called Omar", ("Name: Omar",)),
        ("I prefer email over phone calls, thanks", ("Prefers email over phone calls",)),
        ("I'd prefer mornings", ("Prefers mornings",)),
        ("I'm from Cairo. I am allergic to peanuts!", ("From Cairo", "Allergic to peanuts")),
        ("I don't like spicy food", ("Dislikes spicy food",)),
        ("I speak French", ("Speaks French",)),
        ("My email is sara@example.com.", ("Email: sara@example.com",)),
        ("اسمي أحمد وأسكن في الرياض", ("الاسم: أحمد", "يسكن في الرياض")),
        ("أنا من جدة", ("من جدة",)),
        ("أفضل التواصل عبر واتساب", ("يفضّل التواصل عبر واتساب",)),
    ],
)
def test_a_statement_becomes_a_fact(message: str, facts: tuple[str, ...]) -> None:
    """Each explicit statement gives its fact, in the order written."""
    assert self_statements(message) == facts


@pytest.mark.parametrize(
    "message",
    ["What is my name?", "Do I prefer tea?", "I like it", "When do you open?", "ما اسمي؟", ""],
)
def test_nothing_is_inferred(message: str) -> None:
    """Questions, vague values and other messages state no fact."""
    assert self_statements(message) == ()


def test_a_long_value_is_cut_to_eight_words() -> None:
    """A value runs to the end of its clause, at most eight words."""
    [fact] = self_statements("I prefer one two three four five six seven eight nine ten")

    assert fact == "Prefers one two three four five six seven eight"
