"""Splitting text into chunks: sections, boundaries, overlap, records and keywords."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engage_core.knowledge.chunking import (
    DEFAULT_OVERLAP,
    ChunkDraft,
    chunk_records,
    chunk_text,
    keywords,
    record_text,
)

WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyzابتثجحخدرسشصط", min_size=1, max_size=15)
SEPARATOR = st.sampled_from([" ", " ", " ", ". ", ", ", "، ", "؟ ", "\n", "\n\n", "! "])
TEXT = st.lists(st.tuples(WORD, SEPARATOR), max_size=400).map(lambda parts: "".join(w + s for w, s in parts))
SIZE = st.integers(min_value=80, max_value=1200)


def _without_overlap(chunks: list[ChunkDraft]) -> str:
    return " ".join(chunk.content[chunk.overlap :] for chunk in chunks)


@given(TEXT, SIZE)
@settings(max_examples=150, deadline=None)
def test_chunks_reproduce_every_word_in_order(text: str, size: int) -> None:
    """Without their overlaps, the chunks hold exactly the text's words, in order."""
    chunks = chunk_text(text, size=size, overlap=size // 10)

    assert _without_overlap(chunks).split() == text.split()


@given(TEXT, SIZE)
@settings(max_examples=150, deadline=None)
def test_chunks_never_exceed_the_size(text: str, size: int) -> None:
    """Every chunk, overlap included, is at most `size` characters and never empty."""
    chunks = chunk_text(text, size=size, overlap=size // 10)

    assert all(0 < chunk.char_count <= size for chunk in chunks)


@given(TEXT)
@settings(max_examples=100, deadline=None)
def test_indexes_are_consecutive_and_totals_agree(text: str) -> None:
    """chunk_index runs 0..n-1 and every chunk's total_chunks is n."""
    chunks = chunk_text(text, size=200, overlap=20)

    assert [(c.chunk_index, c.total_chunks) for c in chunks] == [(i, len(chunks)) for i in range(len(chunks))]


@given(TEXT)
@settings(max_examples=50, deadline=None)
def test_chunking_is_deterministic(text: str) -> None:
    """The same text always gives the same chunks."""
    assert chunk_text(text, title="T", size=150, overlap=15) == chunk_text(text, title="T", size=150, overlap=15)


def test_overlap_repeats_whole_words_from_the_previous_chunk() -> None:
    """A chunk after the first starts with the end of the one before, cut at a word."""
    text = " ".join(f"word{i}" for i in range(400))

    first, second = chunk_text(text)[:2]

    assert first.content.endswith(second.content[: second.overlap - 1])
    assert 0 < second.overlap <= DEFAULT_OVERLAP + 1 and second.content[second.overlap - 1] == " "


def test_a_chunk_ends_at_a_paragraph_when_one_is_near() -> None:
    """Two paragraphs that fit one chunk each are not split mid-sentence."""
    one = "First paragraph sentence. " * 25
    two = "Second paragraph sentence. " * 25

    chunks = chunk_text(f"{one}\n\n{two}", size=800, overlap=0)

    assert [c.content for c in chunks] == [one.strip(), two.strip()]


def test_a_chunk_ends_after_an_arabic_question_mark() -> None:
    """`؟` counts as a sentence end."""
    sentence = "هل يمكن إرجاع المنتج بعد أسبوعين من الشراء؟ "
    chunks = chunk_text(sentence * 10, size=200, overlap=0)

    assert all(c.content.endswith("؟") for c in chunks[:-1])


def test_headings_open_sections_and_form_the_context_header() -> None:
    """Markdown headings become the heading path after the entry title."""
    text = "# Refunds\nMoney back in 14 days.\n## Store credit\nCredit never expires.\n# Exchanges\nSwap any size."

    chunks = chunk_text(text, title="Returns policy")

    assert [(c.context_header, c.content) for c in chunks] == [
        ("Returns policy > Refunds", "Money back in 14 days."),
        ("Returns policy > Refunds > Store credit", "Credit never expires."),
        ("Returns policy > Exchanges", "Swap any size."),
    ]


def test_blank_text_has_no_chunks() -> None:
    """Whitespace alone makes no chunk."""
    assert chunk_text("  \n\n ") == []


def test_each_record_is_a_chunk_of_its_own() -> None:
    """Short records are never merged."""
    records = [record_text({"product_name": "Tea", "price": 2.5}), record_text({"product_name": "Mint", "sku": None})]

    chunks = chunk_records(records, title="Menu")

    assert [(c.content, c.context_header) for c in chunks] == [
        ("product_name: Tea\nprice: 2.5", "Menu"),
        ("product_name: Mint", "Menu"),
    ]


def test_a_long_record_is_split() -> None:
    """A record longer than the size becomes several bounded chunks."""
    chunks = chunk_records(["description: " + "very long text " * 100], size=300, overlap=30)

    assert len(chunks) > 1 and all(c.char_count <= 300 for c in chunks)


def test_keywords_prefer_terms_particular_to_the_chunk() -> None:
    """A term every chunk shares ranks below one only this chunk has; stop words never appear."""
    found = keywords(["the shop sells green tea", "the shop sells coffee beans"])

    assert found[0][0] == "green" and "shop" in found[0] and "the" not in found[0]


def test_keywords_drop_arabic_stop_words() -> None:
    """Arabic function words are not keywords."""
    (found,) = keywords(["هل يمكن الشحن إلى جدة في نفس اليوم"])

    assert set(found) == {"الشحن", "جدة", "نفس", "اليوم"}


def test_keywords_are_at_most_eight() -> None:
    """A long chunk still has eight keywords at most."""
    (found,) = keywords([" ".join(f"term{i}" for i in range(50))])

    assert len(found) == 8


def test_a_size_too_small_is_refused() -> None:
    """A chunk size under 50 characters is a programming error."""
    with pytest.raises(ValueError, match="size must be at least 50"):
        chunk_text("text", size=10)
